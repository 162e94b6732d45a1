//! The backward pass of the residual update `y = x + σ(W x + b)` of many small networks at once,
//! one per SIMD lane, in one pass: what training runs for the volume-preserving and ResNet layers
//! ([`crate::engine::FastLanes`]), whose cotangent, product, sum and gradient otherwise each take
//! a pass over a buffer of their own.
//!
//! ```
//! use geomattn::Isa;
//! use geomattn::activation::Function;
//! let isa = Isa::best();
//! let lanes = isa.lanes::<f64>();
//! let runs = |values: &[f64]| -> Vec<f64> { values.iter().flat_map(|&v| vec![v; lanes]).collect() };
//! // W = [[0, 0], [2, 0]] (column-major), the identity: y = x + W x, so x̄ = ȳ + Wᵀ ȳ and
//! // ∂L/∂W₂₁ = ȳ₂ x₁ (the one position), ∂L/∂b = ȳ.
//! let (w, x, y_bar) = (runs(&[0.0, 2.0, 0.0, 0.0]), runs(&[1.0, 3.0]), runs(&[5.0, 7.0]));
//! let activated = runs(&[0.0, 2.0]); // σ(W x + b) as the forward pass kept it
//! let (mut bar, mut gradient) = (y_bar.clone(), vec![0.0; 3 * lanes]);
//! let layer = (2, &w[..], &[(1, 0)][..], true, Function::Identity);
//! assert!(isa.residual_backward_in_place(lanes, layer, (&x, &activated), &mut bar, &mut gradient));
//! assert_eq!(bar, runs(&[5.0 + 2.0 * 7.0, 7.0]));
//! assert_eq!(gradient, runs(&[7.0 * 1.0, 5.0, 7.0]));
//! ```

use super::sealed::LaneVector;
use super::{BatchScalar, Isa};
use crate::activation::Function;

/// The largest dimension with a fused kernel.
const MAX_DIM: usize = 8;

/// A layer of [`Isa::residual_backward_in_place`]: its dimension `d`, `W` (`d × d`, column-major,
/// each entry a run of lanes), the positions of `W`'s parameters (in the gradient's order),
/// whether it has a bias, and `σ`.
pub type ResidualLayer<'a, S> = (usize, &'a [S], &'a [(usize, usize)], bool, Function);

impl Isa {
    /// The backward pass of `y = x + σ(W x + b)` for every column of `X` in every lane
    /// `l < lanes`, from the input `X` and `A = σ(W X + b)` the forward pass kept: with
    /// `δ = Ȳ ⊙ σ'(A)`, `X̄ = Ȳ + Wᵀ δ` written over `bar` (which holds `Ȳ`), and
    /// `Σ_t δ_{i,t} X_{j,t}` added to the gradient's entry of each position `(i, j)` of the
    /// layer's parameters (in order), then, with a bias, `Σ_t δ_{i,t}` to the next `d` entries.
    /// Done if `d ≤ 8`, `σ` is the identity, `tanh` or the sigmoid, and this instruction set
    /// computes on whole vectors ([`Isa::is_compact`]); `false` (and nothing written)
    /// otherwise. Every matrix is column-major, each entry a run of `lanes` values.
    ///
    /// Each value is that of the steps one after the other, as the engine takes them: `σ'` from
    /// the value (`1 − a²`, `a (1 − a)`, `1`) times `ȳ`; `Wᵀ δ` by [`Isa::lane_products`] (fused
    /// multiply-adds over `j` in order, from zero), then `+ ȳ`; each gradient sum over `t` in
    /// order from zero (a product, then a sum), then added to the entry.
    ///
    /// # Panics
    /// If `lanes` is not a multiple of this instruction set's lanes ([`Isa::lanes`]), if the
    /// buffers' lengths do not fit `d` (`X`, `A` and `Ȳ` the same whole number of columns, the
    /// gradient one run per position and bias entry), if a position is outside `W`, or if this
    /// processor does not have the instruction set.
    pub fn residual_backward_in_place<S: BatchScalar>(
        self,
        lanes: usize,
        (dim, w, positions, bias, activation): ResidualLayer<'_, S>,
        (x, activated): (&[S], &[S]),
        bar: &mut [S],
        gradient: &mut [S],
    ) -> bool {
        assert!(
            lanes.is_multiple_of(self.lanes::<S>()),
            "{lanes} lanes are not whole vectors of {self:?}"
        );
        let column = dim * lanes;
        let entries = positions.len() + if bias { dim } else { 0 };
        assert!(
            w.len() == dim * column
                && column > 0
                && x.len().is_multiple_of(column)
                && activated.len() == x.len()
                && bar.len() == x.len()
                && gradient.len() == entries * lanes
                && positions.iter().all(|&(i, j)| i < dim && j < dim),
            "W of {}, X of {}, σ(W X + b) of {}, X̄ of {} and a gradient of {} values are not \
             those of dimension {dim} in {lanes} lanes with {entries} parameters",
            w.len(),
            x.len(),
            activated.len(),
            bar.len(),
            gradient.len()
        );
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        if !self.is_compact()
            || dim > MAX_DIM
            || matches!(activation, Function::Relu | Function::Softplus)
        {
            return false;
        }
        let layer = Layer {
            lanes,
            dim,
            w,
            positions,
            bias,
            activation,
            x,
            activated,
        };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { backward_avx512(layer, bar, gradient) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { backward_avx2(layer, bar, gradient) },
            // Not compact on x86-64 (`wide`'s SSE2 pairs): refused above, and not compiled.
            #[cfg(target_arch = "x86_64")]
            Isa::Portable => false,
            #[cfg(not(target_arch = "x86_64"))]
            _ => by_dim::<S::Portable>(layer, bar, gradient),
        }
    }
}

/// The arguments of [`Isa::residual_backward_in_place`] but what it writes, checked.
#[derive(Clone, Copy)]
struct Layer<'a, S> {
    lanes: usize,
    dim: usize,
    w: &'a [S],
    positions: &'a [(usize, usize)],
    bias: bool,
    activation: Function,
    x: &'a [S],
    activated: &'a [S],
}

/// [`by_dim`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn backward_avx512<S: BatchScalar>(layer: Layer<'_, S>, bar: &mut [S], gradient: &mut [S]) -> bool {
    by_dim::<S::Avx512>(layer, bar, gradient)
}

/// [`by_dim`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn backward_avx2<S: BatchScalar>(layer: Layer<'_, S>, bar: &mut [S], gradient: &mut [S]) -> bool {
    by_dim::<S::Avx2>(layer, bar, gradient)
}

/// The kernel of the layer's dimension (a jump on it, then every loop over it unrolled) and
/// activation.
#[inline(always)]
fn by_dim<V: LaneVector>(
    layer: Layer<'_, V::Scalar>,
    bar: &mut [V::Scalar],
    gradient: &mut [V::Scalar],
) -> bool {
    macro_rules! by {
        ($($d:literal)*) => {
            match (layer.dim, layer.activation) {
                $(
                    ($d, Function::Identity) => {
                        fused::<V, Identity, $d, { $d * $d + $d }>(layer, bar, gradient)
                    }
                    ($d, Function::Tanh) => {
                        fused::<V, Tanh, $d, { $d * $d + $d }>(layer, bar, gradient)
                    }
                    ($d, Function::Sigmoid) => {
                        fused::<V, Sigmoid, $d, { $d * $d + $d }>(layer, bar, gradient)
                    }
                )*
                _ => return false,
            }
        };
    }
    by!(1 2 3 4 5 6 7 8);
    true
}

/// The derivative of an activation from its value, as a type (inlined into the kernel).
trait Slope {
    /// `σ'` in every lane, from `a = σ(·)`.
    fn from_value<V: LaneVector>(a: V) -> V;
}

/// The identity: `1`.
struct Identity;

impl Slope for Identity {
    #[inline(always)]
    fn from_value<V: LaneVector>(_: V) -> V {
        V::one()
    }
}

/// `tanh`: `1 − a²`.
struct Tanh;

impl Slope for Tanh {
    #[inline(always)]
    fn from_value<V: LaneVector>(a: V) -> V {
        V::one() - a * a
    }
}

/// The sigmoid: `a (1 − a)`.
struct Sigmoid;

impl Slope for Sigmoid {
    #[inline(always)]
    fn from_value<V: LaneVector>(a: V) -> V {
        a * (V::one() - a)
    }
}

/// The backward pass for `W` of `D × D`, one vector of lanes at a time: column by column, `δ`
/// and `X̄`, the gradient's sums (at most `E = D² + D`: a dense `W` and a bias) carried over
/// the columns and added at the end.
#[inline(always)]
fn fused<V: LaneVector, A: Slope, const D: usize, const E: usize>(
    layer: Layer<'_, V::Scalar>,
    bar: &mut [V::Scalar],
    gradient: &mut [V::Scalar],
) {
    let lanes = layer.lanes;
    let column = D * lanes;
    let positions = layer.positions;
    let entries = positions.len() + if layer.bias { D } else { 0 };
    assert!(
        layer.w.len() == D * column
            && layer.x.len() == bar.len()
            && layer.activated.len() == bar.len()
            && gradient.len() == entries * lanes
            && entries <= E
            && positions.iter().all(|&(i, j)| i < D && j < D)
    );
    for lane in (0..lanes / V::LANES).map(|v| v * V::LANES) {
        let mut sums = [V::zero(); E];
        let columns = layer
            .x
            .chunks_exact(column)
            .zip(layer.activated.chunks_exact(column))
            .zip(bar.chunks_exact_mut(column));
        for ((x, a), y_bar) in columns {
            // SAFETY: entry i of a column of D runs of `lanes` starts at i·lanes, and
            // lane + LANES ≤ lanes (for every buffer, asserted above).
            let load =
                |values: &[V::Scalar], i: usize| unsafe { V::load_at(values, i * lanes + lane) };
            let old: [V; D] = core::array::from_fn(|i| load(y_bar, i));
            let delta: [V; D] = core::array::from_fn(|i| A::from_value(load(a, i)) * old[i]);
            let x: [V; D] = core::array::from_fn(|i| load(x, i));
            for (i, old) in old.iter().enumerate() {
                let mut sum = V::zero();
                for (j, delta) in delta.iter().enumerate() {
                    // Wᵀ's entry (i, j) is W's (j, i), run i·D + j.
                    sum = load(layer.w, i * D + j).mul_add(*delta, sum);
                }
                // SAFETY: as above.
                unsafe { (*old + sum).store_at(y_bar, i * lanes + lane) };
            }
            for (sum, &(i, j)) in sums.iter_mut().zip(positions) {
                *sum += delta[i] * x[j];
            }
            if layer.bias {
                for (sum, delta) in sums[positions.len()..].iter_mut().zip(delta) {
                    *sum += delta;
                }
            }
        }
        for (k, sum) in sums[..entries].iter().enumerate() {
            // SAFETY: the gradient holds `entries` runs of `lanes` (asserted above).
            unsafe {
                let g = V::load_at(gradient, k * lanes + lane);
                (g + *sum).store_at(gradient, k * lanes + lane);
            }
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

    /// The positions of a strictly lower triangle (a volume-preserving layer) or of every entry
    /// (a ResNet layer), column by column.
    fn positions(dim: usize, dense: bool) -> Vec<(usize, usize)> {
        (0..dim)
            .flat_map(|j| (0..dim).map(move |i| (i, j)))
            .filter(|&(i, j)| dense || i > j)
            .collect()
    }

    /// Every dimension up to one past the largest kernel, every activation, dense or triangular,
    /// with and without a bias, on every instruction set of the machine: bit for bit the steps
    /// taken one after the other, or `false` and nothing written.
    #[test]
    fn the_fused_backward_pass_is_its_steps_one_after_the_other() {
        let lanes = 16;
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for dim in 1..=MAX_DIM + 1 {
                for activation in Function::ALL {
                    for (dense, bias) in [(false, false), (false, true), (true, true)] {
                        let positions = positions(dim, dense);
                        let entries = positions.len() + if bias { dim } else { 0 };
                        let w = values(dim * dim * lanes, 1);
                        let (x, a) = (values(dim * 3 * lanes, 2), values(dim * 3 * lanes, 3));
                        let y_bar = values(dim * 3 * lanes, 4);
                        let start = values(entries * lanes, 5);
                        let (mut bar, mut gradient) = (y_bar.clone(), start.clone());
                        let layer = (dim, &w[..], &positions[..], bias, activation);
                        let fused = isa.residual_backward_in_place(
                            lanes,
                            layer,
                            (&x, &a),
                            &mut bar,
                            &mut gradient,
                        );
                        let supported = isa.is_compact()
                            && dim <= MAX_DIM
                            && matches!(
                                activation,
                                Function::Identity | Function::Tanh | Function::Sigmoid
                            );
                        let what = std::format!("{isa:?} dim {dim} {activation:?} {dense} {bias}");
                        assert_eq!(fused, supported, "{what}");
                        if !fused {
                            assert_eq!((bar, gradient), (y_bar, start), "{what}");
                            continue;
                        }
                        let expected = steps(isa, lanes, layer, (&x, &a), &y_bar, &start);
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&bar), bits(&expected.0), "{what}: X̄");
                        assert_eq!(bits(&gradient), bits(&expected.1), "{what}: gradient");
                    }
                }
            }
        }
    }

    /// The backward pass's steps, each over the whole buffer: `δ`, the product by
    /// `Isa::lane_products`, `+ ȳ`, each gradient sum.
    fn steps(
        isa: Isa,
        lanes: usize,
        (dim, w, positions, bias, activation): ResidualLayer<'_, f32>,
        (x, a): (&[f32], &[f32]),
        y_bar: &[f32],
        start: &[f32],
    ) -> (Vec<f32>, Vec<f32>) {
        let n = x.len() / (dim * lanes);
        let delta: Vec<f32> = a
            .iter()
            .zip(y_bar)
            .map(|(&a, &y)| activation.derivative_from_value(a) * y)
            .collect();
        let at = |rows, columns, transposed: bool| super::super::LaneMatrix {
            rows,
            columns,
            row: if transposed { rows * lanes } else { lanes },
            column: if transposed { lanes } else { rows * lanes },
        };
        let mut back = std::vec![0.0; x.len()];
        isa.lane_products(
            lanes,
            (w, at(dim, dim, true)),
            (&delta, at(dim, n, false)),
            (&mut back, at(dim, n, false)),
            false,
        );
        let bar = back.iter().zip(y_bar).map(|(b, y)| y + b).collect();
        let mut gradient = start.to_vec();
        // Entry (r, t) of a `dim × n` matrix in lane `l`.
        let entry = |m: &[f32], r: usize, t: usize, l: usize| m[(t * dim + r) * lanes + l];
        for l in 0..lanes {
            for (k, &(i, j)) in positions.iter().enumerate() {
                let sum = (0..n).fold(0.0, |sum, t| {
                    sum + entry(&delta, i, t, l) * entry(x, j, t, l)
                });
                gradient[k * lanes + l] += sum;
            }
            if bias {
                for i in 0..dim {
                    let sum = (0..n).fold(0.0, |sum, t| sum + entry(&delta, i, t, l));
                    gradient[(positions.len() + i) * lanes + l] += sum;
                }
            }
        }
        (bar, gradient)
    }

    #[test]
    #[should_panic(expected = "are not those of dimension")]
    fn a_position_outside_w_panics() {
        let (w, x) = ([0.0_f64; 8], [0.0_f64; 4]);
        let (mut bar, mut gradient) = ([0.0_f64; 4], [0.0_f64; 2]);
        let layer = (2, &w[..], &[(2, 0)][..], false, Function::Tanh);
        Isa::Portable.residual_backward_in_place(2, layer, (&x, &x), &mut bar, &mut gradient);
    }
}
