//! Training a network named by its spec as GML 0.4.8 trains it (`geomattn train`), written in
//! GML's own HDF5 layout so that GML's `load` reads it.
//!
//! What is trained: every integrator of any size and option (`init_upper`, heads,
//! `transformer_dim` with its Dense maps, `attention_activation`, `symmetric`, `n_sympnet`,
//! `upscaling_dimension`, any `L`), with exact gradients, on the run-time engine: GML's chain of
//! the engine's layers, each with its backward pass ([`geomattn::engine::Backward`]), the
//! parameters one flat vector in GML's order stepped by [`geomattn::train::ManifoldOptimizer`],
//! eight windows at a time in `f64` lanes with the vectorised functions and fused products.
//! A symplectic transformer with `transformer_dim ≠ dim` trains its `PSDLayer`s' weights on the
//! Stiefel manifold as GML's manifold optimisers do (global sections, the Cayley retraction).
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

use std::num::NonZeroU64;
use std::path::PathBuf;

use geomattn::gml::Storage;
use geomattn::train::window_order;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::error::Error;
use geomattn_arch::Arch;

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
/// [`Error::Unsupported`] for the classifier (its layers have no backward pass);
/// [`Error::Length`] if the data's states are not `dim` long; [`Error::Train`] if the options cannot train (no
/// epoch, an empty batch, trajectories shorter than two windows) or the loss stops being defined
/// (all-zero targets, a non-finite output).
pub fn train(
    arch: &Arch,
    data: &Data,
    options: &Options,
    on_epoch: &mut dyn FnMut(Epoch<'_>),
) -> Result<Trained, Error> {
    if !chain::trains(arch) {
        return Err(match arch {
            Arch::Ct(_) => Error::Unsupported {
                arch: arch.to_string(),
                reason:
                    "is a classifier, not an integrator: `geomattn train` trains the integrators"
                        .into(),
            },
            _ => chain::untrainable(arch),
        });
    }
    let plan = Plan::new(arch, data, options)?;
    let mut rng = SmallRng::seed_from_u64(options.seed);
    let minibatch = options.batch.min(plan.starts.saturating_mul(data.count()));
    let mut trainee =
        chain::ChainTraining::start(arch, options, plan.decay_epochs, minibatch, &mut rng)?;
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

/// A network in training, its weights and optimiser, behind the face the epoch loop of [`train`]
/// steps.
trait Trainee {
    /// One minibatch (flat `(D, T, B)` inputs and targets): its loss before the step, then one
    /// step of every part's optimiser.
    fn step(&mut self, inputs: &[f64], targets: &[f64]) -> Result<f64, geomattn::Error>;

    /// The network as a GML file, each weight stored as `storage`.
    fn file(&self, storage: Storage) -> Result<Vec<u8>, Error>;
}
