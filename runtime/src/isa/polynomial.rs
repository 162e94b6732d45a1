//! The vectorised `exp` and `tanh` of [`crate::VectorFunctions`]: a few instructions on whole
//! vectors instead of the scalar function called lane by lane.
//!
//! - `exp x = 2ⁿ · p(r)`, `n = round(x·log₂e)`, `r = x − n·ln 2` in two parts (Cody and Waite:
//!   the first product exact), `|r| ≤ ln 2 / 2`, `p` the Taylor polynomial of degree 7 (f32) or 13
//!   (f64), whose truncation error there is below a tenth of an ulp; `2ⁿ` is applied in two
//!   halves (or by `vscalefps`), so subnormal results are rounded once. `x` is first clamped to
//!   where the result is neither certainly `0` nor certainly `∞`, which keeps `±∞` right.
//! - `tanh x = sign x · t(|x|)`. In f64, below `|x| = 0.3` its Taylor series, odd, to degree 23;
//!   above, `1 − 2/(e^{2|x|} + 1)`, which amplifies the error of `exp` at most 2.4 times at the
//!   switch and less above it. In f32, one rational function, `a·P(a²)/Q(a²)` with `P` of degree
//!   6 and `Q` of degree 3 (the 13/6 form of Eigen's and XLA's `f32` `tanh`, fitted afresh by
//!   `scripts/tanh_rational.py`: its own error 0.11 ulp, the rest the rounding of its nine
//!   multiply-adds, a product and a quotient), and `1` from the least `a` whose `tanh` rounds to
//!   `1`: about a fifth of the instructions of the series and `exp` and one quotient instead of
//!   two chains, for an error of 5.3 ulp instead of 2.3 (every `f32` measured by the script).
//!
//! NaN in, NaN out; `exp(−∞) = 0`, `exp(∞) = ∞`, `tanh(±∞) = ±1`, `tanh(−0) = −0`. The measured
//! error bounds are in [`crate::VectorFunctions`] and checked by the tests below on every
//! instruction set of the machine.

use nalgebra::{ComplexField, RealField};

use super::{LaneVector, MAX_LANES};
use crate::scalar::Real;

/// A scalar with the constants of the polynomial `exp` and `tanh` (`f32`, `f64`).
pub trait ElementaryScalar: RealField + Copy {
    /// Below it `exp` is `0` (it rounds to zero), above it `∞`.
    const EXP_RANGE: (Self, Self);
    /// `log₂ e`.
    const LOG2_E: Self;
    /// `−ln 2` to few enough bits that `n · LN2_HI` is exact for every `n` of the range.
    const MINUS_LN2_HI: Self;
    /// The rest of `−ln 2`.
    const MINUS_LN2_LO: Self;
    /// `1/k!` for `k` = the degree down to 0.
    const EXP_TAYLOR: &'static [Self];
    /// Where `tanh` switches from its series to `exp`.
    const TANH_SERIES_BELOW: Self;
    /// The coefficients of `x³, x⁵, …` of the series of `tanh x`, highest first:
    /// `2²ᵏ(2²ᵏ − 1) B₂ₖ / (2k)!` with the Bernoulli numbers `B₂ₖ`, each the nearest float to the
    /// exact fraction.
    const TANH_TAYLOR: &'static [Self];
    /// `tanh` as one rational function instead, if the precision has one within its bound.
    const TANH_RATIONAL: Option<Rational<Self>>;

    /// `2ᵏ` for an integral `k` of the normal exponents.
    fn pow2(k: Self) -> Self;

    /// `x · 2ⁿ`, `n` integral, in two factors `2^⌊n/2⌋ · 2^(n − ⌊n/2⌋)`, each normal.
    #[inline(always)]
    fn times_pow2(x: Self, n: Self) -> Self {
        let half = ComplexField::floor(n * nalgebra::convert(0.5));
        x * Self::pow2(half) * Self::pow2(n - half)
    }

    /// `|x|` with the sign bit of `sign`.
    fn with_sign_of(x: Self, sign: Self) -> Self;

    /// Whether `x` is NaN.
    fn is_nan(x: Self) -> bool;
}

impl ElementaryScalar for f32 {
    // e^−104 < 2⁻¹⁵⁰ (half the least subnormal); e^89 > f32::MAX.
    const EXP_RANGE: (f32, f32) = (-104.0, 89.0);
    const LOG2_E: f32 = core::f32::consts::LOG2_E;
    // 0.693359375 = 355/512: 9 bits, times |n| ≤ 150 exact.
    const MINUS_LN2_HI: f32 = -f32::from_bits(0x3f31_8000);
    const MINUS_LN2_LO: f32 = 2.121_944_4e-4;
    const EXP_TAYLOR: &'static [f32] = &[
        1.0 / 5040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ];
    const TANH_SERIES_BELOW: f32 = 0.3;
    const TANH_TAYLOR: &'static [f32] = &[
        -1382.0 / 155_925.0,
        62.0 / 2835.0,
        -17.0 / 315.0,
        2.0 / 15.0,
        -1.0 / 3.0,
    ];
    // `scripts/tanh_rational.py` derives these and measures them.
    const TANH_RATIONAL: Option<Rational<f32>> = Some(Rational {
        numerator: &[
            -8.459925e-14,
            5.2669296e-11,
            -2.0202695e-8,
            1.114882e-5,
            3.1034348e-3,
            1.3083544e-1,
            1.0,
        ],
        denominator: &[2.545384e-4, 2.4493106e-2, 4.6416873e-1, 1.0],
        one_from: 9.010913,
    });

    #[inline(always)]
    fn pow2(k: f32) -> f32 {
        f32::from_bits(((k as i32 + 127) as u32) << 23)
    }

    #[inline(always)]
    fn with_sign_of(x: f32, sign: f32) -> f32 {
        f32::from_bits((x.to_bits() & !(1 << 31)) | (sign.to_bits() & (1 << 31)))
    }

    #[inline(always)]
    fn is_nan(x: f32) -> bool {
        x.is_nan()
    }
}

impl ElementaryScalar for f64 {
    // e^−746 < 2⁻¹⁰⁷⁵ (half the least subnormal); e^710 > f64::MAX.
    const EXP_RANGE: (f64, f64) = (-746.0, 710.0);
    const LOG2_E: f64 = core::f64::consts::LOG2_E;
    // The upper 32 bits of ln 2, times |n| ≤ 1076 exact.
    const MINUS_LN2_HI: f64 = -f64::from_bits(0x3fe6_2e42_fee0_0000);
    const MINUS_LN2_LO: f64 = -1.908_214_929_270_587_7e-10;
    const EXP_TAYLOR: &'static [f64] = &[
        1.0 / 6_227_020_800.0,
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ];
    const TANH_SERIES_BELOW: f64 = 0.3;
    const TANH_TAYLOR: &'static [f64] = &[
        -113_927_491_862.0 / 2_900_518_163_668_125.0,
        18_888_466_084.0 / 194_896_477_400_625.0,
        -443_861_162.0 / 1_856_156_927_625.0,
        6_404_582.0 / 10_854_718_875.0,
        -929_569.0 / 638_512_875.0,
        21_844.0 / 6_081_075.0,
        -1382.0 / 155_925.0,
        62.0 / 2835.0,
        -17.0 / 315.0,
        2.0 / 15.0,
        -1.0 / 3.0,
    ];
    const TANH_RATIONAL: Option<Rational<f64>> = None;

    #[inline(always)]
    fn pow2(k: f64) -> f64 {
        f64::from_bits(((k as i64 + 1023) as u64) << 52)
    }

    #[inline(always)]
    fn with_sign_of(x: f64, sign: f64) -> f64 {
        f64::from_bits((x.to_bits() & !(1 << 63)) | (sign.to_bits() & (1 << 63)))
    }

    #[inline(always)]
    fn is_nan(x: f64) -> bool {
        x.is_nan()
    }
}

/// `tanh a = a·P(a²)/Q(a²)` for `0 ≤ a < one_from`, `1` from there on.
#[derive(Clone, Copy, Debug)]
pub struct Rational<S: 'static> {
    /// `P`'s coefficients, highest first.
    pub numerator: &'static [S],
    /// `Q`'s coefficients, highest first.
    pub denominator: &'static [S],
    /// The least `a` whose `tanh` rounds to `1`.
    pub one_from: S,
}

/// `Σ coefficients[k] · x^(len − 1 − k)` by Horner's rule, with multiply-adds, for each of the
/// `K` vectors `x`: step by step across them, so that their `K` chains of multiply-adds are
/// interleaved in the instruction stream and overlap.
#[inline(always)]
fn horner<V: LaneVector, const K: usize>(x: &[V; K], coefficients: &[V::Scalar]) -> [V; K] {
    let (first, rest) = coefficients.split_first().expect("a polynomial");
    let mut p = [V::splat(*first); K];
    for &c in rest {
        for (p, x) in p.iter_mut().zip(x) {
            *p = p.mul_add(*x, V::splat(c));
        }
    }
    p
}

/// `e^x` in every lane (see the [module docs](self)).
#[inline(always)]
pub(crate) fn exp<V: LaneVector>(x: V) -> V {
    let [e] = exp_each([x]);
    e
}

/// [`exp`] of each of `K` vectors, step by step across them (their chains interleaved, as in
/// [`horner`]): in every lane the same operations, so the same bits.
#[inline(always)]
pub(crate) fn exp_each<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K] {
    let (low, high) = V::Scalar::EXP_RANGE;
    let (mut n, mut r) = ([V::zero(); K], [V::zero(); K]);
    for k in 0..K {
        let clamped = x[k].clamp(low, high);
        n[k] = (clamped * V::splat(V::Scalar::LOG2_E)).round();
        r[k] = n[k].mul_add(V::splat(V::Scalar::MINUS_LN2_HI), clamped);
    }
    for k in 0..K {
        r[k] = n[k].mul_add(V::splat(V::Scalar::MINUS_LN2_LO), r[k]);
    }
    let mut e = horner(&r, V::Scalar::EXP_TAYLOR);
    for k in 0..K {
        e[k] = e[k].times_pow2(n[k]).unless_nan(x[k]);
    }
    e
}

/// `tanh x` in every lane (see the [module docs](self)).
#[inline(always)]
pub(crate) fn tanh<V: LaneVector>(x: V) -> V {
    let [t] = tanh_each([x]);
    t
}

/// [`tanh`] of each of `K` vectors, step by step across them (their chains, each a series, an
/// `exp` and a division, interleaved: one `tanh` alone is a chain of latencies the processor
/// cannot fill): in every lane the same operations, so the same bits.
#[inline(always)]
pub(crate) fn tanh_each<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K] {
    if let Some(rational) = V::Scalar::TANH_RATIONAL {
        return tanh_rational(x, rational);
    }
    let (mut a, mut square, mut twice) = ([V::zero(); K], [V::zero(); K], [V::zero(); K]);
    for k in 0..K {
        a[k] = x[k].abs();
        square[k] = a[k] * a[k];
        twice[k] = a[k] + a[k];
    }
    let series = horner(&square, V::Scalar::TANH_TAYLOR);
    let e = exp_each(twice);
    let one = V::one();
    let mut t = [V::zero(); K];
    for k in 0..K {
        let series = (a[k] * square[k]).mul_add(series[k], a[k]);
        let from_exp = one - (one + one) / (e[k] + one);
        t[k] = a[k]
            .below(V::Scalar::TANH_SERIES_BELOW, series, from_exp)
            .with_sign_of(x[k])
            .unless_nan(x[k]);
    }
    t
}

/// [`tanh_each`] by a [`Rational`] function.
#[inline(always)]
fn tanh_rational<V: LaneVector, const K: usize>(
    x: [V; K],
    rational: Rational<V::Scalar>,
) -> [V; K] {
    let (mut a, mut square) = ([V::zero(); K], [V::zero(); K]);
    for k in 0..K {
        a[k] = x[k].abs();
        square[k] = a[k] * a[k];
    }
    let p = horner(&square, rational.numerator);
    let q = horner(&square, rational.denominator);
    let mut t = [V::zero(); K];
    for k in 0..K {
        t[k] = a[k]
            .below(rational.one_from, a[k] * p[k] / q[k], V::one())
            .with_sign_of(x[k])
            .unless_nan(x[k]);
    }
    t
}

/// `sum + a·b` rounded once, if `S` is a [`Polynomial`] vector with a fused multiply-add (over
/// AVX2 or AVX-512 vectors: the opt-in [`crate::VectorFunctions`]); `None` for every other
/// scalar, which then accumulates as `sum + a·b`, two roundings, as the scalar path does.
///
/// The products ([`crate::product`]) are generic over [`crate::Field`], which every type with
/// `+ − × ÷` has through one blanket implementation, so a multiply-add cannot be a method that
/// only these vectors override. The type is compared instead: `S` is known where a product is
/// monomorphised, so the comparison is decided at compile time and only one branch is left.
#[inline(always)]
pub(crate) fn fused_accumulate<S: Copy + 'static>(sum: S, a: S, b: S) -> Option<S> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::x86::{F32x8, F32x16, F64x4, F64x8};
        // Every scalar, in unoptimised builds too, without the calls below (see `fused_as`).
        if const { size_of::<S>() != size_of::<F32x8>() && size_of::<S>() != size_of::<F32x16>() } {
            return None;
        }
        fused_as::<Polynomial<F32x16>, S>(sum, a, b)
            .or_else(|| fused_as::<Polynomial<F32x8>, S>(sum, a, b))
            .or_else(|| fused_as::<Polynomial<F64x8>, S>(sum, a, b))
            .or_else(|| fused_as::<Polynomial<F64x4>, S>(sum, a, b))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (sum, a, b);
        None
    }
}

/// `a.mul_add(b, sum)` in `P` if `S` is `P`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fused_as<P: LaneVector + 'static, S: Copy + 'static>(sum: S, a: S, b: S) -> Option<S> {
    use core::any::Any;
    // Decided without a call in unoptimised builds too, where the downcasts below are calls for
    // every multiply-add of a product (a third of a debug test's time in the MNIST classifiers'
    // products): a scalar or a vector of another size is never `P`.
    if const { size_of::<S>() != size_of::<P>() } {
        return None;
    }
    let as_p = |x: &S| (x as &dyn Any).downcast_ref::<P>().copied();
    let fused = as_p(&a)?.mul_add(as_p(&b)?, as_p(&sum)?);
    (&fused as &dyn Any).downcast_ref::<S>().copied()
}

/// A lane vector whose `exp` and `tanh` are the polynomial ones; every other operation is the
/// vector's own.
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(transparent)]
pub struct Polynomial<V>(V);

crate::lanes::wrapped_arithmetic!([V: LaneVector] Polynomial<V>);

impl<V: LaneVector> Real for Polynomial<V> {
    #[inline(always)]
    fn exp(self) -> Self {
        Self(exp(self.0))
    }

    #[inline(always)]
    fn tanh(self) -> Self {
        Self(tanh(self.0))
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Self(self.0.sqrt())
    }

    #[inline(always)]
    fn greater_of(self, other: Self) -> Self {
        Self(self.0.greater_of(other.0))
    }
}

impl<V: LaneVector> LaneVector for Polynomial<V> {
    type Scalar = V::Scalar;
    const LANES: usize = V::LANES;
    const SHUFFLES: bool = V::SHUFFLES;

    #[inline(always)]
    fn splat(x: V::Scalar) -> Self {
        Self(V::splat(x))
    }

    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> V::Scalar) -> Self {
        Self(V::from_fn(f))
    }

    #[inline(always)]
    fn for_each_lane(self, f: impl FnMut(usize, V::Scalar)) {
        self.0.for_each_lane(f);
    }

    #[inline(always)]
    fn load(values: &[V::Scalar]) -> Self {
        Self(V::load(values))
    }

    #[inline(always)]
    fn store(self, out: &mut [V::Scalar]) {
        self.0.store(out);
    }

    #[inline(always)]
    unsafe fn load_at(values: &[V::Scalar], at: usize) -> Self {
        // SAFETY: the caller's promise, passed on.
        Self(unsafe { V::load_at(values, at) })
    }

    #[inline(always)]
    unsafe fn store_at(self, out: &mut [V::Scalar], at: usize) {
        // SAFETY: the caller's promise, passed on.
        unsafe { self.0.store_at(out, at) }
    }

    #[inline(always)]
    fn mul_add(self, b: Self, c: Self) -> Self {
        Self(self.0.mul_add(b.0, c.0))
    }

    #[inline(always)]
    fn transpose(block: &mut [Self]) {
        let mut vectors = [V::zero(); MAX_LANES];
        let vectors = &mut vectors[..block.len()];
        for (v, p) in vectors.iter_mut().zip(block.iter()) {
            *v = p.0;
        }
        V::transpose(vectors);
        for (p, v) in block.iter_mut().zip(vectors.iter()) {
            p.0 = *v;
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use std::vec::Vec;

    use super::*;
    use crate::isa::Isa;
    use crate::lanes::Lanes;

    /// The largest error of `exp` [`crate::VectorFunctions`] documents, in ulps of the exact
    /// result (its `tanh`'s: [`Precision::TANH_ULPS`]).
    const EXP_ULPS: f64 = 1.25;

    /// `f32` or `f64`, seen from `f64`.
    trait Precision: ElementaryScalar + Into<f64> {
        /// Bits of the significand after the point, and the least subnormal's exponent.
        const FRACTION_BITS: i32;
        const LEAST_EXPONENT: i32;
        /// The largest error of `tanh` [`crate::VectorFunctions`] documents, in ulps.
        const TANH_ULPS: f64;
        fn rounded(x: f64) -> Self;
        /// The function in the reference precision (`f64` for `f32`, the platform's own for `f64`).
        fn reference_exp(x: f64) -> f64;
        fn reference_tanh(x: f64) -> f64;
    }

    impl Precision for f32 {
        const FRACTION_BITS: i32 = 23;
        const LEAST_EXPONENT: i32 = -149;
        const TANH_ULPS: f64 = 7.0;
        fn rounded(x: f64) -> f32 {
            x as f32
        }
        fn reference_exp(x: f64) -> f64 {
            x.exp()
        }
        fn reference_tanh(x: f64) -> f64 {
            x.tanh()
        }
    }

    impl Precision for f64 {
        const FRACTION_BITS: i32 = 52;
        const LEAST_EXPONENT: i32 = -1074;
        const TANH_ULPS: f64 = 3.5;
        fn rounded(x: f64) -> f64 {
            x
        }
        fn reference_exp(x: f64) -> f64 {
            x.exp()
        }
        fn reference_tanh(x: f64) -> f64 {
            x.tanh()
        }
    }

    /// `|got − exact|` in units in the last place of `exact` in precision `S` (subnormals: the
    /// least subnormal); `∞` where one is infinite or NaN and the other is not the same.
    fn ulps<S: Precision>(got: S, exact: f64) -> f64 {
        let got: f64 = got.into();
        let rounded: f64 = S::rounded(exact).into();
        if !rounded.is_finite() || !got.is_finite() {
            let same = got == rounded || (got.is_nan() && rounded.is_nan());
            return if same { 0.0 } else { f64::INFINITY };
        }
        let magnitude = exact.abs().log2().floor().max(-2000.0) as i32;
        let exponent = (magnitude - S::FRACTION_BITS).max(S::LEAST_EXPONENT);
        // In two factors: 2⁻¹⁰⁷⁴ alone underflows in `powi`.
        (got - exact).abs() / 2_f64.powi(exponent / 2) / 2_f64.powi(exponent - exponent / 2)
    }

    /// The largest error of `f` over `V` on `inputs`, against `exact`, and where it is.
    fn largest_error<V>(inputs: &[f64], f: fn(V) -> V, exact: fn(f64) -> f64) -> (f64, f64)
    where
        V: LaneVector,
        V::Scalar: Precision,
    {
        let mut worst = (0.0, f64::NAN);
        for chunk in inputs.chunks(V::LANES) {
            let x = V::from_fn(|k| V::Scalar::rounded(chunk[k.min(chunk.len() - 1)]));
            f(x).for_each_lane(|k, y| {
                let input: f64 = V::Scalar::rounded(chunk[k.min(chunk.len() - 1)]).into();
                let error = ulps::<V::Scalar>(y, exact(input));
                if error > worst.0 {
                    worst = (error, input);
                }
            });
        }
        worst
    }

    /// A dense sweep of `[low, high]`, every magnitude from `10⁻³⁰` to `1` with both signs, and
    /// the special values.
    fn sweep(low: f64, high: f64) -> Vec<f64> {
        let steps = 200_000;
        let linear = (0..=steps).map(|i| low + (high - low) * i as f64 / steps as f64);
        let tiny = (0..3000).flat_map(|i| {
            let x = 10_f64.powf(-30.0 + 30.0 * i as f64 / 3000.0);
            [x, -x]
        });
        let special = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            -1e300,
        ];
        linear.chain(tiny).chain(special).collect()
    }

    /// `exp` and `tanh` of `V` within the documented bounds, and the special values exact.
    fn within_bounds<V>(name: &str)
    where
        V: LaneVector,
        V::Scalar: Precision,
    {
        let (low, high) = V::Scalar::EXP_RANGE;
        let (low, high) = (low.into() - 2.0, high.into() + 2.0);
        let (error, at) = largest_error::<V>(&sweep(low, high), exp, V::Scalar::reference_exp);
        std::println!("{name}: exp within {error:.3} ulp (worst at {at:e})");
        assert!(
            error <= EXP_ULPS,
            "{name}: exp off by {error} ulp at {at:e}"
        );
        let (error, at) = largest_error::<V>(&sweep(-30.0, 30.0), tanh, V::Scalar::reference_tanh);
        std::println!("{name}: tanh within {error:.3} ulp (worst at {at:e})");
        assert!(
            error <= V::Scalar::TANH_ULPS,
            "{name}: tanh off by {error} ulp at {at:e}"
        );

        let bits = |v: V| {
            let mut lanes = Vec::new();
            v.for_each_lane(|_, x| lanes.push(Into::<f64>::into(x).to_bits()));
            lanes[0]
        };
        let splat = |x: f64| V::splat(V::Scalar::rounded(x));
        assert_eq!(bits(exp(splat(f64::NEG_INFINITY))), 0_f64.to_bits());
        assert_eq!(bits(exp(splat(0.0))), 1_f64.to_bits());
        assert_eq!(bits(tanh(splat(-0.0))), (-0_f64).to_bits());
        assert_eq!(bits(tanh(splat(f64::NEG_INFINITY))), (-1_f64).to_bits());
        assert!(f64::from_bits(bits(exp(splat(f64::NAN)))).is_nan());
        assert!(f64::from_bits(bits(tanh(splat(f64::NAN)))).is_nan());
    }

    #[test]
    fn the_portable_functions_are_within_their_bounds() {
        within_bounds::<Lanes<f32, 4>>("portable f32");
        within_bounds::<Lanes<f64, 2>>("portable f64");
    }

    #[test]
    fn the_avx_functions_are_within_their_bounds() {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::isa::x86::{F32x8, F32x16, F64x4, F64x8};
            if Isa::Avx2.is_available() {
                within_bounds::<F32x8>("AVX2 f32");
                within_bounds::<F64x4>("AVX2 f64");
            }
            if Isa::Avx512.is_available() {
                within_bounds::<F32x16>("AVX-512 f32");
                within_bounds::<F64x8>("AVX-512 f64");
            }
        }
    }

    /// `a·a − 1` for `a = 1 + 2⁻¹²`, whose exact value `2⁻¹¹ + 2⁻²⁴` needs one rounding:
    /// `fused_accumulate` gives it over `V`, or `None`.
    fn fused_square_minus_one<V: LaneVector + 'static>() -> Option<f64>
    where
        V::Scalar: Into<f64>,
    {
        let a = V::splat(nalgebra::convert(1.0 + 2.0_f64.powi(-12)));
        let fused = fused_accumulate(-V::one(), a, a)?;
        let mut lanes = [0.0; MAX_LANES];
        fused.for_each_lane(|k, x| lanes[k] = x.into());
        assert!(lanes[..V::LANES].iter().all(|&x| x == lanes[0]));
        Some(lanes[0])
    }

    #[test]
    fn products_fuse_only_over_the_avx_vectors_of_the_vector_functions() {
        let exact = 2.0_f64.powi(-11) + 2.0_f64.powi(-24);
        // Two roundings would give 2⁻¹¹: the square rounds to 1 + 2⁻¹¹ (a tie, to even).
        assert_eq!(
            f64::from((1.0_f32 + 2.0_f32.powi(-12)).powi(2) - 1.0),
            2.0_f64.powi(-11)
        );
        #[cfg(target_arch = "x86_64")]
        {
            use crate::isa::x86::{F32x8, F32x16, F64x4, F64x8};
            if Isa::Avx2.is_available() {
                assert_eq!(fused_square_minus_one::<Polynomial<F32x8>>(), Some(exact));
                assert_eq!(fused_square_minus_one::<Polynomial<F64x4>>(), Some(exact));
                // The bit-identical lanes do not fuse.
                assert_eq!(fused_square_minus_one::<F64x4>(), None);
            }
            if Isa::Avx512.is_available() {
                assert_eq!(fused_square_minus_one::<Polynomial<F32x16>>(), Some(exact));
                assert_eq!(fused_square_minus_one::<Polynomial<F64x8>>(), Some(exact));
                assert_eq!(fused_square_minus_one::<F32x16>(), None);
            }
        }
        assert_eq!(fused_square_minus_one::<Polynomial<Lanes<f32, 4>>>(), None);
        assert_eq!(fused_square_minus_one::<Lanes<f64, 2>>(), None);
        assert_eq!(fused_accumulate(-1.0_f32, 1.5, 1.5), None);
    }
}
