//! The AVX2 and AVX-512 vectors of the lane path: one `core::arch` register type each, with every
//! operation the register's own instruction (`vaddps`, `vdivpd`, …), which is the IEEE operation
//! of the scalar path applied to each lane.
//!
//! # Safety
//! The operations call AVX2 and AVX-512 instructions, so a value of these types must only be
//! operated on by a processor that has them. The types are private to the crate, and the crate
//! names them in one place only: [`crate::Lanewise`] runs its batch loop over them inside a
//! function compiled for the instruction set, which it calls only after [`crate::Isa`] found the
//! instruction set on this processor. Generic code (a layer's forward pass) that is instantiated
//! over them is therefore only ever run after that check succeeded, on a processor that has the
//! instructions; building a value (`splat`, `zero`, `one`) needs no instruction of the set.

use core::arch::x86_64::*;
use core::fmt;
use core::mem::transmute;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_traits::{One, Zero};

use super::LaneVector;
use crate::Real;

macro_rules! vector {
    (
        $(#[$doc:meta])*
        $name:ident: [$scalar:ty; $lanes:literal] in $register:ty {
            add: $add:ident, sub: $sub:ident, mul: $mul:ident, div: $div:ident,
            neg: |$x:ident| $neg:expr,
            greater_of: |$a:ident, $b:ident| $greater:expr $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        #[repr(transparent)]
        pub struct $name($register);

        impl $name {
            /// The lanes `values`: a reinterpretation of the bits, no instruction of the set.
            #[inline(always)]
            fn new(values: [$scalar; $lanes]) -> Self {
                // SAFETY: the register type is `$lanes` values of `$scalar`, any bits valid.
                Self(unsafe { transmute::<[$scalar; $lanes], $register>(values) })
            }

            /// The lanes as an array.
            #[inline(always)]
            fn to_array(self) -> [$scalar; $lanes] {
                // SAFETY: as in `new`.
                unsafe { transmute::<$register, [$scalar; $lanes]>(self.0) }
            }
        }

        impl LaneVector for $name {
            type Scalar = $scalar;
            const LANES: usize = $lanes;

            #[inline(always)]
            fn splat(x: $scalar) -> Self {
                Self::new([x; $lanes])
            }

            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $scalar) -> Self {
                Self::new(core::array::from_fn(f))
            }

            #[inline(always)]
            fn for_each_lane(self, mut f: impl FnMut(usize, $scalar)) {
                for (k, x) in self.to_array().into_iter().enumerate() {
                    f(k, x);
                }
            }
        }

        vector!(@binary $name, Add, add, AddAssign, add_assign, $add);
        vector!(@binary $name, Sub, sub, SubAssign, sub_assign, $sub);
        vector!(@binary $name, Mul, mul, MulAssign, mul_assign, $mul);
        vector!(@binary $name, Div, div, DivAssign, div_assign, $div);

        impl Neg for $name {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                let $x = self.0;
                // SAFETY: see the module docs.
                Self(unsafe { $neg })
            }
        }

        impl Zero for $name {
            #[inline(always)]
            fn zero() -> Self {
                Self::splat(0.0)
            }

            fn is_zero(&self) -> bool {
                self.to_array().iter().all(|x| *x == 0.0)
            }
        }

        impl One for $name {
            #[inline(always)]
            fn one() -> Self {
                Self::splat(1.0)
            }
        }

        /// Lane by lane, as arrays compare.
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.to_array() == other.to_array()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.to_array()).finish()
            }
        }

        /// `exp` and `tanh` lane by lane through the scalar functions (bit-identical to them);
        /// `greater_of` as one compare and blend.
        impl Real for $name {
            #[inline(always)]
            fn exp(self) -> Self {
                Self::new(self.to_array().map(Real::exp))
            }

            #[inline(always)]
            fn tanh(self) -> Self {
                Self::new(self.to_array().map(Real::tanh))
            }

            #[inline(always)]
            fn greater_of(self, other: Self) -> Self {
                let ($a, $b) = (self.0, other.0);
                // SAFETY: see the module docs.
                Self(unsafe { $greater })
            }
        }
    };
    (@binary $name:ident, $trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op:ident) => {
        impl $trait for $name {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                // SAFETY: see the module docs.
                Self(unsafe { $op(self.0, other.0) })
            }
        }

        impl $assign_trait for $name {
            #[inline(always)]
            fn $assign(&mut self, other: Self) {
                *self = $trait::$method(*self, other);
            }
        }
    };
}

// `greater_of(a, b)` is `b` where `b > a` (ordered: false if either is NaN), else `a`: the scalar
// rule `if other > self { other } else { self }`. `-x` flips the sign bit, as the scalar `-x` does.

vector! {
    /// 16 lanes of f32 in an AVX-512 register.
    F32x16: [f32; 16] in __m512 {
        add: _mm512_add_ps, sub: _mm512_sub_ps, mul: _mm512_mul_ps, div: _mm512_div_ps,
        neg: |x| _mm512_xor_ps(x, _mm512_set1_ps(-0.0)),
        greater_of: |a, b| _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(b, a), a, b),
    }
}

vector! {
    /// 8 lanes of f64 in an AVX-512 register.
    F64x8: [f64; 8] in __m512d {
        add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
        neg: |x| _mm512_xor_pd(x, _mm512_set1_pd(-0.0)),
        greater_of: |a, b| _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_GT_OQ>(b, a), a, b),
    }
}

vector! {
    /// 8 lanes of f32 in an AVX register.
    F32x8: [f32; 8] in __m256 {
        add: _mm256_add_ps, sub: _mm256_sub_ps, mul: _mm256_mul_ps, div: _mm256_div_ps,
        neg: |x| _mm256_xor_ps(x, _mm256_set1_ps(-0.0)),
        greater_of: |a, b| _mm256_blendv_ps(a, b, _mm256_cmp_ps::<_CMP_GT_OQ>(b, a)),
    }
}

vector! {
    /// 4 lanes of f64 in an AVX register.
    F64x4: [f64; 4] in __m256d {
        add: _mm256_add_pd, sub: _mm256_sub_pd, mul: _mm256_mul_pd, div: _mm256_div_pd,
        neg: |x| _mm256_xor_pd(x, _mm256_set1_pd(-0.0)),
        greater_of: |a, b| _mm256_blendv_pd(a, b, _mm256_cmp_pd::<_CMP_GT_OQ>(b, a)),
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::Isa;

    /// Values where IEEE operations have their special cases: signed zeros, subnormals, the
    /// extremes, infinities, NaN.
    const SPECIAL: [f64; 12] = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        3.0e-310,
        1.0e-40,
        1.0e300,
        -3.4e38,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
    ];

    /// Every operation of `V` on every pair of special values, lane by lane against the scalar
    /// operation, bit for bit.
    fn lanes_match_the_scalar_operations<V>(to_scalar: impl Fn(f64) -> V::Scalar)
    where
        V: LaneVector,
        V::Scalar: Into<f64>,
    {
        let bits = |x: V::Scalar| Into::<f64>::into(x).to_bits();
        let is_nan = |x: V::Scalar| Into::<f64>::into(x).is_nan();
        let pairs: std::vec::Vec<(V::Scalar, V::Scalar)> = SPECIAL
            .iter()
            .flat_map(|&a| SPECIAL.iter().map(move |&b| (a, b)))
            .map(|(a, b)| (to_scalar(a), to_scalar(b)))
            .collect();
        for chunk in pairs.chunks(V::LANES) {
            let pick = |k: usize| chunk[k.min(chunk.len() - 1)];
            let a = V::from_fn(|k| pick(k).0);
            let b = V::from_fn(|k| pick(k).1);
            type ScalarOp<S> = fn(S, S) -> S;
            let results: [(V, ScalarOp<V::Scalar>); 7] = [
                (a + b, |x, y| x + y),
                (a - b, |x, y| x - y),
                (a * b, |x, y| x * y),
                (a / b, |x, y| x / y),
                (-a, |x, _| -x),
                (a.greater_of(b), |x, y| x.greater_of(y)),
                (a.exp(), |x, _| x.exp()),
            ];
            for (op, (lanes, scalar)) in results.into_iter().enumerate() {
                lanes.for_each_lane(|k, got| {
                    let (x, y) = pick(k);
                    let want = scalar(x, y);
                    let same = bits(got) == bits(want) || (is_nan(want) && is_nan(got));
                    assert!(same, "op {op} on ({x:?}, {y:?}): {got:?}, scalar {want:?}");
                });
            }
        }
    }

    #[test]
    fn avx512_lanes_are_the_scalar_operations() {
        if Isa::Avx512.is_available() {
            lanes_match_the_scalar_operations::<F32x16>(|x| x as f32);
            lanes_match_the_scalar_operations::<F64x8>(|x| x);
        }
    }

    #[test]
    fn avx2_lanes_are_the_scalar_operations() {
        if Isa::Avx2.is_available() {
            lanes_match_the_scalar_operations::<F32x8>(|x| x as f32);
            lanes_match_the_scalar_operations::<F64x4>(|x| x);
        }
    }
}
