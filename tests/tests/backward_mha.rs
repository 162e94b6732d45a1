//! The backward passes of multi-head attention (Euclidean heads) and of GML's
//! `StandardTransformerIntegrator` against forward-mode dual numbers (`num-dual`, f64):
//! `∂L/∂Z` and `∂L/∂θ` for `L = ⟨Ō, layer(Z)⟩`, within 1e-12 relative (to the largest entry) at
//! unit amplitude, for several head counts, both `add_connection` settings and every softmax. The
//! softmax saturates as the amplitude grows; the sweep prints the errors and holds each amplitude
//! to its measured edge. A few Adam steps on a small integrator reduce the loss.

use geomattn::nalgebra::{Rotation3, SMatrix, Vector3};
use geomattn::{
    AdamOptimizer, AddConnection, Backward, Connection, Euclidean, MatrixSoftmax,
    MultiHeadAttention, NoConnection, OneMatrixSoftmax, OneVectorSoftmax, ResNetStack, Schema,
    SequenceLayer, SoftmaxBackward, StandardTransformerIntegrator, Tanh, VectorSoftmax, from_flat,
    glorot_network, to_flat, train_step, transformer_loss,
};
use geomattn_testkit::backward_check::{
    Comparison, centred_params, compare, network_case, relative_error, show, worst_of,
};
use geomattn_testkit::{random_matrix, unit};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

type Mha<S, const D: usize, const H: usize, const DH: usize, Conn, Sm = VectorSoftmax> =
    MultiHeadAttention<S, D, H, DH, Conn, Euclidean, Sm>;

/// The integrator with `H` heads of width `DH` on `R^D`, `NB` tanh ResNet layers per block and
/// `L` blocks.
type Integrator<
    S,
    const D: usize,
    const H: usize,
    const DH: usize,
    Conn,
    const NB: usize,
    const L: usize,
> = StandardTransformerIntegrator<S, D, Mha<S, D, H, DH, Conn>, NB, L, Tanh>;

/// Every parameter of `N`, in GML's order, drawn from U(−1, 1).
fn unit_params<N: Schema<Scalar = f64>>(rng: &mut SmallRng) -> Vec<f64> {
    (0..N::SCALARS).map(|_| 2.0 * unit(rng) - 1.0).collect()
}

/// The worst relative error of multi-head attention over eight random draws of weights (U(−1, 1)),
/// sequences (amplitude `amplitude`) and cotangents.
fn mha_f64<Conn, Sm, const D: usize, const H: usize, const DH: usize, const T: usize>(
    seed: u64,
    amplitude: f64,
) -> f64
where
    Conn: Connection,
    Sm: SoftmaxBackward,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..8)
        .map(|_| {
            let params = unit_params::<Mha<f64, D, H, DH, Conn, Sm>>(&mut rng);
            let z = random_matrix::<D, T>(&mut rng) * amplitude;
            let out_bar = random_matrix::<D, T>(&mut rng);
            worst_of(network_case::<
                Mha<f64, D, H, DH, Conn, Sm>,
                Mha<Dual64, D, H, DH, Conn, Sm>,
                D,
                T,
            >(&params, &z, &out_bar))
        })
        .fold(0.0, f64::max)
}

/// Both `add_connection` settings of one shape.
fn both_connections<const D: usize, const H: usize, const DH: usize, const T: usize>(
    seed: u64,
) -> [f64; 2] {
    [
        mha_f64::<NoConnection, VectorSoftmax, D, H, DH, T>(seed, 1.0),
        mha_f64::<AddConnection, VectorSoftmax, D, H, DH, T>(seed + 1, 1.0),
    ]
}

#[test]
fn mha_gradients_match_dual_numbers_for_several_head_counts() {
    let errors = [
        both_connections::<4, 1, 4, 3>(1),
        both_connections::<4, 2, 2, 5>(3),
        both_connections::<4, 4, 1, 4>(5),
        both_connections::<6, 3, 2, 4>(7),
        both_connections::<6, 2, 3, 6>(9),
        // One time step: the softmax is constant (Λ = 1), so PQ and PK get no gradient.
        both_connections::<2, 2, 1, 1>(11),
    ]
    .concat();
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
}

#[test]
fn mha_gradients_match_dual_numbers_for_every_softmax() {
    let errors = [
        mha_f64::<NoConnection, MatrixSoftmax, 4, 2, 2, 4>(21, 1.0),
        mha_f64::<AddConnection, OneVectorSoftmax, 4, 2, 2, 4>(22, 1.0),
        mha_f64::<NoConnection, OneMatrixSoftmax, 6, 3, 2, 3>(23, 1.0),
    ];
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
}

/// With one time step the query and key projections have no effect: their gradient is exactly 0,
/// and the value projection's is not.
#[test]
fn one_time_step_gives_query_and_key_no_gradient() {
    let mut rng = SmallRng::seed_from_u64(31);
    let layer: Mha<f64, 4, 2, 2, NoConnection> =
        from_flat(&unit_params::<Mha<f64, 4, 2, 2, NoConnection>>(&mut rng)).unwrap();
    let mut gradient = Backward::<f64, 4, 1>::zero_gradient(&layer);
    layer.backward(
        &random_matrix::<4, 1>(&mut rng),
        &random_matrix::<4, 1>(&mut rng),
        &mut gradient,
    );
    for head in gradient.heads() {
        assert_eq!(head.query.amax(), 0.0);
        assert_eq!(head.key.amax(), 0.0);
        assert!(head.value.amax() > 0.0);
    }
}

/// Large amplitudes: `‖C‖` grows like `|z|²`, and the rounding of `C` (about `ε‖C‖` absolute)
/// becomes a relative error of about `ε‖C‖` in `e^C`, in the backward pass and the dual numbers
/// alike, while the saturating softmax shrinks the gradients. Each amplitude is held to its
/// measured edge (about 3× the worst seen).
#[test]
fn amplitude_sweep_states_the_edge() {
    for (amplitude, edge) in [
        (1.0, 2e-15),
        (3.0, 1e-14),
        (10.0, 4e-14),
        (30.0, 2e-13),
        (100.0, 4e-13),
    ] {
        let errors = [
            mha_f64::<NoConnection, VectorSoftmax, 4, 2, 2, 4>(41, amplitude),
            mha_f64::<AddConnection, VectorSoftmax, 6, 3, 2, 5>(42, amplitude),
            mha_f64::<NoConnection, MatrixSoftmax, 4, 1, 4, 3>(43, amplitude),
        ];
        println!("amplitude {amplitude}: {}", show(&errors));
        assert!(
            errors.iter().all(|e| *e < edge),
            "{amplitude}: {}",
            show(&errors)
        );
    }
}

/// The multi-head attention layer `N`'s backward pass beside the dual numbers of the layer `Nd`
/// with the same parameters: the check of a backward pass that misses a term.
fn mismatched<N, Nd>(seed: u64) -> Comparison<f64>
where
    N: Schema<Scalar = f64> + Backward<f64, 4, 3, Gradient = N>,
    Nd: Schema<Scalar = Dual64> + SequenceLayer<Dual64, 4, 3>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let params = unit_params::<N>(&mut rng);
    let z = random_matrix::<4, 3>(&mut rng);
    let out_bar = random_matrix::<4, 3>(&mut rng);
    compare(
        &from_flat::<N>(&params).unwrap(),
        &params,
        |p: &[Dual64]| from_flat::<Nd>(p).unwrap(),
        |g| {
            let mut flat = vec![0.0; N::SCALARS];
            to_flat(g, &mut flat).unwrap();
            flat
        },
        &z,
        &out_bar,
    )
}

/// The check can fail: the backward pass without the connection's `Ō`, or with another softmax's
/// product, is caught.
#[test]
fn the_dual_number_check_detects_a_wrong_term() {
    let no_connection =
        mismatched::<Mha<f64, 4, 2, 2, NoConnection>, Mha<Dual64, 4, 2, 2, AddConnection>>(51);
    assert!(relative_error(&no_connection.input.0, &no_connection.input.1) > 1e-3);
    let softmax = mismatched::<
        Mha<f64, 4, 2, 2, NoConnection, MatrixSoftmax>,
        Mha<Dual64, 4, 2, 2, NoConnection, VectorSoftmax>,
    >(52);
    assert!(worst_of(softmax) > 1e-3);
}

/// Gradients of a batch add up: two backward passes into one accumulator give the sum.
#[test]
fn mha_gradients_accumulate_over_a_batch() {
    type Layer = Mha<f64, 6, 3, 2, AddConnection>;
    let mut rng = SmallRng::seed_from_u64(61);
    let layer: Layer = from_flat(&unit_params::<Layer>(&mut rng)).unwrap();
    let draws: [[SMatrix<f64, 6, 4>; 2]; 2] =
        core::array::from_fn(|_| core::array::from_fn(|_| random_matrix(&mut rng)));
    let flat = |g: &Layer| {
        let mut flat = vec![0.0; Layer::SCALARS];
        to_flat(g, &mut flat).unwrap();
        flat
    };
    let mut both = Backward::<f64, 6, 4>::zero_gradient(&layer);
    let parts = draws.map(|[z, out_bar]| {
        layer.backward(&z, &out_bar, &mut both);
        let mut part = Backward::<f64, 6, 4>::zero_gradient(&layer);
        layer.backward(&z, &out_bar, &mut part);
        flat(&part)
    });
    let both = flat(&both);
    let sum: Vec<f64> = parts[0].iter().zip(&parts[1]).map(|(a, b)| a + b).collect();
    assert!(parts.iter().all(|p| p.iter().any(|g| *g != 0.0)));
    assert!(relative_error(&both, &sum) <= 1e-15);
}

/// A NaN in the input is not hidden: it reaches `∂L/∂Z` and the gradient.
#[test]
fn a_nan_input_reaches_the_gradients() {
    type Layer = Mha<f64, 4, 2, 2, NoConnection>;
    let mut rng = SmallRng::seed_from_u64(71);
    let layer: Layer = from_flat(&unit_params::<Layer>(&mut rng)).unwrap();
    let mut z = random_matrix::<4, 3>(&mut rng);
    z[(2, 1)] = f64::NAN;
    let mut gradient = Backward::<f64, 4, 3>::zero_gradient(&layer);
    let z_bar = layer.backward(&z, &random_matrix(&mut rng), &mut gradient);
    assert!(z_bar.iter().any(|x| x.is_nan()));
    assert!(
        gradient
            .heads()
            .iter()
            .any(|h| h.value.iter().any(|x| x.is_nan()))
    );
}

// ---- the standard transformer integrator -----------------------------------------------------

/// The ResNet stack alone (tanh layers then the identity one), over a longer window.
#[test]
fn resnet_stack_gradients_match_dual_numbers() {
    type Stack<S> = ResNetStack<S, 4, 2, Tanh>;
    let mut rng = SmallRng::seed_from_u64(81);
    let params = centred_params::<Stack<f64>>(&mut rng);
    let z = random_matrix::<4, 6>(&mut rng);
    let out_bar = random_matrix::<4, 6>(&mut rng);
    let case = network_case::<Stack<f64>, Stack<Dual64>, 4, 6>(&params, &z, &out_bar);
    assert!(
        case.weight.0.iter().all(|g| *g != 0.0),
        "every parameter has a gradient"
    );
    let error = worst_of(case);
    assert!(error < 1e-12, "{error:e}");
}

/// The integrator's gradient with respect to every parameter and the input, for both
/// `add_connection` settings.
#[test]
fn integrator_gradients_match_dual_numbers() {
    let mut rng = SmallRng::seed_from_u64(91);
    for amplitude in [1.0, 3.0] {
        let z = random_matrix::<4, 3>(&mut rng) * amplitude;
        let out_bar = random_matrix::<4, 3>(&mut rng);

        type Plain<S> = Integrator<S, 4, 2, 2, NoConnection, 2, 2>;
        let params = centred_params::<Plain<f64>>(&mut rng);
        let case = network_case::<Plain<f64>, Plain<Dual64>, 4, 3>(&params, &z, &out_bar);
        assert!(
            case.weight.0.iter().all(|g| *g != 0.0),
            "every parameter has a gradient"
        );
        let error = worst_of(case);
        assert!(
            error < 1e-12,
            "no connection, amplitude {amplitude}: {error:e}"
        );

        type Connected<S> = Integrator<S, 4, 4, 1, AddConnection, 1, 3>;
        let params = centred_params::<Connected<f64>>(&mut rng);
        let error = worst_of(network_case::<Connected<f64>, Connected<Dual64>, 4, 3>(
            &params, &z, &out_bar,
        ));
        assert!(
            error < 1e-12,
            "add_connection, amplitude {amplitude}: {error:e}"
        );
    }
}

/// A few Adam steps on a small integrator (GML's initialisation and defaults but a larger step)
/// reduce the transformer loss on windows of a rotation's trajectory.
#[test]
fn adam_steps_reduce_the_loss_of_an_integrator() {
    type Net = Integrator<f64, 3, 1, 3, AddConnection, 1, 1>;
    const P: usize = <Net as Schema>::SCALARS;
    let rotation = Rotation3::from_scaled_axis(Vector3::new(0.1, -0.2, 0.15));
    let mut x = Vector3::new(1.0, 0.5, -0.3);
    let trajectory: Vec<Vector3<f64>> = (0..12)
        .map(|_| {
            let current = x;
            x = rotation * x;
            current
        })
        .collect();
    let window = |start: usize| SMatrix::<f64, 3, 3>::from_fn(|i, j| trajectory[start + j][i]);
    let inputs: Vec<_> = (0..8).map(window).collect();
    let targets: Vec<_> = (1..9).map(window).collect();
    let loss = |net: &Net| {
        let outputs: Vec<_> = inputs.iter().map(|x| net.forward(x)).collect();
        transformer_loss(&outputs, &targets).unwrap()
    };

    let mut rng = SmallRng::seed_from_u64(101);
    let mut net: Net = glorot_network(&mut rng).unwrap();
    let mut adam = AdamOptimizer::<f64, P>::with_learning_rate(1e-2);
    let before = loss(&net);
    for _ in 0..20 {
        train_step(&mut net, &mut adam, &inputs, &targets).unwrap();
    }
    let after = loss(&net);
    println!("transformer loss {before:e} → {after:e}");
    assert!(after < 0.5 * before, "loss {before:e} → {after:e}");
}
