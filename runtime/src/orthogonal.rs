//! Maps from skew-symmetric `T×T` matrices to orthogonal ones: the [`OrthogonalMap`] trait and its
//! implementors.
//!
//! Layers never call an implementation directly: they are generic over a map `Map:`
//! [`OrthogonalMap<S, T>`], a zero-sized type chosen at compile time, so a kernel specialised for
//! one `T` replaces another without changing any layer.
//!
//! | map | function | scalar | method |
//! |---|---|---|---|
//! | [`Generated`] (= [`DefaultCayley`]) | Cayley | any [`Field`] | closed forms for `T ≤ 4` (orthogonal to rounding), else [`GramSchmidt`]; in `f32` and its lanes from `T = 5`, [`Elimination`] while `‖C‖_F < 16` and Gram–Schmidt in `f64` beyond (within 4× of LU's error on every input tested, up to the overflow of `C`) |
//! | [`GramSchmidt`] | Cayley | any [`Field`] | square-root-free modified Gram–Schmidt on `I + C`, loops over `T`: as accurate as LU, finite while `‖C‖_F²` is |
//! | [`Elimination`] | Cayley | any [`Field`] | pivot-free Gauss–Jordan inversion of `I + C` in place, loops over `T` unrolled: half of Gram–Schmidt's operations; its error grows faster than LU's (within 4× of it for `‖C‖_F < 16`, 12× at 31, 54× at 64 in `f32`) |
//! | [`NalgebraInverse`] | Cayley | `RealField` | `(I − C)·(I + C).try_inverse()`: the generic baseline |
//! | [`LuSolve`] | Cayley | `RealField` | LU with partial pivoting, then a solve |
//! | [`Exp`] | exponential | `RealField` | closed forms for `T ≤ 3`, else [`ScalingSquaring`] |
//! | [`ScalingSquaring`] | exponential | `RealField` | scaling and squaring with a degree-8 Padé approximant |
//!
//! The Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` (no factor ½; GML's
//! `orthonormal_activation_cayley`) is orthogonal with determinant 1, as is `exp(C)`. Every map
//! reads only the strict upper triangle of its argument (the lower one is its negative).
//!
//! ## Range
//!
//! The maps that need `RealField` answer while their result is still an orthogonal matrix to
//! within 1/4 (`‖ΛᵀΛ − I‖_max`), measured over random and rank-2 `C` (the correlations of
//! volume-preserving attention), `T = 2 … 12`, both precisions, and return NaN beyond, which
//! the checked forward passes (`SequenceLayer::forward_checked`) report as
//! `Error::NonFinite`: no silent wrong answer. Their errors grow with `ε‖C‖_F`, so each range is
//! a bound on it (`tests/tests/cayley_range.rs` checks both sides of every edge):
//!
//! | map | range | worst `‖ΛᵀΛ − I‖` just inside |
//! |---|---|---|
//! | [`LuSolve`] | `ε‖C‖_F ≤ 1/4` (`‖C‖_F ≤ 2.1·10⁶` in `f32`, `1.1·10¹⁵` in `f64`); any `C` with `‖C‖_F²` finite at `T ≤ 2` | 0.12 |
//! | [`NalgebraInverse`] | as LU, but `ε‖C‖_F² ≤ 1` at `T = 4`, where nalgebra inverts by cofactors (`‖C‖_F ≤ 2 900` in `f32`) | 0.13 |
//! | [`ScalingSquaring`], and [`Exp`] from `T = 4` | `ε‖C‖_F ≤ 1/32` (each squaring doubles the error; beyond, the final Newton–Schulz step no longer restores orthogonality) | 0.09 |
//!
//! Each edge is the largest power of two (in `ε‖C‖_F`, or `ε‖C‖_F²`) at which the worst error
//! measured stayed below 1/4. The Cayley kernels that need only `Field` have no such edge:
//! [`Generated`] and [`GramSchmidt`] stay finite while `‖C‖_F²` is, with an error that grows
//! like `ε‖C‖` as LU's does (the closed forms, `T ≤ 4`, stay orthogonal to rounding, and so
//! does [`Generated`] in `f32` from `T = 5`, which computes in `f64` from `‖C‖_F = 16` and stays
//! orthogonal even past the overflow of `‖C‖_F²`); the
//! closed-form exponentials (`T ≤ 3`) are orthogonal for every `C` of finite norm.
//!
//! ```
//! use geomattn::{Elimination, Exp, OrthogonalMap, nalgebra::Matrix2};
//! let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
//! let cayley = <Elimination as OrthogonalMap<f64, 2>>::map(&c);
//! assert!((cayley - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
//! let exp = <Exp as OrthogonalMap<f64, 2>>::map(&c);
//! assert!((exp.transpose() * exp - Matrix2::identity()).amax() < 1e-15);
//! ```

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};

use crate::scalar::Field;
#[cfg(doc)]
use crate::{
    cayley::{Elimination, Generated, GramSchmidt, LuSolve, NalgebraInverse},
    exp::{Exp, ScalingSquaring},
};

/// A map from skew-symmetric `T×T` matrices over the scalar `S` to orthogonal ones.
///
/// Implementations may read only the strict upper triangle of `c`.
pub trait OrthogonalMap<S: Field, const T: usize> {
    /// Name for reports (`"Cayley (generated)"`, `"exp"`, …).
    const NAME: &'static str;

    /// The function it computes, as a blob records it: `"cayley"` for every Cayley kernel,
    /// `"exp"` for both exponentials, so that maps computing the same function (to rounding) are
    /// interchangeable in a network read from a blob. By default the map's [`NAME`](Self::NAME):
    /// a map of your own is then its own function, unless it says it computes one of these.
    const FUNCTION: &'static str = Self::NAME;

    /// The orthogonal matrix of the skew matrix whose strict upper triangle is that of `c`.
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T>;

    /// `out = z·map(c)`, the product volume-preserving attention takes; bit for bit the product
    /// of `z` and [`map`](Self::map)`(c)` in nalgebra's order. Kernels that build the
    /// map column by column override it to multiply from those columns, without a `T×T` result
    /// (at `T = 8` over AVX-512 lanes, a 4 KiB copy per group of sequences).
    ///
    /// ```
    /// use geomattn::{GramSchmidt, OrthogonalMap, nalgebra::{Matrix2, Matrix3x2}};
    /// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
    /// let z = Matrix3x2::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    /// let mut out = Matrix3x2::zeros();
    /// <GramSchmidt as OrthogonalMap<f64, 2>>::multiply_to(&z.as_view(), &c, &mut out.as_view_mut());
    /// assert_eq!(out, z * <GramSchmidt as OrthogonalMap<f64, 2>>::map(&c));
    /// ```
    #[inline(always)]
    fn multiply_to<const D: usize>(
        z: &SMatrixView<'_, S, D, T>,
        c: &SMatrix<S, T, T>,
        out: &mut SMatrixViewMut<'_, S, D, T>,
    ) {
        crate::product::mul_to(z, &Self::map(c), out);
    }
}

/// The map layers use unless told otherwise: the Cayley transform by [`crate::Generated`].
pub type DefaultCayley = crate::cayley::Generated;

/// The skew matrix whose strict upper triangle is that of `c`: what every map reads of its
/// argument.
pub(crate) fn skew_from_upper<S: Field, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    crate::product::matrix(
        #[inline(always)]
        |i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => c[(i, j)],
            core::cmp::Ordering::Greater => -c[(j, i)],
            core::cmp::Ordering::Equal => S::zero(),
        },
    )
}

/// Whether `C` is in the range of a map that needs `RealField` (see the [module docs](self)):
/// `‖C‖_F` finite and `ε‖C‖_F ≤ limit`. False for a NaN or infinite `C`.
pub(crate) fn in_range<S: RealField + Copy, const T: usize>(
    c: &SMatrix<S, T, T>,
    limit: S,
) -> bool {
    let mut upper_squares = S::zero();
    for j in 0..T {
        for i in 0..j {
            upper_squares += c[(i, j)] * c[(i, j)];
        }
    }
    let norm = (upper_squares + upper_squares).sqrt();
    // `!(>)` would accept NaN; `≤` rejects it.
    norm.is_finite() && norm * S::default_epsilon() <= limit
}

/// The answer outside a map's range: a matrix of NaN.
pub(crate) fn not_a_number<S: RealField + Copy, const T: usize>() -> SMatrix<S, T, T> {
    SMatrix::from_element(S::zero() / S::zero())
}
