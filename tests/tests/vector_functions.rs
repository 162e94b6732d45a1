//! The lane path with the polynomial `exp` and `tanh` ([`geomattn::VectorFunctions`]) against the
//! scalar path, through every layer that calls them: the functions' own error (at most 1.25 ulp
//! for `exp`, 3.5 for `tanh`, tested in the runtime's unit tests) propagated through softmaxes,
//! products and residual connections stays within [`BOUND`] `· ε · max(|y|, 1)` of the scalar
//! output, on every instruction set of the machine, in f32 and f64, for every batch length
//! around the lane widths and inputs from tiny to saturating. GML's trained networks, which
//! amplify any rounding, are held to their own f32 rounding instead.

use geomattn::{
    AddConnection, ArbitraryVpa, DenseA, GradientLayer, GramSchmidt, Isa, LaneTwin, MatrixSoftmax,
    MultiHeadAttention, NoConnection, OneVectorSoftmax, PhaseSide, ResNetLayer, SequenceLayer,
    SkewVpa, SymmetricA, SympNetStack, SymplecticAttention, Tanh, UpdateP, UpdateQ, VectorSoftmax,
};
use geomattn_testkit::lanes::{COUNTS, batch, vector_functions_error};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The largest difference allowed, in units of `ε · max(|y|, 1)`.
const BOUND: f64 = 64.0;

/// The largest difference of `layer` over every batch length, inputs in `[-scale, scale]`,
/// printed and checked against [`BOUND`].
fn worst<L, const D: usize, const T: usize>(layer: &L, rng: &mut SmallRng, scale: f32) -> f64
where
    L: LaneTwin<D, T> + SequenceLayer<L::Scalar, D, T> + Clone,
    L::Scalar: geomattn::BatchScalar + Into<f64> + From<f32>,
{
    let error = COUNTS
        .iter()
        .map(|&count| {
            let input = batch::<L::Scalar>(rng, count, D * T, scale);
            vector_functions_error::<L, D, T>(layer, &input)
        })
        .fold(0.0, f64::max);
    let name = core::any::type_name::<L>();
    println!("{error:6.2} ε  scale {scale:<6} {name}");
    assert!(error <= BOUND, "{name}: {error} ε at scale {scale}");
    error
}

/// [`worst`] in f64 and, with the weights rounded, in f32; the larger of the two.
fn in_both_precisions<L, const D: usize, const T: usize>(
    layer: &L,
    rng: &mut SmallRng,
    scale: f32,
) -> f64
where
    L: LaneTwin<D, T, Scalar = f64> + SequenceLayer<f64, D, T> + Clone,
    L::Over<f32>: LaneTwin<D, T, Scalar = f32> + SequenceLayer<f32, D, T> + Clone,
{
    let double = worst::<L, D, T>(layer, rng, scale);
    let single = worst::<L::Over<f32>, D, T>(&layer.map_scalar(|w| w as f32), rng, scale);
    double.max(single)
}

/// [`in_both_precisions`] for inputs up to order one. Larger inputs make the scores of attention
/// (quadratic in them) large, and the scalar path's own error grows with them (its f32 output is
/// hundreds of ε from its f64 output at scale 30): there the layer is held to its own rounding,
/// as [`no_less_accurate`] does, with the weights rounded to f32. Returns the largest difference.
fn compared<L, const D: usize, const T: usize>(layer: &L, rng: &mut SmallRng, scale: f32) -> f64
where
    L: LaneTwin<D, T, Scalar = f64> + SequenceLayer<f64, D, T> + Clone,
    L::Over<f32>: LaneTwin<D, T, Scalar = f32> + SequenceLayer<f32, D, T> + Clone,
{
    if scale <= 1.0 {
        in_both_precisions::<L, D, T>(layer, rng, scale)
    } else {
        no_less_accurate::<_, L, D, T>(&layer.map_scalar(|w| w as f32), layer, rng, scale)
    }
}

/// A gradient layer with every weight random.
fn gradient<Side: PhaseSide, const N: usize, const HIDDEN: usize>(
    rng: &mut SmallRng,
) -> GradientLayer<f64, N, HIDDEN, Side, Tanh> {
    GradientLayer::new(random_matrix(rng), random_matrix(rng), random_matrix(rng))
}

#[test]
fn attention_with_vector_functions_stays_close_to_the_scalar_path() {
    let mut rng = SmallRng::seed_from_u64(201);
    let mut largest = 0.0_f64;
    for scale in [1e-3, 1.0, 30.0] {
        let mha = MultiHeadAttention::<f64, 4, 2, 2, AddConnection>::glorot(&mut rng);
        largest = largest.max(compared::<_, 4, 5>(&mha, &mut rng, scale));
        let one_head = MultiHeadAttention::<f64, 3, 1, 3, NoConnection>::glorot(&mut rng)
            .with_softmax::<MatrixSoftmax>();
        largest = largest.max(compared::<_, 3, 3>(&one_head, &mut rng, scale));
        let q =
            SymplecticAttention::<f64, 2, UpdateQ, MatrixSoftmax, DenseA<f64, 2>>::glorot(&mut rng);
        largest = largest.max(compared::<_, 4, 4>(&q, &mut rng, scale));
        let p = SymplecticAttention::<f64, 2, UpdateP, VectorSoftmax, SymmetricA<f64, 2>>::glorot(
            &mut rng,
        );
        largest = largest.max(compared::<_, 4, 3>(&p, &mut rng, scale));
        let additive = geomattn::SoftmaxAttention::new(
            geomattn::Additive::<f64, 3, 5, Tanh>::glorot(&mut rng),
        )
        .with_softmax::<OneVectorSoftmax>();
        largest = largest.max(compared::<_, 3, 4>(&additive, &mut rng, scale));
    }
    // The polynomial functions are in use: the paths differ somewhere.
    assert!(
        largest > 0.0,
        "the vector functions gave the scalar bits everywhere"
    );
}

#[test]
fn feed_forward_with_vector_functions_stays_close_to_the_scalar_path() {
    let mut rng = SmallRng::seed_from_u64(202);
    let mut largest = 0.0_f64;
    for scale in [1e-2, 1.0, 50.0] {
        let resnet = ResNetLayer::<f64, 3, Tanh>::new(
            random_matrix(&mut rng),
            Some(random_matrix(&mut rng)),
        );
        largest = largest.max(in_both_precisions::<_, 3, 4>(&resnet, &mut rng, scale));
        let layers = core::array::from_fn(|_| gradient::<UpdateQ, 2, 4>(&mut rng));
        let stack = SympNetStack::<_, 2, 4, 3, Tanh, UpdateP>::new(layers);
        largest = largest.max(in_both_precisions::<_, 4, 3>(&stack, &mut rng, scale));
    }
    assert!(
        largest > 0.0,
        "the vector functions gave the scalar bits everywhere"
    );
}

/// Volume-preserving attention calls neither `exp` nor `tanh`: with the vector functions it differs
/// from the scalar path only by the fused multiply-adds of its products (on AVX2 and AVX-512).
#[test]
fn volume_preserving_attention_with_fused_products_stays_close_to_the_scalar_path() {
    let mut rng = SmallRng::seed_from_u64(203);
    let mut largest = 0.0_f64;
    for scale in [1e-3, 1.0, 30.0] {
        let skew = SkewVpa::<f64, 3, 3>::glorot(&mut rng);
        largest = largest.max(compared::<_, 3, 3>(&skew, &mut rng, scale));
        let skew = SkewVpa::<f64, 4, 4>::glorot(&mut rng);
        largest = largest.max(compared::<_, 4, 4>(&skew, &mut rng, scale));
        // From T = 5 with the Gram–Schmidt map named: the default f32 kernel computes in f64
        // from ‖C‖_F = 16 (scale 30), so its rounding would no longer measure what the f64
        // kernel, Gram–Schmidt, amplifies; f32 Gram–Schmidt's does.
        let skew = SkewVpa::<f64, 5, 5, GramSchmidt>::glorot(&mut rng);
        largest = largest.max(compared::<_, 5, 5>(&skew, &mut rng, scale));
        let skew = SkewVpa::<f64, 8, 8, GramSchmidt>::glorot(&mut rng);
        largest = largest.max(compared::<_, 8, 8>(&skew, &mut rng, scale));
    }
    // (I + C)⁻¹ of an arbitrary C is as ill-conditioned as the inputs make it.
    for scale in [1e-3, 1.0, 30.0] {
        let arbitrary = ArbitraryVpa::<f64, 4, 5, GramSchmidt>::glorot(&mut rng);
        largest = largest.max(compared::<_, 4, 5>(&arbitrary, &mut rng, scale));
    }
    // The products are fused where the instruction set has a fused multiply-add.
    if Isa::best() != Isa::Portable {
        assert!(
            largest > 0.0,
            "the products gave the scalar bits everywhere"
        );
    }
}

/// `|got − exact|` at its largest, in units of `ε · max(|exact|, 1)`.
fn largest_difference<S: Into<f64> + Copy>(got: &[S], exact: &[f64], epsilon: f64) -> f64 {
    got.iter()
        .zip(exact)
        .map(|(&g, &e)| (g.into() - e).abs() / (epsilon * e.abs().max(1.0)))
        .fold(0.0, f64::max)
}

/// A trained network amplifies rounding: its own f32 output is hundreds of ε from its f64
/// output. So it is held to that: with the vector functions, its f32 output is at most four times
/// as far from the f64 scalar output as the f32 scalar output is, and its f64 output at most four
/// times as far from the f64 scalar output (in ε of f64) as the f32 scalar output is (in ε of
/// f32): the vector functions' error is of the order of the rounding the network amplifies.
/// Returns the larger of the two differences.
fn no_less_accurate<Single, Double, const D: usize, const T: usize>(
    single: &Single,
    double: &Double,
    rng: &mut SmallRng,
    scale: f32,
) -> f64
where
    Single: LaneTwin<D, T, Scalar = f32> + SequenceLayer<f32, D, T> + Clone,
    Double: LaneTwin<D, T, Scalar = f64> + SequenceLayer<f64, D, T> + Clone,
{
    let input = batch::<f32>(rng, 500, D * T, scale);
    let wide: Vec<f64> = input.iter().map(|&x| f64::from(x)).collect();
    let mut exact = vec![0.0; wide.len()];
    double.forward_flat(&wide, &mut exact).unwrap();
    let mut scalar = vec![0.0_f32; input.len()];
    single.forward_flat(&input, &mut scalar).unwrap();
    let rounding = largest_difference(&scalar, &exact, f64::from(f32::EPSILON));
    let mut lanes = vec![0.0_f32; input.len()];
    geomattn::Lanewise::new(single.clone())
        .vector_functions()
        .forward_flat(&input, &mut lanes)
        .unwrap();
    let single_error = largest_difference(&lanes, &exact, f64::from(f32::EPSILON));
    let double_error = vector_functions_error::<Double, D, T>(double, &wide);
    let name = core::any::type_name::<Double>();
    println!(
        "scale {scale}: f32 scalar {rounding:.1} ε, f32 vector {single_error:.1} ε, \
         f64 vector {double_error:.1} ε  {name}"
    );
    let bound = 4.0 * rounding.max(4.0);
    assert!(single_error <= bound, "{name}: f32 {single_error} ε");
    assert!(double_error <= bound, "{name}: f64 {double_error} ε");
    single_error.max(double_error)
}

/// GML's trained rigid-body networks, loaded in both precisions.
#[test]
fn the_trained_rigid_body_integrators_are_no_less_accurate() {
    type St<S> = geomattn::StandardTransformerIntegrator<
        S,
        3,
        MultiHeadAttention<S, 3, 1, 3, NoConnection>,
        2,
        3,
        Tanh,
    >;
    type Vpt<S> = geomattn::VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
    let mut rng = SmallRng::seed_from_u64(203);
    let st = geomattn_testkit::fixture("transformer_rigid_body_nn_st.h5");
    let vpt = geomattn_testkit::fixture("transformer_rigid_body_nn_vpt.h5");
    let (st32, st64): (St<f32>, St<f64>) = (
        geomattn::gml::load_file(&st).unwrap(),
        geomattn::gml::load_file(&st).unwrap(),
    );
    let (vpt32, vpt64): (Vpt<f32>, Vpt<f64>) = (
        geomattn::gml::load_file(&vpt).unwrap(),
        geomattn::gml::load_file(&vpt).unwrap(),
    );
    for scale in [1e-2, 1.0, 10.0] {
        no_less_accurate::<_, _, 3, 3>(&st32, &st64, &mut rng, scale);
        no_less_accurate::<_, _, 3, 3>(&vpt32, &vpt64, &mut rng, scale);
    }
}
