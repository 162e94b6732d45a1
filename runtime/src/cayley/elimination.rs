//! Pivot-free Gauss–Jordan elimination specialised to `I + C`.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix, SMatrixView, SMatrixViewMut};

use super::gram_schmidt::identity_plus_skew;
use crate::orthogonal::OrthogonalMap;
use crate::product;
use crate::scalar::{Field, two};

/// Inverts `I + C` in place by Gauss–Jordan elimination without pivoting, then returns
/// `2(I + C)⁻¹ − I` (`Cay(C)`, since `I − C` and `(I + C)⁻¹` commute).
///
/// The elimination runs on the rows of `(I + C)ᵀ = I − C`, which are the columns of `I + C` as
/// nalgebra stores them, so it leaves `((I + C)ᵀ)⁻¹` by rows: `(I + C)⁻¹` by columns, in place,
/// with no transposition. Every step's loops are unrolled (as Gram–Schmidt's) and run along whole
/// stored columns: `T³` multiply-adds, about half of [`GramSchmidt`](crate::GramSchmidt)'s.
///
/// Every pivot is at least 1 in exact arithmetic (the [module docs](super)), but the error grows
/// faster than LU's with `‖C‖`: on volume-preserving attention in `f32` (`T = 5 … 8`) within
/// 1.2× of LU with partial pivoting up to `‖C‖_F = 8`, 3.9× just below 16, 12× at 31 and 54× at
/// 64, where Gram–Schmidt stays within 4× (`docs/src/numerics.md`). The default `f32` kernel
/// ([`Generated`](crate::Generated)) takes it below `‖C‖_F = 16` only.
///
/// Works for every `T` and every [`Field`], exact rationals included; `T` divisions.
///
/// ```
/// use geomattn::{Elimination, GramSchmidt, OrthogonalMap, nalgebra::SMatrix};
/// let c = SMatrix::<f64, 6, 6>::from_fn(|i, j| if i < j { (i + 2 * j) as f64 / 10.0 } else { 0.0 });
/// let q = <Elimination as OrthogonalMap<f64, 6>>::map(&c);
/// assert!((q.transpose() * q - SMatrix::<f64, 6, 6>::identity()).amax() < 1e-14);
/// assert!((q - <GramSchmidt as OrthogonalMap<f64, 6>>::map(&c)).amax() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Elimination;

impl<S: Field, const T: usize> OrthogonalMap<S, T> for Elimination {
    const NAME: &'static str = "Cayley (elimination)";
    const FUNCTION: &'static str = "cayley";

    #[inline(always)]
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        let mut storage = MaybeUninit::uninit();
        SMatrix::from_array_storage(ArrayStorage(*cayley_columns(c, &mut storage)))
    }

    #[inline(always)]
    fn multiply_to<const D: usize>(
        z: &SMatrixView<'_, S, D, T>,
        c: &SMatrix<S, T, T>,
        out: &mut SMatrixViewMut<'_, S, D, T>,
    ) {
        let mut storage = MaybeUninit::uninit();
        product::mul_columns_to(z, cayley_columns(c, &mut storage), out);
    }
}

/// `storage` filled with the columns of `Cay(C) = 2(I + C)⁻¹ − I`, in place: Gauss–Jordan on the
/// rows of `I − C` (the columns of `I + C`), one pivot per step, then `2x − δ` entry by entry.
#[inline(always)]
pub(super) fn cayley_columns<'a, S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &'a mut MaybeUninit<[[S; T]; T]>,
) -> &'a mut [[S; T]; T] {
    // Built in place, entry by entry: built as an `SMatrix` and then moved in, the matrix was a
    // loop with a branch per entry from `T = 7` (1.4× the instructions at `T = 8` in `f32`).
    let columns = identity_plus_skew(c, storage);
    for_each_k!(k in 0..T {
        eliminate(columns, k);
    });
    for (j, column) in columns.iter_mut().enumerate() {
        for x in column.iter_mut() {
            *x = two::<S>() * *x;
        }
        column[j] -= S::one();
    }
    columns
}

/// Step `k` of Gauss–Jordan inversion in place: row `k` divided by its pivot (which it then
/// holds the reciprocal of), and its multiple taken from every other row, whose entry `k` becomes
/// the inverse's.
#[inline(always)]
fn eliminate<S: Field, const T: usize>(rows: &mut [[S; T]; T], k: usize) {
    let inverse = S::one() / rows[k][k];
    let mut pivot_row = rows[k];
    for x in pivot_row.iter_mut() {
        *x *= inverse;
    }
    pivot_row[k] = inverse;
    for (i, row) in rows.iter_mut().enumerate() {
        if i == k {
            *row = pivot_row;
        } else {
            subtract_multiple(row, &pivot_row, k);
        }
    }
}

/// `row − f·pivot_row` with `f = row[k]` and `row[k]` taken as 0 (so it becomes `−f·pivot_row[k]`),
/// as `row + (−f)·pivot_row`: one fused multiply-add where products fuse.
#[inline(always)]
fn subtract_multiple<S: Field, const T: usize>(row: &mut [S; T], pivot_row: &[S; T], k: usize) {
    let minus_factor = -row[k];
    row[k] = S::zero();
    for (x, &p) in row.iter_mut().zip(pivot_row) {
        *x = product::accumulate(*x, minus_factor, p);
    }
}

/// [`cayley_columns`] at a length `t ≤ M` known at run time, written over the first `t` entries
/// of the first `t` columns of `columns`: the same operations in the same order (the loops
/// bounded by `t` instead of unrolled), so the same values, bit for bit, in every [`Field`].
/// `upper(i, j)` is `C`'s entry above the diagonal (`i < j`).
///
/// One copy for every length up to `M`, where [`Elimination`] unrolls a copy per `T`: the
/// run-time engine's vectors (`crate::isa::Isa::cayley_product_in_place`) take it from `T = 5`.
///
/// # Panics
/// If `t > M`.
#[inline(always)]
pub(crate) fn cayley_columns_at<S: Field, const M: usize>(
    t: usize,
    upper: impl Fn(usize, usize) -> S,
    columns: &mut [[S; M]; M],
) {
    assert!(t <= M, "sequences of at most {M}");
    let columns = &mut columns[..t];
    for (j, column) in columns.iter_mut().enumerate() {
        for (i, x) in column[..t].iter_mut().enumerate() {
            *x = match i.cmp(&j) {
                core::cmp::Ordering::Less => upper(i, j),
                core::cmp::Ordering::Greater => -upper(j, i),
                core::cmp::Ordering::Equal => S::one(),
            };
        }
    }
    for k in 0..t {
        let inverse = S::one() / columns[k][k];
        let mut pivot_row = [S::zero(); M];
        for (p, &x) in pivot_row[..t].iter_mut().zip(&columns[k][..t]) {
            *p = x * inverse;
        }
        pivot_row[k] = inverse;
        for (i, row) in columns.iter_mut().enumerate() {
            if i == k {
                row[..t].copy_from_slice(&pivot_row[..t]);
            } else {
                let minus_factor = -row[k];
                row[k] = S::zero();
                for (x, &p) in row[..t].iter_mut().zip(&pivot_row[..t]) {
                    *x = product::accumulate(*x, minus_factor, p);
                }
            }
        }
    }
    for (j, column) in columns.iter_mut().enumerate() {
        for x in &mut column[..t] {
            *x = two::<S>() * *x;
        }
        column[j] -= S::one();
    }
}

/// `m⁻¹ rhs` by Gauss–Jordan elimination without pivoting, one reciprocal per pivot.
///
/// Stable for the matrices it is used on, whose pivots stay away from zero: column diagonally
/// dominant matrices (the Padé denominator of the matrix exponential; [`Elimination`] inverts
/// `I + C` in place instead).
#[inline(always)]
pub(crate) fn solve_without_pivoting<S: Field, const T: usize>(
    mut m: SMatrix<S, T, T>,
    mut rhs: SMatrix<S, T, T>,
) -> SMatrix<S, T, T> {
    for k in 0..T {
        let pivot_inv = S::one() / m[(k, k)];
        for j in k + 1..T {
            m[(k, j)] *= pivot_inv;
        }
        for j in 0..T {
            rhs[(k, j)] *= pivot_inv;
        }
        for i in (0..T).filter(|&i| i != k) {
            // m_ij − f·m_kj as m_ij + (−f)·m_kj: the same number, fused where products fuse.
            let minus_factor = -m[(i, k)];
            for j in k + 1..T {
                m[(i, j)] = product::accumulate(m[(i, j)], minus_factor, m[(k, j)]);
            }
            for j in 0..T {
                rhs[(i, j)] = product::accumulate(rhs[(i, j)], minus_factor, rhs[(k, j)]);
            }
        }
    }
    rhs
}

#[cfg(test)]
mod tests {
    use num_rational::Ratio;

    use super::*;

    /// `Elimination`'s columns and the run-time copy's at `T`, for the entries `upper`.
    fn both<S: Field, const T: usize>(
        upper: impl Fn(usize, usize) -> S,
    ) -> ([[S; T]; T], [[S; T]; T]) {
        let c = SMatrix::<S, T, T>::from_fn(|i, j| if i < j { upper(i, j) } else { S::zero() });
        let unrolled = <Elimination as OrthogonalMap<S, T>>::map(&c).data.0;
        let mut columns = [[S::zero(); 16]; 16];
        cayley_columns_at(T, upper, &mut columns);
        let at_run_time = core::array::from_fn(|j| core::array::from_fn(|i| columns[j][i]));
        (unrolled, at_run_time)
    }

    /// Bit for bit `Elimination` in `f32` at every length the engine compiles it for (to 10)
    /// and beyond (13, 16), and exactly in rationals (where both are `Cay(C)` itself).
    #[test]
    fn the_run_time_elimination_is_the_unrolled_one() {
        #[allow(clippy::cast_precision_loss)]
        let float = |i: usize, j: usize| (((i * 7 + j * 3) % 11) as f32 - 5.0) / 4.0;
        #[allow(clippy::cast_possible_wrap)]
        let exact = |i: usize, j: usize| Ratio::new(((i * 5 + j * 3) % 7) as i64 - 3, 4);
        macro_rules! at {
            ($($t:literal)*) => {$(
                let (unrolled, at_run_time) = both::<f32, $t>(float);
                let bits = |m: [[f32; $t]; $t]| m.map(|column| column.map(f32::to_bits));
                assert_eq!(bits(unrolled), bits(at_run_time), "T = {}", $t);
            )*};
        }
        at!(1 2 3 4 5 6 7 8 9 10 13 16);
        let (unrolled, at_run_time) = both::<Ratio<i64>, 5>(exact);
        assert_eq!(unrolled, at_run_time);
    }
}
