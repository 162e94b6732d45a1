//! [`Lanes`]: `N` scalars computed as one, so that one evaluation of a layer's ordinary generic code
//! handles `N` sequences, one per SIMD lane.
//!
//! A layer written against [`crate::Field`] (or [`Real`]) runs unchanged over `Lanes<S, N>`: every
//! operation is the scalar operation applied lane by lane, in the same order, so each lane's result
//! is **bit-identical** to running the scalar layer on that lane's sequence. [`crate::Lanewise`]
//! packs a flat batch into lanes, runs the layer's lane twin and unpacks the outputs.
//!
//! ```
//! use geomattn::{Lanes, Real};
//! let x = Lanes::<f64, 4>::new([0.0, 1.0, -2.0, 30.0]);
//! let y = (x * x + Lanes::splat(1.0)).tanh();
//! for k in 0..4 {
//!     assert_eq!(y.lane(k), (x.lane(k) * x.lane(k) + 1.0).tanh());
//! }
//! ```
//!
//! # Why `wide`
//! These are `wide`'s portable vector types (`f32x4` … `f64x8`): no_std, bit-exact IEEE operations,
//! one vector value per lane group that the optimiser keeps in registers, on every architecture
//! (SSE2 on x86-64, NEON on AArch64, scalar code elsewhere). `wide` fixes its instruction set when
//! the crate is compiled, so a default x86-64 build computes them with SSE2 even on a processor
//! with AVX-512; [`crate::Lanewise`] therefore uses them only as its portable fallback
//! ([`crate::Isa::Portable`]: `f32x4`, `f64x2`) and runs AVX2 and AVX-512 through the crate's own
//! vector types, chosen at run time. A plain `[S; N]` with element-wise loops was measured too and
//! rejected: LLVM splits it into scalars (about 2× slower than `wide` at T = 3).

use core::fmt;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_traits::{One, Zero};

use crate::scalar::Real;

/// A scalar that has a SIMD vector type of `N` lanes: `f32` with 4, 8 or 16, `f64` with 2, 4 or 8
/// (`wide`'s `f32x4` … `f64x8`).
pub trait LaneScalar<const N: usize>: Real {
    /// The vector of `N` values.
    type Vector: Copy
        + Add<Output = Self::Vector>
        + Sub<Output = Self::Vector>
        + Mul<Output = Self::Vector>
        + Div<Output = Self::Vector>
        + Neg<Output = Self::Vector>;

    /// `value` in every lane.
    fn splat(value: Self) -> Self::Vector;

    /// The vector of `values`.
    fn from_array(values: [Self; N]) -> Self::Vector;

    /// The lanes of `vector`.
    fn to_array(vector: Self::Vector) -> [Self; N];
}

macro_rules! lane_scalar {
    ($scalar:ty, $lanes:literal, $vector:ty) => {
        impl LaneScalar<$lanes> for $scalar {
            type Vector = $vector;

            #[inline(always)]
            fn splat(value: Self) -> $vector {
                <$vector>::splat(value)
            }

            #[inline(always)]
            fn from_array(values: [Self; $lanes]) -> $vector {
                <$vector>::new(values)
            }

            #[inline(always)]
            fn to_array(vector: $vector) -> [Self; $lanes] {
                vector.to_array()
            }
        }
    };
}

lane_scalar!(f32, 4, wide::f32x4);
lane_scalar!(f32, 8, wide::f32x8);
lane_scalar!(f32, 16, wide::f32x16);
lane_scalar!(f64, 2, wide::f64x2);
lane_scalar!(f64, 4, wide::f64x4);
lane_scalar!(f64, 8, wide::f64x8);

/// `N` values of the scalar `S`, one per lane, with every arithmetic operation applied lane by lane.
#[repr(transparent)]
pub struct Lanes<S: LaneScalar<N>, const N: usize>(S::Vector);

impl<S: LaneScalar<N>, const N: usize> Lanes<S, N> {
    /// The lanes `values`.
    #[inline(always)]
    pub fn new(values: [S; N]) -> Self {
        Self(S::from_array(values))
    }

    /// `value` in every lane.
    #[inline(always)]
    pub fn splat(value: S) -> Self {
        Self(S::splat(value))
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [S; N] {
        S::to_array(self.0)
    }

    /// Lane `k`.
    ///
    /// # Panics
    /// If `k ≥ N`.
    #[inline(always)]
    pub fn lane(self, k: usize) -> S {
        self.to_array()[k]
    }

    /// `f` applied to every lane.
    #[inline(always)]
    pub fn map(self, f: impl FnMut(S) -> S) -> Self {
        Self::new(self.to_array().map(f))
    }

    /// `f` applied lane by lane to `self` and `other`.
    #[inline(always)]
    pub fn zip_map(self, other: Self, mut f: impl FnMut(S, S) -> S) -> Self {
        let (a, b) = (self.to_array(), other.to_array());
        Self::new(core::array::from_fn(|k| f(a[k], b[k])))
    }
}

impl<S: LaneScalar<N>, const N: usize> Clone for Lanes<S, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: LaneScalar<N>, const N: usize> Copy for Lanes<S, N> {}

/// Lane by lane, as `[S; N]` compares (so a NaN lane makes two lane vectors unequal).
impl<S: LaneScalar<N>, const N: usize> PartialEq for Lanes<S, N> {
    fn eq(&self, other: &Self) -> bool {
        self.to_array() == other.to_array()
    }
}

impl<S: LaneScalar<N>, const N: usize> fmt::Debug for Lanes<S, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Lanes").field(&self.to_array()).finish()
    }
}

macro_rules! lane_binary_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl<S: LaneScalar<N>, const N: usize> $trait for Lanes<S, N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                Self(self.0 $op other.0)
            }
        }

        impl<S: LaneScalar<N>, const N: usize> $assign_trait for Lanes<S, N> {
            #[inline(always)]
            fn $assign_method(&mut self, other: Self) {
                *self = *self $op other;
            }
        }
    };
}

lane_binary_op!(Add, add, AddAssign, add_assign, +);
lane_binary_op!(Sub, sub, SubAssign, sub_assign, -);
lane_binary_op!(Mul, mul, MulAssign, mul_assign, *);
lane_binary_op!(Div, div, DivAssign, div_assign, /);

impl<S: LaneScalar<N>, const N: usize> Neg for Lanes<S, N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

impl<S: LaneScalar<N>, const N: usize> Zero for Lanes<S, N> {
    #[inline(always)]
    fn zero() -> Self {
        Self::splat(S::zero())
    }

    fn is_zero(&self) -> bool {
        self.to_array().iter().all(Zero::is_zero)
    }
}

impl<S: LaneScalar<N>, const N: usize> One for Lanes<S, N> {
    #[inline(always)]
    fn one() -> Self {
        Self::splat(S::one())
    }
}

/// The arithmetic of a one-field wrapper of a lane vector (`+ − × ÷`, their assignments,
/// negation, zero and one), each its field's: for the wrappers that change only a vector's
/// elementary functions ([`crate::engine::FastLanes`], the polynomial vectors of
/// [`crate::VectorFunctions`]). `wrapped_arithmetic!([generics] Type)`.
macro_rules! wrapped_arithmetic {
    ([$($g:tt)*] $ty:ty) => {
        $crate::lanes::wrapped_arithmetic!(@binary [$($g)*] $ty, Add add AddAssign add_assign);
        $crate::lanes::wrapped_arithmetic!(@binary [$($g)*] $ty, Sub sub SubAssign sub_assign);
        $crate::lanes::wrapped_arithmetic!(@binary [$($g)*] $ty, Mul mul MulAssign mul_assign);
        $crate::lanes::wrapped_arithmetic!(@binary [$($g)*] $ty, Div div DivAssign div_assign);

        impl<$($g)*> core::ops::Neg for $ty {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Self(-self.0)
            }
        }

        impl<$($g)*> num_traits::Zero for $ty {
            #[inline(always)]
            fn zero() -> Self {
                Self(num_traits::Zero::zero())
            }

            fn is_zero(&self) -> bool {
                num_traits::Zero::is_zero(&self.0)
            }
        }

        impl<$($g)*> num_traits::One for $ty {
            #[inline(always)]
            fn one() -> Self {
                Self(num_traits::One::one())
            }
        }
    };
    (@binary [$($g:tt)*] $ty:ty, $trait:ident $method:ident $assign_trait:ident $assign:ident) => {
        impl<$($g)*> core::ops::$trait for $ty {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                Self(self.0.$method(other.0))
            }
        }

        impl<$($g)*> core::ops::$assign_trait for $ty {
            #[inline(always)]
            fn $assign(&mut self, other: Self) {
                self.0.$assign(other.0);
            }
        }
    };
}
pub(crate) use wrapped_arithmetic;

impl<S: LaneScalar<N>, const N: usize> Real for Lanes<S, N> {
    #[inline(always)]
    fn exp(self) -> Self {
        self.map(S::exp)
    }

    #[inline(always)]
    fn tanh(self) -> Self {
        self.map(S::tanh)
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(S::sqrt)
    }

    #[inline(always)]
    fn greater_of(self, other: Self) -> Self {
        self.zip_map(other, S::greater_of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_act_lane_by_lane() {
        let a = Lanes::new([1.0_f64, -2.0, 0.5, 8.0]);
        let b = Lanes::new([3.0_f64, 4.0, -0.25, -16.0]);
        assert_eq!(a + b, Lanes::new([4.0, 2.0, 0.25, -8.0]));
        assert_eq!(a - b, Lanes::new([-2.0, -6.0, 0.75, 24.0]));
        assert_eq!(a * b, Lanes::new([3.0, -8.0, -0.125, -128.0]));
        assert_eq!(a / b, Lanes::new([1.0 / 3.0, -0.5, -2.0, -0.5]));
        assert_eq!(-a, Lanes::new([-1.0, 2.0, -0.5, -8.0]));
        let mut c = a;
        c += b;
        c -= b;
        c *= b;
        c /= b;
        assert_eq!(c, a);
        assert!(Lanes::<f32, 4>::zero().is_zero());
        assert!(!Lanes::new([0.0_f32, 1.0, 0.0, 0.0]).is_zero());
        assert_eq!(Lanes::<f32, 8>::one(), Lanes::splat(1.0));
    }

    #[test]
    fn greater_of_keeps_the_scalar_rule_for_nan_and_signed_zero() {
        let a = Lanes::new([f64::NAN, 1.0, -0.0, 2.0]);
        let b = Lanes::new([1.0, f64::NAN, 0.0, -3.0]);
        let m = a.greater_of(b);
        for k in 0..4 {
            let scalar = a.lane(k).greater_of(b.lane(k));
            assert_eq!(m.lane(k).to_bits(), scalar.to_bits(), "lane {k}");
        }
        assert!(m.lane(0).is_nan() && m.lane(1) == 1.0 && m.lane(3) == 2.0);
    }

    #[test]
    fn the_layout_is_one_cache_line_for_the_measured_widths() {
        assert_eq!(core::mem::size_of::<Lanes<f32, 16>>(), 64);
        assert_eq!(core::mem::size_of::<Lanes<f64, 8>>(), 64);
        assert_eq!(core::mem::size_of::<Lanes<f32, 4>>(), 16);
    }
}
