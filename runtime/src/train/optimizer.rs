//! GML 0.4.8's optimisers, with its defaults and the update formulas of its code.
//!
//! Each optimiser updates a network's parameters as one flat array in GML's order (see
//! [`to_flat`]), entry by entry: GML applies its optimisers elementwise to each
//! weight's array, and to the packed entries of its skew-symmetric and triangular weights, which
//! is what the flat array holds. A step is one minibatch: GML's `optimization_step!` counts
//! `t = 1, 2, …` per minibatch (not per epoch), turns the gradient `g` into a velocity and adds it,
//! `θ ← θ + velocity`. The caches are arrays of `P` scalars, held by the optimiser (no
//! allocation, `no_std`); they start at zero, as GML's `zero(Y)`.
//!
//! | optimiser | GML default | velocity |
//! |---|---|---|
//! | [`GradientOptimizer`] | η = 1e-2 | `−η g` |
//! | [`MomentumOptimizer`] | η = 1e-3, α = 1e-2 | `B ← αB + g`, then `−η B` |
//! | [`AdamOptimizer`] | η = 1f-3, ρ₁ = 9f-1, ρ₂ = 9.9f-1, δ = 3f-7 | see its docs |
//! | [`AdamOptimizerWithDecay`] | η₁ = 1f-2, η₂ = 1f-6, ρ₁, ρ₂ as Adam, δ = 1f-8 | Adam with `η = γᵗ η₁` |
//!
//! The defaults are GML's literals converted to the scalar `S`, as GML converts them to the
//! network's element type: the Adam ones are `Float32` literals (`1f-3`), so in `f64` they are
//! the widened `f32` values (`0.001000000047…`), which is what `AdamOptimizer(Float64)` holds.
//!
//! ```
//! use geomattn::train::{GradientOptimizer, MomentumOptimizer, Optimizer};
//! let mut theta = [1.0_f64, -2.0];
//! let mut sgd = GradientOptimizer::new(0.5);
//! sgd.step(&mut theta, &[2.0, 2.0]);
//! assert_eq!(theta, [0.0, -3.0]);
//!
//! let mut momentum = MomentumOptimizer::<f64, 1>::new(1.0, 0.5);
//! let mut x = [0.0];
//! momentum.step(&mut x, &[1.0]); // B = 1
//! momentum.step(&mut x, &[1.0]); // B = 0.5·1 + 1
//! assert_eq!((x, momentum.steps()), ([-2.5], 2));
//! ```

use core::num::NonZeroU64;

use nalgebra::RealField;

use crate::error::Error;
use crate::scalar::Field;
use crate::schema::{Schema, from_flat, to_flat};

/// One of GML's optimisers over `P` parameters of scalar `S`.
pub trait Optimizer<S: Field, const P: usize> {
    /// One minibatch's step: counts it, turns `gradient` into the velocity and adds that to
    /// `parameters` (GML's `optimization_step!` for Euclidean weights).
    fn step(&mut self, parameters: &mut [S; P], gradient: &[S; P]);

    /// The steps taken so far (GML's `o.step`).
    fn steps(&self) -> u64;

    /// [`step`](Self::step) on a network and its gradient (the gradient of
    /// [`Backward`](crate::Backward) is laid out as the network), through their flat arrays in
    /// GML's order.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `N` or `G` does not hold exactly `P` scalars (then nothing
    /// changes); what `N`'s layers report if they reject the updated values (a Stiefel weight
    /// off its manifold: these optimisers are GML's Euclidean ones), in which case `net` is
    /// unchanged but the step is counted.
    fn step_network<N, G>(&mut self, net: &mut N, gradient: &G) -> Result<(), Error>
    where
        N: Schema<Scalar = S>,
        G: Schema<Scalar = S>,
    {
        let mut parameters = [S::zero(); P];
        let mut flat_gradient = [S::zero(); P];
        to_flat(net, &mut parameters)?;
        to_flat(gradient, &mut flat_gradient)?;
        self.step(&mut parameters, &flat_gradient);
        *net = from_flat(&parameters)?;
        Ok(())
    }
}

/// [`Error::WeightLength`] unless `parameters` and `gradient` both hold `expected` scalars: the
/// check before a step of the run-time optimisers ([`FlatOptimizer`],
/// [`ManifoldOptimizer`](super::ManifoldOptimizer)).
#[cfg(feature = "std")]
pub(super) fn check_lengths<S>(
    expected: usize,
    parameters: &[S],
    gradient: &[S],
) -> Result<(), Error> {
    match [parameters.len(), gradient.len()]
        .into_iter()
        .find(|&n| n != expected)
    {
        Some(found) => Err(Error::WeightLength {
            name: "parameters",
            expected,
            found,
        }),
        None => Ok(()),
    }
}

/// `value`, a literal of GML's source, in the scalar `S`.
fn literal<S: RealField + Copy>(value: f64) -> S {
    nalgebra::convert(value)
}

/// GML's `GradientOptimizer(η)`: velocity `−η g`. No cache, so any number of parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradientOptimizer<S> {
    eta: S,
    steps: u64,
}

impl<S: Field> GradientOptimizer<S> {
    /// The learning rate `eta`.
    pub fn new(eta: S) -> Self {
        Self { eta, steps: 0 }
    }
}

impl<S: RealField + Copy> Default for GradientOptimizer<S> {
    /// GML's default, η = 1e-2.
    fn default() -> Self {
        Self::new(literal(GRADIENT_ETA))
    }
}

/// GML's default learning rate of [`GradientOptimizer`].
const GRADIENT_ETA: f64 = 1e-2;
/// GML's defaults of [`MomentumOptimizer`]: η, α.
const MOMENTUM: [f64; 2] = [1e-3, 1e-2];
/// GML's defaults of [`AdamOptimizer`], `Float32` literals: η, ρ₁, ρ₂, δ.
const ADAM: [f32; 4] = [1e-3, 0.9, 0.99, 3e-7];
/// GML's defaults of [`AdamOptimizerWithDecay`], `Float32` literals: η₁, η₂, ρ₁, ρ₂, δ.
const ADAM_WITH_DECAY: [f32; 5] = [1e-2, 1e-6, 0.9, 0.99, 1e-8];

/// GML's `Float32` literal `value` in `S`.
fn widened<S: RealField + Copy>(value: f32) -> S {
    literal(f64::from(value))
}

impl<S: Field, const P: usize> Optimizer<S, P> for GradientOptimizer<S> {
    fn step(&mut self, parameters: &mut [S; P], gradient: &[S; P]) {
        self.steps += 1;
        gradient_step(self.eta, parameters, gradient);
    }

    fn steps(&self) -> u64 {
        self.steps
    }
}

/// GML's `MomentumOptimizer(η, α)`: `B ← αB + g`, velocity `−η B`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MomentumOptimizer<S, const P: usize> {
    eta: S,
    alpha: S,
    cache: [S; P],
    steps: u64,
}

impl<S: Field, const P: usize> MomentumOptimizer<S, P> {
    /// The learning rate `eta` and the momentum `alpha`; the cache starts at zero.
    pub fn new(eta: S, alpha: S) -> Self {
        Self {
            eta,
            alpha,
            cache: [S::zero(); P],
            steps: 0,
        }
    }
}

impl<S: RealField + Copy, const P: usize> Default for MomentumOptimizer<S, P> {
    /// GML's defaults, η = 1e-3, α = 1e-2.
    fn default() -> Self {
        Self::new(literal(MOMENTUM[0]), literal(MOMENTUM[1]))
    }
}

impl<S: RealField + Copy, const P: usize> MomentumOptimizer<S, P> {
    /// GML's default α = 1e-2 with the learning rate `eta`.
    pub fn with_learning_rate(eta: S) -> Self {
        Self::new(eta, literal(MOMENTUM[1]))
    }
}

impl<S: Field, const P: usize> Optimizer<S, P> for MomentumOptimizer<S, P> {
    fn step(&mut self, parameters: &mut [S; P], gradient: &[S; P]) {
        self.steps += 1;
        momentum_step(self.eta, self.alpha, &mut self.cache, parameters, gradient);
    }

    fn steps(&self) -> u64 {
        self.steps
    }
}

/// `θ += −η g`, entry by entry.
fn gradient_step<S: Field>(eta: S, parameters: &mut [S], g: &[S]) {
    for (theta, g) in parameters.iter_mut().zip(g) {
        *theta += -eta * *g;
    }
}

/// `B ← αB + g`, `θ += −η B`, entry by entry.
fn momentum_step<S: Field>(eta: S, alpha: S, cache: &mut [S], parameters: &mut [S], g: &[S]) {
    for ((theta, b), g) in parameters.iter_mut().zip(cache).zip(g) {
        *b = alpha * *b + *g;
        *theta += -eta * *b;
    }
}

/// Adam's constants and its two caches (`[S; P]` at compile-time sizes, `Vec<S>` at run-time
/// ones), shared by [`AdamOptimizer`], [`AdamOptimizerWithDecay`] and [`FlatOptimizer`], which
/// differ only in the learning rate of a step.
#[derive(Debug, Clone, Copy, PartialEq)]
struct AdamState<S, C> {
    rho1: S,
    rho2: S,
    delta: S,
    first: C,
    second: C,
    steps: u64,
}

impl<S: RealField + Copy, C: AsMut<[S]>> AdamState<S, C> {
    fn with_caches(rho1: S, rho2: S, delta: S, first: C, second: C) -> Self {
        Self {
            rho1,
            rho2,
            delta,
            first,
            second,
            steps: 0,
        }
    }

    /// GML's `update!` for Adam at the next step `t`, with learning rate `eta`, then
    /// `θ += velocity`.
    fn step(&mut self, eta: S, parameters: &mut [S], gradient: &[S]) {
        self.steps += 1;
        let t = literal::<S>(self.steps as f64);
        let one = S::one();
        let rho1_t = self.rho1.powf(t);
        let rho2_t = self.rho2.powf(t);
        let keep1 = (self.rho1 - rho1_t) / (one - rho1_t);
        let new1 = (one - self.rho1) / (one - rho1_t);
        let keep2 = (self.rho2 - rho2_t) / (one - rho2_t);
        let new2 = (one - self.rho2) / (one - rho2_t);
        let caches = self.first.as_mut().iter_mut().zip(self.second.as_mut());
        for ((theta, (b1, b2)), g) in parameters.iter_mut().zip(caches).zip(gradient) {
            *b1 = keep1 * *b1 + new1 * *g;
            *b2 = keep2 * *b2 + new2 * (*g * *g);
            *theta += -eta * (*b1 / (b2.sqrt() + self.delta));
        }
    }
}

impl<S: RealField + Copy, const P: usize> AdamState<S, [S; P]> {
    fn new(rho1: S, rho2: S, delta: S) -> Self {
        Self::with_caches(rho1, rho2, delta, [S::zero(); P], [S::zero(); P])
    }
}

/// GML's `AdamOptimizer(η, ρ₁, ρ₂, δ)`, as its code computes it at step `t`:
///
/// - `B₁ ← ((ρ₁ − ρ₁ᵗ)/(1 − ρ₁ᵗ)) B₁ + ((1 − ρ₁)/(1 − ρ₁ᵗ)) g`,
/// - `B₂ ← ((ρ₂ − ρ₂ᵗ)/(1 − ρ₂ᵗ)) B₂ + ((1 − ρ₂)/(1 − ρ₂ᵗ)) g⊙g`,
/// - velocity `−η · B₁ / (√B₂ + δ)`, elementwise.
///
/// GML's docstring writes `√(B₂ + δ)` and `ρ₁ᵗ` in `B₂`'s first numerator; its code, which
/// trained GML's networks, has `√B₂ + δ` and `ρ₂ᵗ`, as here. `B₁`, `B₂` are already the
/// bias-corrected averages (not Kingma and Ba's `m`, `v`). `ρᵗ` is `powf` of the scalar, which
/// may differ from Julia's `ρ^t` in the last bit.
///
/// ```
/// use geomattn::train::{AdamOptimizer, Optimizer};
/// let mut adam = AdamOptimizer::<f64, 2>::new(0.1, 0.9, 0.99, 0.0);
/// let mut theta = [0.0, 0.0];
/// adam.step(&mut theta, &[4.0, -0.5]);
/// // At t = 1, B₁ = g and B₂ = g⊙g: every entry moves by η against its gradient's sign.
/// assert_eq!(theta, [-0.1, 0.1]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamOptimizer<S, const P: usize> {
    eta: S,
    state: AdamState<S, [S; P]>,
}

impl<S: RealField + Copy, const P: usize> AdamOptimizer<S, P> {
    /// Learning rate `eta`, decay rates `rho1`, `rho2`, and `delta`; the caches start at zero.
    pub fn new(eta: S, rho1: S, rho2: S, delta: S) -> Self {
        Self {
            eta,
            state: AdamState::new(rho1, rho2, delta),
        }
    }
}

impl<S: RealField + Copy, const P: usize> Default for AdamOptimizer<S, P> {
    /// GML's defaults, the `Float32` literals η = 1f-3, ρ₁ = 9f-1, ρ₂ = 9.9f-1, δ = 3f-7.
    fn default() -> Self {
        let [eta, rho1, rho2, delta] = ADAM.map(widened);
        Self::new(eta, rho1, rho2, delta)
    }
}

impl<S: RealField + Copy, const P: usize> AdamOptimizer<S, P> {
    /// GML's defaults with the learning rate `eta`.
    ///
    /// ```
    /// use geomattn::train::AdamOptimizer;
    /// let adam = AdamOptimizer::<f64, 2>::with_learning_rate(0.5);
    /// assert_eq!(adam, AdamOptimizer::new(0.5, 0.9_f32.into(), 0.99_f32.into(), 3e-7_f32.into()));
    /// ```
    pub fn with_learning_rate(eta: S) -> Self {
        let default = Self::default();
        Self { eta, ..default }
    }
}

impl<S: RealField + Copy, const P: usize> Optimizer<S, P> for AdamOptimizer<S, P> {
    fn step(&mut self, parameters: &mut [S; P], gradient: &[S; P]) {
        self.state.step(self.eta, parameters, gradient);
    }

    fn steps(&self) -> u64 {
        self.state.steps
    }
}

/// GML's `AdamOptimizerWithDecay(n_epochs, η₁, η₂, ρ₁, ρ₂, δ)`: [`AdamOptimizer`] with the
/// learning rate `η = γᵗ η₁` at step `t`, `γ = exp(log(η₂/η₁)/n_epochs)`.
///
/// GML's quirk, reproduced: `t` counts minibatches, not epochs, so η reaches `η₂` after
/// `n_epochs` minibatch steps (an epoch has several) and keeps decaying below it afterwards.
/// Its default `δ = 1f-8` differs from [`AdamOptimizer`]'s `3f-7`.
///
/// ```
/// use geomattn::train::{AdamOptimizerWithDecay, Optimizer};
/// let two = std::num::NonZeroU64::new(2).unwrap();
/// let mut adam = AdamOptimizerWithDecay::<f64, 1>::new(two, 1e-2, 1e-4, 0.9, 0.99, 0.0);
/// let mut theta = [0.0];
/// adam.step(&mut theta, &[1.0]); // η = γ η₁ = 1e-3
/// assert!((theta[0] + 1e-3).abs() < 1e-15);
/// assert!((adam.learning_rate(2) - 1e-4).abs() < 1e-17);
/// assert!((adam.learning_rate(4) - 1e-6).abs() < 1e-18); // past η₂: GML's quirk
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamOptimizerWithDecay<S, const P: usize> {
    eta1: S,
    gamma: S,
    state: AdamState<S, [S; P]>,
}

impl<S: RealField + Copy, const P: usize> AdamOptimizerWithDecay<S, P> {
    /// η decaying from `eta1` towards `eta2` over `n_epochs` steps (minibatches, see above), and
    /// Adam's `rho1`, `rho2`, `delta`. `γ` is computed in `S`, as GML computes it in the type
    /// of `η₁` (`n_epochs` is non-zero: GML would divide by zero).
    pub fn new(n_epochs: NonZeroU64, eta1: S, eta2: S, rho1: S, rho2: S, delta: S) -> Self {
        let gamma = decay_rate(n_epochs, eta1, eta2);
        Self {
            eta1,
            gamma,
            state: AdamState::new(rho1, rho2, delta),
        }
    }

    /// GML's defaults for `n_epochs`: the `Float32` literals η₁ = 1f-2, η₂ = 1f-6, ρ₁ = 9f-1,
    /// ρ₂ = 9.9f-1, δ = 1f-8.
    pub fn with_defaults(n_epochs: NonZeroU64) -> Self {
        let [eta1, eta2, rho1, rho2, delta] = ADAM_WITH_DECAY.map(widened);
        Self::new(n_epochs, eta1, eta2, rho1, rho2, delta)
    }

    /// GML's defaults with the initial learning rate `eta1` (η₂ = 1f-6 still).
    pub fn with_initial_rate(n_epochs: NonZeroU64, eta1: S) -> Self {
        let [_, eta2, rho1, rho2, delta] = ADAM_WITH_DECAY.map(widened);
        Self::new(n_epochs, eta1, eta2, rho1, rho2, delta)
    }

    /// The learning rate of step `t` (counted from 1), `γᵗ η₁`.
    pub fn learning_rate(&self, t: u64) -> S {
        decayed(self.eta1, self.gamma, t)
    }
}

impl<S: RealField + Copy, const P: usize> Optimizer<S, P> for AdamOptimizerWithDecay<S, P> {
    fn step(&mut self, parameters: &mut [S; P], gradient: &[S; P]) {
        let eta = self.learning_rate(self.state.steps + 1);
        self.state.step(eta, parameters, gradient);
    }

    fn steps(&self) -> u64 {
        self.state.steps
    }
}

/// `γ = exp(log(η₂/η₁)/n_epochs)`, computed in `S` as GML computes it in the type of `η₁`.
fn decay_rate<S: RealField + Copy>(n_epochs: NonZeroU64, eta1: S, eta2: S) -> S {
    ((eta2 / eta1).ln() / literal::<S>(n_epochs.get() as f64)).exp()
}

/// `γᵗ η₁`.
fn decayed<S: RealField + Copy>(eta1: S, gamma: S, t: u64) -> S {
    gamma.powf(literal(t as f64)) * eta1
}

/// One of GML's optimisers over a number of parameters known only at run time (a network read
/// from a file, trained on the run-time engine): the updates of [`GradientOptimizer`],
/// [`MomentumOptimizer`], [`AdamOptimizer`] and [`AdamOptimizerWithDecay`], entry by entry the
/// same, their caches of the length given.
///
/// ```
/// use geomattn::train::{AdamOptimizer, FlatOptimizer, Optimizer};
/// let mut fixed = AdamOptimizer::<f64, 2>::with_learning_rate(0.1);
/// let mut flat = FlatOptimizer::adam(2, Some(0.1));
/// let (mut a, mut b) = ([1.0, -1.0], vec![1.0, -1.0]);
/// for g in [[0.5, 2.0], [-1.0, 0.25]] {
///     fixed.step(&mut a, &g);
///     flat.step(&mut b, &g)?;
/// }
/// assert_eq!(a.as_slice(), b.as_slice());
/// assert_eq!(flat.steps(), 2);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[cfg(feature = "std")]
#[derive(Debug, Clone, PartialEq)]
pub struct FlatOptimizer<S> {
    len: usize,
    kind: Flat<S>,
}

#[cfg(feature = "std")]
#[derive(Debug, Clone, PartialEq)]
enum Flat<S> {
    Gradient(GradientOptimizer<S>),
    Momentum {
        eta: S,
        alpha: S,
        cache: std::vec::Vec<S>,
        steps: u64,
    },
    Adam {
        eta: S,
        state: AdamState<S, std::vec::Vec<S>>,
    },
    AdamWithDecay {
        eta1: S,
        gamma: S,
        state: AdamState<S, std::vec::Vec<S>>,
    },
}

#[cfg(feature = "std")]
impl<S: RealField + Copy> FlatOptimizer<S> {
    /// [`GradientOptimizer`] over `len` parameters: GML's default η, or `eta`.
    pub fn gradient(len: usize, eta: Option<S>) -> Self {
        let eta = eta.unwrap_or_else(|| literal(GRADIENT_ETA));
        Self {
            len,
            kind: Flat::Gradient(GradientOptimizer::new(eta)),
        }
    }

    /// [`MomentumOptimizer`] over `len` parameters: GML's defaults, with `eta` if given.
    pub fn momentum(len: usize, eta: Option<S>) -> Self {
        let eta = eta.unwrap_or_else(|| literal(MOMENTUM[0]));
        let (alpha, cache, steps) = (literal(MOMENTUM[1]), std::vec![S::zero(); len], 0);
        Self {
            len,
            kind: Flat::Momentum {
                eta,
                alpha,
                cache,
                steps,
            },
        }
    }

    /// [`AdamOptimizer`] over `len` parameters: GML's defaults, with `eta` if given.
    pub fn adam(len: usize, eta: Option<S>) -> Self {
        let [default_eta, rho1, rho2, delta] = ADAM.map(widened);
        let state = Self::adam_state(len, rho1, rho2, delta);
        let eta = eta.unwrap_or(default_eta);
        Self {
            len,
            kind: Flat::Adam { eta, state },
        }
    }

    /// [`AdamOptimizerWithDecay`] over `len` parameters for `n_epochs`: GML's defaults, with
    /// the initial rate `eta1` if given.
    pub fn adam_with_decay(len: usize, n_epochs: NonZeroU64, eta1: Option<S>) -> Self {
        let [default_eta1, eta2, rho1, rho2, delta] = ADAM_WITH_DECAY.map(widened);
        let eta1 = eta1.unwrap_or(default_eta1);
        let gamma = decay_rate(n_epochs, eta1, eta2);
        let state = Self::adam_state(len, rho1, rho2, delta);
        Self {
            len,
            kind: Flat::AdamWithDecay { eta1, gamma, state },
        }
    }

    fn adam_state(len: usize, rho1: S, rho2: S, delta: S) -> AdamState<S, std::vec::Vec<S>> {
        let zeros = || std::vec![S::zero(); len];
        AdamState::with_caches(rho1, rho2, delta, zeros(), zeros())
    }

    /// One minibatch's step (as [`Optimizer::step`]).
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `parameters` or `gradient` does not have the optimiser's
    /// length (then nothing changes).
    pub fn step(&mut self, parameters: &mut [S], gradient: &[S]) -> Result<(), Error> {
        check_lengths(self.len, parameters, gradient)?;
        match &mut self.kind {
            Flat::Gradient(o) => {
                o.steps += 1;
                gradient_step(o.eta, parameters, gradient);
            }
            Flat::Momentum {
                eta,
                alpha,
                cache,
                steps,
            } => {
                *steps += 1;
                momentum_step(*eta, *alpha, cache, parameters, gradient);
            }
            Flat::Adam { eta, state } => state.step(*eta, parameters, gradient),
            Flat::AdamWithDecay { eta1, gamma, state } => {
                let eta = decayed(*eta1, *gamma, state.steps + 1);
                state.step(eta, parameters, gradient);
            }
        }
        Ok(())
    }

    /// The steps taken so far.
    pub fn steps(&self) -> u64 {
        match &self.kind {
            Flat::Gradient(o) => o.steps,
            Flat::Momentum { steps, .. } => *steps,
            Flat::Adam { state, .. } | Flat::AdamWithDecay { state, .. } => state.steps,
        }
    }
}
