//! Training as GML 0.4.8 trains (issue 25): its optimisers, checked exactly in rationals where
//! they are rational and against Kingma and Ba's form of Adam written out here.

use geomattn::train::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
};
use geomattn::{Error, Schema, SkewSymmetric, SkewVpa, to_flat};
use geomattn_testkit::{Q, q};

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
fn adam_with_decay_is_adam_at_gammas_power_of_the_minibatch_step() {
    let steps = gradients().map(|g| g.map(to_f64));
    let (eta1, eta2, rho1, rho2, delta) = (1e-2, 1e-6, 0.9, 0.99, 1e-8);
    let n_epochs = 2;
    let mut decay = AdamOptimizerWithDecay::<f64, 3>::new(n_epochs, eta1, eta2, rho1, rho2, delta);
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
    let mut decay = AdamOptimizerWithDecay::<f32, 1>::with_defaults(4);
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
