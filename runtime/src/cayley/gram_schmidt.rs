//! Square-root-free modified Gram–Schmidt on `I + C`: accurate wherever the Cayley transform is
//! defined.

use nalgebra::SMatrix;

use crate::orthogonal::skew_from_upper;
use crate::{Field, OrthogonalMap, scalar::two};

/// `Cay(C) = 2(I + C)⁻¹ − I` through a QR factorisation of `A = I + C` by modified Gram–Schmidt
/// without square roots: `A = Q̃ R` with `Q̃` of orthogonal (not normalised) columns `q_k`,
/// `R` unit upper triangular, so `(I + C)⁻¹ = R⁻¹ D⁻¹ Q̃ᵀ` with `D = diag(‖q_k‖²)`.
///
/// Why it never breaks: orthogonalisation needs no pivoting (it is stable in the order the
/// columns come), and every divisor is `‖q_k‖² ≥ σ_min(I + C)² ≥ 1`, because the symmetric part of
/// `I + C` is `I` (`xᵀ(I + C)x = ‖x‖²`). So for finite `C` (up to `‖C‖ ≈ 10¹⁹` in `f32`, where
/// `‖q_k‖²` would overflow) the result is finite, and its distance from orthogonality is within a
/// small multiple of what LU with partial pivoting achieves (the test suite sweeps `T = 2 … 12`,
/// both precisions, `‖C‖_F` from `10⁻³` to `10⁴` (`f32`) and `10⁸` (`f64`)), where pivot-free
/// elimination loses accuracy like `ε‖C‖²` and breaks down to `±∞` in `f32`.
///
/// Needs only `+ − × ÷`, so it is exact in rational arithmetic; about `3T³` operations, `T`
/// divisions, no comparisons, no branches.
///
/// ```
/// use geomattn::{GramSchmidt, OrthogonalMap, nalgebra::Matrix3};
/// // Where pivot-free elimination gives ±∞ in f32.
/// let c = Matrix3::new(0.0_f32, 3500.0, 4500.0,
///                      -3500.0, 0.0, 1500.0,
///                      -4500.0, -1500.0, 0.0);
/// let q = <GramSchmidt as OrthogonalMap<f32, 3>>::map(&c);
/// assert!((q.transpose() * q - Matrix3::identity()).amax() < 1e-3);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GramSchmidt;

impl<S: Field, const T: usize> OrthogonalMap<S, T> for GramSchmidt {
    const NAME: &'static str = "Cayley (Gram–Schmidt)";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        // Every step works on whole columns, which nalgebra stores contiguously.
        // q = I + C from the strict upper triangle of C; r the strict upper part of R.
        let mut q = SMatrix::<S, T, T>::identity() + skew_from_upper(c);
        let mut r = SMatrix::<S, T, T>::zeros();
        // y = Xᵀ, X = 2(I + C)⁻¹: column k of y is row k of X, first 2 q_k / ‖q_k‖².
        let mut y = SMatrix::<S, T, T>::zeros();
        for k in 0..T {
            let inverse_square = S::one() / q.column(k).dot(&q.column(k));
            for j in k + 1..T {
                let r_kj = q.column(k).dot(&q.column(j)) * inverse_square;
                r[(k, j)] = r_kj;
                let (done, mut rest) = q.columns_range_pair_mut(k, j);
                rest.axpy(-r_kj, &done, S::one());
            }
            y.set_column(k, &(q.column(k) * (two::<S>() * inverse_square)));
        }
        // X = R⁻¹·(2D⁻¹Q̃ᵀ), i.e. yₖ −= Σ_{j > k} r_kj yⱼ, from the last column down.
        for k in (0..T).rev() {
            for j in k + 1..T {
                let r_kj = r[(k, j)];
                let (mut target, source) = y.columns_range_pair_mut(k, j);
                target.axpy(-r_kj, &source, S::one());
            }
        }
        let mut x = y.transpose();
        for k in 0..T {
            x[(k, k)] -= S::one();
        }
        x
    }
}
