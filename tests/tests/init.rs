//! `init::glorot_network` initialises any network as GML does, parameter by parameter: for every
//! layer whose own `glorot` constructor draws in GML's parameter order, the two give the same
//! values from the same seed, and a whole transformer's weights lie in their Glorot intervals with
//! its biases zero.

use geomattn::init::glorot_network;
use geomattn::schema::{Kind, Param, Sink};
use geomattn::{
    ArbitraryVpa, GradientLayerP, LinearSymplecticAttentionQ, ResNetLayer, Schema, SkewVpa,
    SymplecticAttentionQ, Tanh, VolumePreservingLowerLayer, VolumePreservingTransformer,
    VolumePreservingUpperLayer, to_flat,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn flat<N: Schema<Scalar = f64>>(net: &N) -> Vec<f64> {
    let mut out = vec![0.0; N::SCALARS];
    to_flat(net, &mut out).unwrap();
    out
}

/// `glorot_network` and the layer's own constructor, from the same seed, give the same values.
fn assert_same<N: Schema<Scalar = f64>>(own: impl Fn(&mut SmallRng) -> N) {
    for seed in 0..4 {
        let expected = flat(&own(&mut SmallRng::seed_from_u64(seed)));
        let network: N = glorot_network(&mut SmallRng::seed_from_u64(seed)).unwrap();
        assert_eq!(flat(&network), expected, "{}", core::any::type_name::<N>());
        assert!(expected.iter().any(|&x| x != 0.0));
    }
}

#[test]
fn every_layer_is_initialised_as_its_own_constructor_does() {
    assert_same(|r| VolumePreservingLowerLayer::<f64, 4, Tanh>::glorot(r, true));
    assert_same(|r| VolumePreservingUpperLayer::<f64, 5, Tanh>::glorot(r, true));
    assert_same(|r| ResNetLayer::<f64, 4, Tanh>::glorot(r, true));
    assert_same(SkewVpa::<f64, 4, 3>::glorot);
    assert_same(ArbitraryVpa::<f64, 3, 5>::glorot);
    assert_same(GradientLayerP::<f64, 2, 6, Tanh>::glorot);
    assert_same(SymplecticAttentionQ::<f64, 2>::glorot);
    assert_same(LinearSymplecticAttentionQ::<f64, 2, 3>::glorot);
}

/// Every parameter of a network, as its schema hands them out: kind, name, values.
struct Recorder(Vec<(Kind, &'static str, Vec<f64>)>);

impl Sink<f64> for Recorder {
    type Error = geomattn::Error;
    fn begin_layer(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
    fn param(&mut self, param: &Param, values: &[f64]) -> Result<(), Self::Error> {
        self.0.push((param.kind, param.name.stem, values.to_vec()));
        Ok(())
    }
    fn invalid(&mut self, error: geomattn::Error) -> Self::Error {
        error
    }
}

/// GML's rigid-body VPT: every packed weight (length 3) within √(6/3), every dense 3×3 attention
/// weight within √(6/6), every bias zero, and the intervals filled (the largest draw over a few
/// networks comes within 5% of the bound: a wrong, narrower bound fails).
#[test]
fn a_transformer_s_weights_fill_their_glorot_intervals_and_its_biases_are_zero() {
    type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
    let mut rng = SmallRng::seed_from_u64(7);
    let (mut packed_max, mut dense_max, mut biases) = (0.0_f64, 0.0_f64, 0);
    for _ in 0..20 {
        let net: Vpt = glorot_network(&mut rng).unwrap();
        let mut recorder = Recorder(Vec::new());
        net.write(&mut recorder).unwrap();
        for (kind, name, values) in recorder.0 {
            let largest = values.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
            match (kind, name) {
                (Kind::Vector, "bias") => {
                    assert_eq!(largest, 0.0);
                    biases += 1;
                }
                (Kind::StrictlyLower | Kind::StrictlyUpper, "weight") => {
                    packed_max = packed_max.max(largest);
                }
                (Kind::Dense, "A") => dense_max = dense_max.max(largest),
                other => panic!("a VPT has no {other:?}"),
            }
        }
    }
    let (packed_bound, dense_bound) = (2.0_f64.sqrt(), 1.0);
    assert!(biases > 0);
    assert!(
        packed_max <= packed_bound && packed_max > 0.95 * packed_bound,
        "{packed_max}"
    );
    assert!(
        dense_max <= dense_bound && dense_max > 0.95 * dense_bound,
        "{dense_max}"
    );
}
