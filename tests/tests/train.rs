//! Training as GML 0.4.8 trains (issue 25): its optimisers, checked exactly in rationals where
//! they are rational and against Kingma and Ba's form of Adam written out here.

use geomattn::nalgebra::{Matrix3, Rotation3, SMatrix, Unit, Vector3};
use geomattn::train::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
    Trajectories, loss_and_gradient, loss_gradient, train_epoch, train_step, transformer_loss,
    window_order,
};
use geomattn::{
    ArbitraryWeight, Backward, Error, Schema, SequenceLayer, SkewSymmetric, SkewVpa, SkewWeight,
    Tanh, VolumePreservingTransformer, from_flat, to_flat,
};
use geomattn_testkit::{Q, jacobian, q, random_matrix, unit};
use num_dual::{Dual64, DualNum};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::num::NonZeroU64;

/// Three minibatch gradients of three parameters, with signs and sizes mixed.
fn gradients() -> [[Q; 3]; 3] {
    [
        [q(1, 2), q(-3, 1), q(0, 1)],
        [q(-5, 7), q(2, 3), q(11, 4)],
        [q(9, 8), q(-1, 5), q(-7, 3)],
    ]
}

const THETA0: [(i128, i128); 3] = [(1, 3), (-2, 1), (5, 6)];

fn theta0() -> [Q; 3] {
    THETA0.map(|(n, d)| q(n, d))
}

#[test]
fn gradient_descent_is_exact_in_rationals() {
    let eta = q(3, 10);
    let mut sgd = GradientOptimizer::new(eta);
    let mut theta = theta0();
    for g in gradients() {
        sgd.step(&mut theta, &g);
    }
    // θ₃ = θ₀ − η (g₁ + g₂ + g₃), entry by entry.
    let g = gradients();
    for k in 0..3 {
        assert_eq!(theta[k], theta0()[k] - eta * (g[0][k] + g[1][k] + g[2][k]));
    }
    assert_eq!(Optimizer::<Q, 3>::steps(&sgd), 3);
}

#[test]
fn momentum_is_exact_in_rationals() {
    let (eta, alpha) = (q(1, 4), q(2, 5));
    let mut momentum = MomentumOptimizer::<Q, 3>::new(eta, alpha);
    let mut theta = theta0();
    for g in gradients() {
        momentum.step(&mut theta, &g);
    }
    // B₁ = g₁, B₂ = αg₁ + g₂, B₃ = α²g₁ + αg₂ + g₃, and θ₃ = θ₀ − η (B₁ + B₂ + B₃).
    let g = gradients();
    for k in 0..3 {
        let b1 = g[0][k];
        let b2 = alpha * g[0][k] + g[1][k];
        let b3 = alpha * alpha * g[0][k] + alpha * g[1][k] + g[2][k];
        assert_eq!(theta[k], theta0()[k] - eta * (b1 + b2 + b3));
    }
    assert_eq!(momentum.steps(), 3);
}

fn to_f64(x: Q) -> f64 {
    *x.numer() as f64 / *x.denom() as f64
}

/// Kingma and Ba's Adam, whose bias-corrected `m̂ = m/(1−ρ₁ᵗ)`, `v̂ = v/(1−ρ₂ᵗ)` are GML's `B₁`,
/// `B₂`: `(1−ρᵗ) B ← ρ (1−ρᵗ⁻¹) B + (1−ρ) g` is GML's recursion multiplied out. Returns the
/// parameters after every step.
fn kingma_ba(eta: f64, rho1: f64, rho2: f64, delta: f64, steps: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let (mut m, mut v) = ([0.0; 3], [0.0; 3]);
    let mut theta = theta0().map(to_f64);
    let mut after = Vec::new();
    for (t, g) in (1..).zip(steps) {
        for k in 0..3 {
            m[k] = rho1 * m[k] + (1.0 - rho1) * g[k];
            v[k] = rho2 * v[k] + (1.0 - rho2) * g[k] * g[k];
            let m_hat = m[k] / (1.0 - rho1.powi(t));
            let v_hat = v[k] / (1.0 - rho2.powi(t));
            theta[k] -= eta * m_hat / (v_hat.sqrt() + delta);
        }
        after.push(theta);
    }
    after
}

fn assert_close(found: &[f64; 3], expected: &[f64; 3], what: &str) {
    for (f, e) in found.iter().zip(expected) {
        assert!(
            (f - e).abs() <= 8.0 * f64::EPSILON * e.abs(),
            "{what}: {found:?} against {expected:?}"
        );
    }
}

#[test]
fn adam_matches_kingma_ba_with_gmls_delta_outside_the_root() {
    let steps = gradients().map(|g| g.map(to_f64));
    // δ large enough that √(B₂ + δ) (GML's docstring) and √B₂ + δ (its code) differ visibly.
    let (eta, rho1, rho2, delta) = (0.05, 0.8, 0.95, 0.25);
    let expected = kingma_ba(eta, rho1, rho2, delta, &steps);
    let mut adam = AdamOptimizer::<f64, 3>::new(eta, rho1, rho2, delta);
    let mut theta = theta0().map(to_f64);
    for (g, expected) in steps.iter().zip(&expected) {
        adam.step(&mut theta, g);
        assert_close(&theta, expected, "Adam");
    }
    assert_eq!(adam.steps(), 3);
}

#[test]
fn adam_defaults_are_gmls_float32_literals() {
    // At t = 1, B₁ = g and B₂ = g²: a unit gradient moves θ by −η/(1 + δ).
    let mut adam = AdamOptimizer::<f32, 1>::default();
    let mut theta = [0.0_f32];
    adam.step(&mut theta, &[1.0]);
    assert_eq!(theta, [-(1e-3_f32 / (1.0 + 3e-7_f32))]);

    let mut adam = AdamOptimizer::<f64, 1>::default();
    let mut theta = [0.0_f64];
    adam.step(&mut theta, &[1.0]);
    let (eta, delta) = (f64::from(1e-3_f32), f64::from(3e-7_f32));
    assert_eq!(theta, [-(eta / (1.0 + delta))]);
    assert_ne!(
        eta, 1e-3,
        "GML's f64 Adam holds the widened Float32 literal"
    );
}

#[test]
fn gradient_and_momentum_defaults_are_gmls() {
    let mut sgd = GradientOptimizer::<f64>::default();
    let mut theta = [1.0];
    sgd.step(&mut theta, &[1.0]);
    assert_eq!(theta, [1.0 - 1e-2]);

    // η = 1e-3, α = 1e-2: two unit gradients give B = 1, then 1.01.
    let mut momentum = MomentumOptimizer::<f64, 1>::default();
    let mut theta = [0.0];
    momentum.step(&mut theta, &[1.0]);
    momentum.step(&mut theta, &[1.0]);
    assert_eq!(theta, [-1e-3 + -(1e-3 * 1.01)]);
}

#[test]
fn adam_with_decay_is_adam_at_gammas_power_of_the_minibatch_step() {
    let steps = gradients().map(|g| g.map(to_f64));
    let (eta1, eta2, rho1, rho2, delta) = (1e-2, 1e-6, 0.9, 0.99, 1e-8);
    let n_epochs = 2;
    let epochs = NonZeroU64::new(n_epochs).unwrap();
    let mut decay = AdamOptimizerWithDecay::<f64, 3>::new(epochs, eta1, eta2, rho1, rho2, delta);
    let gamma = (f64::ln(eta2 / eta1) / n_epochs as f64).exp();
    // With η = 1, Kingma and Ba's steps are the unit velocities; GML's decay scales step t's by
    // γᵗη₁ and leaves the caches alone.
    let unit = kingma_ba(1.0, rho1, rho2, delta, &steps);
    let mut theta = theta0().map(to_f64);
    let mut before_unit = theta;
    for (t, (g, after_unit)) in (1..).zip(steps.iter().zip(&unit)) {
        let eta = gamma.powi(t) * eta1;
        assert!((decay.learning_rate(t as u64) - eta).abs() <= 4.0 * f64::EPSILON * eta);
        let before = theta;
        decay.step(&mut theta, g);
        for k in 0..3 {
            let expected = before[k] + eta * (after_unit[k] - before_unit[k]);
            assert!(
                (theta[k] - expected).abs() <= 1e-12 * eta,
                "step {t}: {theta:?}"
            );
        }
        before_unit = *after_unit;
    }
    // GML's quirk: η reaches η₂ after n_epochs MINIBATCH steps, then keeps decaying.
    assert!((decay.learning_rate(n_epochs) - eta2).abs() < 1e-12 * eta2);
    assert!(decay.learning_rate(3) < eta2);
}

#[test]
fn adam_with_decay_defaults_are_gmls() {
    // At t = 1 a unit gradient moves θ by −γη₁/(1 + δ), γ = (η₂/η₁)^(1/n).
    let mut decay = AdamOptimizerWithDecay::<f32, 1>::with_defaults(NonZeroU64::new(4).unwrap());
    let gamma = ((1e-6_f32 / 1e-2_f32).ln() / 4.0).exp();
    let mut theta = [0.0_f32];
    decay.step(&mut theta, &[1.0]);
    let expected = -(gamma * 1e-2_f32 / (1.0 + 1e-8_f32));
    assert!((theta[0] - expected).abs() <= 2.0 * f32::EPSILON * expected.abs());
}

#[test]
fn a_network_steps_through_its_flat_parameters() {
    type Layer = SkewVpa<f64, 3, 4>;
    let mut net = Layer::skew_sym(SkewSymmetric::from_packed(&[1.0, 2.0, 3.0]).unwrap());
    let gradient = Layer::skew_sym(SkewSymmetric::from_packed(&[10.0, -10.0, 0.0]).unwrap());
    let mut sgd = GradientOptimizer::new(0.1);
    Optimizer::<f64, 3>::step_network(&mut sgd, &mut net, &gradient).unwrap();
    let mut flat = [0.0; 3];
    to_flat(&net, &mut flat).unwrap();
    assert_eq!(flat, [0.0, 3.0, 3.0]);

    // An optimiser sized for another network is refused, and nothing changes.
    let error = Optimizer::<f64, 4>::step_network(&mut sgd, &mut net, &gradient).unwrap_err();
    assert!(matches!(
        error,
        Error::WeightLength {
            expected: 3,
            found: 4,
            ..
        }
    ));
    to_flat(&net, &mut flat).unwrap();
    assert_eq!(flat, [0.0, 3.0, 3.0]);
    assert_eq!(Optimizer::<f64, 4>::steps(&sgd), 1);
    assert_eq!(<Layer as Schema>::SCALARS, 3);
}

// ---- the transformer loss ----------------------------------------------------------------------

type Vpt<S, Corr> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh, Corr>;
type Arbitrary<S> = Vpt<S, ArbitraryWeight<S, 3>>;
type Skew<S> = Vpt<S, SkewWeight<S, 3>>;

/// `‖O − Y‖_F / ‖Y‖_F` over the whole minibatch, written out over dual numbers.
fn reference_loss(outputs: &[SMatrix<Dual64, 3, 3>], targets: &[Matrix3<f64>]) -> Dual64 {
    let mut residual = Dual64::from(0.0);
    let mut target = 0.0;
    for (o, y) in outputs.iter().zip(targets) {
        for (o, y) in o.iter().zip(y.iter()) {
            let d = *o - Dual64::from(*y);
            residual += d * d;
            target += y * y;
        }
    }
    residual.sqrt() / target.sqrt()
}

fn random_windows(rng: &mut SmallRng, count: usize, amplitude: f64) -> Vec<Matrix3<f64>> {
    (0..count)
        .map(|_| random_matrix::<3, 3>(rng) * amplitude)
        .collect()
}

fn relative(found: &[f64], expected: &[f64]) -> f64 {
    let scale = expected.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    found
        .iter()
        .zip(expected)
        .fold(0.0_f64, |m, (f, e)| m.max((f - e).abs()))
        / scale
}

/// The minibatch loss's parameter gradient of `N` against one dual pass per parameter.
fn loss_gradient_error<N, Nd>(seed: u64, amplitude: f64) -> f64
where
    N: Schema<Scalar = f64> + Backward<f64, 3, 3, Gradient = N>,
    Nd: Schema<Scalar = Dual64> + SequenceLayer<Dual64, 3, 3>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let params: Vec<f64> = (0..N::SCALARS).map(|_| unit(&mut rng) - 0.5).collect();
    let net: N = from_flat(&params).unwrap();
    let inputs = random_windows(&mut rng, 5, amplitude);
    let targets = random_windows(&mut rng, 5, amplitude);

    let mut gradient = net.zero_gradient();
    let loss = loss_and_gradient(&net, &inputs, &targets, &mut gradient).unwrap();
    let mut found = vec![0.0; N::SCALARS];
    to_flat(&gradient, &mut found).unwrap();

    let mut expected = Vec::new();
    let mut dual_loss = 0.0;
    for k in 0..N::SCALARS {
        let seeded: Vec<Dual64> = (0..N::SCALARS)
            .map(|n| {
                let x = Dual64::from(params[n]);
                if n == k { x.derivative() } else { x }
            })
            .collect();
        let dual_net: Nd = from_flat(&seeded).unwrap();
        let outputs: Vec<_> = inputs
            .iter()
            .map(|x| dual_net.forward(&x.map(Dual64::from)))
            .collect();
        let l = reference_loss(&outputs, &targets);
        dual_loss = l.re;
        expected.push(l.eps);
    }
    assert!(
        (loss - dual_loss).abs() <= 1e-14 * dual_loss,
        "{loss} against {dual_loss}"
    );
    relative(&found, &expected)
}

#[test]
fn the_minibatch_loss_gradient_matches_dual_numbers_on_the_rigid_body_vpt() {
    for (seed, amplitude) in [(1, 1.0), (2, 1.0), (3, 3.0)] {
        let arbitrary = loss_gradient_error::<Arbitrary<f64>, Arbitrary<Dual64>>(seed, amplitude);
        assert!(
            arbitrary < 1e-12,
            "skew_sym = false, seed {seed}: {arbitrary:e}"
        );
        let skew = loss_gradient_error::<Skew<f64>, Skew<Dual64>>(seed, amplitude);
        assert!(skew < 1e-12, "skew_sym = true, seed {seed}: {skew:e}");
    }
}

#[test]
fn the_output_gradient_matches_dual_numbers() {
    let mut rng = SmallRng::seed_from_u64(5);
    let outputs = random_windows(&mut rng, 3, 1.0);
    let targets = random_windows(&mut rng, 3, 1.0);
    let mut out_bar = vec![Matrix3::zeros(); 3];
    let loss = loss_gradient(&outputs, &targets, &mut out_bar).unwrap();
    assert_eq!(loss, transformer_loss(&outputs, &targets).unwrap());
    for (window, bars) in out_bar.iter().enumerate() {
        for (entry, found) in bars.iter().enumerate() {
            let seeded: Vec<SMatrix<Dual64, 3, 3>> = (0..3)
                .map(|w| {
                    SMatrix::from_fn(|i, j| {
                        let x = Dual64::from(outputs[w][(i, j)]);
                        if w == window && i + 3 * j == entry {
                            x.derivative()
                        } else {
                            x
                        }
                    })
                })
                .collect();
            let expected = reference_loss(&seeded, &targets).eps;
            assert!((found - expected).abs() <= 1e-15 * expected.abs().max(1.0));
        }
    }
}

#[test]
fn the_loss_is_one_norm_over_the_minibatch_not_a_mean_of_ratios() {
    // Window 1 fits exactly, window 2 is off by its whole target: ratios 0 and 1, mean ½; the
    // one norm gives ‖Y₂‖/‖(Y₁, Y₂)‖ = 1/√2.
    let y = Matrix3::identity();
    let loss: f64 = transformer_loss(&[y, Matrix3::zeros()], &[y, y]).unwrap();
    assert!((loss - 0.5_f64.sqrt()).abs() < 1e-15);
}

#[test]
fn a_perfect_fit_has_zero_loss_and_zero_gradient() {
    let y = [Matrix3::from_fn(|i, j| (i + 2 * j) as f64)];
    let mut out_bar = [Matrix3::repeat(f64::NAN)];
    assert_eq!(loss_gradient(&y, &y, &mut out_bar).unwrap(), 0.0);
    assert_eq!(out_bar[0], Matrix3::zeros());
}

#[test]
fn minibatches_the_loss_cannot_take_are_refused() {
    let y = [Matrix3::<f64>::identity(); 2];
    let mut out_bar = [Matrix3::zeros(); 2];
    assert!(matches!(
        transformer_loss::<f64, 3, 3>(&[], &[]),
        Err(Error::UndefinedLoss(_))
    ));
    assert!(matches!(
        transformer_loss(&y, &[Matrix3::zeros(); 2]),
        Err(Error::UndefinedLoss(_))
    ));
    assert!(matches!(
        transformer_loss(&y[..1], &y),
        Err(Error::BatchShape {
            input: 1,
            output: 2,
            ..
        })
    ));
    assert!(matches!(
        loss_gradient(&y, &y, &mut out_bar[..1]),
        Err(Error::BatchShape { .. })
    ));
    let net: Skew<f64> = from_flat(&vec![0.0; Skew::<f64>::SCALARS]).unwrap();
    let mut gradient = net.zero_gradient();
    assert!(matches!(
        loss_and_gradient(&net, &y, &y[..1], &mut gradient),
        Err(Error::BatchShape { .. })
    ));
    // A NaN or ∞ in a window, or an overflowing norm, is refused before any gradient is added.
    let mut poisoned = y;
    for bad in [f64::NAN, f64::INFINITY, 1e200] {
        poisoned[1][(2, 0)] = bad;
        assert!(matches!(
            loss_and_gradient(&net, &poisoned, &y, &mut gradient),
            Err(Error::UndefinedLoss(_))
        ));
        assert!(matches!(
            transformer_loss(&y, &poisoned),
            Err(Error::UndefinedLoss(_))
        ));
    }
    let mut flat = vec![1.0; Skew::<f64>::SCALARS];
    to_flat(&gradient, &mut flat).unwrap();
    assert!(flat.iter().all(|g| *g == 0.0), "the gradient is untouched");
}

// ---- windows, epochs, training ----------------------------------------------------------------

/// `count` trajectories of `length` states of a rotation of R³ (a volume-preserving map), from
/// seeded initial states.
fn rotation_trajectories(count: usize, length: usize, seed: u64) -> Vec<Vec<Vector3<f64>>> {
    let rotation =
        Rotation3::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 2.0, 2.0)), 0.3);
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut state = Vector3::from_fn(|_, _| unit(&mut rng) - 0.5);
            (0..length)
                .map(|_| {
                    let now = state;
                    state = rotation * state;
                    now
                })
                .collect()
        })
        .collect()
}

#[test]
fn windows_are_gmls_input_then_the_states_after_it() {
    // State k of trajectory m is (k, m, 0): each window says where it came from.
    let trajectories: Vec<Vec<Vector3<f64>>> = (0..2)
        .map(|m| {
            (0..9)
                .map(|k| Vector3::new(k as f64, m as f64, 0.0))
                .collect()
        })
        .collect();
    let data = Trajectories::new(&trajectories).unwrap();
    assert_eq!((data.count(), data.starts(3), data.starts(5)), (2, 4, 0));
    let (inputs, targets) = data.windows::<3>(&[(3, 1), (0, 0)]).unwrap();
    assert_eq!(
        inputs[0].row(0).iter().copied().collect::<Vec<_>>(),
        [3.0, 4.0, 5.0]
    );
    assert_eq!(
        targets[0].row(0).iter().copied().collect::<Vec<_>>(),
        [6.0, 7.0, 8.0]
    );
    assert_eq!(
        inputs[0].row(1).iter().copied().collect::<Vec<_>>(),
        [1.0; 3]
    );
    assert_eq!(
        targets[1].row(0).iter().copied().collect::<Vec<_>>(),
        [3.0, 4.0, 5.0]
    );

    for outside in [(4, 0), (0, 2)] {
        assert!(matches!(
            data.windows::<3>(&[outside]),
            Err(Error::BatchShape { .. })
        ));
    }
    let ragged = vec![trajectories[0].clone(), trajectories[1][..8].to_vec()];
    assert!(matches!(
        Trajectories::new(&ragged),
        Err(Error::BatchShape {
            input: 9,
            output: 8,
            ..
        })
    ));
    assert!(Trajectories::<f64, 3>::new(&[]).is_err());
}

#[test]
fn an_epoch_draws_every_window_once_start_fastest() {
    let mut rng = SmallRng::seed_from_u64(9);
    let order = window_order(5, 3, &mut rng);
    let mut sorted = order.clone();
    sorted.sort_unstable();
    let all: Vec<(usize, usize)> = (0..5).flat_map(|s| (0..3).map(move |t| (s, t))).collect();
    assert_eq!(sorted, all);
    // The start varies fastest: each run of 5 is one trajectory, with the same order of starts.
    for run in order.chunks(5) {
        assert!(run.iter().all(|&(_, t)| t == run[0].1));
        assert_eq!(
            run.iter().map(|&(s, _)| s).collect::<Vec<_>>(),
            order[..5].iter().map(|&(s, _)| s).collect::<Vec<_>>()
        );
    }
    assert_eq!(order, window_order(5, 3, &mut SmallRng::seed_from_u64(9)));
}

const SKEW_P: usize = <Skew<f64> as Schema>::SCALARS;

fn small_skew_vpt(seed: u64) -> Skew<f64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let params: Vec<f64> = (0..SKEW_P).map(|_| (unit(&mut rng) - 0.5) * 0.5).collect();
    from_flat(&params).unwrap()
}

#[test]
fn an_epoch_is_train_step_over_the_minibatches_in_window_order() {
    let data = Trajectories::new(&rotation_trajectories(3, 10, 4)).unwrap();
    let (mut by_epoch, mut by_hand) = (small_skew_vpt(1), small_skew_vpt(1));
    let mut adam_epoch = AdamOptimizer::<f64, SKEW_P>::default();
    let mut adam_hand = adam_epoch;
    let (mut rng_epoch, mut rng_hand) = (SmallRng::seed_from_u64(2), SmallRng::seed_from_u64(2));

    let loss = train_epoch(&mut by_epoch, &mut adam_epoch, &data, 4, &mut rng_epoch).unwrap();

    let order = window_order(data.starts(3), data.count(), &mut rng_hand);
    let mut losses = Vec::new();
    for minibatch in order.chunks(4) {
        let (inputs, targets) = data.windows::<3>(minibatch).unwrap();
        losses.push(train_step(&mut by_hand, &mut adam_hand, &inputs, &targets).unwrap());
    }
    // 3 trajectories × 5 starts = 15 windows: minibatches of 4, 4, 4, 3.
    assert_eq!((losses.len(), adam_epoch.steps()), (4, 4));
    assert_eq!(loss, losses.iter().sum::<f64>() / 4.0);
    let (mut a, mut b) = ([0.0; SKEW_P], [0.0; SKEW_P]);
    to_flat(&by_epoch, &mut a).unwrap();
    to_flat(&by_hand, &mut b).unwrap();
    assert_eq!(a, b);

    let short = Trajectories::new(&rotation_trajectories(2, 5, 4)).unwrap();
    for (data, batch) in [(&data, 0), (&short, 4)] {
        let error = train_epoch(&mut by_epoch, &mut adam_epoch, data, batch, &mut rng_epoch);
        assert!(matches!(error, Err(Error::BatchShape { .. })));
    }
    assert_eq!(adam_epoch.steps(), 4, "a refused epoch takes no step");
}

/// det of the Jacobian of `net` at `z`, through dual numbers.
fn jacobian_determinant(net: &Skew<f64>, z: &Matrix3<f64>) -> f64 {
    let mut params = [0.0; SKEW_P];
    to_flat(net, &mut params).unwrap();
    let dual: Skew<Dual64> = from_flat(&params.map(Dual64::from)).unwrap();
    jacobian(|z| dual.forward(z), z).determinant()
}

#[test]
fn adam_lowers_the_loss_and_every_step_keeps_volume() {
    let data = Trajectories::new(&rotation_trajectories(6, 12, 5)).unwrap();
    let mut net = small_skew_vpt(6);
    let mut adam = AdamOptimizer::<f64, SKEW_P>::new(1e-2, 0.9, 0.99, 3e-7);
    let mut rng = SmallRng::seed_from_u64(7);
    let probe = random_matrix::<3, 3>(&mut rng);
    let mut epoch_losses = Vec::new();
    while adam.steps() < 300 {
        let order = window_order(data.starts(3), data.count(), &mut rng);
        let mut losses = Vec::new();
        for minibatch in order.chunks(16) {
            let (inputs, targets) = data.windows::<3>(minibatch).unwrap();
            losses.push(train_step(&mut net, &mut adam, &inputs, &targets).unwrap());
            let det = jacobian_determinant(&net, &probe);
            assert!(
                (det - 1.0).abs() < 1e-10,
                "step {}: det J = {det}",
                adam.steps()
            );
        }
        epoch_losses.push(losses.iter().sum::<f64>() / losses.len() as f64);
    }
    let (first, last) = (epoch_losses[0], *epoch_losses.last().unwrap());
    println!(
        "loss {first:.4e} → {last:.4e} in {} Adam steps",
        adam.steps()
    );
    assert!(last < 0.25 * first, "loss {first:e} → {last:e}");
}
