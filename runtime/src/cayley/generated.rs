//! The kernel [`Generated`]: straight-line code emitted by `geomattn-macros` for the sizes its
//! table unrolls, the [`GramSchmidt`] loops for other `T`.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix, SMatrixView, SMatrixViewMut};

#[cfg(doc)]
use super::GramSchmidt;
use super::by_norm::f32_kernel;
use super::gram_schmidt::cayley_columns;
use super::polish::{polished, rounds_as_coarsely_as_f32};
use crate::orthogonal::OrthogonalMap;
use crate::product;
use crate::scalar::Field;

/// Unrolled, branch-free Cayley transforms for the sizes marked unrolled in the table below, each
/// from the strategy [`cayley!`](crate::cayley!) uses by default for that size, and the
/// [`GramSchmidt`] loops for the others: the closed forms at `T = 2, 3` and the quaternion form
/// at `T = 4`, orthogonal to rounding at every `‖C‖`; Gram–Schmidt beyond, orthogonal to within
/// a few times what LU with partial pivoting achieves (`tests/tests/cayley_robust.rs` sweeps
/// `T = 2 … 12`, `f32` and `f64`, `‖C‖_F` up to `10⁴` and `10⁸`). In `f32` (and its lanes) from
/// `T = 5`, the kernel is chosen by `‖C‖_F`, lane by lane: pivot-free elimination
/// ([`crate::Elimination`]) in `f32` below [`crate::cayley::NARROW_BELOW`] (16), where it is
/// within 4× of LU's error and takes the fewest instructions, else Gram–Schmidt computed in `f64`
/// and rounded, polished by Newton–Schulz steps from [`crate::cayley::WIDE_BELOW`] (`2³²`):
/// volume-preserving attention keeps `‖ZΛ‖/‖Z‖` within 4× of LU's error on every input tested,
/// from `‖C‖_F = 2⁻²⁰` to the overflow of `C` (`tests/tests/cayley_range.rs`,
/// `docs/src/numerics.md`), and the result stays orthogonal for every finite `C`. Other scalars
/// of `f32`'s precision (dual numbers) take Gram–Schmidt polished by three Newton–Schulz steps;
/// `f64` and exact scalars Gram–Schmidt.
/// Finite for every `C` with `‖C‖_F²` finite (below `1.8·10¹⁹` in `f32`, `1.3·10¹⁵⁴` in `f64`);
/// beyond, NaN but for the `f32` kernel from `T = 5` (the closed form at `T = 2` reaches its limit
/// `−I` instead). Gram–Schmidt in `f32`, within 1.3× of LU's error below 16, stays available by
/// name ([`GramSchmidt`]).
///
#[doc = include_str!("sizes.md")]
///
/// Against nalgebra's generic inverse (f64, one call; callgrind instructions and divan time):
/// see `benches/benches/cayley*.rs`, the README and the report.
///
/// One blanket implementation covers every `T`: `T` is a constant, so the dispatch (a `match`
/// emitted from the table by `geomattn-macros`) is resolved at compile time, and the copies
/// between `SMatrix<S, T, T>` and the `SMatrix<S, N, N>` of the function for `N = T` compile away.
/// Works for every [`Field`], exact rationals included.
///
/// ```
/// use geomattn::{Generated, OrthogonalMap, nalgebra::Matrix2};
/// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
/// let q = <Generated as OrthogonalMap<f64, 2>>::map(&c);
/// assert!((q - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Generated;

impl<S: Field, const T: usize> OrthogonalMap<S, T> for Generated {
    const NAME: &'static str = "Cayley (generated)";
    const FUNCTION: &'static str = "cayley";

    #[inline(always)]
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        geomattn_macros::__unrolled_match!(
            crate,
            T,
            via,
            c,
            match from_five(c, &mut MaybeUninit::uninit()) {
                FromFive::Matrix(q) => q,
                FromFive::Columns(columns) => {
                    SMatrix::from_array_storage(ArrayStorage(*columns))
                }
            }
        )
    }

    #[inline(always)]
    fn multiply_to<const D: usize>(
        z: &SMatrixView<'_, S, D, T>,
        c: &SMatrix<S, T, T>,
        out: &mut SMatrixViewMut<'_, S, D, T>,
    ) {
        geomattn_macros::__unrolled_match!(
            crate,
            T,
            via_product,
            (z, c, out),
            match from_five(c, &mut MaybeUninit::uninit()) {
                FromFive::Matrix(q) => product::mul_to(z, &q, out),
                FromFive::Columns(columns) => product::mul_columns_to(z, columns, out),
            }
        )
    }
}

/// The kernel from `T = 5`: a `T×T` matrix, or the [`GramSchmidt`] kernel's columns.
enum FromFive<'a, S, const T: usize> {
    Matrix(SMatrix<S, T, T>),
    Columns(&'a [[S; T]; T]),
}

/// `Cay(C)` from `T = 5`: in `f32` and its lanes, [`f32_kernel`] (elimination while
/// `‖C‖_F < 16`, else Gram–Schmidt in `f64`), written into `storage`; in any other scalar of
/// `f32`'s precision (dual numbers over `f32`), Gram–Schmidt [`polished`]; in `f64` and exact
/// scalars, the columns of Gram–Schmidt (multiplied from directly, without a `T×T` result). One
/// copy of Gram–Schmidt for every branch: unoptimised, each inlined copy of its unrolled steps
/// takes about a megabyte of stack at `T = 8` over AVX-512 lanes.
#[inline(always)]
fn from_five<'a, S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &'a mut MaybeUninit<[[S; T]; T]>,
) -> FromFive<'a, S, T> {
    if f32_kernel(c, storage) {
        // SAFETY: `f32_kernel` wrote every entry of `storage`.
        return FromFive::Columns(unsafe { storage.assume_init_mut() });
    }
    let columns = cayley_columns(c, storage);
    if rounds_as_coarsely_as_f32::<S>() {
        FromFive::Matrix(polished(SMatrix::from_array_storage(ArrayStorage(
            *columns,
        ))))
    } else {
        FromFive::Columns(columns)
    }
}

/// `out = z·f(c)` for `f` written for `N×N`, called only when `N = T` (see [`via`]).
#[inline(always)]
fn via_product<S: Field, const D: usize, const T: usize, const N: usize>(
    (z, c, out): (
        &SMatrixView<'_, S, D, T>,
        &SMatrix<S, T, T>,
        &mut SMatrixViewMut<'_, S, D, T>,
    ),
    f: impl FnOnce(&SMatrix<S, N, N>) -> SMatrix<S, N, N>,
) {
    product::mul_to(z, &via(c, f), out);
}

/// `f(c)` for `f` written for `N×N`, called only when `N = T`: the copies are then moves of
/// identical layouts, which the optimiser removes.
#[inline(always)]
fn via<S: Field, const T: usize, const N: usize>(
    c: &SMatrix<S, T, T>,
    f: impl FnOnce(&SMatrix<S, N, N>) -> SMatrix<S, N, N>,
) -> SMatrix<S, T, T> {
    let q = f(&product::matrix(
        #[inline(always)]
        |i, j| c[(i, j)],
    ));
    product::matrix(
        #[inline(always)]
        |i, j| q[(i, j)],
    )
}
