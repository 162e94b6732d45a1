//! The run-time engine's backward passes (`geomattn::engine::Backward`) against forward-mode
//! dual numbers, to 1e-12 in f64, at sizes of every kind (the Cayley transform's closed forms,
//! its kernels, nalgebra's LU beyond 16; dimensions odd and even; every activation; both
//! weightings, triangles, biases), and over lanes, bit for bit each lane's scalar pass.
//!
//! The reference of `∂L/∂Z` and `∂L/∂θ` for `L = ⟨Ō, layer(Z)⟩` is one dual pass per input
//! entry and per parameter: the engine's forward pass over `Dual64`, its weights built from the
//! same values by the layer's own constructor.

use geomattn::activation::Function;
use geomattn::engine::{
    Backward, Chain, Dense, Element, Forward, GradientLayer, LinearSymplecticAttention,
    MultiHeadAttention, PsdLayer, ResNetLayer, Scratch, SymplecticAttention,
    VolumePreservingAttention, VolumePreservingLayer,
};
use geomattn::nalgebra::DMatrix;
use geomattn::softmax::Function as Softmax;
use geomattn::symplectic::Side;
use geomattn::{Lanes, MapScalar};
use num_dual::Dual64;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Uniform values in `[−scale, scale)`.
fn values(rng: &mut SmallRng, n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|_| scale * (2.0 * rng.random::<f64>() - 1.0))
        .collect()
}

/// `x` as a dual number, its derivative 1 if `seeded`.
fn dual(x: f64, seeded: bool) -> Dual64 {
    let d = Dual64::from_re(x);
    if seeded { d.derivative() } else { d }
}

/// `⟨Ō, ε-part of out⟩`.
fn directional(out: &DMatrix<Dual64>, out_bar: &DMatrix<f64>) -> f64 {
    out.iter().zip(out_bar.iter()).map(|(o, w)| o.eps * w).sum()
}

/// Asserts `found` equals `expected` to 1e-12, relative to the larger of 1 and the entry.
fn assert_close(what: &str, found: &[f64], expected: &[f64]) {
    assert_eq!(found.len(), expected.len(), "{what}: lengths");
    for (k, (f, e)) in found.iter().zip(expected).enumerate() {
        let tolerance = 1e-12 * e.abs().max(1.0);
        assert!(
            (f - e).abs() <= tolerance,
            "{what}[{k}]: backward {f:e}, dual numbers {e:e}"
        );
    }
}

/// The backward pass of the layer `build` makes from `count` seeded parameters, on a seeded
/// `dim×seq` input, against dual numbers.
fn check<L64, LD>(
    name: &str,
    count: usize,
    (dim, seq): (usize, usize),
    scale: f64,
    build: impl Fn(&[f64]) -> L64,
    build_dual: impl Fn(&[Dual64]) -> LD,
) where
    L64: Backward<f64>,
    LD: Forward<Dual64>,
{
    let mut rng = SmallRng::seed_from_u64((dim * 1000 + seq) as u64);
    let params = values(&mut rng, count, scale);
    let z = DMatrix::from_vec(dim, seq, values(&mut rng, dim * seq, 1.0));
    let layer = build(&params);
    assert_eq!(layer.parameter_count(), count, "{name}: parameter count");
    let out = layer.forward(&z).expect("the input fits");
    let out_bar = DMatrix::from_vec(out.nrows(), seq, values(&mut rng, out.len(), 1.0));

    let mut bar = out_bar.clone();
    let mut gradient = vec![0.0; count];
    layer.backward_in_place(&z, &mut bar, &mut gradient, &mut Scratch::new());
    assert_eq!(bar.shape(), z.shape(), "{name}: ∂L/∂Z's shape");

    let constant: Vec<Dual64> = params.iter().map(|&p| dual(p, false)).collect();
    let fixed = build_dual(&constant);
    let by_input: Vec<f64> = (0..z.len())
        .map(|k| {
            let zk = DMatrix::from_fn(dim, seq, |i, j| dual(z[(i, j)], i + j * dim == k));
            directional(&fixed.forward_unchecked(&zk), &out_bar)
        })
        .collect();
    let z_dual = z.map(|x| dual(x, false));
    let by_parameter: Vec<f64> = (0..count)
        .map(|k| {
            let seeded: Vec<Dual64> = params
                .iter()
                .enumerate()
                .map(|(i, &p)| dual(p, i == k))
                .collect();
            directional(&build_dual(&seeded).forward_unchecked(&z_dual), &out_bar)
        })
        .collect();
    assert_close(&format!("{name} ∂L/∂Z"), bar.as_slice(), &by_input);
    assert_close(&format!("{name} ∂L/∂θ"), &gradient, &by_parameter);
}

/// [`check`] with one expression building the layer from `$p` in `f64` and in `Dual64`.
macro_rules! check {
    ($name:expr, $count:expr, $shape:expr, $scale:expr, |$p:ident| $build:expr) => {
        check(
            &$name,
            $count,
            $shape,
            $scale,
            |$p: &[f64]| $build,
            |$p: &[Dual64]| $build,
        )
    };
}

#[test]
fn volume_preserving_attention_of_both_weightings_at_every_kind_of_length() {
    for (dim, seq) in [(2, 1), (2, 2), (3, 3), (5, 6), (4, 9), (3, 16), (3, 18)] {
        let skew = dim * (dim - 1) / 2;
        check!(format!("skew {dim}×{seq}"), skew, (dim, seq), 1.0, |p| {
            VolumePreservingAttention::skew_sym(dim, seq, p).unwrap()
        });
        check!(
            format!("arbitrary {dim}×{seq}"),
            dim * dim,
            (dim, seq),
            1.0,
            |p| { VolumePreservingAttention::arbitrary(dim, seq, p).unwrap() }
        );
    }
}

#[test]
fn residual_and_dense_layers_with_every_activation() {
    for activation in Function::ALL {
        for dim in [1, 2, 5] {
            let packed = dim * (dim - 1) / 2;
            for upper in [false, true] {
                let name = format!("VP {activation} upper={upper} dim {dim}");
                check!(name, packed + dim, (dim, 3), 1.0, |p| {
                    let (w, b) = p.split_at(packed);
                    if upper {
                        VolumePreservingLayer::upper(dim, w, Some(b), activation).unwrap()
                    } else {
                        VolumePreservingLayer::lower(dim, w, Some(b), activation).unwrap()
                    }
                });
            }
            check!(
                format!("VP {activation} no bias {dim}"),
                packed,
                (dim, 2),
                1.0,
                |p| { VolumePreservingLayer::lower(dim, p, None, activation).unwrap() }
            );
            let name = format!("ResNet {activation} dim {dim}");
            check!(name, dim * dim + dim, (dim, 4), 1.0, |p| {
                let (w, b) = p.split_at(dim * dim);
                ResNetLayer::new(dim, w, Some(b), activation).unwrap()
            });
        }
        for (inputs, outputs) in [(2, 7), (7, 3), (4, 4)] {
            let name = format!("Dense {activation} {inputs}→{outputs}");
            check!(name, inputs * outputs + outputs, (inputs, 3), 1.0, |p| {
                let (w, b) = p.split_at(inputs * outputs);
                Dense::new(inputs, outputs, w, Some(b), activation).unwrap()
            });
        }
    }
}

#[test]
fn chains_of_residual_layers_keep_their_activations_for_the_backward_pass() {
    // A chain of the layers themselves runs their own `forward_keeping` and `backward_kept`.
    for activation in Function::ALL {
        let dim = 4;
        let packed = dim * (dim - 1) / 2;
        let name = format!("VP chain {activation}");
        check!(name, 2 * packed + dim, (dim, 3), 1.0, |p| {
            let (lower, rest) = p.split_at(packed);
            let (upper, bias) = rest.split_at(packed);
            Chain::new(vec![
                VolumePreservingLayer::lower(dim, lower, None, activation).unwrap(),
                VolumePreservingLayer::upper(dim, upper, Some(bias), activation).unwrap(),
            ])
        });
        let name = format!("ResNet chain {activation}");
        check!(name, 2 * (dim * dim + dim), (dim, 2), 1.0, |p| {
            let layers = p.chunks(dim * dim + dim).map(|p| {
                let (w, b) = p.split_at(dim * dim);
                ResNetLayer::new(dim, w, Some(b), activation).unwrap()
            });
            Chain::new(layers.collect())
        });
    }
}

#[test]
fn multi_head_attention_with_either_softmax_and_connection_at_several_head_counts() {
    for (dim, heads, seq) in [(2, 1, 3), (4, 2, 5), (6, 3, 2), (5, 5, 4)] {
        for softmax in [Softmax::Vector, Softmax::Matrix] {
            for add_connection in [false, true] {
                let name = format!("MHA {dim}/{heads} seq {seq} {softmax:?} {add_connection}");
                check!(name, 3 * dim * dim, (dim, seq), 1.0, |p| {
                    let per_head = dim * dim / heads;
                    let at = |group: usize| -> Vec<_> {
                        (0..heads)
                            .map(|h| &p[(group * heads + h) * per_head..][..per_head])
                            .collect()
                    };
                    let (q, k, v) = (at(0), at(1), at(2));
                    MultiHeadAttention::new(dim, heads, &q, &k, &v, softmax, add_connection)
                        .unwrap()
                });
            }
        }
    }
}

#[test]
fn symplectic_attention_of_every_weight_and_kick_with_either_softmax_and_side() {
    for (dim, seq) in [(2, 1), (2, 3), (4, 4), (6, 5), (10, 2)] {
        let n = dim / 2;
        for softmax in [Softmax::Vector, Softmax::Matrix] {
            for side in [Side::Q, Side::P] {
                let name = format!("SA dense {dim}×{seq} {softmax:?} {side:?}");
                check!(name, n * n, (dim, seq), 1.0, |p| {
                    SymplecticAttention::arbitrary(side, dim, p, softmax).unwrap()
                });
                let packed = n * (n + 1) / 2;
                let name = format!("SA symmetric {dim}×{seq} {softmax:?} {side:?}");
                check!(name, packed, (dim, seq), 1.0, |p| {
                    SymplecticAttention::symmetric(side, dim, p, softmax).unwrap()
                });
                let name = format!("SA GML kick {dim}×{seq} {softmax:?} {side:?}");
                check!(name, packed, (dim, seq), 1.0, |p| {
                    SymplecticAttention::symmetric_gml(side, dim, p, softmax).unwrap()
                });
            }
        }
    }
}

#[test]
fn linear_symplectic_attention_on_either_side() {
    for (dim, seq) in [(2, 1), (2, 3), (4, 4), (8, 10)] {
        for side in [Side::Q, Side::P] {
            let name = format!("LSA {dim}×{seq} {side:?}");
            check!(name, seq * (seq + 1) / 2, (dim, seq), 1.0, |p| {
                LinearSymplecticAttention::new(side, dim, seq, p).unwrap()
            });
        }
    }
}

#[test]
fn gradient_layers_with_every_activation_and_psd_layers_up_and_down() {
    for activation in Function::ALL {
        for (dim, upscaling) in [(2, 2), (2, 8), (4, 6), (10, 20)] {
            let (n, hidden) = (dim / 2, upscaling / 2);
            for side in [Side::Q, Side::P] {
                let name = format!("GradientLayer {activation} {dim}/{upscaling} {side:?}");
                check!(name, hidden * n + 2 * hidden, (dim, 3), 1.0, |p| {
                    let (k, rest) = p.split_at(hidden * n);
                    let (b, a) = rest.split_at(hidden);
                    GradientLayer::new(side, dim, upscaling, k, b, a, activation).unwrap()
                });
            }
        }
    }
    for (inputs, outputs, seq) in [(2, 4, 3), (4, 2, 2), (2, 20, 4), (20, 2, 1), (6, 6, 2)] {
        let count = inputs.max(outputs) / 2 * (inputs.min(outputs) / 2);
        check!(
            format!("PSD {inputs}→{outputs}"),
            count,
            (inputs, seq),
            1.0,
            |p| { PsdLayer::new(inputs, outputs, p).unwrap() }
        );
    }
}

/// The layers of a chain behind one type, as a network's chain holds them.
#[derive(Debug, Clone)]
enum Part<S> {
    Attention(VolumePreservingAttention<S>),
    Layer(VolumePreservingLayer<S>),
    Dense(Dense<S>),
}

impl<S: Element> Forward<S> for Part<S> {
    fn name(&self) -> &'static str {
        match self {
            Self::Attention(l) => l.name(),
            Self::Layer(l) => l.name(),
            Self::Dense(l) => l.name(),
        }
    }
    fn input_shape(&self) -> (usize, Option<usize>) {
        match self {
            Self::Attention(l) => l.input_shape(),
            Self::Layer(l) => l.input_shape(),
            Self::Dense(l) => l.input_shape(),
        }
    }
    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        match self {
            Self::Attention(l) => l.forward_in_place(z, scratch),
            Self::Layer(l) => l.forward_in_place(z, scratch),
            Self::Dense(l) => l.forward_in_place(z, scratch),
        }
    }
}

impl<S: Element> Backward<S> for Part<S> {
    fn parameter_count(&self) -> usize {
        match self {
            Self::Attention(l) => l.parameter_count(),
            Self::Layer(l) => l.parameter_count(),
            Self::Dense(l) => l.parameter_count(),
        }
    }
    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        match self {
            Self::Attention(l) => l.backward_in_place(z, bar, gradient, scratch),
            Self::Layer(l) => l.backward_in_place(z, bar, gradient, scratch),
            Self::Dense(l) => l.backward_in_place(z, bar, gradient, scratch),
        }
    }
}

impl<S: geomattn::Field> MapScalar for Part<S> {
    type Scalar = S;
    type Over<X: geomattn::Field> = Part<X>;
    fn map_scalar<X: geomattn::Field>(&self, f: impl FnMut(S) -> X) -> Part<X> {
        match self {
            Self::Attention(l) => Part::Attention(l.map_scalar(f)),
            Self::Layer(l) => Part::Layer(l.map_scalar(f)),
            Self::Dense(l) => Part::Dense(l.map_scalar(f)),
        }
    }
}

/// Dense 3 → 5, two blocks of attention (skew, then arbitrary) and a lower and an upper layer
/// (sigmoid), Dense 5 → 3, from the flat parameters `p`.
fn network(p: &[f64], seq: usize) -> Chain<Part<f64>> {
    network_of(p, seq)
}

/// [`network`] in any scalar the constructors take.
fn network_of<S: Element + geomattn::nalgebra::RealField>(p: &[S], seq: usize) -> Chain<Part<S>> {
    let mut rest = p;
    let mut take = |n: usize| {
        let (head, tail) = rest.split_at(n);
        rest = tail;
        head
    };
    let sigmoid = Function::Sigmoid;
    let mut layers = vec![Part::Dense(
        Dense::new(3, 5, take(15), Some(take(5)), Function::Tanh).unwrap(),
    )];
    for skew in [true, false] {
        layers.push(Part::Attention(if skew {
            VolumePreservingAttention::skew_sym(5, seq, take(10)).unwrap()
        } else {
            VolumePreservingAttention::arbitrary(5, seq, take(25)).unwrap()
        }));
        let lower = VolumePreservingLayer::lower(5, take(10), Some(take(5)), sigmoid);
        let upper = VolumePreservingLayer::upper(5, take(10), None, sigmoid);
        layers.push(Part::Layer(lower.unwrap()));
        layers.push(Part::Layer(upper.unwrap()));
    }
    layers.push(Part::Dense(
        Dense::new(5, 3, take(15), Some(take(3)), Function::Identity).unwrap(),
    ));
    assert!(rest.is_empty(), "every parameter taken");
    Chain::new(layers)
}

/// Parameters of [`network`].
const NETWORK_PARAMETERS: usize = 20 + (10 + 15 + 10) + (25 + 15 + 10) + 18;

#[test]
fn a_chain_places_each_layers_gradient_in_its_own_part() {
    for seq in [2, 5] {
        check!(
            format!("chain seq {seq}"),
            NETWORK_PARAMETERS,
            (3, seq),
            0.5,
            |p| { network_of(p, seq) }
        );
    }
}

/// A window and the cotangent of its output.
type Window = (DMatrix<f64>, DMatrix<f64>);

#[test]
fn over_lanes_every_lane_is_its_scalar_backward_pass_bit_for_bit() {
    let seq = 4;
    let mut rng = SmallRng::seed_from_u64(7);
    let params = values(&mut rng, NETWORK_PARAMETERS, 0.5);
    let scalar = network(&params, seq);
    let lanes = scalar.map_scalar(Lanes::<f64, 4>::splat);
    let windows: Vec<Window> = (0..4)
        .map(|_| {
            let z = DMatrix::from_vec(3, seq, values(&mut rng, 3 * seq, 1.0));
            let bar = DMatrix::from_vec(3, seq, values(&mut rng, 3 * seq, 1.0));
            (z, bar)
        })
        .collect();
    let lane = |f: fn(&Window) -> &DMatrix<f64>| {
        DMatrix::from_fn(3, seq, |i, j| {
            Lanes::<f64, 4>::new(core::array::from_fn(|k| f(&windows[k])[(i, j)]))
        })
    };
    let z = lane(|w| &w.0);
    let mut bar = lane(|w| &w.1);
    let mut gradient = vec![Lanes::splat(0.0); NETWORK_PARAMETERS];
    lanes.backward_in_place(&z, &mut bar, &mut gradient, &mut Scratch::new());
    for (k, (z, out_bar)) in windows.iter().enumerate() {
        let mut expected_bar = out_bar.clone();
        let mut expected = vec![0.0; NETWORK_PARAMETERS];
        scalar.backward_in_place(z, &mut expected_bar, &mut expected, &mut Scratch::new());
        assert_eq!(bar.map(|x| x.lane(k)), expected_bar, "lane {k}: ∂L/∂Z");
        let found: Vec<f64> = gradient.iter().map(|g| g.lane(k)).collect();
        assert_eq!(found, expected, "lane {k}: ∂L/∂θ");
    }
}
