//! Square-root-free modified Gram–Schmidt on the columns of `I + C`: finite wherever `‖C‖²` is,
//! and as accurate as LU with partial pivoting.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix, SMatrixView, SMatrixViewMut};

use crate::orthogonal::OrthogonalMap;
use crate::product;
use crate::scalar::{Field, two};

/// `Cay(C) = 2(I + C)⁻¹ − I` through a QR factorisation of `M = I + C` by modified Gram–Schmidt
/// without square roots.
///
/// Column by column, `q_k = m_k − Σ_{l<k} r_lk q_l` makes the columns `q_k` of `Q̃` orthogonal
/// (not normalised): `M = Q̃R`, `R` unit upper triangular. Alongside, column `k` of `Y = R⁻¹`
/// collects the coefficients of `q_k = M y_k` (`y_k[k] = 1`, zero below). Then
/// `(I + C)⁻¹ = Y D⁻¹ Q̃ᵀ` with `D = diag(d_k)`, `d_k = ‖q_k‖²`, so column `j` of
/// `2(I + C)⁻¹` is `Σ_k (2 q_k[j] / d_k) y_k`.
///
/// Three choices decide its accuracy and range:
///
/// - **The columns of `I + C`, not of `I − C`.** For large `‖C‖` Gram–Schmidt's columns past the
///   rank of `C` come out of cancellation between columns of size `‖C‖`, and the computed
///   `(I + C)⁻¹` is off by `ε‖C‖` whichever matrix is orthogonalised (as LU's is). This kernel
///   orthogonalised `I − C = (I + C)ᵀ` before (then `(I + C)⁻¹ = Q̃D⁻¹R⁻ᵀ`), which put that
///   error into the rows along the range of `C`; on `I + C` it stays in the other rows, as LU's
///   does. Those rows are what volume-preserving attention keeps of a sequence in the range of
///   `C` (a smooth sequence, `D = 3`: sines of amplitude 300 in `f32`, `T = 8`, `‖C‖` up to
///   `1.7·10⁶`): its `‖ZΛ‖/‖Z‖ − 1` was up to `9·10⁻³` (median `4·10⁻⁴`), and is now rounding
///   (`10⁻⁷`), as LU's (`‖Z·δ(I + C)⁻¹‖/‖Z‖`: 0.15 before, `2·10⁻⁷` now, `10⁻⁷` with LU, for an
///   error `‖δ(I + C)⁻¹‖ ≈ 0.2` in all three).
/// - **`d_k = ‖y_k‖² + ‖q_k − y_k‖²`.** In exact arithmetic this is `‖q_k‖²` (`q_k − y_k = C y_k`
///   is orthogonal to `y_k`, `C` being skew); in floating point it is a sum of squares with the
///   term `y_k[k]² = 1`, so it is at least 1, as `‖q_k‖² ≥ σ_min(I + C)² ≥ 1` is in exact
///   arithmetic. `‖q_k‖²` computed directly is not: once `ε‖C‖ ≳ 1` a late column can cancel to
///   exactly zero (first at `‖C‖ = 5.1·10⁷` in `f32` on a rank-2 `C`; 0.5% of skew attention
///   inputs with entries of size `10⁴`), and the `0/0` made the result NaN.
/// - **No pivoting, comparison or square root**: the same code runs over exact rationals, dual
///   numbers and SIMD lanes, branch-free; `T` divisions.
///
/// So the result is finite for every `C` with `‖C‖_F²` finite (`‖C‖_F < 1.8·10¹⁹` in `f32`,
/// `1.3·10¹⁵⁴` in `f64`; beyond, the squares overflow and the result is NaN), and its
/// orthogonality error grows like `ε‖C‖`, as LU's does: about 3× LU's at the median and the 99th
/// percentile, over random `C` and over volume-preserving attention at every scale
/// (`tests/tests/cayley_robust.rs`, `tests/tests/cayley_range.rs`).
///
/// Exact in rational arithmetic; about `3.4T³` operations.
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
        cayley_columns(c, &mut storage);
        // SAFETY: `cayley_columns` wrote every column.
        SMatrix::from_array_storage(ArrayStorage(unsafe { storage.assume_init() }))
    }

    #[inline(always)]
    fn multiply_to<const D: usize>(
        z: &SMatrixView<'_, S, D, T>,
        c: &SMatrix<S, T, T>,
        out: &mut SMatrixViewMut<'_, S, D, T>,
    ) {
        // z·Cay(C) straight from the kernel's columns: no T×T result.
        let mut storage = MaybeUninit::uninit();
        product::mul_columns_to(z, cayley_columns(c, &mut storage), out);
    }
}

/// `storage` filled with the columns of `Cay(C) = Y·W − I`, `W` the rows `w_k = 2 q_k / d_k`.
#[inline(always)]
pub(super) fn cayley_columns<'a, S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &'a mut MaybeUninit<[[S; T]; T]>,
) -> &'a mut [[S; T]; T] {
    let mut columns = MaybeUninit::uninit();
    let w = identity_plus_skew(c, &mut columns);
    // y[k][i] = Y[i, k] for i < k (Y's strict upper part), written in step i and updated in the
    // steps after; nothing else is written or read. Uninitialised rather than zeroed: a zeroed
    // 8×8 array of AVX-512 lanes is a 4 KiB `memset` call.
    let mut y = [[MaybeUninit::<S>::uninit(); T]; T];
    for_each_k!(k in 0..T {
        step(w, &mut y, k);
    });
    product::columns_from(
        storage,
        #[inline(always)]
        |j| {
            // Column j of Y·W: Σ_k w_k[j] y_k, from k = 0 up (y_k[k] = 1, zero below).
            let mut column = [S::zero(); T];
            for_each_k!(k in 0..T {
                let w_kj = w[k][j];
                for (x, y_ki) in column.iter_mut().zip(&y[k][..k]) {
                    // SAFETY: y_k[i], i < k, was written in step i.
                    *x = product::accumulate(*x, w_kj, unsafe { y_ki.assume_init() });
                }
                // Cay = Y·W − I: the −1 of entry (j, j) with its first term, w_j[j]·Y[j, j].
                column[k] = if k == j { w_kj - S::one() } else { w_kj };
            });
            column
        },
    )
}

/// Step `k` of Gram–Schmidt on the columns `q` of `I + C`: `q_k` is projected out of the columns
/// after it (their coefficients `y_j` updated alongside), then becomes `w_k = 2 q_k / d_k`.
#[inline(always)]
fn step<S: Field, const T: usize>(q: &mut [[S; T]; T], y: &mut [[MaybeUninit<S>; T]; T], k: usize) {
    // q_k borrowed, not copied, beside the columns it updates.
    let (done, rest) = q.split_at_mut(k + 1);
    let q_k = &mut done[k];
    let (y_done, y_rest) = y.split_at_mut(k + 1);
    // SAFETY: entries 0..k of y_k were written in steps 0..k.
    let y_k: [S; T] = core::array::from_fn(|i| {
        if i < k {
            unsafe { y_done[k][i].assume_init() }
        } else {
            S::zero()
        }
    });
    let y_k = &y_k[..k];
    let inverse = S::one() / squared_norm(q_k, y_k);
    let mut minus_r = [S::zero(); T];
    for (q_j, minus_r_kj) in rest.iter_mut().zip(&mut minus_r) {
        // q_j − r·q_k as q_j + (−r)·q_k: the same number (IEEE subtraction adds the
        // negation), and one fused multiply-add where products fuse.
        *minus_r_kj = -(dot(q_k, q_j) * inverse);
        for i in 0..T {
            q_j[i] = product::accumulate(q_j[i], *minus_r_kj, q_k[i]);
        }
    }
    for (y_j, &minus_r_kj) in y_rest.iter_mut().zip(&minus_r) {
        // y_j − r·y_k (y_k[k] = 1: entry k becomes −r).
        for (y_ji, &y_ki) in y_j.iter_mut().zip(y_k) {
            // SAFETY: y_j[i], i < k, was written in step i.
            let updated = product::accumulate(unsafe { y_ji.assume_init() }, minus_r_kj, y_ki);
            y_ji.write(updated);
        }
        y_j[k].write(minus_r_kj);
    }
    let scale = two::<S>() * inverse;
    for x in q_k.iter_mut() {
        *x *= scale;
    }
}

/// `d_k = ‖y_k‖² + ‖q_k − y_k‖²` for `y_k` given by its entries below `k` (then 1, then 0s):
/// `‖q_k‖²` in exact arithmetic, and at least 1 in floating point (a sum of squares with the
/// term `y_k[k]² = 1`).
#[inline(always)]
fn squared_norm<S: Field, const T: usize>(q_k: &[S; T], y_k: &[S]) -> S {
    let k = y_k.len();
    let image = product::sum_of_products(
        T,
        #[inline(always)]
        |i| {
            let p = match i.cmp(&k) {
                core::cmp::Ordering::Less => q_k[i] - y_k[i],
                core::cmp::Ordering::Equal => q_k[i] - S::one(),
                core::cmp::Ordering::Greater => q_k[i],
            };
            (p, p)
        },
    );
    let coefficients = y_k
        .iter()
        .fold(S::one(), |sum, &y| product::accumulate(sum, y, y));
    image + coefficients
}

/// `aᵀb`, in order.
#[inline(always)]
fn dot<S: Field, const T: usize>(a: &[S; T], b: &[S; T]) -> S {
    product::sum_of_products(
        T,
        #[inline(always)]
        |i| (a[i], b[i]),
    )
}

/// `storage` filled with the columns of `I + C`, from the strict upper triangle of `C`: entry `i`
/// of column `j` is `C_ij` above the diagonal, `−C_ji` below it.
#[inline(always)]
pub(super) fn identity_plus_skew<'a, S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &'a mut MaybeUninit<[[S; T]; T]>,
) -> &'a mut [[S; T]; T] {
    product::columns_in(
        storage,
        #[inline(always)]
        |i, j| {
            if i < j {
                c[(i, j)]
            } else if i > j {
                -c[(j, i)]
            } else {
                S::one()
            }
        },
    )
}
