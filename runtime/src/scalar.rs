//! The scalar bounds the layers are written against.
//!
//! Everything that needs only `+ − × ÷` (packed matrices, correlations, the Cayley transform,
//! matrix products) is bound by [`Field`], so exact rationals (for tests) and SIMD lane types run the
//! same code as `f32` and `f64`. Only what genuinely needs a square root or an exponential (GML's
//! `1/√dim` scaling, softmaxes, Glorot initialisation) asks for [`nalgebra::RealField`].

use core::ops::Neg;

use nalgebra::{ClosedAddAssign, ClosedDivAssign, ClosedMulAssign, ClosedSubAssign, Scalar};
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
