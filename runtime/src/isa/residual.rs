//! The residual update `x ← x + σ(W x + b)` of many small networks at once, one per SIMD lane, in
//! one pass: the volume-preserving and ResNet layers of the engine's throughput batches
//! ([`crate::engine::FastLanes`]), whose product, bias, activation and sum otherwise each take a
//! pass over a buffer of their own.
//!
//! ```
//! use geomattn::Isa;
//! use geomattn::activation::Function;
//! let isa = Isa::best();
//! let lanes = isa.lanes::<f64>();
//! // One lane's W = [[0, 0], [2, 0]] (column-major), b = [0, 1], x = [1, 3]: every lane the same.
//! let runs = |values: &[f64]| -> Vec<f64> { values.iter().flat_map(|&v| vec![v; lanes]).collect() };
//! let (w, b, mut x) = (runs(&[0.0, 2.0, 0.0, 0.0]), runs(&[0.0, 1.0]), runs(&[1.0, 3.0]));
//! assert!(isa.residual_in_place(lanes, 2, &w, Some(&b), Function::Identity, &mut x));
//! // x + (W x + b) = [1 + 0, 3 + (2 + 1)].
//! assert_eq!(x, runs(&[1.0, 6.0]));
//! ```

use num_traits::Zero;

use super::sealed::LaneVector;
use super::{BatchScalar, Isa, polynomial};
use crate::activation::Function;

/// The largest dimension with a fused kernel.
const MAX_DIM: usize = 8;

impl Isa {
    /// `x ← x + σ(W x + b)` for every column `x` of `X` in every lane `l < lanes`, written over
    /// `X`, if `dim ≤ 8`, `σ` is the identity, `tanh` or the sigmoid, and this instruction set
    /// computes on whole vectors ([`Isa::is_compact`]); `false` (and `X` untouched) otherwise. Every matrix is column-major, each entry a run of `lanes` values:
    /// `W` (`dim × dim`) in `w`, `b` (`dim`) in `b`, `X` (`dim × n`) in `x`.
    ///
    /// The sums are those of [`Isa::lane_products`] (fused multiply-adds over `j` in order, from
    /// zero), then `+ b`, then `σ` (the polynomial `tanh` of [`Isa::tanh_in_place`]; the
    /// sigmoid `1/(1 + t)` for `x ≥ 0`, `t/(1 + t)` otherwise, `t` the polynomial `e^{−|x|}`),
    /// then `+ x`: each lane's value that of those steps taken one after the other.
    ///
    /// # Panics
    /// If `lanes` is not a multiple of this instruction set's lanes ([`Isa::lanes`]), if the
    /// buffers' lengths do not fit `dim` (`x` a whole number of columns), or if this processor
    /// does not have the instruction set.
    pub fn residual_in_place<S: BatchScalar>(
        self,
        lanes: usize,
        dim: usize,
        w: &[S],
        b: Option<&[S]>,
        activation: Function,
        x: &mut [S],
    ) -> bool {
        self.residual_chain_in_place(lanes, dim, &[(w, b, activation)], x)
    }

    /// Whether [`Isa::residual_in_place`] has a kernel for a layer of dimension `dim` and
    /// activation `σ`: `dim ≤ 8`, `σ` the identity, `tanh` or the sigmoid, on an instruction set
    /// that computes on whole vectors ([`Isa::is_compact`]).
    ///
    /// ```
    /// use geomattn::Isa;
    /// use geomattn::activation::Function;
    /// assert!(!Isa::Portable.has_residual_kernel(3, Function::Tanh) || !cfg!(target_arch = "x86_64"));
    /// assert!(!Isa::best().has_residual_kernel(9, Function::Tanh));
    /// ```
    pub fn has_residual_kernel(self, dim: usize, activation: Function) -> bool {
        self.is_compact()
            && dim <= MAX_DIM
            && matches!(
                activation,
                Function::Identity | Function::Tanh | Function::Sigmoid
            )
    }

    /// [`Isa::residual_in_place`] of each of `layers` in turn, in one pass: each column held in
    /// registers from the first layer to the last. Each value is that of the layers one after the
    /// other; `false` (and `X` untouched) unless every layer has a kernel.
    ///
    /// # Panics
    /// As [`Isa::residual_in_place`], for any of the layers.
    pub fn residual_chain_in_place<S: BatchScalar>(
        self,
        lanes: usize,
        dim: usize,
        layers: &[ResidualStep<'_, S>],
        x: &mut [S],
    ) -> bool {
        assert!(
            lanes.is_multiple_of(self.lanes::<S>()),
            "{lanes} lanes are not whole vectors of {self:?}"
        );
        let column = dim * lanes;
        for &(w, b, _) in layers {
            assert!(
                w.len() == dim * column
                    && b.is_none_or(|b| b.len() == column)
                    && column > 0
                    && x.len().is_multiple_of(column),
                "W of {}, b of {:?} and X of {} values are not those of dimension {dim} in {lanes} lanes",
                w.len(),
                b.map(<[S]>::len),
                x.len()
            );
        }
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        if !layers
            .iter()
            .all(|&(_, _, activation)| self.has_residual_kernel(dim, activation))
        {
            return false;
        }
        let chain = Chain { lanes, dim, layers };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { residual_avx512(chain, x) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { residual_avx2(chain, x) },
            // Not compact on x86-64 (`wide`'s SSE2 pairs): refused above, and not compiled.
            #[cfg(target_arch = "x86_64")]
            Isa::Portable => false,
            #[cfg(not(target_arch = "x86_64"))]
            _ => by_dim::<S::Portable, false>(chain, x),
        }
    }
}

/// A layer `x ↦ x + σ(W x + b)` of [`Isa::residual_chain_in_place`]: `W` (`d × d`) and `b`
/// (`d`), column-major, each entry a run of lanes; and `σ`.
pub type ResidualStep<'a, S> = (&'a [S], Option<&'a [S]>, Function);

/// The arguments of [`Isa::residual_chain_in_place`] but `X`, checked.
#[derive(Clone, Copy)]
struct Chain<'a, 'b, S> {
    lanes: usize,
    dim: usize,
    layers: &'b [ResidualStep<'a, S>],
}

/// [`by_dim`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn residual_avx512<S: BatchScalar>(chain: Chain<'_, '_, S>, x: &mut [S]) -> bool {
    by_dim::<S::Avx512, true>(chain, x)
}

/// [`by_dim`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn residual_avx2<S: BatchScalar>(chain: Chain<'_, '_, S>, x: &mut [S]) -> bool {
    by_dim::<S::Avx2, false>(chain, x)
}

/// The kernel of the layers' dimension (a jump on it, then every loop over it unrolled), with
/// the number of columns it carries through the layers at once. With AVX-512's 32 registers
/// (`WIDE`), as measured best on whole networks (one core of an AVX-512 EPYC, `f32`, 16 lanes):
/// 3 up to dimension 3 (GML's rigid-body VPT 11 % faster than one at a time), 2 at dimension 4
/// (a VPT of dimension 4, 8 %), one from 5 on (at dimension 5 two or three columns made a VPT
/// with the sigmoid 5 – 10 % slower, though a kernel timed alone was faster). With AVX2's 16,
/// one: an earlier kernel carrying three columns of dimension 3 spilled its vectors there, and
/// ran the rigid-body VPT 50 % slower (on a Zen 1 EPYC).
#[inline(always)]
fn by_dim<V: LaneVector, const WIDE: bool>(
    chain: Chain<'_, '_, V::Scalar>,
    x: &mut [V::Scalar],
) -> bool {
    macro_rules! by {
        ($($d:literal $k:literal),*) => {
            match (chain.dim, WIDE) {
                $(($d, true) => fused::<V, $d, $k>(chain, x),)*
                $(($d, false) => fused::<V, $d, 1>(chain, x),)*
                _ => return false,
            }
        };
    }
    by!(1 3, 2 3, 3 3, 4 2, 5 1, 6 1, 7 1, 8 1);
    true
}

/// An activation of the fused kernels: a type, so that its code is inlined into the kernel
/// compiled for the instruction set (a closure's call was not, and cost 5× the whole update).
trait Sigma {
    /// The activation in every lane of each of `K` vectors, their chains interleaved.
    fn apply<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K];
}

/// The identity.
struct Identity;

impl Sigma for Identity {
    #[inline(always)]
    fn apply<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K] {
        x
    }
}

/// The polynomial `tanh`.
struct Tanh;

impl Sigma for Tanh {
    #[inline(always)]
    fn apply<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K] {
        polynomial::tanh_each(x)
    }
}

/// The sigmoid as [`crate::engine::FastLanes`] computes it, lane by lane: `t = e^{−|x|}` (the
/// polynomial), then `1/(1 + t)` where `x ≥ 0` and `t/(1 + t)` elsewhere.
struct Sigmoid;

impl Sigma for Sigmoid {
    #[inline(always)]
    fn apply<V: LaneVector, const K: usize>(x: [V; K]) -> [V; K] {
        let mut minus = [V::zero(); K];
        for (minus, x) in minus.iter_mut().zip(&x) {
            *minus = -x.abs();
        }
        let mut t = polynomial::exp_each(minus);
        let one = V::one();
        for (t, x) in t.iter_mut().zip(&x) {
            // One quotient, its numerator chosen: the same bits as both quotients and a choice.
            *t = x.below(V::Scalar::zero(), *t, one) / (one + *t);
        }
        t
    }
}

/// `x ← x + σ(W x + b)` of each layer in turn for `W` of `D × D`, one vector of lanes and `K`
/// columns at a time (the rest one by one): the columns' `D` vectors held from the first layer to
/// the last, each layer's `D` sums formed from them.
///
/// A column alone through the chain is a chain of dependent steps (its sums wait for the last
/// layer's `σ`, a polynomial and a division): `K` columns give the processor `K` independent ones
/// to interleave, and share each load of `W` and `b`. Each column's values are those of the
/// column alone.
#[inline(always)]
fn fused<V: LaneVector, const D: usize, const K: usize>(
    chain: Chain<'_, '_, V::Scalar>,
    x: &mut [V::Scalar],
) {
    let column = D * chain.lanes;
    for &(w, b, _) in chain.layers {
        assert!(w.len() == D * column && b.is_none_or(|b| b.len() == column));
    }
    for lane in (0..chain.lanes / V::LANES).map(|v| v * V::LANES) {
        let mut groups = x.chunks_exact_mut(K * column);
        for z in &mut groups {
            through_layers::<V, D, K>(chain, lane, z);
        }
        for z in groups.into_remainder().chunks_exact_mut(column) {
            through_layers::<V, D, 1>(chain, lane, z);
        }
    }
}

/// The `K` columns in `z` (`K·D` runs of lanes), at the vector of lanes from `lane`, through every
/// layer of the chain.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // `i`, `j` and `k` index `W`, the sums and the columns.
fn through_layers<V: LaneVector, const D: usize, const K: usize>(
    chain: Chain<'_, '_, V::Scalar>,
    lane: usize,
    z: &mut [V::Scalar],
) {
    let lanes = chain.lanes;
    // SAFETY (every load and store below): entry i of column k starts at (k·D + i)·lanes, inside
    // `z` of K·D runs, and lane + LANES ≤ lanes; W has D columns of D runs, b one (asserted by
    // `fused`).
    let mut old: [[V; D]; K] = core::array::from_fn(|k| {
        core::array::from_fn(|i| unsafe { V::load_at(z, (k * D + i) * lanes + lane) })
    });
    for &(w, b, activation) in chain.layers {
        // All `K·D` sums, then their activations, column by column: independent chains (each a
        // polynomial and a division) for the processor to interleave. (Loops, not `array::map`:
        // a function it calls is not compiled for the instruction set.)
        let mut new = [[V::zero(); D]; K];
        for i in 0..D {
            for j in 0..D {
                // W's entry (i, j) is run j·D + i.
                let w = unsafe { V::load_at(w, (j * D + i) * lanes + lane) };
                for k in 0..K {
                    new[k][i] = w.mul_add(old[k][j], new[k][i]);
                }
            }
            if let Some(b) = b {
                let b = unsafe { V::load_at(b, i * lanes + lane) };
                for new in &mut new {
                    new[i] += b;
                }
            }
        }
        for (old, new) in old.iter_mut().zip(new) {
            let new = match activation {
                Function::Tanh => Tanh::apply(new),
                Function::Sigmoid => Sigmoid::apply(new),
                _ => Identity::apply(new),
            };
            for (old, new) in old.iter_mut().zip(new) {
                *old += new;
            }
        }
    }
    for (k, old) in old.iter().enumerate() {
        for (i, old) in old.iter().enumerate() {
            unsafe { old.store_at(z, (k * D + i) * lanes + lane) };
        }
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;

    /// One value of order one for each index, different in every lane.
    #[allow(clippy::cast_precision_loss)]
    fn values(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| (((i * 7 + seed * 13) % 23) as f32 - 11.0) / 7.0)
            .collect()
    }

    /// Every dimension up to one past the largest kernel, every activation, with and without a
    /// bias, one to five columns, on every instruction set of the machine: bit for bit the steps
    /// taken one after the other (the product's fused sums, `+ b`, the polynomial, `+ x`), or
    /// `false` and `X` untouched.
    #[test]
    fn the_fused_update_is_its_steps_one_after_the_other() {
        let lanes = 16;
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for (dim, columns) in (1..=MAX_DIM + 1).flat_map(|d| (1..=5).map(move |n| (d, n))) {
                for activation in Function::ALL {
                    for bias in [false, true] {
                        let (w, b) = (values(dim * dim * lanes, 1), values(dim * lanes, 2));
                        let b = bias.then_some(&b[..]);
                        let before = values(dim * columns * lanes, 3);
                        let mut x = before.clone();
                        let fused = isa.residual_in_place(lanes, dim, &w, b, activation, &mut x);
                        let supported = isa.is_compact()
                            && dim <= MAX_DIM
                            && matches!(
                                activation,
                                Function::Identity | Function::Tanh | Function::Sigmoid
                            );
                        assert_eq!(fused, supported, "{isa:?} dim {dim} {activation:?}");
                        if !fused {
                            assert_eq!(x, before);
                            continue;
                        }
                        let expected = steps(isa, lanes, dim, (&w, b), activation, &before);
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(&x),
                            bits(&expected),
                            "{isa:?} dim {dim} {activation:?}"
                        );
                    }
                }
            }
        }
    }

    /// A chain of layers (every activation with a kernel, with and without a bias) in one pass
    /// is bit for bit the layers one after the other; a chain with a layer without a kernel
    /// (`relu`) is refused whole, `X` untouched.
    #[test]
    fn a_chain_is_its_layers_one_after_the_other() {
        let lanes = 16;
        let activations = [Function::Tanh, Function::Identity, Function::Sigmoid];
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for dim in 1..=MAX_DIM + 1 {
                let weights: Vec<Vec<f32>> = (0..5).map(|k| values(dim * dim * lanes, k)).collect();
                let biases: Vec<Vec<f32>> = (0..5).map(|k| values(dim * lanes, k + 5)).collect();
                let layers: Vec<ResidualStep<'_, f32>> = (0..5)
                    .map(|k| {
                        let b = (k % 2 == 0).then_some(&biases[k][..]);
                        (&weights[k][..], b, activations[k % 3])
                    })
                    .collect();
                let before = values(dim * 3 * lanes, 11);
                let mut chained = before.clone();
                let fused = isa.residual_chain_in_place(lanes, dim, &layers, &mut chained);
                assert_eq!(fused, isa.has_residual_kernel(dim, Function::Tanh));
                if !fused {
                    assert_eq!(chained, before);
                    continue;
                }
                let mut stepped = before.clone();
                for &(w, b, activation) in &layers {
                    assert!(isa.residual_in_place(lanes, dim, w, b, activation, &mut stepped));
                }
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&chained), bits(&stepped), "{isa:?} dim {dim}");
                let mut refused = layers.clone();
                refused[3].2 = Function::Relu;
                let mut x = before.clone();
                assert!(!isa.residual_chain_in_place(lanes, dim, &refused, &mut x));
                assert_eq!(x, before);
            }
        }
    }

    /// The update's steps, each over the whole buffer: the product by `Isa::lane_products`,
    /// the bias, the polynomial of `Isa::map_in_place` (or the sigmoid from its `exp`), the sum.
    fn steps(
        isa: Isa,
        lanes: usize,
        dim: usize,
        (w, b): (&[f32], Option<&[f32]>),
        activation: Function,
        x: &[f32],
    ) -> Vec<f32> {
        let n = x.len() / (dim * lanes);
        let at = |rows, columns| super::super::LaneMatrix {
            rows,
            columns,
            row: lanes,
            column: rows * lanes,
        };
        let mut y = std::vec![0.0; x.len()];
        isa.lane_products(
            lanes,
            (w, at(dim, dim)),
            (x, at(dim, n)),
            (&mut y, at(dim, n)),
            false,
        );
        if let Some(b) = b {
            for (k, y) in y.iter_mut().enumerate() {
                *y += b[k % (dim * lanes)];
            }
        }
        match activation {
            Function::Tanh => isa.tanh_in_place(&mut y),
            Function::Sigmoid => {
                let mut t: Vec<f32> = y.iter().map(|y| -y.abs()).collect();
                isa.exp_in_place(&mut t);
                for (y, t) in y.iter_mut().zip(t) {
                    *y = if *y >= 0.0 {
                        1.0 / (1.0 + t)
                    } else {
                        t / (1.0 + t)
                    };
                }
            }
            _ => {}
        }
        y.iter().zip(x).map(|(y, x)| x + y).collect()
    }

    #[test]
    #[should_panic(expected = "are not those of dimension")]
    fn a_weight_of_another_dimension_panics() {
        let (w, mut x) = ([0.0_f64; 16], [0.0_f64; 8]);
        Isa::Portable.residual_in_place(2, 2, &w[..12], None, Function::Tanh, &mut x);
    }
}
