//! Maps from skew-symmetric `T×T` matrices to orthogonal ones: the [`OrthogonalMap`] trait and its
//! implementors.
//!
//! Layers never call an implementation directly: they are generic over a map `Map:`
//! [`OrthogonalMap<S, T>`], a zero-sized type chosen at compile time, so a kernel specialised for
//! one `T` replaces another without changing any layer.
//!
//! | map | function | scalar | method |
//! |---|---|---|---|
//! | [`Generated`] (= [`DefaultCayley`]) | Cayley | any [`Field`] | straight-line code from `geomattn-macros` for small `T`, else [`Elimination`] |
//! | [`GramSchmidt`] | Cayley | any [`Field`] | square-root-free modified Gram–Schmidt on `I + C`, loops over `T`: accurate for every finite `C` |
//! | [`Elimination`] | Cayley | any [`Field`] | pivot-free Gauss–Jordan on `I + C`, loops over `T` (loses accuracy like `ε‖C‖²`) |
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
//! The maps that need `RealField` (nalgebra's inverse, LU, the exponentials) answer while one
//! rounding of `C` changes the result by less than 1/64, that is `ε‖C‖_F ≤ 1/64`
//! (`‖C‖_F ≤ 1.3·10⁵` in `f32`, `7·10¹³` in `f64`), and return NaN beyond it, which the checked
//! forward passes (`SequenceLayer::forward_checked`) report as `Error::NonFinite`: no silent wrong
//! answer. [`GramSchmidt`] stays finite until `‖C‖²` overflows, with an error that grows like
//! `ε‖C‖`, as LU's does.
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

use crate::Field;
#[cfg(doc)]
use crate::{Elimination, Exp, Generated, GramSchmidt, LuSolve, NalgebraInverse, ScalingSquaring};

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
pub type DefaultCayley = crate::Generated;

/// The skew matrix whose strict upper triangle is that of `c`: what every map reads of its
/// argument.
pub(crate) fn skew_from_upper<S: Field, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    skew_from_upper_plus(c, S::zero())
}

/// `diagonal·I` plus [`skew_from_upper`]`(c)`, entry by entry and inlined (so the lane path
/// compiles it for its instruction set).
#[inline(always)]
pub(crate) fn skew_from_upper_plus<S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    diagonal: S,
) -> SMatrix<S, T, T> {
    crate::product::matrix(
        #[inline(always)]
        |i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => c[(i, j)],
            core::cmp::Ordering::Greater => -c[(j, i)],
            core::cmp::Ordering::Equal => diagonal,
        },
    )
}

/// `ε‖C‖_F ≤ 1/64` (see the [module docs](self)); false for a NaN or infinite `C`.
pub(crate) fn in_meaningful_range<S: RealField + Copy, const T: usize>(
    c: &SMatrix<S, T, T>,
) -> bool {
    let mut upper_squares = S::zero();
    for j in 0..T {
        for i in 0..j {
            upper_squares += c[(i, j)] * c[(i, j)];
        }
    }
    let norm = (upper_squares + upper_squares).sqrt();
    let bound = S::one() / (nalgebra::convert::<f64, S>(64.0) * S::default_epsilon());
    // `!(>)` would accept NaN; `≤` rejects it.
    norm <= bound
}

/// The answer outside the meaningful range: a matrix of NaN.
pub(crate) fn not_a_number<S: RealField + Copy, const T: usize>() -> SMatrix<S, T, T> {
    SMatrix::from_element(S::zero() / S::zero())
}
