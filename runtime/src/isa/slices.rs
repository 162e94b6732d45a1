//! The polynomial `exp` and `tanh` of [`crate::VectorFunctions`] over whole slices, for code that
//! keeps its numbers in flat buffers rather than in lane matrices (the batched classifier of
//! `geomattn-spec`, whose products run on a GEMM library).
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

/// `function` of every value, `V::LANES` at a time; the last few through a padded vector.
#[inline(always)]
fn map<V: LaneVector>(values: &mut [V::Scalar], function: Function) {
    let apply = |x: V| match function {
        Function::Exp => polynomial::exp(x),
        Function::Tanh => polynomial::tanh(x),
    };
    let mut chunks = values.chunks_exact_mut(V::LANES);
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

    /// Every length from 0 to past two AVX-512 vectors of f32 (the tails included), on every
    /// instruction set of the machine: each value within the bounds of `VectorFunctions`
    /// (1.25 ulp for `exp`, 3.5 ulp for `tanh`) of the f64 function, NaN kept.
    #[test]
    fn every_length_on_every_isa_is_within_the_stated_bounds() {
        let ulp = |y: f64| f64::from(f32::EPSILON) * y.abs().max(f64::from(f32::MIN_POSITIVE));
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for len in 0..40 {
                #[allow(clippy::cast_precision_loss)]
                let all: [f32; 40] = core::array::from_fn(|i| (i as f32 - 20.0) * 0.37);
                let x = &all[..len];
                let (mut e, mut t) = (all, all);
                let (e, t) = (&mut e[..len], &mut t[..len]);
                isa.exp_in_place(e);
                isa.tanh_in_place(t);
                for ((x, e), t) in x.iter().zip(e.iter()).zip(t.iter()) {
                    let x = f64::from(*x);
                    let (exact_e, exact_t) = (ComplexField::exp(x), ComplexField::tanh(x));
                    assert!(
                        (f64::from(*e) - exact_e).abs() <= 1.25 * ulp(exact_e),
                        "{isa:?} exp {x}"
                    );
                    assert!(
                        (f64::from(*t) - exact_t).abs() <= 3.5 * ulp(exact_t),
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
}
