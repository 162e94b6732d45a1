//! Every layer and architecture besides volume-preserving attention (`lanewise.rs`) in lanes: its
//! lane twin gives the scalar path's bits on every instruction set this machine has, in f32 and
//! f64, for every batch length around the lane widths. Multi-head attention (both connections,
//! every softmax, Euclidean and Stiefel), symplectic attention (both sides, all three weights, both
//! softmaxes), linear symplectic attention, the ResNet and SympNet gradient layers and their
//! stacks, the symplectic transformers, softmax attention with every correlation, derived
//! networks, GML's older orthonormal attention, and GML's trained standard transformer integrator and volume-preserving feed-forward
//! network. (GML's MNIST classifier body: `gml_large.rs`.)

use geomattn::gml::{GmlFile, load};
use geomattn::{
    AddConnection, DenseA, GmlCompatible, GradientExact, GradientLayer, Identity, LaneTwin,
    LinearSymplecticAttentionP, LinearSymplecticAttentionQ, LinearSymplecticTransformer,
    MatrixSoftmax, MultiHeadAttention, NoConnection, OneMatrixSoftmax, OneVectorSoftmax, PhaseSide,
    ResNetLayer, ResNetStack, SequenceLayer, Softmax, Stiefel, SymmetricA, SympNetStack,
    SymplecticAttention, SymplecticTransformer, Tanh, UpdateP, UpdateQ, VectorSoftmax,
};
use geomattn_testkit::gml_layout::{self, Layer, to_bytes, uniform};
use geomattn_testkit::lanes::assert_lanes_equal_scalar_over_counts;
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The layer in f64 and, with its weights rounded, in f32: both equal their scalar paths over
/// every batch length, with inputs in `[-scale, scale]`.
fn in_both_precisions<L, const D: usize, const T: usize>(layer: &L, rng: &mut SmallRng, scale: f32)
where
    L: LaneTwin<D, T, Scalar = f64> + SequenceLayer<f64, D, T> + Clone,
    L::Over<f32>: LaneTwin<D, T, Scalar = f32> + SequenceLayer<f32, D, T> + Clone,
{
    assert_lanes_equal_scalar_over_counts::<L, D, T>(layer, rng, scale);
    let single = layer.map_scalar(|w| w as f32);
    assert_lanes_equal_scalar_over_counts::<L::Over<f32>, D, T>(&single, rng, scale);
}

fn multi_head<Conn, Sm, const T: usize>(rng: &mut SmallRng)
where
    Conn: geomattn::Connection + Clone + core::fmt::Debug,
    Sm: Softmax,
{
    let euclidean = MultiHeadAttention::<f64, 4, 2, 2, Conn>::glorot(rng).with_softmax::<Sm>();
    let stiefel =
        MultiHeadAttention::<f64, 4, 2, 2, Conn, Stiefel>::stiefel_random(rng).with_softmax::<Sm>();
    // Scores from tiny to saturating (at 30 the softmax is one-hot in f32).
    for scale in [1e-3, 1.0, 30.0] {
        in_both_precisions::<_, 4, T>(&euclidean, rng, scale);
        in_both_precisions::<_, 4, T>(&stiefel, rng, scale);
    }
}

#[test]
fn multi_head_attention_runs_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(101);
    multi_head::<NoConnection, VectorSoftmax, 3>(&mut rng);
    multi_head::<AddConnection, VectorSoftmax, 5>(&mut rng);
    multi_head::<NoConnection, MatrixSoftmax, 4>(&mut rng);
    multi_head::<AddConnection, OneVectorSoftmax, 3>(&mut rng);
    multi_head::<NoConnection, OneMatrixSoftmax, 2>(&mut rng);
}

fn symplectic<Side: PhaseSide, Sm: Softmax>(rng: &mut SmallRng) {
    let dense = SymplecticAttention::<f64, 2, Side, Sm, DenseA<f64, 2>>::glorot(rng);
    let exact = SymplecticAttention::<f64, 2, Side, Sm, SymmetricA<f64, 2>>::glorot(rng);
    let gml = exact.with_mode::<GmlCompatible>();
    let _: &SymplecticAttention<f64, 2, Side, Sm, SymmetricA<f64, 2, GradientExact>> = &exact;
    for scale in [1e-2, 1.0, 20.0] {
        in_both_precisions::<_, 4, 3>(&dense, rng, scale);
        in_both_precisions::<_, 4, 5>(&exact, rng, scale);
        in_both_precisions::<_, 4, 4>(&gml, rng, scale);
    }
}

#[test]
fn symplectic_attention_runs_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(102);
    symplectic::<UpdateQ, MatrixSoftmax>(&mut rng);
    symplectic::<UpdateP, MatrixSoftmax>(&mut rng);
    symplectic::<UpdateQ, VectorSoftmax>(&mut rng);
    symplectic::<UpdateP, VectorSoftmax>(&mut rng);
}

#[test]
fn linear_symplectic_attention_runs_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(103);
    let q = LinearSymplecticAttentionQ::<f64, 3, 4>::glorot(&mut rng);
    let p = LinearSymplecticAttentionP::<f64, 2, 5>::glorot(&mut rng);
    in_both_precisions::<_, 6, 4>(&q, &mut rng, 1.0);
    in_both_precisions::<_, 4, 5>(&p, &mut rng, 1.0);
}

#[test]
fn softmax_attention_runs_in_lanes_bit_identically_with_every_correlation() {
    use geomattn::{Additive, ArbitraryWeight, Bilinear, LowRank, SkewWeight, SoftmaxAttention};
    let mut rng = SmallRng::seed_from_u64(109);
    for scale in [1e-2, 1.0, 10.0] {
        let bilinear = SoftmaxAttention::new(Bilinear::<f64, 3>::glorot(&mut rng));
        in_both_precisions::<_, 3, 4>(&bilinear, &mut rng, scale);
        let low_rank = SoftmaxAttention::new(LowRank::<f64, 4, 2>::glorot(&mut rng));
        in_both_precisions::<_, 4, 3>(&low_rank.with_softmax::<MatrixSoftmax>(), &mut rng, scale);
        let additive = SoftmaxAttention::new(Additive::<f64, 3, 5, Tanh>::glorot(&mut rng));
        in_both_precisions::<_, 3, 5>(&additive, &mut rng, scale);
        let linear = SoftmaxAttention::new(Additive::<f64, 2, 3, Identity>::glorot(&mut rng));
        in_both_precisions::<_, 2, 3>(&linear.with_softmax::<OneVectorSoftmax>(), &mut rng, scale);
        let skew = SoftmaxAttention::new(SkewWeight::<f64, 3>::glorot(&mut rng));
        in_both_precisions::<_, 3, 3>(&skew, &mut rng, scale);
        let arbitrary = SoftmaxAttention::new(ArbitraryWeight::<f64, 4>::glorot(&mut rng));
        in_both_precisions::<_, 4, 4>(&arbitrary, &mut rng, scale);
    }
}

#[test]
fn orthonormal_attention_runs_in_lanes_bit_identically() {
    use geomattn::{Elimination, GramSchmidt, OrthonormalAttention};
    let mut rng = SmallRng::seed_from_u64(110);
    for add_connection in [false, true] {
        let layer = OrthonormalAttention::<f64, 3>::glorot(&mut rng, add_connection);
        in_both_precisions::<_, 3, 4>(&layer, &mut rng, 1.0);
        in_both_precisions::<_, 3, 5>(&layer.with_map::<GramSchmidt>(), &mut rng, 1.0);
        in_both_precisions::<_, 3, 3>(&layer.with_map::<Elimination>(), &mut rng, 1.0);
    }
}

/// A gradient layer with every weight random (GML initialises the bias to zero).
fn gradient<Side: PhaseSide, Act, const N: usize, const HIDDEN: usize>(
    rng: &mut SmallRng,
) -> GradientLayer<f64, N, HIDDEN, Side, Act> {
    GradientLayer::new(random_matrix(rng), random_matrix(rng), random_matrix(rng))
}

/// A ResNet layer with every weight random, with or without a bias.
fn resnet<Act, const D: usize>(rng: &mut SmallRng, bias: bool) -> ResNetLayer<f64, D, Act> {
    let weight = random_matrix(rng);
    ResNetLayer::new(weight, bias.then(|| random_matrix::<D, 1>(rng)))
}

#[test]
fn feed_forward_layers_and_stacks_run_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(104);
    for scale in [1e-2, 1.0, 50.0] {
        in_both_precisions::<_, 3, 4>(&resnet::<Tanh, 3>(&mut rng, true), &mut rng, scale);
        in_both_precisions::<_, 5, 2>(&resnet::<Identity, 5>(&mut rng, false), &mut rng, scale);
        let stack = ResNetStack::new(
            [resnet::<Tanh, 3>(&mut rng, true), resnet(&mut rng, false)],
            resnet(&mut rng, true),
        );
        in_both_precisions::<_, 3, 3>(&stack, &mut rng, scale);
        let q = gradient::<UpdateQ, Tanh, 2, 3>(&mut rng);
        let p = gradient::<UpdateP, Identity, 3, 2>(&mut rng);
        in_both_precisions::<_, 4, 3>(&q, &mut rng, scale);
        in_both_precisions::<_, 6, 2>(&p, &mut rng, scale);
        let layers = core::array::from_fn(|_| gradient::<UpdateQ, Tanh, 2, 4>(&mut rng));
        in_both_precisions::<_, 4, 3>(
            &SympNetStack::<_, 2, 4, 3, Tanh, UpdateP>::new(layers),
            &mut rng,
            scale,
        );
    }
}

/// Phase space R⁴, windows of 3, 4 hidden units, n_sympnet = 2, L = 2, as GML writes the files.
const N: usize = 2;
const T: usize = 3;
const HIDDEN: usize = 4;

fn gml_file(rng: &mut SmallRng, attention: impl Fn(&mut SmallRng) -> Layer) -> GmlFile {
    let layers = gml_layout::chain(rng, (2, 2, N, HIDDEN), attention);
    GmlFile::from_bytes(to_bytes(&layers)).unwrap()
}

#[test]
fn symplectic_transformers_run_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(105);
    let dense = gml_file(&mut rng, |rng| Layer::Dense(uniform(rng, N * N), N));
    let symmetric = gml_file(&mut rng, |rng| {
        Layer::Symmetric(uniform(rng, N * (N + 1) / 2), N)
    });
    let linear = gml_file(&mut rng, |rng| {
        Layer::Symmetric(uniform(rng, T * (T + 1) / 2), T)
    });
    type St<Sm, W> = SymplecticTransformer<f64, N, HIDDEN, 2, 2, Tanh, Sm, W>;
    let net: St<MatrixSoftmax, DenseA<f64, N>> = load(&dense).unwrap();
    in_both_precisions::<_, 4, T>(&net, &mut rng, 1.0);
    let net: St<VectorSoftmax, SymmetricA<f64, N, GmlCompatible>> = load(&symmetric).unwrap();
    in_both_precisions::<_, 4, T>(&net, &mut rng, 1.0);
    let net: St<MatrixSoftmax, SymmetricA<f64, N>> = load(&symmetric).unwrap();
    in_both_precisions::<_, 4, T>(&net, &mut rng, 1.0);
    let net: LinearSymplecticTransformer<f64, N, T, HIDDEN, 2, 2, Tanh> = load(&linear).unwrap();
    in_both_precisions::<_, 4, T>(&net, &mut rng, 1.0);
}

/// GML's trained rigid-body networks: the standard transformer integrator (multi-head attention
/// and ResNet stacks) and the volume-preserving feed-forward network, loaded in both precisions.
#[test]
fn the_trained_rigid_body_integrators_run_in_lanes_bit_identically() {
    type St<S> = geomattn::StandardTransformerIntegrator<
        S,
        3,
        MultiHeadAttention<S, 3, 1, 3, NoConnection>,
        2,
        3,
        Tanh,
    >;
    type Vpff<S> = geomattn::VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
    let mut rng = SmallRng::seed_from_u64(106);
    let st = geomattn_testkit::fixture("transformer_rigid_body_nn_st.h5");
    let single: St<f32> = geomattn::gml::load_file(&st).unwrap();
    let double: St<f64> = geomattn::gml::load_file(&st).unwrap();
    assert_lanes_equal_scalar_over_counts::<_, 3, 3>(&single, &mut rng, 1.0);
    assert_lanes_equal_scalar_over_counts::<_, 3, 3>(&double, &mut rng, 1.0);
    let vpff = geomattn_testkit::fixture("transformer_rigid_body_nn_vpff.h5");
    let single: Vpff<f32> = geomattn::gml::load_file(&vpff).unwrap();
    let double: Vpff<f64> = geomattn::gml::load_file(&vpff).unwrap();
    assert_lanes_equal_scalar_over_counts::<_, 3, 1>(&single, &mut rng, 1.0);
    assert_lanes_equal_scalar_over_counts::<_, 3, 1>(&double, &mut rng, 1.0);
}

/// A derived network of fixed sizes: attention, then a ResNet layer.
#[derive(geomattn::Network, Clone, Copy)]
#[geomattn(scalar = f64, dim = 4, len = 3)]
struct Fixed {
    attention: SymplecticAttention<f64, 2, UpdateQ, MatrixSoftmax, DenseA<f64, 2>>,
    mix: MultiHeadAttention<f64, 4, 2, 2, AddConnection>,
    feedforward: ResNetLayer<f64, 4, Tanh>,
}

/// A derived network generic over its layers (and so over the scalar and sizes).
#[derive(geomattn::Network, Clone, Copy)]
struct Block<Att, Ff> {
    attention: Att,
    feedforward: Ff,
}

#[test]
fn derived_networks_run_in_lanes_bit_identically() {
    let mut rng = SmallRng::seed_from_u64(107);
    let fixed = Fixed {
        attention: SymplecticAttention::<f64, 2, UpdateQ, MatrixSoftmax>::glorot(&mut rng),
        mix: MultiHeadAttention::glorot(&mut rng),
        feedforward: resnet(&mut rng, true),
    };
    in_both_precisions::<_, 4, 3>(&fixed, &mut rng, 1.0);
    let block = Block {
        attention: MultiHeadAttention::<f64, 3, 1, 3, NoConnection>::glorot(&mut rng),
        feedforward: ResNetStack::new([resnet::<Tanh, 3>(&mut rng, true)], resnet(&mut rng, true)),
    };
    in_both_precisions::<_, 3, 5>(&block, &mut rng, 1.0);
    // Nested: a derived network as a field of another.
    let nested = Block {
        attention: block,
        feedforward: resnet::<Identity, 3>(&mut rng, false),
    };
    in_both_precisions::<_, 3, 2>(&nested, &mut rng, 1.0);
}
