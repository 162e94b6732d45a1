//! The backward passes in lanes ([`Lanewise::backward_flat`]) against the scalar backward pass,
//! sequence by sequence, on every instruction set this machine has and for every batch length
//! around the lane widths (empty, partial last groups, whole groups, remainders): the input
//! cotangents bit for bit, the parameter gradient (summed in another order) within `1e-13` of the
//! largest entry of the scalar sum, in f64, starting from a gradient that is not zero. Every layer
//! with a backward pass: volume-preserving attention with both weightings and each orthogonal map
//! that has a lane twin, the volume-preserving layers (both triangles, both activations, with and
//! without bias) and feed-forward network, ResNet, the volume-preserving transformer. With the
//! vectorised functions (what `geomattn train` runs), within `1e-12` of the scalar pass.

use geomattn::nalgebra::SMatrix;
use geomattn::{
    AddConnection, ArbitraryVpa, Backward, DenseA, Elimination, Error, Generated, GmlCompatible,
    GradientExact, GramSchmidt, Identity, Isa, LaneBackward, Lanewise, LinearSymplecticTransformer,
    Lower, MapScalar, MatrixSoftmax, MultiHeadAttention, NoConnection, ResNetLayer, Schema,
    SkewVpa, SkewWeight, StandardTransformerIntegrator, SymmetricA, SymplecticTransformer, Tanh,
    Upper, VectorSoftmax, VolumePreservingFeedForward, VolumePreservingLayer,
    VolumePreservingTransformer, from_flat,
};
use geomattn_testkit::lanes::{COUNTS, batch, bits, first_difference};
use geomattn_testkit::{random_matrix, unit};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// How far the lanes' gradient may be from the scalar sum, relative to its largest entry.
const GRADIENT_TOLERANCE: f64 = 1e-13;

/// A network of type `N` with every parameter uniform in `[-1, 1]`.
fn random<N: Schema<Scalar = f64>>(rng: &mut SmallRng) -> N {
    let params: Vec<f64> = (0..N::SCALARS).map(|_| 2.0 * unit(rng) - 1.0).collect();
    from_flat(&params).unwrap()
}

/// The gradient's entries, weight by weight (also those of a layer without a bias, which GML's
/// schema has no place for).
fn flat<G: MapScalar<Scalar = f64>>(gradient: &G) -> Vec<f64> {
    let mut values = Vec::new();
    gradient.map_scalar(|g| {
        values.push(g);
        g
    });
    values
}

/// The largest magnitude among `values`.
fn largest_magnitude(values: &[f64]) -> f64 {
    values.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

/// The largest entrywise difference between `found` and `expected`.
fn worst_difference(found: &[f64], expected: &[f64]) -> f64 {
    found
        .iter()
        .zip(expected)
        .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()))
}

/// The scalar backward pass over every sequence of a flat batch, in order: `(∂L/∂Z, gradient)`.
fn scalar_backward<L, const D: usize, const T: usize>(
    layer: &L,
    input: &[f64],
    out_bar: &[f64],
    mut gradient: L::Gradient,
) -> (Vec<f64>, L::Gradient)
where
    L: Backward<f64, D, T>,
{
    let mut z_bar = vec![0.0; input.len()];
    let sequences = input.chunks_exact(D * T).zip(out_bar.chunks_exact(D * T));
    for ((z, bar), result) in sequences.zip(z_bar.chunks_exact_mut(D * T)) {
        let (z, bar) = (
            SMatrix::<f64, D, T>::from_column_slice(z),
            SMatrix::from_column_slice(bar),
        );
        result.copy_from_slice(layer.backward(&z, &bar, &mut gradient).as_slice());
    }
    (z_bar, gradient)
}

/// The lane path of `layer`'s backward pass against the scalar one, for inputs in
/// `[-scale, scale]` and cotangents in `[-1, 1]`, over every batch length of [`COUNTS`].
fn assert_lanes_match_scalar<L, const D: usize, const T: usize>(
    layer: &L,
    rng: &mut SmallRng,
    scale: f32,
) where
    L: LaneBackward<f64, D, T> + Clone,
    L::Gradient: MapScalar<Scalar = f64> + Clone,
{
    let name = core::any::type_name::<L>();
    for count in COUNTS {
        let input: Vec<f64> = batch(rng, count, D * T, scale);
        let out_bar: Vec<f64> = batch(rng, count, D * T, 1.0);
        // A gradient that is not zero to start from: one other sequence's.
        let mut start = layer.zero_gradient();
        layer.backward(&random_matrix(rng), &random_matrix(rng), &mut start);
        let (z_bar, gradient) = scalar_backward(layer, &input, &out_bar, start.clone());
        let expected = flat(&gradient);
        let largest = largest_magnitude(&expected);
        assert!(largest > 0.0, "{name}: a gradient of zeros tests nothing");
        for isa in Isa::ALL {
            let Some(fast) = Lanewise::on(isa, layer.clone()) else {
                continue;
            };
            let (mut lanes_z_bar, mut lanes_gradient) =
                (vec![f64::NAN; input.len()], start.clone());
            fast.backward_flat(&input, &out_bar, &mut lanes_z_bar, &mut lanes_gradient)
                .unwrap();
            assert_eq!(
                first_difference(&bits(&lanes_z_bar), &bits(&z_bar)),
                None,
                "(entry, lanes, scalar) of ∂L/∂Z for {name}, {isa:?}, {count} sequences"
            );
            let worst = worst_difference(&flat(&lanes_gradient), &expected);
            assert!(
                worst <= GRADIENT_TOLERANCE * largest,
                "gradient of {name}, {isa:?}, {count} sequences: off by {worst:e} of {largest:e}"
            );
        }
    }
}

/// Each weighting with each orthogonal map that has a lane twin, at `T` where the default map
/// has closed forms (3) and where it runs Gram–Schmidt (5), with inputs of order one and larger.
#[test]
fn volume_preserving_attention_backward_runs_in_lanes() {
    let mut rng = SmallRng::seed_from_u64(1);
    for scale in [1.0, 4.0] {
        assert_lanes_match_scalar::<_, 3, 3>(
            &random::<SkewVpa<f64, 3, 3>>(&mut rng),
            &mut rng,
            scale,
        );
        assert_lanes_match_scalar::<_, 3, 5>(
            &random::<SkewVpa<f64, 3, 5>>(&mut rng),
            &mut rng,
            scale,
        );
        assert_lanes_match_scalar::<_, 4, 3>(
            &random::<ArbitraryVpa<f64, 4, 3>>(&mut rng),
            &mut rng,
            scale,
        );
        assert_lanes_match_scalar::<_, 2, 5>(
            &random::<ArbitraryVpa<f64, 2, 5>>(&mut rng),
            &mut rng,
            scale,
        );
        let gram_schmidt = random::<SkewVpa<f64, 3, 4, GramSchmidt>>(&mut rng);
        assert_lanes_match_scalar::<_, 3, 4>(&gram_schmidt, &mut rng, scale);
        let elimination = random::<ArbitraryVpa<f64, 3, 6, Elimination>>(&mut rng);
        assert_lanes_match_scalar::<_, 3, 6>(&elimination, &mut rng, scale);
        let generated = random::<ArbitraryVpa<f64, 3, 2, Generated>>(&mut rng);
        assert_lanes_match_scalar::<_, 3, 2>(&generated, &mut rng, scale);
    }
}

/// A volume-preserving layer with a random weight and, if `bias`, a random bias.
fn vp_layer<Layout: geomattn::StrictlyTriangular, Act, const D: usize>(
    rng: &mut SmallRng,
    bias: bool,
) -> VolumePreservingLayer<f64, D, Layout, Act> {
    let weight: Vec<f64> = (0..D * (D - 1) / 2)
        .map(|_| 2.0 * unit(rng) - 1.0)
        .collect();
    let values: Vec<f64> = (0..D).map(|_| 2.0 * unit(rng) - 1.0).collect();
    VolumePreservingLayer::from_slices(&weight, bias.then_some(values.as_slice())).unwrap()
}

#[test]
fn feed_forward_backward_runs_in_lanes() {
    let mut rng = SmallRng::seed_from_u64(2);
    for bias in [true, false] {
        let lower = vp_layer::<Lower, Tanh, 4>(&mut rng, bias);
        assert_lanes_match_scalar::<_, 4, 3>(&lower, &mut rng, 2.0);
        let upper = vp_layer::<Upper, Identity, 3>(&mut rng, bias);
        assert_lanes_match_scalar::<_, 3, 5>(&upper, &mut rng, 2.0);
        let lower = vp_layer::<Lower, Identity, 3>(&mut rng, bias);
        assert_lanes_match_scalar::<_, 3, 2>(&lower, &mut rng, 2.0);
        let upper = vp_layer::<Upper, Tanh, 2>(&mut rng, bias);
        assert_lanes_match_scalar::<_, 2, 3>(&upper, &mut rng, 2.0);
    }
    let network = random::<VolumePreservingFeedForward<f64, 3, 2, 2, Tanh>>(&mut rng);
    assert_lanes_match_scalar::<_, 3, 3>(&network, &mut rng, 2.0);
    let linear = random::<VolumePreservingFeedForward<f64, 4, 1, 1, Identity>>(&mut rng);
    assert_lanes_match_scalar::<_, 4, 2>(&linear, &mut rng, 2.0);
    let resnet = random::<ResNetLayer<f64, 3, Tanh>>(&mut rng);
    assert_lanes_match_scalar::<_, 3, 4>(&resnet, &mut rng, 2.0);
    let resnet = random::<ResNetLayer<f64, 4, Identity>>(&mut rng);
    assert_lanes_match_scalar::<_, 4, 3>(&resnet, &mut rng, 2.0);
}

#[test]
fn volume_preserving_transformer_backward_runs_in_lanes() {
    let mut rng = SmallRng::seed_from_u64(3);
    type Arbitrary = VolumePreservingTransformer<f64, 3, 3, 2, 1, 2, Tanh>;
    type Skew = VolumePreservingTransformer<f64, 4, 5, 1, 2, 3, Tanh, SkewWeight<f64, 4>>;
    assert_lanes_match_scalar::<_, 3, 3>(&random::<Arbitrary>(&mut rng), &mut rng, 1.0);
    assert_lanes_match_scalar::<_, 4, 5>(&random::<Skew>(&mut rng), &mut rng, 1.0);
}

/// Multi-head attention (one and two heads, with and without the connection), the standard
/// transformer integrator, the linear symplectic transformer and the symplectic transformer with
/// dense and symmetric weights (both kicks) and both softmaxes.
#[test]
fn standard_and_symplectic_backward_run_in_lanes() {
    let mut rng = SmallRng::seed_from_u64(5);
    type Integrator<Att> = StandardTransformerIntegrator<f64, 4, Att, 1, 2, Tanh>;
    type Sympt<Sm, Weight> = SymplecticTransformer<f64, 2, 4, 1, 1, Tanh, Sm, Weight>;
    for scale in [1.0, 3.0] {
        let one_head = random::<MultiHeadAttention<f64, 4, 1, 4, NoConnection>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 3>(&one_head, &mut rng, scale);
        let two_heads = random::<MultiHeadAttention<f64, 4, 2, 2, AddConnection>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 5>(&two_heads, &mut rng, scale);
        let integrator =
            random::<Integrator<MultiHeadAttention<f64, 4, 2, 2, AddConnection>>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 3>(&integrator, &mut rng, scale);
        let linear = random::<LinearSymplecticTransformer<f64, 2, 3, 4, 2, 1, Tanh>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 3>(&linear, &mut rng, scale);
        let dense = random::<Sympt<MatrixSoftmax, DenseA<f64, 2>>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 3>(&dense, &mut rng, scale);
        let gml = random::<Sympt<VectorSoftmax, SymmetricA<f64, 2, GmlCompatible>>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 2>(&gml, &mut rng, scale);
        let exact = random::<Sympt<VectorSoftmax, SymmetricA<f64, 2, GradientExact>>>(&mut rng);
        assert_lanes_match_scalar::<_, 4, 3>(&exact, &mut rng, scale);
    }
}

/// How far the backward pass with the vectorised functions may be from the scalar one, relative
/// to the largest entry of the scalar result (cotangents and gradient alike): `tanh` and `exp`
/// within 3.5 ulp and the fused products, propagated through a network of a few layers and, for
/// the gradient, summed over the batch. Measured at most `2.2e-14` for the cotangents and
/// `2.2e-13` for the gradient (the arbitrary-weight transformer of three units).
const VECTOR_FUNCTIONS_TOLERANCE: f64 = 1e-12;

/// The backward pass with [`geomattn::VectorFunctions`] (what `geomattn train` runs) against the
/// scalar one, on every instruction set: within [`VECTOR_FUNCTIONS_TOLERANCE`], and not bit for
/// bit (the vectorised functions are in use) where the layer computes `tanh` or `exp`.
fn assert_vector_functions_close<L, const D: usize, const T: usize>(
    layer: &L,
    rng: &mut SmallRng,
    scale: f32,
) where
    L: LaneBackward<f64, D, T> + Clone,
    L::Gradient: MapScalar<Scalar = f64> + Clone,
{
    let name = core::any::type_name::<L>();
    let count = 67;
    let input: Vec<f64> = batch(rng, count, D * T, scale);
    let out_bar: Vec<f64> = batch(rng, count, D * T, 1.0);
    let (z_bar, gradient) = scalar_backward(layer, &input, &out_bar, layer.zero_gradient());
    let expected = [z_bar, flat(&gradient)];
    for isa in Isa::ALL {
        let Some(fast) = Lanewise::on(isa, layer.clone()) else {
            continue;
        };
        let (mut z_bar, mut gradient) = (vec![f64::NAN; input.len()], layer.zero_gradient());
        fast.vector_functions()
            .backward_flat(&input, &out_bar, &mut z_bar, &mut gradient)
            .unwrap();
        let found = [z_bar, flat(&gradient)];
        for (what, (found, expected)) in ["∂L/∂Z", "gradient"]
            .iter()
            .zip(found.iter().zip(&expected))
        {
            let largest = largest_magnitude(expected);
            let worst = worst_difference(found, expected);
            assert!(
                worst <= VECTOR_FUNCTIONS_TOLERANCE * largest,
                "{what} of {name}, {isa:?}: off by {worst:e} of {largest:e}"
            );
        }
        assert_ne!(found, expected, "{name}, {isa:?}: the scalar functions ran");
    }
}

/// The layers `geomattn train` trains (the volume-preserving transformer, both weightings) and
/// those whose backward pass computes `exp` (multi-head attention, symplectic attention).
#[test]
fn backward_with_vector_functions_is_within_their_error() {
    let mut rng = SmallRng::seed_from_u64(6);
    type Arbitrary = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
    type Skew = VolumePreservingTransformer<f64, 4, 4, 1, 1, 2, Tanh, SkewWeight<f64, 4>>;
    type Sympt = SymplecticTransformer<f64, 2, 4, 1, 1, Tanh, MatrixSoftmax, DenseA<f64, 2>>;
    for scale in [1.0, 3.0] {
        assert_vector_functions_close::<_, 3, 3>(&random::<Arbitrary>(&mut rng), &mut rng, scale);
        assert_vector_functions_close::<_, 4, 4>(&random::<Skew>(&mut rng), &mut rng, scale);
        let heads = random::<MultiHeadAttention<f64, 4, 2, 2, AddConnection>>(&mut rng);
        assert_vector_functions_close::<_, 4, 3>(&heads, &mut rng, scale);
        assert_vector_functions_close::<_, 4, 3>(&random::<Sympt>(&mut rng), &mut rng, scale);
    }
}

/// Buffers of different lengths, or not a whole number of sequences: an error, and nothing
/// written (neither the cotangents nor the gradient).
#[test]
fn backward_flat_refuses_mismatched_buffers() {
    let mut rng = SmallRng::seed_from_u64(4);
    let layer = random::<SkewVpa<f64, 3, 3>>(&mut rng);
    let fast = Lanewise::new(layer);
    let nine: Vec<f64> = batch(&mut rng, 2, 9, 1.0);
    let start = {
        let mut g = layer.zero_gradient();
        layer.backward(&random_matrix(&mut rng), &random_matrix(&mut rng), &mut g);
        g
    };
    let cases: [(usize, usize, usize); 4] = [(18, 9, 18), (18, 18, 9), (17, 17, 17), (9, 18, 18)];
    for (input, out_bar, z_bar) in cases {
        let mut written = vec![7.0; z_bar];
        let mut gradient = start;
        let result = fast.backward_flat::<f64, 3, 3>(
            &nine[..input],
            &nine[..out_bar],
            &mut written,
            &mut gradient,
        );
        assert!(
            matches!(result, Err(Error::BatchShape { .. })),
            "{input}, {out_bar}, {z_bar}: {result:?}"
        );
        assert!(written.iter().all(|&x| x == 7.0));
        assert_eq!(flat(&gradient), flat(&start));
    }
}
