//! The scalar bounds the layers are written against.
//!
//! Everything that needs only `+ − × ÷` (packed matrices, correlations, the Cayley transform,
//! matrix products) is bound by [`Field`], so exact rationals (for tests) and SIMD lane types run the
//! same code as `f32` and `f64`. What a forward pass needs beyond `Field` (the exponential of the
//! softmaxes, `tanh`, the square root of GML's `1/√D` scaling) is [`Real`], which SIMD lanes
//! implement lane by lane. Only what is done once, outside a forward pass (Glorot initialisation,
//! Stiefel projections, the checked pass's finiteness test), asks for [`nalgebra::RealField`].

use core::ops::Neg;

use nalgebra::{
    ClosedAddAssign, ClosedDivAssign, ClosedMulAssign, ClosedSubAssign, ComplexField, RealField,
    Scalar,
};
use num_traits::{One, Zero};

/// A scalar closed under `+ − × ÷` with `0` and `1`: `f32`, `f64`, `num_rational::Ratio<i128>`,
/// dual numbers, SIMD lanes.
///
/// Implemented automatically for every type that has these operations.
///
/// ```
/// fn twice<S: geomattn::Field>(x: S) -> S { x + x }
/// assert_eq!(twice(1.5_f64), 3.0);
/// assert_eq!(twice(num_rational::Ratio::new(1_i64, 3)), num_rational::Ratio::new(2, 3));
/// ```
pub trait Field:
    Scalar
    + Copy
    + Zero
    + One
    + ClosedAddAssign
    + ClosedSubAssign
    + ClosedMulAssign
    + ClosedDivAssign
    + Neg<Output = Self>
{
}

impl<S> Field for S where
    S: Scalar
        + Copy
        + Zero
        + One
        + ClosedAddAssign
        + ClosedSubAssign
        + ClosedMulAssign
        + ClosedDivAssign
        + Neg<Output = Self>
{
}

/// A [`Field`] with the few elementary functions the layers need besides `+ − × ÷`: the
/// exponential (softmaxes), `tanh` (activations), the square root (the `1/√D` scaling) and the
/// larger of two values (the softmaxes' shift).
///
/// Implemented for every [`nalgebra::RealField`] (`f32`, `f64`, dual numbers) through its own
/// functions, and for [`crate::Lanes`] of them lane by lane, so a layer bound by `Real` runs over
/// SIMD lanes with each lane bit-identical to the scalar run.
///
/// ```
/// use geomattn::Real;
/// assert_eq!(Real::exp(0.0_f64), 1.0);
/// assert_eq!(2.0_f32.greater_of(3.0), 3.0);
/// assert!(f64::NAN.greater_of(1.0).is_nan());
/// ```
pub trait Real: Field {
    /// `e^self`.
    fn exp(self) -> Self;

    /// `tanh self`.
    fn tanh(self) -> Self;

    /// `√self` (GML's `1/√D` scaling of multi-head attention).
    fn sqrt(self) -> Self;

    /// `other` if `other > self`, else `self` (so a NaN in `self` is kept and one in `other` is
    /// skipped: the rule of a left fold `if v > m { v } else { m }`).
    fn greater_of(self, other: Self) -> Self;
}

impl<S: RealField + Copy> Real for S {
    #[inline(always)]
    fn exp(self) -> Self {
        ComplexField::exp(self)
    }

    #[inline(always)]
    fn tanh(self) -> Self {
        ComplexField::tanh(self)
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        ComplexField::sqrt(self)
    }

    #[inline(always)]
    fn greater_of(self, other: Self) -> Self {
        if other > self { other } else { self }
    }
}

/// A layer (or weight) that can be rebuilt over another scalar, weight by weight: the same layer
/// over exact rationals for tests, over `f32` from `f64`, or over [`crate::Lanes`] with every weight
/// splatted across the lanes ([`crate::Lanewise`]).
///
/// ```
/// use geomattn::{Lanes, MapScalar, SkewSymmetric, SkewVpa};
/// let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
/// let single = layer.map_scalar(|w| w as f32);
/// let lanes = layer.map_scalar(Lanes::<f64, 8>::splat);
/// assert_eq!(single.weight().a().matrix()[(1, 0)], 0.5_f32);
/// assert_eq!(lanes.weight().a().matrix()[(1, 0)], Lanes::splat(0.5));
/// # Ok::<(), geomattn::Error>(())
/// ```
pub trait MapScalar {
    /// The scalar of the weights.
    type Scalar: Field;
    /// The same type over the scalar `S2`.
    type Over<S2: Field>;

    /// The same layer with every weight `w` replaced by `f(w)`.
    fn map_scalar<S2: Field>(&self, f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2>;
}

/// `2` in any field, built from `1 + 1` so that no conversion from a float is needed.
#[inline(always)]
pub(crate) fn two<S: Field>() -> S {
    S::one() + S::one()
}

/// `num / den` in any field, built from `S::one()` by doubling and adding (and one division for a
/// fraction), so that no conversion from a float is needed. Used by the code `geomattn-macros`
/// emits; with constant arguments it folds to a constant in `f32` and `f64`.
///
/// ```
/// assert_eq!(geomattn::__private::ratio::<f64>(-3, 4), -0.75);
/// ```
#[inline(always)]
pub fn ratio<S: Field>(num: i64, den: i64) -> S {
    if den == 1 {
        integer(num)
    } else {
        integer::<S>(num) / integer(den)
    }
}

/// `n` in any field, by binary doubling of `S::one()`.
#[inline(always)]
fn integer<S: Field>(n: i64) -> S {
    match n {
        0 => S::zero(),
        1 => S::one(),
        2 => two(),
        -1 => -S::one(),
        _ => {
            let mut magnitude = n.unsigned_abs();
            let (mut power, mut sum) = (S::one(), S::zero());
            while magnitude > 0 {
                if magnitude & 1 == 1 {
                    sum += power;
                }
                power += power;
                magnitude >>= 1;
            }
            if n < 0 { -sum } else { sum }
        }
    }
}
