//! The phase-space layers and GML's symplectic transformers against dual numbers: the SympNet
//! gradient layers and their stacks, linear symplectic attention (exactly in rationals where the
//! layer is rational), symplectic attention with every weight, kick and softmax (f64 only: the
//! softmax is not rational), and the two transformers; then `Jᵀ𝕁J = 𝕁` after Adam steps.

use geomattn::nalgebra::SMatrix;
use geomattn::train::{AdamOptimizer, Optimizer, train_step};
use geomattn::{
    DenseA, Field, GmlCompatible, GradientExact, GradientLayer, Identity,
    LinearSymplecticAttention, LinearSymplecticTransformer, MatrixSoftmax, OneMatrixSoftmax,
    OneVectorSoftmax, PhaseSide, Schema, SequenceLayer, SymmetricA, SympNetStack,
    SymplecticAttention, SymplecticTransformer, Tanh, UpdateP, UpdateQ, VectorSoftmax, from_flat,
    to_flat,
};
use geomattn_testkit::exact_dual::ExactDual;
use geomattn_testkit::symplectic::symplecticity_error;
use geomattn_testkit::{Q, jacobian, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::{
    Comparison, assert_exact, centred_params, compare, network_case, rationals, show, worst_of,
};

/// Phase space R⁴ (n = 2), three hidden units per gradient layer, windows of 4.
const N: usize = 2;
const D: usize = 2 * N;
const HIDDEN: usize = 3;
const T: usize = 4;
/// The parameters of one gradient layer: `weight` (`HIDDEN×N`), `bias`, `scale`.
const LAYER: usize = HIDDEN * N + 2 * HIDDEN;

// ---- the SympNet gradient layers ---------------------------------------------------------------

/// A gradient layer from GML's parameter list: `weight` column-major, `bias`, `scale`.
fn gradient_layer<S: Field, Side: PhaseSide, Act>(
    params: &[S],
) -> GradientLayer<S, N, HIDDEN, Side, Act> {
    let (weight, rest) = params.split_at(HIDDEN * N);
    let (bias, scale) = rest.split_at(HIDDEN);
    GradientLayer::from_slices(weight, bias, scale).unwrap()
}

/// [`gradient_layer`]'s list of a layer (or of its gradient).
fn gradient_layer_params<S: Field, Side: PhaseSide, Act>(
    layer: &GradientLayer<S, N, HIDDEN, Side, Act>,
) -> Vec<S> {
    [
        layer.weight().as_slice(),
        layer.bias().as_slice(),
        layer.scale().as_slice(),
    ]
    .concat()
}

/// Three gradient layers alternating from `First`, from their lists one after the other.
fn stack<S: Field, Act, First: PhaseSide>(
    params: &[S],
) -> SympNetStack<S, N, HIDDEN, 3, Act, First> {
    SympNetStack::new(core::array::from_fn(|i| {
        gradient_layer(&params[i * LAYER..(i + 1) * LAYER])
    }))
}

fn stack_params<S: Field, Act, First: PhaseSide>(
    stack: &SympNetStack<S, N, HIDDEN, 3, Act, First>,
) -> Vec<S> {
    stack
        .layers()
        .iter()
        .flat_map(gradient_layer_params)
        .collect()
}

/// Both sides of a gradient layer and both orders of a stack, with the identity activation.
fn sympnet_cases_in_rationals(
    params: &[Q],
    z: &SMatrix<Q, D, T>,
    out_bar: &SMatrix<Q, D, T>,
) -> [Comparison<Q>; 4] {
    let layer = &params[..LAYER];
    [
        compare(
            &gradient_layer::<Q, UpdateQ, Identity>(layer),
            layer,
            gradient_layer::<ExactDual, UpdateQ, Identity>,
            gradient_layer_params,
            z,
            out_bar,
        ),
        compare(
            &gradient_layer::<Q, UpdateP, Identity>(layer),
            layer,
            gradient_layer::<ExactDual, UpdateP, Identity>,
            gradient_layer_params,
            z,
            out_bar,
        ),
        compare(
            &stack::<Q, Identity, UpdateQ>(params),
            params,
            stack::<ExactDual, Identity, UpdateQ>,
            stack_params,
            z,
            out_bar,
        ),
        compare(
            &stack::<Q, Identity, UpdateP>(params),
            params,
            stack::<ExactDual, Identity, UpdateP>,
            stack_params,
            z,
            out_bar,
        ),
    ]
}

#[test]
fn sympnet_gradients_are_exact_in_rationals() {
    let params: SMatrix<Q, { 3 * LAYER }, 1> = rationals(2);
    for case in sympnet_cases_in_rationals(params.as_slice(), &rationals(0), &rationals(5)) {
        assert_exact(case);
    }
}

/// GML's tanh layers and stacks, every parameter read in GML's order.
#[test]
fn sympnet_gradients_match_dual_numbers_with_tanh() {
    type Layer<S, Side> = GradientLayer<S, N, HIDDEN, Side, Tanh>;
    type Stack<S, First> = SympNetStack<S, N, HIDDEN, 3, Tanh, First>;
    let mut rng = SmallRng::seed_from_u64(91);
    for amplitude in [1.0, 10.0] {
        let z = random_matrix::<D, T>(&mut rng) * amplitude;
        let out_bar = random_matrix::<D, T>(&mut rng);
        let errors = [
            worst_of(network_case::<
                Layer<f64, UpdateQ>,
                Layer<Dual64, UpdateQ>,
                D,
                T,
            >(
                &centred_params::<Layer<f64, UpdateQ>>(&mut rng),
                &z,
                &out_bar,
            )),
            worst_of(network_case::<
                Layer<f64, UpdateP>,
                Layer<Dual64, UpdateP>,
                D,
                T,
            >(
                &centred_params::<Layer<f64, UpdateP>>(&mut rng),
                &z,
                &out_bar,
            )),
            worst_of(network_case::<
                Stack<f64, UpdateQ>,
                Stack<Dual64, UpdateQ>,
                D,
                T,
            >(
                &centred_params::<Stack<f64, UpdateQ>>(&mut rng),
                &z,
                &out_bar,
            )),
            worst_of(network_case::<
                Stack<f64, UpdateP>,
                Stack<Dual64, UpdateP>,
                D,
                T,
            >(
                &centred_params::<Stack<f64, UpdateP>>(&mut rng),
                &z,
                &out_bar,
            )),
        ];
        assert!(
            errors.iter().all(|e| *e < 1e-12),
            "{amplitude}: {}",
            show(&errors)
        );
    }
}

// ---- linear symplectic attention ---------------------------------------------------------------

/// The layer from its packed `A` (`T(T+1)/2` entries).
fn linear<S: Field, Side: PhaseSide>(params: &[S]) -> LinearSymplecticAttention<S, N, T, Side> {
    LinearSymplecticAttention::from_packed(params).unwrap()
}

fn linear_params<S: Field, Side: PhaseSide>(
    layer: &LinearSymplecticAttention<S, N, T, Side>,
) -> Vec<S> {
    let mut packed = vec![S::zero(); T * (T + 1) / 2];
    layer.a().write_packed(&mut packed).unwrap();
    packed
}

#[test]
fn linear_symplectic_attention_gradients_are_exact_in_rationals() {
    let params: SMatrix<Q, { T * (T + 1) / 2 }, 1> = rationals(4);
    let (z, out_bar) = (rationals::<D, T>(1), rationals::<D, T>(6));
    assert_exact(compare(
        &linear::<Q, UpdateQ>(params.as_slice()),
        params.as_slice(),
        linear::<ExactDual, UpdateQ>,
        linear_params,
        &z,
        &out_bar,
    ));
    assert_exact(compare(
        &linear::<Q, UpdateP>(params.as_slice()),
        params.as_slice(),
        linear::<ExactDual, UpdateP>,
        linear_params,
        &z,
        &out_bar,
    ));
}

/// `L = 2` units of `[attention Q, 2 tanh gradient layers, attention P, 2 gradient layers]`.
type Linear<S> = LinearSymplecticTransformer<S, N, T, HIDDEN, 2, 2, Tanh>;

#[test]
fn linear_symplectic_transformer_gradients_match_dual_numbers() {
    let mut rng = SmallRng::seed_from_u64(101);
    for amplitude in [1.0, 3.0] {
        let case = network_case::<Linear<f64>, Linear<Dual64>, D, T>(
            &centred_params::<Linear<f64>>(&mut rng),
            &(random_matrix(&mut rng) * amplitude),
            &random_matrix(&mut rng),
        );
        assert!(
            case.weight.0.iter().all(|g| *g != 0.0),
            "every parameter has a gradient"
        );
        let error = worst_of(case);
        assert!(error < 1e-12, "amplitude {amplitude}: {error:e}");
    }
}

// ---- symplectic attention ----------------------------------------------------------------------

type Attention<S, Side, Sm, W> = SymplecticAttention<S, N, Side, Sm, W>;
type Dense<S> = DenseA<S, N>;
type Exact<S> = SymmetricA<S, N, GradientExact>;
type Gml<S> = SymmetricA<S, N, GmlCompatible>;

/// The worst relative error of `L` (parameters from U(−½, ½)) over eight random draws.
fn layer_f64<L, Ld>(seed: u64, amplitude: f64) -> f64
where
    L: Schema<Scalar = f64> + geomattn::Backward<f64, D, T, Gradient = L>,
    Ld: Schema<Scalar = Dual64> + SequenceLayer<Dual64, D, T>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..8)
        .map(|_| {
            let params = centred_params::<L>(&mut rng);
            let z = random_matrix::<D, T>(&mut rng) * amplitude;
            let out_bar = random_matrix::<D, T>(&mut rng);
            worst_of(network_case::<L, Ld, D, T>(&params, &z, &out_bar))
        })
        .fold(0.0, f64::max)
}

/// [`layer_f64`] of symplectic attention for each `side softmax weight`, in order.
macro_rules! attention_errors {
    ($seed:expr, $amplitude:expr; $($side:ident $sm:ident $w:ident),* $(,)?) => {
        [$(layer_f64::<Attention<f64, $side, $sm, $w<f64>>, Attention<Dual64, $side, $sm, $w<Dual64>>>(
            $seed,
            $amplitude,
        )),*]
    };
}

/// Every weight and kick with both of GML's softmaxes, on both sides.
fn every_attention(seed: u64, amplitude: f64) -> [f64; 12] {
    attention_errors!(seed, amplitude;
        UpdateQ MatrixSoftmax Dense, UpdateQ MatrixSoftmax Exact, UpdateQ MatrixSoftmax Gml,
        UpdateQ VectorSoftmax Dense, UpdateQ VectorSoftmax Exact, UpdateQ VectorSoftmax Gml,
        UpdateP MatrixSoftmax Dense, UpdateP MatrixSoftmax Exact, UpdateP MatrixSoftmax Gml,
        UpdateP VectorSoftmax Dense, UpdateP VectorSoftmax Exact, UpdateP VectorSoftmax Gml,
    )
}

#[test]
fn symplectic_attention_gradients_match_dual_numbers() {
    let errors = every_attention(111, 1.0);
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
    // The "one" softmaxes share the pullback's formula with another normalisation.
    let errors = attention_errors!(112, 1.0;
        UpdateQ OneMatrixSoftmax Dense, UpdateP OneVectorSoftmax Exact,
    );
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
}

/// Large amplitudes: the scores `C = xᵀ A x` grow like `|z|²` and the softmax saturates; the
/// error grows about as fast as `C` (measured worst of the twelve variants: 7e-16 at 1, 2e-15 at
/// 3, 2e-14 at 10, 1e-13 at 30, 9e-13 at 100, where the saturated softmax's derivatives vanish
/// for some variants). Each amplitude is held to its measured edge (about 3×
/// the worst seen).
#[test]
fn symplectic_attention_amplitude_sweep_states_the_edge() {
    for (amplitude, edge) in [
        (1.0, 3e-15),
        (3.0, 5e-15),
        (10.0, 7e-14),
        (30.0, 4e-13),
        (100.0, 3e-12),
    ] {
        let errors = every_attention(121, amplitude);
        println!("amplitude {amplitude}: {}", show(&errors));
        assert!(
            errors.iter().all(|e| *e < edge),
            "{amplitude}: {}",
            show(&errors)
        );
    }
}

/// The check tells the two symmetric kicks apart where they differ: the gradient-exact kick's
/// backward pass is not that of GML's kick with `VectorSoftmax`, but is with `MatrixSoftmax`
/// (whose `S` is symmetric, so both kicks are the same map).
#[test]
fn the_dual_number_check_tells_the_symmetric_kicks_apart() {
    let mut rng = SmallRng::seed_from_u64(125);
    let params = centred_params::<Attention<f64, UpdateQ, VectorSoftmax, Exact<f64>>>(&mut rng);
    let z = random_matrix::<D, T>(&mut rng) * 2.0;
    let out_bar = random_matrix::<D, T>(&mut rng);
    let vector = worst_of(network_case::<
        Attention<f64, UpdateQ, VectorSoftmax, Exact<f64>>,
        Attention<Dual64, UpdateQ, VectorSoftmax, Gml<Dual64>>,
        D,
        T,
    >(&params, &z, &out_bar));
    let matrix = worst_of(network_case::<
        Attention<f64, UpdateQ, MatrixSoftmax, Exact<f64>>,
        Attention<Dual64, UpdateQ, MatrixSoftmax, Gml<Dual64>>,
        D,
        T,
    >(&params, &z, &out_bar));
    assert!(vector > 1e-3, "VectorSoftmax: {vector:e}");
    assert!(matrix < 1e-12, "MatrixSoftmax: {matrix:e}");
}

/// GML's shape: `L = 2` units, 2 tanh gradient layers per half.
type Transformer<S, Sm, W> = SymplecticTransformer<S, N, HIDDEN, 2, 2, Tanh, Sm, W>;

#[test]
fn symplectic_transformer_gradients_match_dual_numbers() {
    let errors = [
        layer_f64::<
            Transformer<f64, MatrixSoftmax, Dense<f64>>,
            Transformer<Dual64, MatrixSoftmax, Dense<Dual64>>,
        >(131, 1.0),
        layer_f64::<
            Transformer<f64, VectorSoftmax, Dense<f64>>,
            Transformer<Dual64, VectorSoftmax, Dense<Dual64>>,
        >(132, 1.0),
        layer_f64::<
            Transformer<f64, MatrixSoftmax, Gml<f64>>,
            Transformer<Dual64, MatrixSoftmax, Gml<Dual64>>,
        >(133, 1.0),
        layer_f64::<
            Transformer<f64, VectorSoftmax, Exact<f64>>,
            Transformer<Dual64, VectorSoftmax, Exact<Dual64>>,
        >(134, 1.0),
        layer_f64::<
            Transformer<f64, VectorSoftmax, Gml<f64>>,
            Transformer<Dual64, VectorSoftmax, Gml<Dual64>>,
        >(135, 1.0),
    ];
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
}

// ---- structure after optimiser steps -----------------------------------------------------------

/// `count` windows of random phase points (scaled by `amplitude`) and, as targets, each point
/// turned by the angle ½ in every `(q_k, p_k)` plane (the harmonic oscillator's flow).
fn oscillator_windows(
    rng: &mut SmallRng,
    count: usize,
) -> (Vec<SMatrix<f64, D, T>>, Vec<SMatrix<f64, D, T>>) {
    let (sin, cos) = 0.5_f64.sin_cos();
    let inputs: Vec<SMatrix<f64, D, T>> = (0..count).map(|_| random_matrix(rng)).collect();
    let targets = inputs
        .iter()
        .map(|z| {
            SMatrix::from_fn(|i, j| {
                let (q, p) = (z[(i % N, j)], z[(N + i % N, j)]);
                if i < N {
                    cos * q + sin * p
                } else {
                    cos * p - sin * q
                }
            })
        })
        .collect();
    (inputs, targets)
}

/// Trains `Net` (parameters from U(−½, ½)) for 40 Adam steps on [`oscillator_windows`]; returns
/// the first and last loss and the worst `‖Jᵀ𝕁J − 𝕁‖_max` over the steps, each at a probe input.
fn train_keeping_structure<Net, NetD, const P: usize>(seed: u64) -> (f64, f64, f64)
where
    Net: Schema<Scalar = f64> + geomattn::Backward<f64, D, T, Gradient = Net>,
    NetD: Schema<Scalar = Dual64> + SequenceLayer<Dual64, D, T>,
{
    assert_eq!(P, Net::SCALARS);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut net: Net = from_flat(&centred_params::<Net>(&mut rng)).unwrap();
    let mut adam = AdamOptimizer::<f64, P>::new(1e-2, 0.9, 0.99, 3e-7);
    let (inputs, targets) = oscillator_windows(&mut rng, 16);
    let probe = random_matrix::<D, T>(&mut rng);
    let mut losses = Vec::new();
    let mut worst = 0.0_f64;
    while adam.steps() < 40 {
        losses.push(train_step(&mut net, &mut adam, &inputs, &targets).unwrap());
        let mut flat = [0.0; P];
        to_flat(&net, &mut flat).unwrap();
        let dual: NetD = from_flat(&flat.map(Dual64::from)).unwrap();
        worst = worst.max(symplecticity_error(
            &jacobian(|z| dual.forward(z), &probe),
            N,
            T,
        ));
    }
    (losses[0], *losses.last().unwrap(), worst)
}

#[test]
fn adam_steps_keep_the_transformers_symplectic() {
    type Dense = Transformer<f64, MatrixSoftmax, DenseA<f64, N>>;
    type Exact = Transformer<f64, VectorSoftmax, SymmetricA<f64, N, GradientExact>>;
    let runs = [
        (
            "linear",
            train_keeping_structure::<
                Linear<f64>,
                Linear<Dual64>,
                { <Linear<f64> as Schema>::SCALARS },
            >(141),
        ),
        (
            "dense, MatrixSoftmax",
            train_keeping_structure::<
                Dense,
                Transformer<Dual64, MatrixSoftmax, DenseA<Dual64, N>>,
                { <Dense as Schema>::SCALARS },
            >(142),
        ),
        (
            "symmetric exact, VectorSoftmax",
            train_keeping_structure::<
                Exact,
                Transformer<Dual64, VectorSoftmax, SymmetricA<Dual64, N, GradientExact>>,
                { <Exact as Schema>::SCALARS },
            >(143),
        ),
    ];
    for (name, (first, last, worst)) in runs {
        println!("{name}: loss {first:.4e} → {last:.4e}, ‖Jᵀ𝕁J − 𝕁‖ ≤ {worst:.1e}");
        assert!(last < 0.5 * first, "{name}: loss {first:e} → {last:e}");
        assert!(worst < 1e-12, "{name}: ‖Jᵀ𝕁J − 𝕁‖ = {worst:e}");
    }
}
