//! Small matrix products as plain loops, always inlined.
//!
//! nalgebra's products call its general `gemm`, which the optimiser keeps out of line for element
//! types as large as [`crate::Lanes`]; out of line it is compiled for the baseline instruction set
//! and works through memory. These loops have fixed trip counts, so once inlined into a layer they
//! unroll into straight-line code that stays in registers, for scalars and lanes alike.
//!
//! Each entry is accumulated from the first term on, `((a₀b₀ + a₁b₁) + a₂b₂) + …`: nalgebra's
//! order for products, so those equal nalgebra's bit for bit (the unit tests compare them); its
//! `dot` pairs terms differently from four rows on, so the column dots may differ from it in the
//! last bit. Over the vectors of the opt-in [`crate::VectorFunctions`] on AVX2 and AVX-512, each
//! `+ a_k b_k` is one fused multiply-add instead.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, Const, Dim, Matrix, RawStorage, RawStorageMut, SMatrix};

use crate::scalar::Field;

/// The matrix with entries `f(i, j)`, built column by column: nalgebra's `from_fn`, but always
/// inlined (a closure-taking constructor is otherwise often kept out of line).
#[inline(always)]
pub(crate) fn matrix<S: Field, const R: usize, const C: usize>(
    f: impl FnMut(usize, usize) -> S,
) -> SMatrix<S, R, C> {
    SMatrix::from_array_storage(ArrayStorage(*columns_in(&mut MaybeUninit::uninit(), f)))
}

/// `storage` filled with the columns `[[f(0, j), f(1, j), …]; C]`, each value written once,
/// without zeroing first (over AVX-512 lanes a zeroed `8×8` array is a 4 KiB `memset` call, and
/// every vector register is spilled around a call), and returned in place (returned by value, a
/// large array is a `memcpy`).
#[inline(always)]
pub(crate) fn columns_in<S: Field, const R: usize, const C: usize>(
    storage: &mut MaybeUninit<[[S; R]; C]>,
    mut f: impl FnMut(usize, usize) -> S,
) -> &mut [[S; R]; C] {
    let first = storage.as_mut_ptr().cast::<S>();
    for j in 0..C {
        for i in 0..R {
            // SAFETY: `[[S; R]; C]` is `R·C` values of `S` in a row, column `j` from `j·R` on,
            // so the offset is in bounds; writing does not read or drop the old (uninitialised)
            // value.
            unsafe { first.add(j * R + i).write(f(i, j)) };
        }
    }
    // SAFETY: every one of the `R·C` values was written above. (Should `f` panic, `storage` stays
    // uninitialised and is never read.)
    unsafe { storage.assume_init_mut() }
}

/// `storage` filled with the columns `f(0), f(1), …`, each written once, without zeroing first
/// (as [`columns_in`]).
#[inline(always)]
pub(crate) fn columns_from<S: Field, const R: usize, const C: usize>(
    storage: &mut MaybeUninit<[[S; R]; C]>,
    mut f: impl FnMut(usize) -> [S; R],
) -> &mut [[S; R]; C] {
    let first = storage.as_mut_ptr().cast::<[S; R]>();
    for j in 0..C {
        // SAFETY: `[[S; R]; C]` is `C` columns `[S; R]` in a row, so the offset is in bounds;
        // writing does not read or drop the old (uninitialised) value.
        unsafe { first.add(j).write(f(j)) };
    }
    // SAFETY: every one of the `C` columns was written above.
    unsafe { storage.assume_init_mut() }
}

/// Every entry of `target` replaced by `f(entry, i, j)`, in place: the entrywise `+=` and `-=` of
/// a backward pass, always inlined (nalgebra's operators are kept out of line for lane vectors,
/// as its products are).
#[inline(always)]
pub(crate) fn update<S, R: Dim, C: Dim, SO>(
    target: &mut Matrix<S, R, C, SO>,
    mut f: impl FnMut(S, usize, usize) -> S,
) where
    S: Field,
    SO: RawStorageMut<S, R, C>,
{
    for j in 0..target.ncols() {
        for i in 0..target.nrows() {
            target[(i, j)] = f(target[(i, j)], i, j);
        }
    }
}

/// `Σ_k a[i,k]·b[k,j]` from `k = 0` up (zero if `a` has no columns).
#[inline(always)]
pub(crate) fn entry<S, R: Dim, K: Dim, C: Dim, SA, SB>(
    a: &Matrix<S, R, K, SA>,
    b: &Matrix<S, K, C, SB>,
    i: usize,
    j: usize,
) -> S
where
    S: Field,
    SA: RawStorage<S, R, K>,
    SB: RawStorage<S, K, C>,
{
    sum_of_products(
        a.ncols(),
        #[inline(always)]
        |k| (a[(i, k)], b[(k, j)]),
    )
}

/// `a·b`, built as [`matrix`] builds.
#[inline(always)]
pub(crate) fn mul<S, const R: usize, const K: usize, const C: usize, SA, SB>(
    a: &Matrix<S, Const<R>, Const<K>, SA>,
    b: &Matrix<S, Const<K>, Const<C>, SB>,
) -> SMatrix<S, R, C>
where
    S: Field,
    SA: RawStorage<S, Const<R>, Const<K>>,
    SB: RawStorage<S, Const<K>, Const<C>>,
{
    matrix(
        #[inline(always)]
        |i, j| entry(a, b, i, j),
    )
}

/// `out = a·b`.
#[inline(always)]
pub(crate) fn mul_to<S, R: Dim, K: Dim, C: Dim, SA, SB, SO>(
    a: &Matrix<S, R, K, SA>,
    b: &Matrix<S, K, C, SB>,
    out: &mut Matrix<S, R, C, SO>,
) where
    S: Field,
    SA: RawStorage<S, R, K>,
    SB: RawStorage<S, K, C>,
    SO: RawStorageMut<S, R, C>,
{
    for j in 0..b.ncols() {
        for i in 0..a.nrows() {
            out[(i, j)] = entry(a, b, i, j);
        }
    }
}

/// `out = a·b`, with `b` given by its columns: as [`mul_to`].
#[inline(always)]
pub(crate) fn mul_columns_to<S, const R: usize, const K: usize, const C: usize, SA, SO>(
    a: &Matrix<S, Const<R>, Const<K>, SA>,
    b: &[[S; K]; C],
    out: &mut Matrix<S, Const<R>, Const<C>, SO>,
) where
    S: Field,
    SA: RawStorage<S, Const<R>, Const<K>>,
    SO: RawStorageMut<S, Const<R>, Const<C>>,
{
    for (j, column) in b.iter().enumerate() {
        for i in 0..R {
            out[(i, j)] = sum_of_products(
                K,
                #[inline(always)]
                |k| (a[(i, k)], column[k]),
            );
        }
    }
}

/// `aᵀ·b`, entry by entry as [`column_dot`], built as [`matrix`] builds.
#[inline(always)]
pub(crate) fn tr_mul<S, const K: usize, const R: usize, const C: usize, SA, SB>(
    a: &Matrix<S, Const<K>, Const<R>, SA>,
    b: &Matrix<S, Const<K>, Const<C>, SB>,
) -> SMatrix<S, R, C>
where
    S: Field,
    SA: RawStorage<S, Const<K>, Const<R>>,
    SB: RawStorage<S, Const<K>, Const<C>>,
{
    matrix(
        #[inline(always)]
        |i, j| column_dot(a, i, b, j),
    )
}

/// `out = aᵀ·b`, entry by entry as [`column_dot`].
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn tr_mul_to<S, K: Dim, R: Dim, C: Dim, SA, SB, SO>(
    a: &Matrix<S, K, R, SA>,
    b: &Matrix<S, K, C, SB>,
    out: &mut Matrix<S, R, C, SO>,
) where
    S: Field,
    SA: RawStorage<S, K, R>,
    SB: RawStorage<S, K, C>,
    SO: RawStorageMut<S, R, C>,
{
    for j in 0..b.ncols() {
        for i in 0..a.ncols() {
            out[(i, j)] = column_dot(a, i, b, j);
        }
    }
}

/// `Σ_k a[k, i]·b[k, j]`: the dot product of column `i` of `a` with column `j` of `b`.
#[inline(always)]
pub(crate) fn column_dot<S, K: Dim, CA: Dim, CB: Dim, SA, SB>(
    a: &Matrix<S, K, CA, SA>,
    i: usize,
    b: &Matrix<S, K, CB, SB>,
    j: usize,
) -> S
where
    S: Field,
    SA: RawStorage<S, K, CA>,
    SB: RawStorage<S, K, CB>,
{
    sum_of_products(
        a.nrows(),
        #[inline(always)]
        |k| (a[(k, i)], b[(k, j)]),
    )
}

/// `Σ_k a_k·b_k` over the `n` pairs `(a_k, b_k) = term(k)`, from `k = 0` up (zero if `n = 0`):
/// the order of every product and dot product here. `n` is a constant once inlined where the
/// sizes are, and then the loop unrolls.
#[inline(always)]
pub(crate) fn sum_of_products<S: Field>(n: usize, mut term: impl FnMut(usize) -> (S, S)) -> S {
    if n == 0 {
        return S::zero();
    }
    let (a, b) = term(0);
    let mut sum = a * b;
    for k in 1..n {
        let (a, b) = term(k);
        sum = accumulate(sum, a, b);
    }
    sum
}

/// `sum + a·b`: rounded twice (as nalgebra and the scalar path do), except over the vectors of the
/// opt-in [`crate::VectorFunctions`] on AVX2 and AVX-512, where it is one fused multiply-add.
#[inline(always)]
pub(crate) fn accumulate<S: Field>(sum: S, a: S, b: S) -> S {
    crate::isa::polynomial::fused_accumulate(sum, a, b).unwrap_or_else(|| sum + a * b)
}

#[cfg(test)]
mod tests {
    use nalgebra::SMatrix;

    use super::*;

    fn filled<const R: usize, const C: usize>(seed: f64) -> SMatrix<f64, R, C> {
        SMatrix::from_fn(|i, j| ((i * C + j) as f64 * 0.731 + seed).sin() * 3.0)
    }

    fn products_match_nalgebra<const R: usize, const K: usize, const C: usize>() {
        let (a, b) = (filled::<R, K>(0.1), filled::<K, C>(0.7));
        let expected = a * b;
        assert_eq!(mul(&a, &b), expected, "{R}×{K}·{K}×{C}");
        let mut out = SMatrix::<f64, R, C>::zeros();
        mul_to(&a, &b, &mut out);
        assert_eq!(out, expected);
    }

    #[test]
    fn products_equal_nalgebras_bit_for_bit() {
        products_match_nalgebra::<3, 3, 3>();
        products_match_nalgebra::<4, 4, 4>();
        products_match_nalgebra::<5, 5, 5>();
        products_match_nalgebra::<8, 8, 8>();
        products_match_nalgebra::<3, 7, 2>();
        products_match_nalgebra::<2, 0, 3>();
    }

    #[test]
    fn column_dots_equal_nalgebras_up_to_three_rows() {
        fn check<const K: usize>() {
            let (a, b) = (filled::<K, 3>(0.2), filled::<K, 4>(0.9));
            for i in 0..3 {
                for j in 0..4 {
                    assert_eq!(column_dot(&a, i, &b, j), a.column(i).dot(&b.column(j)));
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
    }
}
