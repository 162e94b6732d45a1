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
use crate::scalar::Real;

macro_rules! vector {
    (
        $(#[$doc:meta])*
        $name:ident: [$scalar:ty; $lanes:literal] in $register:ty {
            add: $add:ident, sub: $sub:ident, mul: $mul:ident, div: $div:ident,
            neg: |$x:ident| $neg:expr,
            greater_of: |$a:ident, $b:ident| $greater:expr,
            transpose: $transpose:ident,
            elementary: {
                mul_add: |$ma:ident, $mb:ident, $mc:ident| $mul_add:expr,
                round: |$rx:ident| $round:expr,
                clamp: |$cx:ident, $clow:ident, $chigh:ident| $clamp:expr,
                times_pow2: |$px:ident, $pn:ident| $times_pow2:expr,
                abs: |$ax:ident| $abs:expr,
                with_sign_of: |$sx:ident, $ss:ident| $with_sign_of:expr,
                below: |$bx:ident, $bound:ident, $then:ident, $otherwise:ident| $below:expr,
                unless_nan: |$ny:ident, $nx:ident| $unless_nan:expr $(,)?
            } $(,)?
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
            const SHUFFLES: bool = true;

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

            #[inline(always)]
            fn load(values: &[$scalar]) -> Self {
                let values: [$scalar; $lanes] = values[..$lanes].try_into().expect("LANES values");
                Self::new(values)
            }

            #[inline(always)]
            fn store(self, out: &mut [$scalar]) {
                out[..$lanes].copy_from_slice(&self.to_array());
            }

            #[inline(always)]
            unsafe fn load_at(values: &[$scalar], at: usize) -> Self {
                debug_assert!(at + $lanes <= values.len());
                // SAFETY: `$lanes` values from `at` lie in `values` (the caller's promise);
                // unaligned, as a slice of scalars may be.
                Self::new(unsafe { values.as_ptr().add(at).cast::<[$scalar; $lanes]>().read_unaligned() })
            }

            #[inline(always)]
            unsafe fn store_at(self, out: &mut [$scalar], at: usize) {
                debug_assert!(at + $lanes <= out.len());
                // SAFETY: as in `load_at`.
                unsafe {
                    out.as_mut_ptr()
                        .add(at)
                        .cast::<[$scalar; $lanes]>()
                        .write_unaligned(self.to_array());
                }
            }

            #[inline(always)]
            fn transpose(block: &mut [Self]) {
                let block: &mut [Self; $lanes] = block.try_into().expect("LANES vectors");
                // SAFETY: `Self` is a transparent wrapper of the register type, so arrays of the
                // two have one layout; the shuffles: see the module docs.
                unsafe {
                    let rows = transmute::<[Self; $lanes], [$register; $lanes]>(*block);
                    *block = transmute::<[$register; $lanes], [Self; $lanes]>($transpose(rows));
                }
            }

            #[inline(always)]
            fn mul_add(self, b: Self, c: Self) -> Self {
                let ($ma, $mb, $mc) = (self.0, b.0, c.0);
                // SAFETY: see the module docs.
                Self(unsafe { $mul_add })
            }

            #[inline(always)]
            fn round(self) -> Self {
                let $rx = self.0;
                // SAFETY: see the module docs.
                Self(unsafe { $round })
            }

            #[inline(always)]
            fn clamp(self, low: $scalar, high: $scalar) -> Self {
                let ($cx, $clow, $chigh) = (self.0, Self::splat(low).0, Self::splat(high).0);
                // SAFETY: see the module docs.
                Self(unsafe { $clamp })
            }

            #[inline(always)]
            fn times_pow2(self, n: Self) -> Self {
                let ($px, $pn) = (self.0, n.0);
                // SAFETY: see the module docs.
                Self(unsafe { $times_pow2 })
            }

            #[inline(always)]
            fn abs(self) -> Self {
                let $ax = self.0;
                // SAFETY: see the module docs.
                Self(unsafe { $abs })
            }

            #[inline(always)]
            fn with_sign_of(self, sign: Self) -> Self {
                let ($sx, $ss) = (self.0, sign.0);
                // SAFETY: see the module docs.
                Self(unsafe { $with_sign_of })
            }

            #[inline(always)]
            fn below(self, bound: $scalar, then: Self, otherwise: Self) -> Self {
                let ($bx, $bound, $then, $otherwise) =
                    (self.0, Self::splat(bound).0, then.0, otherwise.0);
                // SAFETY: see the module docs.
                Self(unsafe { $below })
            }

            #[inline(always)]
            fn unless_nan(self, x: Self) -> Self {
                let ($ny, $nx) = (self.0, x.0);
                // SAFETY: see the module docs.
                Self(unsafe { $unless_nan })
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

        /// `exp`, `tanh` and `sqrt` lane by lane through the scalar functions (bit-identical to them);
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
            fn sqrt(self) -> Self {
                Self::new(self.to_array().map(Real::sqrt))
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

/// Rounding to the nearest integer, without raising the inexact exception.
const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// `greater_of(a, b)` is `b` where `b > a` (ordered: false if either is NaN), else `a`: the scalar
// rule `if other > self { other } else { self }`. `-x` flips the sign bit, as the scalar `-x` does.

vector! {
    /// 16 lanes of f32 in an AVX-512 register.
    F32x16: [f32; 16] in __m512 {
        add: _mm512_add_ps, sub: _mm512_sub_ps, mul: _mm512_mul_ps, div: _mm512_div_ps,
        neg: |x| _mm512_xor_ps(x, _mm512_set1_ps(-0.0)),
        greater_of: |a, b| _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(b, a), a, b),
        transpose: transpose_f32x16,
        elementary: {
            mul_add: |a, b, c| _mm512_fmadd_ps(a, b, c),
            round: |x| _mm512_roundscale_ps::<NEAREST>(x),
            clamp: |x, low, high| _mm512_min_ps(_mm512_max_ps(x, low), high),
            times_pow2: |x, n| _mm512_scalef_ps(x, n),
            abs: |x| _mm512_abs_ps(x),
            with_sign_of: |x, s| _mm512_or_ps(_mm512_abs_ps(x), _mm512_and_ps(s, _mm512_set1_ps(-0.0))),
            below: |x, bound, then, otherwise| {
                _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, bound), otherwise, then)
            },
            unless_nan: |y, x| _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x), y, x),
        },
    }
}

vector! {
    /// 8 lanes of f64 in an AVX-512 register.
    F64x8: [f64; 8] in __m512d {
        add: _mm512_add_pd, sub: _mm512_sub_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
        neg: |x| _mm512_xor_pd(x, _mm512_set1_pd(-0.0)),
        greater_of: |a, b| _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_GT_OQ>(b, a), a, b),
        transpose: transpose_f64x8,
        elementary: {
            mul_add: |a, b, c| _mm512_fmadd_pd(a, b, c),
            round: |x| _mm512_roundscale_pd::<NEAREST>(x),
            clamp: |x, low, high| _mm512_min_pd(_mm512_max_pd(x, low), high),
            times_pow2: |x, n| _mm512_scalef_pd(x, n),
            abs: |x| _mm512_abs_pd(x),
            with_sign_of: |x, s| _mm512_or_pd(_mm512_abs_pd(x), _mm512_and_pd(s, _mm512_set1_pd(-0.0))),
            below: |x, bound, then, otherwise| {
                _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, bound), otherwise, then)
            },
            unless_nan: |y, x| _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(x, x), y, x),
        },
    }
}

vector! {
    /// 8 lanes of f32 in an AVX register.
    F32x8: [f32; 8] in __m256 {
        add: _mm256_add_ps, sub: _mm256_sub_ps, mul: _mm256_mul_ps, div: _mm256_div_ps,
        neg: |x| _mm256_xor_ps(x, _mm256_set1_ps(-0.0)),
        greater_of: |a, b| _mm256_blendv_ps(a, b, _mm256_cmp_ps::<_CMP_GT_OQ>(b, a)),
        transpose: transpose_f32x8,
        elementary: {
            mul_add: |a, b, c| _mm256_fmadd_ps(a, b, c),
            round: |x| _mm256_round_ps::<NEAREST>(x),
            clamp: |x, low, high| _mm256_min_ps(_mm256_max_ps(x, low), high),
            times_pow2: |x, n| {
                let half = _mm256_floor_ps(_mm256_mul_ps(n, _mm256_set1_ps(0.5)));
                let pow2 = |k| {
                    let biased = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
                    _mm256_castsi256_ps(_mm256_slli_epi32::<23>(biased))
                };
                _mm256_mul_ps(_mm256_mul_ps(x, pow2(half)), pow2(_mm256_sub_ps(n, half)))
            },
            abs: |x| _mm256_andnot_ps(_mm256_set1_ps(-0.0), x),
            with_sign_of: |x, s| {
                let sign = _mm256_set1_ps(-0.0);
                _mm256_or_ps(_mm256_andnot_ps(sign, x), _mm256_and_ps(s, sign))
            },
            below: |x, bound, then, otherwise| {
                _mm256_blendv_ps(otherwise, then, _mm256_cmp_ps::<_CMP_LT_OQ>(x, bound))
            },
            unless_nan: |y, x| _mm256_blendv_ps(y, x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x)),
        },
    }
}

vector! {
    /// 4 lanes of f64 in an AVX register.
    F64x4: [f64; 4] in __m256d {
        add: _mm256_add_pd, sub: _mm256_sub_pd, mul: _mm256_mul_pd, div: _mm256_div_pd,
        neg: |x| _mm256_xor_pd(x, _mm256_set1_pd(-0.0)),
        greater_of: |a, b| _mm256_blendv_pd(a, b, _mm256_cmp_pd::<_CMP_GT_OQ>(b, a)),
        transpose: transpose_f64x4,
        elementary: {
            mul_add: |a, b, c| _mm256_fmadd_pd(a, b, c),
            round: |x| _mm256_round_pd::<NEAREST>(x),
            clamp: |x, low, high| _mm256_min_pd(_mm256_max_pd(x, low), high),
            times_pow2: |x, n| {
                let half = _mm256_floor_pd(_mm256_mul_pd(n, _mm256_set1_pd(0.5)));
                let pow2 = |k| {
                    let exponent = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
                    let biased = _mm256_add_epi64(exponent, _mm256_set1_epi64x(1023));
                    _mm256_castsi256_pd(_mm256_slli_epi64::<52>(biased))
                };
                _mm256_mul_pd(_mm256_mul_pd(x, pow2(half)), pow2(_mm256_sub_pd(n, half)))
            },
            abs: |x| _mm256_andnot_pd(_mm256_set1_pd(-0.0), x),
            with_sign_of: |x, s| {
                let sign = _mm256_set1_pd(-0.0);
                _mm256_or_pd(_mm256_andnot_pd(sign, x), _mm256_and_pd(s, sign))
            },
            below: |x, bound, then, otherwise| {
                _mm256_blendv_pd(otherwise, then, _mm256_cmp_pd::<_CMP_LT_OQ>(x, bound))
            },
            unless_nan: |y, x| _mm256_blendv_pd(y, x, _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x)),
        },
    }
}

// The transposes: rows `r[i]` in, columns out (lane `j` of row `i` becomes lane `i` of column
// `j`), in log₂(lanes) rounds of two-register shuffles. In the comments `aₖ` is lane `k` of row 0,
// `bₖ` of row 1, and so on; `|` separates 128-bit blocks.

/// 16×16 f32: pairs, then quadruples within 128-bit blocks, then 128-bit blocks twice.
#[inline(always)]
unsafe fn transpose_f32x16(r: [__m512; 16]) -> [__m512; 16] {
    // SAFETY (every call in this function): see the module docs.
    unsafe {
        // t[2p] = a0 b0 a1 b1 | a4 b4 a5 b5 | …, t[2p+1] = a2 b2 a3 b3 | … (rows 2p, 2p+1).
        let mut t = [_mm512_setzero_ps(); 16];
        for p in 0..8 {
            t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
            t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
        }
        // u[4q + m] = column m (mod 4) of rows 4q … 4q+3: a_m b_m c_m d_m | a_{m+4} … | …
        let mut u = [_mm512_setzero_ps(); 16];
        for q in 0..4 {
            for h in 0..2 {
                let x = _mm512_castps_pd(t[4 * q + h]);
                let y = _mm512_castps_pd(t[4 * q + h + 2]);
                u[4 * q + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(x, y));
                u[4 * q + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(x, y));
            }
        }
        // For column m: v0 = [m r0-3 | m+8 r0-3 | m r4-7 | m+8 r4-7], v1 likewise for m+4 and
        // m+12; w0, w1 the same for rows 8-15.
        let mut columns = [_mm512_setzero_ps(); 16];
        for m in 0..4 {
            let v0 = _mm512_shuffle_f32x4::<0x88>(u[m], u[4 + m]);
            let v1 = _mm512_shuffle_f32x4::<0xDD>(u[m], u[4 + m]);
            let w0 = _mm512_shuffle_f32x4::<0x88>(u[8 + m], u[12 + m]);
            let w1 = _mm512_shuffle_f32x4::<0xDD>(u[8 + m], u[12 + m]);
            columns[m] = _mm512_shuffle_f32x4::<0x88>(v0, w0);
            columns[m + 8] = _mm512_shuffle_f32x4::<0xDD>(v0, w0);
            columns[m + 4] = _mm512_shuffle_f32x4::<0x88>(v1, w1);
            columns[m + 12] = _mm512_shuffle_f32x4::<0xDD>(v1, w1);
        }
        columns
    }
}

/// 8×8 f64: pairs, then 128-bit blocks twice.
#[inline(always)]
unsafe fn transpose_f64x8(r: [__m512d; 8]) -> [__m512d; 8] {
    // SAFETY (every call in this function): see the module docs.
    unsafe {
        // t[2p] = a0 b0 | a2 b2 | a4 b4 | a6 b6, t[2p+1] = a1 b1 | a3 b3 | … (rows 2p, 2p+1).
        let mut t = [_mm512_setzero_pd(); 8];
        for p in 0..4 {
            t[2 * p] = _mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]);
            t[2 * p + 1] = _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]);
        }
        let mut columns = [_mm512_setzero_pd(); 8];
        for m in 0..2 {
            // Rows 0-3: u0 = a_m b_m | a_{m+4} b_{m+4} | c_m d_m | c_{m+4} d_{m+4}, u1 the same for
            // m+2; rows 4-7 likewise in v0, v1.
            let u0 = _mm512_shuffle_f64x2::<0x88>(t[m], t[2 + m]);
            let u1 = _mm512_shuffle_f64x2::<0xDD>(t[m], t[2 + m]);
            let v0 = _mm512_shuffle_f64x2::<0x88>(t[4 + m], t[6 + m]);
            let v1 = _mm512_shuffle_f64x2::<0xDD>(t[4 + m], t[6 + m]);
            columns[m] = _mm512_shuffle_f64x2::<0x88>(u0, v0);
            columns[m + 4] = _mm512_shuffle_f64x2::<0xDD>(u0, v0);
            columns[m + 2] = _mm512_shuffle_f64x2::<0x88>(u1, v1);
            columns[m + 6] = _mm512_shuffle_f64x2::<0xDD>(u1, v1);
        }
        columns
    }
}

/// 8×8 f32: pairs, then quadruples within 128-bit blocks, then the 128-bit halves.
#[inline(always)]
unsafe fn transpose_f32x8(r: [__m256; 8]) -> [__m256; 8] {
    // SAFETY (every call in this function): see the module docs.
    unsafe {
        // t[2p] = a0 b0 a1 b1 | a4 b4 a5 b5, t[2p+1] = a2 b2 a3 b3 | a6 b6 a7 b7 (rows 2p, 2p+1).
        let mut t = [_mm256_setzero_ps(); 8];
        for p in 0..4 {
            t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);
            t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);
        }
        // u[4q + m] = a_m b_m c_m d_m | a_{m+4} b_{m+4} c_{m+4} d_{m+4} of rows 4q … 4q+3.
        let mut u = [_mm256_setzero_ps(); 8];
        for q in 0..2 {
            for h in 0..2 {
                let (x, y) = (t[4 * q + h], t[4 * q + h + 2]);
                u[4 * q + 2 * h] = _mm256_shuffle_ps::<0x44>(x, y);
                u[4 * q + 2 * h + 1] = _mm256_shuffle_ps::<0xEE>(x, y);
            }
        }
        let mut columns = [_mm256_setzero_ps(); 8];
        for m in 0..4 {
            columns[m] = _mm256_permute2f128_ps::<0x20>(u[m], u[4 + m]);
            columns[m + 4] = _mm256_permute2f128_ps::<0x31>(u[m], u[4 + m]);
        }
        columns
    }
}

/// 4×4 f64: pairs, then the 128-bit halves.
#[inline(always)]
unsafe fn transpose_f64x4(r: [__m256d; 4]) -> [__m256d; 4] {
    // SAFETY (every call in this function): see the module docs.
    unsafe {
        // t0 = a0 b0 | a2 b2, t1 = a1 b1 | a3 b3, t2 = c0 d0 | c2 d2, t3 = c1 d1 | c3 d3.
        let t = [
            _mm256_unpacklo_pd(r[0], r[1]),
            _mm256_unpackhi_pd(r[0], r[1]),
            _mm256_unpacklo_pd(r[2], r[3]),
            _mm256_unpackhi_pd(r[2], r[3]),
        ];
        [
            _mm256_permute2f128_pd::<0x20>(t[0], t[2]),
            _mm256_permute2f128_pd::<0x20>(t[1], t[3]),
            _mm256_permute2f128_pd::<0x31>(t[0], t[2]),
            _mm256_permute2f128_pd::<0x31>(t[1], t[3]),
        ]
    }
}

#[cfg(all(test, feature = "std"))]
pub(crate) mod tests {
    use super::*;
    use crate::isa::Isa;

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
            let results: [(V, ScalarOp<V::Scalar>); 9] = [
                (a + b, |x, y| x + y),
                (a - b, |x, y| x - y),
                (a * b, |x, y| x * y),
                (a / b, |x, y| x / y),
                (-a, |x, _| -x),
                (a.greater_of(b), |x, y| x.greater_of(y)),
                (a.exp(), |x, _| x.exp()),
                (a.tanh(), |x, _| x.tanh()),
                (a.sqrt(), |x, _| x.sqrt()),
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

    /// `transpose` moves lane `j` of vector `i` to lane `i` of vector `j`, and `load` / `store`
    /// keep the order of the lanes.
    pub(crate) fn transpose_is_the_matrix_transpose<V>()
    where
        V: LaneVector,
        V::Scalar: Into<f64> + From<u8>,
    {
        let n = V::LANES;
        let entry = |i: usize, j: usize| V::Scalar::from((16 * i + j) as u8);
        let mut block: std::vec::Vec<V> = (0..n).map(|i| V::from_fn(|j| entry(i, j))).collect();
        V::transpose(&mut block);
        for (j, column) in block.iter().enumerate() {
            column.for_each_lane(|i, x| assert!(x == entry(i, j), "({i}, {j}) of {n} lanes"));
            let mut lanes = std::vec![V::Scalar::zero(); n];
            column.store(&mut lanes);
            assert!(V::load(&lanes) == *column);
            assert!((0..n).all(|i| lanes[i] == entry(i, j)));
        }
    }

    #[test]
    fn every_transpose_is_the_matrix_transpose() {
        if Isa::Avx512.is_available() {
            transpose_is_the_matrix_transpose::<F32x16>();
            transpose_is_the_matrix_transpose::<F64x8>();
        }
        if Isa::Avx2.is_available() {
            transpose_is_the_matrix_transpose::<F32x8>();
            transpose_is_the_matrix_transpose::<F64x4>();
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
