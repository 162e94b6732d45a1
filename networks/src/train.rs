//! Training a network named by its spec as GML 0.4.8 trains it (`geomattn train`), written in
//! GML's own HDF5 layout so that GML's `load` reads it.
//!
//! What is trained: every integrator, every size and any `L`, with exact gradients. Where:
//! - on the run-time engine, the volume-preserving networks (`vpt` off the grid, `vpff`), the
//!   standard transformer (`st`) and the symplectic ones (`sympt` with `transformer_dim = dim`,
//!   `lsympt`) of any size and option (`init_upper`, heads, `transformer_dim` with its Dense
//!   maps, `attention_activation`, `symmetric`, `n_sympnet`, `upscaling_dimension`): GML's chain
//!   of the engine's layers, each with its backward pass ([`geomattn::engine::Backward`]), the
//!   parameters one flat vector in GML's order stepped by [`geomattn::train::FlatOptimizer`],
//!   eight windows at a time in `f64` lanes with the vectorised functions and fused products;
//! - the grid's `vpt` on its compiled lane path ([`geomattn::Lanewise`]), 2.6× the engine's speed
//!   on GML's rigid-body tutorial;
//! - not yet: a symplectic transformer with `transformer_dim ≠ dim`, whose PSD layers GML trains
//!   on the Stiefel manifold with its manifold optimisers.
//!
//! `vpff` trains on windows of one state and the next, as GML's `Batch(batch_size)` draws them
//! for it.
//!
//! How, step by step as GML does it ([`geomattn::train`]):
//! - the weights are Glorot-uniform, biases zero ([`geomattn::init::glorot_network`]), or
//!   those of a GML file ([`Options::initial`]);
//! - each epoch draws every window once (`seq` states, and the `seq` states after them as the
//!   target) in GML's order: start times and trajectories shuffled, the start varying fastest;
//! - each minibatch of `batch` windows is one step of the optimiser on GML's transformer loss
//!   `‖NN(X) − Y‖ / ‖Y‖` over the minibatch, its gradient exact;
//! - the epoch's loss is the mean of its minibatches' losses, each before its step.
//!
//! The arithmetic is `f64` throughout (GML computes in the network's element type, `Float32` in
//! its tutorial); the vectorised functions are within a few units in the last place of the
//! scalar ones, forward and backward alike. The file stores the weights as [`Storage::Float32`]
//! (GML's default, rounded once) or [`Storage::Float64`].
//!
//! ```
//! use geomattn_networks::train::{Data, Optimizer, Options, train};
//! let arch = "vpt(dim=3, seq=3, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=false)";
//! let data = Data::rigid_body(2, 21); // two trajectories of 21 states
//! let options = Options { epochs: 3, batch: 8, ..Options::default() };
//! let mut losses = Vec::new();
//! let trained = train(&arch.parse()?, &data, &options, &mut |epoch| losses.push(epoch.loss))?;
//! assert_eq!(losses.len(), 3);
//! assert!(losses[2] < losses[0]);
//! assert!(geomattn::gml::GmlFile::from_bytes(trained.file)?.layers()?.len() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::marker::PhantomData;
use std::num::NonZeroU64;
use std::path::PathBuf;

use geomattn::gml::{GmlWriter, SaveError, Storage};
use geomattn::init::glorot_network;
use geomattn::nalgebra::SMatrix;
use geomattn::train::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer as Step,
    loss_gradient, window_order,
};
use geomattn::{
    ArbitraryWeight, Backward, LaneBackward, LaneTwin, Lanewise, Schema, SkewWeight, Tanh,
    VolumePreservingAttention, VolumePreservingFeedForward, from_flat, to_flat,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::dispatch::{off_grid, on_grid, read, units};
use crate::grid;
use crate::{Activation, Arch, Error};

mod chain;
mod data;

pub use data::Data;

/// GML's optimisers, with GML's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optimizer {
    /// `AdamOptimizer()`: η = 1e-3.
    Adam,
    /// `AdamOptimizerWithDecay(n_epochs)`: η from 1e-2 down to 1e-6 (GML's tutorial).
    AdamWithDecay,
    /// `MomentumOptimizer()`: η = 1e-3, α = 1e-2.
    Momentum,
    /// `GradientOptimizer()`: η = 1e-2.
    Gradient,
}

/// How to train.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Epochs (each draws every window once).
    pub epochs: u64,
    /// Windows per minibatch.
    pub batch: usize,
    /// The optimiser.
    pub optimizer: Optimizer,
    /// The learning rate η, instead of the optimiser's default (for `AdamWithDecay`, its η₁).
    pub learning_rate: Option<f64>,
    /// `AdamWithDecay`'s `n_epochs`, when not [`epochs`](Self::epochs): GML's
    /// `AdamOptimizerWithDecay(n_epochs)` takes it apart from the epochs trained, and η reaches
    /// 1e-6 after `n_epochs` *minibatch steps* (GML's own count), then keeps falling. An error
    /// with another optimiser.
    pub decay_epochs: Option<u64>,
    /// The seed of the initial weights and of every epoch's shuffle.
    pub seed: u64,
    /// The element type of the written file.
    pub storage: Storage,
    /// Also hand the network, as a GML file, to the epoch callback after every this many epochs
    /// ([`Epoch::checkpoint`]), so that a long run can be stopped and its last checkpoint used.
    /// `None`: only at the end. An error if `Some(0)`.
    pub checkpoint_every: Option<u64>,
    /// A GML file of the architecture to start from (a checkpoint, or a network trained in
    /// GML) instead of Glorot-uniform weights. The optimiser starts afresh: GML's files hold no
    /// optimiser state. `seed` then seeds the shuffles only.
    pub initial: Option<PathBuf>,
}

impl Default for Options {
    /// 100 epochs of minibatches of 128 with Adam, seed 0, stored as Float32.
    fn default() -> Self {
        Self {
            epochs: 100,
            batch: 128,
            optimizer: Optimizer::Adam,
            learning_rate: None,
            decay_epochs: None,
            seed: 0,
            storage: Storage::Float32,
            checkpoint_every: None,
            initial: None,
        }
    }
}

/// One finished epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Epoch<'a> {
    /// Its number, from 1.
    pub epoch: u64,
    /// The mean of its minibatches' losses.
    pub loss: f64,
    /// The windows it drew.
    pub windows: usize,
    /// The network after this epoch, as a GML file (as [`Trained::file`]), when the epoch is a
    /// multiple of [`Options::checkpoint_every`].
    pub checkpoint: Option<&'a [u8]>,
}

/// A trained network.
#[derive(Debug, Clone, PartialEq)]
pub struct Trained {
    /// The HDF5 file in GML's layout.
    pub file: Vec<u8>,
    /// Each epoch's loss.
    pub losses: Vec<f64>,
}

/// Trains `arch` on `data` (see the [module docs](self)), calling `on_epoch` after each epoch.
///
/// # Errors
/// [`Error::Unsupported`] for the classifier, and for a network with a layer GML trains on a
/// manifold (the PSD layers of a symplectic transformer with `transformer_dim ≠ dim`), naming
/// it; [`Error::Length`]
/// if the data's states are not `dim` long; [`Error::Train`] if the options cannot train (no
/// epoch, an empty batch, trajectories shorter than two windows) or the loss stops being defined
/// (all-zero targets, a non-finite output).
pub fn train(
    arch: &Arch,
    data: &Data,
    options: &Options,
    on_epoch: &mut dyn FnMut(Epoch<'_>),
) -> Result<Trained, Error> {
    // Every network whose layers all have run-time backward passes on the engine, except the
    // grid's `vpt`, whose compiled lane path is faster (2.6× on GML's tutorial, measured).
    let engine_first = !matches!(arch, Arch::Vpt(_)) && chain::trains(arch);
    let start = if engine_first {
        None
    } else {
        match on_grid!(arch, f64, train_on_grid, ()) {
            Ok(start) => Some(start),
            Err(Error::OffGrid { .. } | Error::Unsupported { .. }) if chain::trains(arch) => None,
            Err(Error::OffGrid { .. } | Error::Unsupported { .. })
                if !matches!(arch, Arch::Ct(_)) =>
            {
                return Err(chain::untrainable(arch));
            }
            Err(error) => return Err(error),
        }
    };
    let plan = Plan::new(arch, data, options)?;
    let mut rng = SmallRng::seed_from_u64(options.seed);
    let minibatch = options.batch.min(plan.starts.saturating_mul(data.count()));
    let mut trainee = match start {
        Some(start) => start(arch, options, plan.decay_epochs, minibatch, &mut rng)?,
        None => chain::ChainTraining::start(arch, options, plan.decay_epochs, minibatch, &mut rng)?,
    };
    let mut windows = Windows::default();
    let mut losses = Vec::new();
    for epoch in 1..=options.epochs {
        let order = window_order(plan.starts, data.count(), &mut rng);
        let mut total = 0.0;
        for minibatch in order.chunks(options.batch) {
            windows.fill(data, minibatch, plan.seq);
            total += trainee
                .step(&windows.inputs, &windows.targets)
                .map_err(|e| train_error(format!("epoch {epoch}: {e}")))?;
        }
        #[allow(clippy::cast_precision_loss)]
        let loss = total / order.len().div_ceil(options.batch) as f64;
        losses.push(loss);
        let first = losses[0];
        // (A first epoch that fits exactly, loss 0, is measured against 1.)
        let scale = if first > 0.0 { first.min(1.0) } else { 1.0 };
        let diverged = loss > DIVERGED * scale;
        // No checkpoint of a diverged network: the last one kept is the last good one.
        let checkpoint = match options.checkpoint_every {
            Some(every) if epoch % every == 0 && !diverged => Some(trainee.file(options.storage)?),
            _ => None,
        };
        on_epoch(Epoch {
            epoch,
            loss,
            windows: order.len(),
            checkpoint: checkpoint.as_deref(),
        });
        if diverged {
            return Err(Error::TrainingDiverged { epoch, loss, first });
        }
    }
    let file = trainee.file(options.storage)?;
    Ok(Trained { file, losses })
}

/// How far an epoch's loss may grow before training counts as diverged: past this many times
/// the smaller of epoch 1's loss and 1, the loss of a network that outputs zeros (GML's losses
/// are relative errors). Adam at a learning rate of 10⁵ on the rigid body reaches 10⁸¹.
pub const DIVERGED: f64 = 1e3;

fn train_error(reason: String) -> Error {
    Error::Train { reason }
}

/// What the options and the data fix before the first epoch, checked in this order.
struct Plan {
    /// States per window.
    seq: usize,
    /// Windows per trajectory.
    starts: usize,
    /// `AdamWithDecay`'s `n_epochs`.
    decay_epochs: NonZeroU64,
}

impl Plan {
    fn new(arch: &Arch, data: &Data, options: &Options) -> Result<Self, Error> {
        let seq = arch.seq();
        if data.dim() != arch.dim() {
            return Err(Error::Length {
                what: "a state of the training data",
                arch: arch.to_string(),
                expected: arch.dim().to_string(),
                found: data.dim(),
            });
        }
        if data.count() == 0 {
            return Err(train_error("there are no trajectories to train on".into()));
        }
        let epochs = NonZeroU64::new(options.epochs)
            .ok_or_else(|| train_error("the number of epochs must be at least 1".into()))?;
        if options.batch == 0 {
            return Err(train_error("the batch size must be at least 1".into()));
        }
        if options.checkpoint_every == Some(0) {
            return Err(train_error(
                "the checkpoint interval must be at least 1 epoch".into(),
            ));
        }
        let decay_epochs = match (options.decay_epochs, options.optimizer) {
            (None, _) => epochs,
            (Some(n), Optimizer::AdamWithDecay) => NonZeroU64::new(n)
                .ok_or_else(|| train_error("the decay's n_epochs must be at least 1".into()))?,
            (Some(_), _) => {
                return Err(train_error(
                    "the decay's n_epochs (--decay-epochs) is an option of adam-with-decay \
                     (AdamOptimizerWithDecay) only"
                        .into(),
                ));
            }
        };
        // GML's windows: `seq` states and the `seq` after them, from every start that has both.
        let starts = (data.length() + 1).saturating_sub(2 * seq);
        if starts == 0 {
            return Err(train_error(format!(
                "a trajectory of {} states holds no window of seq = {seq} states and the {seq} \
                 after it (it needs at least {})",
                data.length(),
                2 * seq
            )));
        }
        Ok(Self {
            seq,
            starts,
            decay_epochs,
        })
    }
}

/// A minibatch's windows, flat `(D, T, B)`: the inputs (`T` states from each start) and the
/// targets (the `T` states after them), in the order of [`window_order`]'s pairs. A window of
/// consecutive states is one slice of a trajectory's values.
#[derive(Default)]
struct Windows {
    inputs: Vec<f64>,
    targets: Vec<f64>,
}

impl Windows {
    fn fill(&mut self, data: &Data, minibatch: &[(usize, usize)], seq: usize) {
        let window = data.dim() * seq;
        self.inputs.clear();
        self.targets.clear();
        for &(start, trajectory) in minibatch {
            let values = &data.trajectory(trajectory)[start * data.dim()..];
            self.inputs.extend_from_slice(&values[..window]);
            self.targets.extend_from_slice(&values[window..2 * window]);
        }
    }
}

/// A network in training, its weights and optimisers: all that depends on the network's type,
/// behind one object-safe face, so that the epoch loop of [`train`] is compiled once rather than
/// once per network type of the grid.
trait Trainee {
    /// One minibatch (flat `(D, T, B)` inputs and targets): its loss before the step, then one
    /// step of every part's optimiser.
    fn step(&mut self, inputs: &[f64], targets: &[f64]) -> Result<f64, geomattn::Error>;

    /// The network as a GML file, each weight stored as `storage`.
    fn file(&self, storage: Storage) -> Result<Vec<u8>, Error>;
}

/// Starts the training of one network type: its initial weights (Glorot-uniform from `rng`, or
/// [`Options::initial`]) and its optimisers.
/// The `usize` is the number of windows a minibatch holds.
type Start =
    fn(&Arch, &Options, NonZeroU64, usize, &mut SmallRng) -> Result<Box<dyn Trainee>, Error>;

/// The callback of `on_grid!`: the [`Start`] of the units' parts' types of the grid's
/// volume-preserving transformer, which trains in lanes ([`InLanes`]).
macro_rules! train_on_grid {
    (vpt $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {
        train_on_grid!(@units InLanes, $d, $t, $att, $ff)
    };
    // The other networks train on the engine, at every size: their compiled types are not
    // instantiated for training.
    (vpff $a:ident, $S:ty, $d:literal, $net:ty, $ctx:expr) => {
        Err(on_the_engine($a))
    };
    ($kind:ident $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {
        Err(on_the_engine($a))
    };
    (@units $passes:ty, $d:literal, $t:literal, $att:ty, $ff:ty) => {
        Ok(Training::<
            $passes,
            $att,
            $ff,
            $d,
            $t,
            { <$att as Schema>::SCALARS },
            { <$ff as Schema>::SCALARS },
        >::start as Start)
    };
}
use train_on_grid;

/// What the grid's training answers for a network that trains on the engine (never asked: see
/// [`train`]).
fn on_the_engine(arch: &Arch) -> Error {
    Error::Unsupported {
        arch: arch.to_string(),
        reason: "trains on the run-time engine".into(),
    }
}

/// One of GML's optimisers over `P` parameters.
enum AnyOptimizer<const P: usize> {
    Adam(AdamOptimizer<f64, P>),
    AdamWithDecay(AdamOptimizerWithDecay<f64, P>),
    Momentum(MomentumOptimizer<f64, P>),
    Gradient(GradientOptimizer<f64>),
}

impl<const P: usize> AnyOptimizer<P> {
    fn new(options: &Options, epochs: NonZeroU64) -> Self {
        match (options.optimizer, options.learning_rate) {
            (Optimizer::Adam, None) => Self::Adam(AdamOptimizer::default()),
            (Optimizer::Adam, Some(eta)) => Self::Adam(AdamOptimizer::with_learning_rate(eta)),
            (Optimizer::AdamWithDecay, None) => {
                Self::AdamWithDecay(AdamOptimizerWithDecay::with_defaults(epochs))
            }
            (Optimizer::AdamWithDecay, Some(eta)) => {
                Self::AdamWithDecay(AdamOptimizerWithDecay::with_initial_rate(epochs, eta))
            }
            (Optimizer::Momentum, None) => Self::Momentum(MomentumOptimizer::default()),
            (Optimizer::Momentum, Some(eta)) => {
                Self::Momentum(MomentumOptimizer::with_learning_rate(eta))
            }
            (Optimizer::Gradient, None) => Self::Gradient(GradientOptimizer::default()),
            (Optimizer::Gradient, Some(eta)) => Self::Gradient(GradientOptimizer::new(eta)),
        }
    }

    /// `Optimizer::step_network`, with the network flattened once for whichever optimiser this
    /// is (`step_network` of each of the four would be compiled for every part type of the grid).
    fn step<N: Schema<Scalar = f64>, G: Schema<Scalar = f64>>(
        &mut self,
        net: &mut N,
        gradient: &G,
    ) -> Result<(), geomattn::Error> {
        let mut parameters = [0.0; P];
        let mut flat_gradient = [0.0; P];
        to_flat(net, &mut parameters)?;
        to_flat(gradient, &mut flat_gradient)?;
        match self {
            Self::Adam(o) => o.step(&mut parameters, &flat_gradient),
            Self::AdamWithDecay(o) => o.step(&mut parameters, &flat_gradient),
            Self::Momentum(o) => o.step(&mut parameters, &flat_gradient),
            Self::Gradient(o) => Step::<f64, P>::step(o, &mut parameters, &flat_gradient),
        }
        *net = from_flat(&parameters)?;
        Ok(())
    }
}

/// The units `(Att, Ff)` of a transformer on windows of `T` states in `R^D` in training, their
/// passes run by `P`; `PA` and `PF` are the parts' parameter counts.
struct Training<P, Att, Ff, const D: usize, const T: usize, const PA: usize, const PF: usize> {
    units: Vec<(Att, Ff)>,
    optimizers: Vec<(AnyOptimizer<PA>, AnyOptimizer<PF>)>,
    work: Workspace<D, T>,
    passes: PhantomData<P>,
}

impl<P, Att, Ff, const D: usize, const T: usize, const PA: usize, const PF: usize>
    Training<P, Att, Ff, D, T, PA, PF>
where
    P: Passes<Att, D, T> + Passes<Ff, D, T> + 'static,
    Att: Unit<D, T> + 'static,
    Ff: Unit<D, T> + 'static,
{
    fn start(
        arch: &Arch,
        options: &Options,
        decay_epochs: NonZeroU64,
        minibatch: usize,
        rng: &mut SmallRng,
    ) -> Result<Box<dyn Trainee>, Error> {
        Self::fits(arch.units(), minibatch)?;
        let glorot = |rng: &mut SmallRng| -> Result<(Att, Ff), Error> {
            let attention = glorot_network(rng).map_err(|e| train_error(e.to_string()))?;
            let feedforward = glorot_network(rng).map_err(|e| train_error(e.to_string()))?;
            Ok((attention, feedforward))
        };
        let units: Vec<(Att, Ff)> = match &options.initial {
            Some(path) => units::<Att, Ff>(&read(path)?, arch)?.0,
            None => (0..arch.units())
                .map(|_| glorot(rng))
                .collect::<Result<_, _>>()?,
        };
        let optimizers = units
            .iter()
            .map(|_| {
                (
                    AnyOptimizer::new(options, decay_epochs),
                    AnyOptimizer::new(options, decay_epochs),
                )
            })
            .collect();
        Ok(Box::new(Self {
            units,
            optimizers,
            work: Workspace::default(),
            passes: PhantomData,
        }))
    }
}

impl<P, Att, Ff, const D: usize, const T: usize, const PA: usize, const PF: usize>
    Training<P, Att, Ff, D, T, PA, PF>
{
    /// Refuses `units` units that cannot be allocated, before anything is: per unit its weights,
    /// their gradient, its optimisers, and the activations a minibatch of `minibatch` windows
    /// keeps for the backward pass (two `D×T` windows each). The allocator is asked for the sum
    /// (and gives it back at once): under a memory limit, or past what the system can map, the
    /// answer is no, where the same allocation in pieces would abort the process.
    fn fits(units: usize, minibatch: usize) -> Result<(), Error> {
        let per_unit = (2 * size_of::<(Att, Ff)>()
            + size_of::<(AnyOptimizer<PA>, AnyOptimizer<PF>)>())
        .checked_add(minibatch.saturating_mul(2 * D * T * size_of::<f64>()));
        let bytes = per_unit.and_then(|b| b.checked_mul(units));
        let allocates = bytes.is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
        if allocates {
            return Ok(());
        }
        #[allow(clippy::cast_precision_loss)]
        let gigabytes = bytes.map_or(f64::INFINITY, |b| b as f64 / 1e9);
        Err(train_error(format!(
            "L = {units} units need {gigabytes:.3e} GB to train on minibatches of {minibatch} \
             windows (weights, optimiser state, activations), more than can be allocated"
        )))
    }
}

impl<P, Att, Ff, const D: usize, const T: usize, const PA: usize, const PF: usize> Trainee
    for Training<P, Att, Ff, D, T, PA, PF>
where
    P: Passes<Att, D, T> + Passes<Ff, D, T>,
    Att: Unit<D, T>,
    Ff: Unit<D, T>,
{
    fn step(&mut self, inputs: &[f64], targets: &[f64]) -> Result<f64, geomattn::Error> {
        let targets: Vec<SMatrix<f64, D, T>> = targets
            .chunks_exact(D * T)
            .map(SMatrix::from_column_slice)
            .collect();
        let (loss, gradients) =
            minibatch_gradient::<P, _, _, D, T>(&self.units, inputs, &targets, &mut self.work)?;
        let parts = self.units.iter_mut().zip(&mut self.optimizers);
        for (((attention, feedforward), (opt_a, opt_f)), (g_a, g_f)) in parts.zip(&gradients) {
            opt_a.step(attention, g_a)?;
            opt_f.step(feedforward, g_f)?;
        }
        Ok(loss)
    }

    fn file(&self, storage: Storage) -> Result<Vec<u8>, Error> {
        gml_file(&self.units, storage)
    }
}

/// The units as a GML file, each weight stored as `storage`.
fn gml_file<Att, Ff>(units: &[(Att, Ff)], storage: Storage) -> Result<Vec<u8>, Error>
where
    Att: Schema<Scalar = f64>,
    Ff: Schema<Scalar = f64>,
{
    let train_error = |e: SaveError| Error::Train {
        reason: e.to_string(),
    };
    let mut writer = GmlWriter::new(storage);
    for (attention, feedforward) in units {
        writer.write(attention).map_err(train_error)?;
        writer.write(feedforward).map_err(train_error)?;
    }
    writer.finish().map_err(train_error)
}

/// The buffers of one minibatch's passes, kept from minibatch to minibatch: allocated per
/// minibatch, these ~1 MB buffers (at the tutorial's batch of 16 384 windows) cost 13 % of an
/// epoch in page faults.
#[derive(Default)]
struct Workspace<const D: usize, const T: usize> {
    /// Each unit's attention output and unit output, flat.
    kept: Vec<(Vec<f64>, Vec<f64>)>,
    /// The network's outputs and the loss's cotangents, window by window.
    outputs: Vec<SMatrix<f64, D, T>>,
    out_bar: Vec<SMatrix<f64, D, T>>,
    /// The cotangents of a unit's output and of its attention output, flat.
    bar: Vec<f64>,
    attended_bar: Vec<f64>,
}

/// The loss of the units on one minibatch, and each unit's gradient: one forward pass per window
/// by `P`, keeping each unit's attention output and output; then the loss's gradient, and the
/// backward passes through the units in reverse (the gradient summed over the minibatch).
#[allow(clippy::type_complexity)]
fn minibatch_gradient<P, Att, Ff, const D: usize, const T: usize>(
    units: &[(Att, Ff)],
    inputs: &[f64],
    targets: &[SMatrix<f64, D, T>],
    work: &mut Workspace<D, T>,
) -> Result<(f64, Vec<(Att::Gradient, Ff::Gradient)>), geomattn::Error>
where
    P: Passes<Att, D, T> + Passes<Ff, D, T>,
    Att: Unit<D, T>,
    Ff: Unit<D, T>,
{
    let n = inputs.len();
    work.kept.resize_with(units.len(), Default::default);
    for (i, &(attention, feedforward)) in units.iter().enumerate() {
        let (before, after) = work.kept.split_at_mut(i);
        let z = before
            .last()
            .map_or(inputs, |(_, output)| output.as_slice());
        let (attended, output) = &mut after[0];
        attended.resize(n, 0.0);
        output.resize(n, 0.0);
        <P as Passes<Att, D, T>>::forward(attention, z, attended)?;
        <P as Passes<Ff, D, T>>::forward(feedforward, attended, output)?;
    }
    let output = work
        .kept
        .last()
        .map_or(inputs, |(_, output)| output.as_slice());
    work.outputs.clear();
    work.outputs
        .extend(output.chunks_exact(D * T).map(SMatrix::from_column_slice));
    work.out_bar.resize(targets.len(), SMatrix::zeros());
    let loss = loss_gradient(&work.outputs, targets, &mut work.out_bar)?;
    work.bar.clear();
    work.bar
        .extend(work.out_bar.iter().flat_map(|m| m.iter().copied()));
    work.attended_bar.resize(n, 0.0);
    let mut gradients = Vec::with_capacity(units.len());
    for (i, &(attention, feedforward)) in units.iter().enumerate().rev() {
        let z = i
            .checked_sub(1)
            .map_or(inputs, |before| work.kept[before].1.as_slice());
        let attended = &work.kept[i].0;
        let (mut g_a, mut g_f) = (attention.zero_gradient(), feedforward.zero_gradient());
        <P as Passes<Ff, D, T>>::backward(
            feedforward,
            attended,
            &work.bar,
            &mut work.attended_bar,
            &mut g_f,
        )?;
        <P as Passes<Att, D, T>>::backward(
            attention,
            z,
            &work.attended_bar,
            &mut work.bar,
            &mut g_a,
        )?;
        gradients.push((g_a, g_f));
    }
    gradients.reverse();
    Ok((loss, gradients))
}

/// A part of a transformer unit that trains: its backward pass, and GML's layout of its weights
/// and gradient.
trait Unit<const D: usize, const T: usize>:
    Backward<f64, D, T, Gradient: Schema<Scalar = f64>> + Schema<Scalar = f64> + Copy
{
}

impl<L, const D: usize, const T: usize> Unit<D, T> for L where
    L: Backward<f64, D, T, Gradient: Schema<Scalar = f64>> + Schema<Scalar = f64> + Copy
{
}

/// How a part's forward and backward passes run over a minibatch's flat `(D, T, B)` buffers:
/// the backward pass writes `∂L/∂Z` into `z_bar` and adds the minibatch's `∂L/∂θ` to
/// `gradient`.
trait Passes<U: Unit<D, T>, const D: usize, const T: usize> {
    fn forward(part: U, z: &[f64], out: &mut [f64]) -> Result<(), geomattn::Error>;
    fn backward(
        part: U,
        z: &[f64],
        out_bar: &[f64],
        z_bar: &mut [f64],
        gradient: &mut U::Gradient,
    ) -> Result<(), geomattn::Error>;
}

/// In lanes ([`Lanewise`] with the vectorised `tanh` and fused products): the
/// volume-preserving transformer, whose training is what GML's tutorial runs.
struct InLanes;

impl<U, const D: usize, const T: usize> Passes<U, D, T> for InLanes
where
    U: Unit<D, T> + LaneTwin<D, T, Scalar = f64> + LaneBackward<f64, D, T>,
{
    fn forward(part: U, z: &[f64], out: &mut [f64]) -> Result<(), geomattn::Error> {
        Lanewise::new(part)
            .vector_functions()
            .forward_flat::<D, T>(z, out)
    }

    fn backward(
        part: U,
        z: &[f64],
        out_bar: &[f64],
        z_bar: &mut [f64],
        gradient: &mut U::Gradient,
    ) -> Result<(), geomattn::Error> {
        Lanewise::new(part)
            .vector_functions()
            .backward_flat::<f64, D, T>(z, out_bar, z_bar, gradient)
    }
}
