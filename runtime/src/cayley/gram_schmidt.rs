//! Square-root-free modified Gram–Schmidt on `I + C`: accurate wherever the Cayley transform is
//! defined.

use core::mem::MaybeUninit;

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use crate::{Field, OrthogonalMap, product, scalar::two};

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
    const FUNCTION: &'static str = "cayley";

    #[inline(always)]
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        let mut storage = MaybeUninit::uninit();
        let x = identity_minus_skew(c, &mut storage);
        twice_inverse_columns(x);
        // Cay(C) = X − I.
        product::matrix(
            #[inline(always)]
            |i, j| if i == j { x[j][i] - S::one() } else { x[j][i] },
        )
    }

    #[inline(always)]
    fn multiply_to<const D: usize>(
        z: &SMatrixView<'_, S, D, T>,
        c: &SMatrix<S, T, T>,
        out: &mut SMatrixViewMut<'_, S, D, T>,
    ) {
        // Cay(C) = X − I in place, then z·Cay(C) straight from its columns: no T×T result.
        let mut storage = MaybeUninit::uninit();
        let cayley = identity_minus_skew(c, &mut storage);
        twice_inverse_columns(cayley);
        for (k, column) in cayley.iter_mut().enumerate() {
            column[k] -= S::one();
        }
        product::mul_columns_to(z, cayley, out);
    }
}

/// The columns of `I − C` overwritten with those of `X = 2(I + C)⁻¹`.
#[inline(always)]
fn twice_inverse_columns<S: Field, const T: usize>(q: &mut [[S; T]; T]) {
    // Gram–Schmidt on A = I − C = (I + C)ᵀ rather than on I + C: the rows of 2A⁻¹ are then
    // the columns of X = 2(I + C)⁻¹, so X comes out in nalgebra's column-major order without
    // a transpose. Columns are plain arrays, which the optimiser keeps in vector registers.
    //
    // −r[k][j] for j > k, the strict upper part of R negated, each written in the sweep and read
    // in the back-substitution; nothing else is written or read. Uninitialised rather than
    // zeroed: a zeroed 8×8 array of AVX-512 lanes is a 4 KiB `memset` call.
    let mut minus_r = [[MaybeUninit::<S>::uninit(); T]; T];
    for k in 0..T {
        // q_k borrowed, not copied, beside the columns it updates: 11 % fewer instructions
        // at T = 6 (callgrind).
        let (done, rest) = q.split_at_mut(k + 1);
        let q_k = &mut done[k];
        let inverse_square = S::one() / dot(q_k, q_k);
        for (q_j, slot) in rest.iter_mut().zip(&mut minus_r[k][k + 1..]) {
            // q_j − r·q_k as q_j + (−r)·q_k: the same number (IEEE subtraction adds the
            // negation), and one fused multiply-add where products fuse.
            let minus_r_kj = -(dot(q_k, q_j) * inverse_square);
            slot.write(minus_r_kj);
            for i in 0..T {
                q_j[i] = product::accumulate(q_j[i], minus_r_kj, q_k[i]);
            }
        }
        // q_k is done with: it becomes row k of 2A⁻¹, first 2 q_k / ‖q_k‖², in place (a
        // second T×T array was a 4 KiB memset per call at T = 8 in lanes).
        let scale = two::<S>() * inverse_square;
        for x in q_k.iter_mut() {
            *x *= scale;
        }
    }
    let y = q;
    // 2A⁻¹ = R⁻¹·(2D⁻¹Q̃ᵀ): y_k −= Σ_{j > k} r_kj y_j, from the last row up.
    for k in (0..T).rev() {
        for j in k + 1..T {
            // SAFETY: the sweep above wrote row k from k + 1 on.
            let (minus_r_kj, y_j) = (unsafe { minus_r[k][j].assume_init() }, y[j]);
            for i in 0..T {
                y[k][i] = product::accumulate(y[k][i], minus_r_kj, y_j[i]);
            }
        }
    }
}

/// `storage` filled with the columns of `I − C`, from the strict upper triangle of `C`: entry `i`
/// of column `j` is `−C_ij` above the diagonal, `C_ji` below it.
#[inline(always)]
fn identity_minus_skew<'a, S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &'a mut MaybeUninit<[[S; T]; T]>,
) -> &'a mut [[S; T]; T] {
    product::columns_in(
        storage,
        #[inline(always)]
        |i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => -c[(i, j)],
            core::cmp::Ordering::Greater => c[(j, i)],
            core::cmp::Ordering::Equal => S::one(),
        },
    )
}

/// `aᵀb`, in order.
#[inline(always)]
fn dot<S: Field, const T: usize>(a: &[S; T], b: &[S; T]) -> S {
    product::sum_of_products::<S, T>(
        #[inline(always)]
        |i| (a[i], b[i]),
    )
}
