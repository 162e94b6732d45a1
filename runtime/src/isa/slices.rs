//! The polynomial `exp` and `tanh` of [`crate::VectorFunctions`] over whole slices, for code that
//! keeps its numbers in flat buffers rather than in lane matrices (the batched classifier of
//! `geomattn-networks`, whose products run on a GEMM library).
//!
//! ```
//! use geomattn::Isa;
//! let mut x = [0.0_f32, 1.0, -2.0, 0.25, 30.0];
//! Isa::best().exp_in_place(&mut x);
//! let exact = [1.0_f64, 1.0_f64.exp(), (-2.0_f64).exp(), 0.25_f64.exp(), 30.0_f64.exp()];
//! for (y, e) in x.iter().zip(exact) {
//!     assert!((f64::from(*y) - e).abs() <= 2.0 * f64::from(f32::EPSILON) * e);
//! }
//! ```

use num_traits::Zero;

use super::sealed::LaneVector;
use super::{BatchScalar, Isa, polynomial};

impl Isa {
    /// Replaces every `x` of `values` by `e^x`, with the polynomial `exp` of
    /// [`crate::VectorFunctions`] on this instruction set (its error bound is stated there). The
    /// same on every instruction set that fuses (AVX2, AVX-512) up to the order of the lanes'
    /// operations, which is the same; [`Isa::Portable`] rounds its multiply-adds twice.
    ///
    /// # Panics
    /// If this processor does not have the instruction set ([`Isa::is_available`]).
    pub fn exp_in_place<S: BatchScalar>(self, values: &mut [S]) {
        self.map_in_place(values, Function::Exp);
    }

    /// Replaces every `x` of `values` by `tanh x`, with the polynomial `tanh` of
    /// [`crate::VectorFunctions`] (see [`Isa::exp_in_place`]).
    ///
    /// # Panics
    /// If this processor does not have the instruction set ([`Isa::is_available`]).
    pub fn tanh_in_place<S: BatchScalar>(self, values: &mut [S]) {
        self.map_in_place(values, Function::Tanh);
    }

    /// GML's `VectorSoftmax` of `scale · C` for many matrices `C` at once, one per lane:
    /// `values` holds columns of `len` runs of `lanes` values (entry `m` of column `n` of lane
    /// `l` at `(n · len + m) · lanes + l`), and each column of each lane becomes
    /// `exp(scale·c − max) / Σ exp(scale·c − max)`, its maximum subtracted first (every exponent
    /// `≤ 0`), with the polynomial `exp` of [`Isa::exp_in_place`].
    ///
    /// ```
    /// use geomattn::Isa;
    /// let isa = Isa::best();
    /// // One column of three entries, in one vector of lanes of f64 (the same column in each).
    /// let lanes = isa.lanes::<f64>();
    /// let mut c: Vec<f64> = [0.0, 1.0, 2.0].iter().flat_map(|&x| vec![x; lanes]).collect();
    /// isa.softmax_columns_in_place(lanes, 3, 2.0, &mut c);
    /// let total: f64 = [0.0_f64, 2.0, 4.0].iter().map(|x| x.exp()).sum();
    /// for lane in 0..lanes {
    ///     let column = [c[lane], c[lanes + lane], c[2 * lanes + lane]];
    ///     assert!((column[2] - 4.0_f64.exp() / total).abs() < 1e-15);
    ///     assert!((column.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    /// }
    /// ```
    ///
    /// # Panics
    /// If `lanes` is not a multiple of this instruction set's lanes ([`Isa::lanes`]), if `values`
    /// is not a whole number of columns, or if this processor does not have the instruction set.
    pub fn softmax_columns_in_place<S: BatchScalar>(
        self,
        lanes: usize,
        len: usize,
        scale: S,
        values: &mut [S],
    ) {
        assert!(
            lanes.is_multiple_of(self.lanes::<S>()),
            "{lanes} lanes are not whole vectors of {self:?}"
        );
        assert!(
            len > 0 && values.len().is_multiple_of(len * lanes),
            "{} values are not columns of {len} runs of {lanes}",
            values.len()
        );
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        let columns = Columns { lanes, len, scale };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { softmax_avx512(columns, values) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { softmax_avx2(columns, values) },
            _ => softmax::<S::Portable>(columns, values),
        }
    }

    fn map_in_place<S: BatchScalar>(self, values: &mut [S], function: Function) {
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { map_avx512(values, function) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { map_avx2(values, function) },
            _ => map::<S::Portable>(values, function),
        }
    }
}

/// Which function [`map`] applies.
#[derive(Clone, Copy)]
enum Function {
    Exp,
    Tanh,
}

/// [`map`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn map_avx512<S: BatchScalar>(values: &mut [S], function: Function) {
    map::<S::Avx512>(values, function);
}

/// [`map`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn map_avx2<S: BatchScalar>(values: &mut [S], function: Function) {
    map::<S::Avx2>(values, function);
}

/// The shape of [`Isa::softmax_columns_in_place`]'s columns, checked.
#[derive(Clone, Copy)]
struct Columns<S> {
    lanes: usize,
    len: usize,
    scale: S,
}

/// [`softmax`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn softmax_avx512<S: BatchScalar>(columns: Columns<S>, values: &mut [S]) {
    softmax::<S::Avx512>(columns, values);
}

/// [`softmax`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn softmax_avx2<S: BatchScalar>(columns: Columns<S>, values: &mut [S]) {
    softmax::<S::Avx2>(columns, values);
}

/// Every column's softmax, one vector of lanes at a time: its maximum, then the exponentials
/// and their sum, then their quotients by the sum.
#[inline(always)]
fn softmax<V: LaneVector>(c: Columns<V::Scalar>, values: &mut [V::Scalar]) {
    let scale = V::splat(c.scale);
    for column in values.chunks_exact_mut(c.len * c.lanes) {
        for lane in (0..c.lanes).step_by(V::LANES) {
            let at = |m: usize| m * c.lanes + lane;
            let mut max = V::load(&column[at(0)..]) * scale;
            for m in 1..c.len {
                max = max.greater_of(V::load(&column[at(m)..]) * scale);
            }
            // The exponentials `INTERLEAVED` at a time (their chains interleaved), summed in
            // order: the same bits as one at a time.
            let mut sum = V::zero();
            let whole = c.len - c.len % INTERLEAVED;
            for m in (0..whole).step_by(INTERLEAVED) {
                let x: [V; INTERLEAVED] =
                    core::array::from_fn(|k| V::load(&column[at(m + k)..]).mul_add(scale, -max));
                for (k, e) in polynomial::exp_each(x).into_iter().enumerate() {
                    sum += e;
                    e.store(&mut column[at(m + k)..]);
                }
            }
            for m in whole..c.len {
                let e = polynomial::exp(V::load(&column[at(m)..]).mul_add(scale, -max));
                sum += e;
                e.store(&mut column[at(m)..]);
            }
            let inverse = V::one() / sum;
            for m in 0..c.len {
                (V::load(&column[at(m)..]) * inverse).store(&mut column[at(m)..]);
            }
        }
    }
}

/// Vectors [`map`] computes at once, their chains interleaved ([`polynomial::tanh_each`]).
const INTERLEAVED: usize = 4;

/// `function` of every value, [`INTERLEAVED`] vectors of `V::LANES` at a time, then one at a
/// time; the last few through a padded vector.
#[inline(always)]
fn map<V: LaneVector>(values: &mut [V::Scalar], function: Function) {
    let apply = |x: V| match function {
        Function::Exp => polynomial::exp(x),
        Function::Tanh => polynomial::tanh(x),
    };
    let mut blocks = values.chunks_exact_mut(INTERLEAVED * V::LANES);
    for block in &mut blocks {
        let mut x = [V::zero(); INTERLEAVED];
        for (x, chunk) in x.iter_mut().zip(block.chunks_exact(V::LANES)) {
            *x = V::load(chunk);
        }
        let y = match function {
            Function::Exp => polynomial::exp_each(x),
            Function::Tanh => polynomial::tanh_each(x),
        };
        for (y, chunk) in y.iter().zip(block.chunks_exact_mut(V::LANES)) {
            y.store(chunk);
        }
    }
    let mut chunks = blocks.into_remainder().chunks_exact_mut(V::LANES);
    for chunk in &mut chunks {
        apply(V::load(chunk)).store(chunk);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let padded = V::from_fn(|k| rest.get(k).copied().unwrap_or_else(V::Scalar::zero));
        apply(padded).for_each_lane(|k, y| {
            if let Some(x) = rest.get_mut(k) {
                *x = y;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::ComplexField;

    use super::*;

    /// Every length from 0 to past two blocks of interleaved AVX-512 vectors of f32 (the tails
    /// included), on every instruction set of the machine: each value within the bounds of
    /// `VectorFunctions` (1.25 ulp for `exp`, 7 ulp for `tanh`) of the f64 function, and bit
    /// for bit the value computed alone; NaN kept.
    #[test]
    fn every_length_on_every_isa_is_within_the_stated_bounds() {
        const LONGEST: usize = 2 * INTERLEAVED * 16 + 12;
        let ulp = |y: f64| f64::from(f32::EPSILON) * y.abs().max(f64::from(f32::MIN_POSITIVE));
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            let alone = |x: f32, f: fn(Isa, &mut [f32])| {
                let mut one = [x];
                f(isa, &mut one);
                one[0].to_bits()
            };
            for len in 0..LONGEST {
                #[allow(clippy::cast_precision_loss)]
                let all: [f32; LONGEST] = core::array::from_fn(|i| (i as f32 - 70.0) * 0.21);
                let x = &all[..len];
                let (mut e, mut t) = (all, all);
                let (e, t) = (&mut e[..len], &mut t[..len]);
                isa.exp_in_place(e);
                isa.tanh_in_place(t);
                for ((x, e), t) in x.iter().zip(e.iter()).zip(t.iter()) {
                    assert_eq!(e.to_bits(), alone(*x, Isa::exp_in_place), "{isa:?} exp {x}");
                    assert_eq!(
                        t.to_bits(),
                        alone(*x, Isa::tanh_in_place),
                        "{isa:?} tanh {x}"
                    );
                    let x = f64::from(*x);
                    let (exact_e, exact_t) = (ComplexField::exp(x), ComplexField::tanh(x));
                    assert!(
                        (f64::from(*e) - exact_e).abs() <= 1.25 * ulp(exact_e),
                        "{isa:?} exp {x}"
                    );
                    assert!(
                        (f64::from(*t) - exact_t).abs() <= 7.0 * ulp(exact_t),
                        "{isa:?} tanh {x}"
                    );
                }
            }
            let mut nan = [f64::NAN, 0.0, f64::NEG_INFINITY];
            isa.exp_in_place(&mut nan);
            assert!(nan[0].is_nan());
            assert_eq!(nan[1..], [1.0, 0.0]);
        }
    }

    /// Columns of 1 to 9 entries in 16 lanes (each lane its own column, signs and sizes mixed,
    /// a negative scale among them; the exponentials four at a time, then one by one), on every
    /// instruction set of the machine: within a few ulp of the f64 softmax, every column summing
    /// to 1.
    #[test]
    fn column_softmax_on_every_isa_is_the_f64_softmax() {
        let lanes = 16;
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for len in 1..=9 {
                for scale in [0.5_f32, -1.0 / 7.0_f32.sqrt()] {
                    // Three columns of `len` runs.
                    #[allow(clippy::cast_precision_loss)]
                    let all: [f32; 432] =
                        core::array::from_fn(|i| ((i * 37 % 23) as f32 - 11.0) * 0.9);
                    let (x, mut y) = (&all[..3 * len * lanes], all);
                    let y = &mut y[..3 * len * lanes];
                    isa.softmax_columns_in_place(lanes, len, scale, y);
                    for (n, l) in (0..3).flat_map(|n| (0..lanes).map(move |l| (n, l))) {
                        let at = |m: usize| (n * len + m) * lanes + l;
                        let scaled = |m: usize| f64::from(x[at(m)]) * f64::from(scale);
                        let max = (0..len).map(scaled).fold(f64::NEG_INFINITY, f64::max);
                        let total: f64 = (0..len).map(|m| ComplexField::exp(scaled(m) - max)).sum();
                        let mut sum = 0.0;
                        for m in 0..len {
                            let exact = ComplexField::exp(scaled(m) - max) / total;
                            let found = f64::from(y[at(m)]);
                            let bound = 8.0 * f64::from(f32::EPSILON) * exact.max(1e-30);
                            assert!((found - exact).abs() <= bound, "{isa:?} {len} {scale}");
                            sum += found;
                        }
                        assert!((sum - 1.0).abs() <= 8.0 * f64::from(f32::EPSILON));
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "are not columns of 3 runs of 4")]
    fn a_partial_column_panics() {
        Isa::Portable.softmax_columns_in_place(4, 3, 1.0, &mut [0.0_f32; 8]);
    }
}
