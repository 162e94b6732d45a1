//! `geomattn train --arch SPEC --data rigid-body|FILE --epochs N -o OUT.h5`: a network trained as
//! GML trains it ([`geomattn_networks::train`]), written in GML's HDF5 layout, so that GML's own
//! `load` (and every `geomattn` subcommand) reads it.
//!
//! One line per epoch on standard output (`epoch 3 loss 0.0123 …`), a progress bar on a
//! terminal, and optionally the losses as an SVG plot.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use geomattn::gml::Storage;
use geomattn_networks::Arch;
use geomattn_networks::train::{Data, Epoch, Optimizer, Options, train};
use indicatif::{ProgressBar, ProgressStyle};

use crate::count;
use crate::error::Failure;
use crate::output::{self, OutputFile};
use crate::plot;

/// The tutorial's data set: trajectories and states per trajectory.
const TUTORIAL_TRAJECTORIES: usize = 1238;
const TUTORIAL_STATES: usize = 101;

/// The arguments of `geomattn train`.
#[derive(clap::Args)]
pub struct Args {
    /// The architecture (see SPEC below): any integrator (`vpt`, `st`, `sympt`, `lsympt`, `vpff`)
    /// of any size, in lanes (`sympt` with `transformer_dim ≠ dim` too: its PSD layers' weights
    /// train on the Stiefel manifold, as GML trains them).
    #[arg(long, value_name = "SPEC")]
    arch: String,
    /// `rigid-body`: GML's tutorial data (1 238 rigid-body trajectories of 101 states, h = 0.2,
    /// from (sin α, 0, cos α) and (0, sin α, cos α), α = 0.1:0.01:2π). Or a CSV file: a header
    /// with columns `z1 … zd` (the state) and optionally `trajectory` (which trajectory a row
    /// belongs to; rows in time order, trajectories of equal length); other columns are ignored,
    /// so `geomattn rollout`'s output is a one-trajectory file.
    #[arg(long, value_name = "rigid-body|FILE")]
    data: String,
    /// Epochs, from 1 to 10⁹: each draws every window once, in GML's order.
    #[arg(long, value_name = "N", value_parser = count::epochs)]
    epochs: u64,
    /// Windows per minibatch (one optimiser step each), from 1 to 10⁹.
    #[arg(long, value_name = "B", default_value = "128", value_parser = count::batch)]
    batch: usize,
    /// GML's optimiser, with GML's defaults.
    #[arg(long, value_enum, default_value = "adam")]
    optimizer: OptimizerName,
    /// The learning rate η instead of the optimiser's default (for adam-with-decay its η₁).
    #[arg(long, value_name = "η", value_parser = learning_rate, allow_hyphen_values = true)]
    lr: Option<f64>,
    /// adam-with-decay's `n_epochs`, if not `--epochs`: η reaches 1e-6 after N minibatch steps
    /// (GML counts them so), then keeps falling; from 1 to 10⁹.
    #[arg(long, value_name = "N", value_parser = count::epochs)]
    decay_epochs: Option<u64>,
    /// The seed of the initial (Glorot) weights and of the epochs' shuffles.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Store the weights as Float64 (the default is Float32, GML's default element type).
    #[arg(long)]
    float64: bool,
    /// The GML file to write (HDF5, GML's layout).
    #[arg(short = 'o', long = "output", value_name = "OUT.h5")]
    output: PathBuf,
    /// Also plot the loss per epoch (SVG).
    #[arg(long, value_name = "LOSS.svg")]
    plot: Option<PathBuf>,
    /// Also write OUT.h5 after every N epochs (each time whole, replacing the last), so that a
    /// long run can be stopped and its last checkpoint used; from 1 to 10⁹.
    #[arg(long, value_name = "N", value_parser = count::epochs)]
    checkpoint_every: Option<u64>,
    /// Start from the weights of this GML file of the architecture (a checkpoint, or a network
    /// trained in GML) instead of Glorot-uniform ones; the optimiser starts afresh (GML's files
    /// hold no optimiser state).
    #[arg(long, value_name = "FILE.h5")]
    init: Option<PathBuf>,
}

/// GML's optimisers, by the names of the command line.
#[derive(Clone, Copy, ValueEnum)]
enum OptimizerName {
    /// `AdamOptimizer()`: η = 1e-3, ρ₁ = 0.9, ρ₂ = 0.99, δ = 3e-7.
    Adam,
    /// `AdamOptimizerWithDecay(n_epochs)`: η from 1e-2 towards 1e-6 over `n_epochs` steps
    /// (GML's tutorial).
    AdamWithDecay,
    /// `MomentumOptimizer()`: η = 1e-3, α = 1e-2.
    Momentum,
    /// `GradientOptimizer()`: η = 1e-2.
    Gradient,
}

impl From<OptimizerName> for Optimizer {
    fn from(name: OptimizerName) -> Self {
        match name {
            OptimizerName::Adam => Self::Adam,
            OptimizerName::AdamWithDecay => Self::AdamWithDecay,
            OptimizerName::Momentum => Self::Momentum,
            OptimizerName::Gradient => Self::Gradient,
        }
    }
}

/// clap's parser of `--lr`: a finite number above zero.
fn learning_rate(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|eta| eta.is_finite() && *eta > 0.0)
        .ok_or_else(|| "expected a finite number above zero".into())
}

/// Trains and writes the network.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let arch: Arch = args.arch.parse()?;
    let data = if args.data == "rigid-body" {
        Data::rigid_body(TUTORIAL_TRAJECTORIES, TUTORIAL_STATES)
    } else {
        let path = PathBuf::from(&args.data);
        let text = geomattn::gml::regular_file(&path)
            .and_then(|()| std::fs::read_to_string(&path))
            .map_err(|source| Failure::Read { path, source })?;
        Data::from_csv(&text, &args.data)?
    };
    let options = Options {
        epochs: args.epochs,
        batch: args.batch,
        optimizer: args.optimizer.into(),
        learning_rate: args.lr,
        decay_epochs: args.decay_epochs,
        seed: args.seed,
        storage: if args.float64 {
            Storage::Float64
        } else {
            Storage::Float32
        },
        checkpoint_every: args.checkpoint_every,
        initial: args.init.clone(),
    };
    // The outputs, opened before the first epoch: one that cannot be written is reported now,
    // not after the training.
    let mut network_file = OutputFile::create(&args.output)?;
    let plot_file = args.plot.as_deref().map(OutputFile::create).transpose()?;
    if let Some(plot_file) = &plot_file {
        network_file.distinct(plot_file)?;
    }
    let bar = ProgressBar::new(args.epochs).with_style(
        ProgressStyle::with_template("epoch {pos}/{len} {msg} [{elapsed} < {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut log = Log::default();
    let start = Instant::now();
    let trained = train(&arch, &data, &options, &mut |epoch: Epoch| {
        // A checkpoint that cannot be written is reported (once), and training goes on: the
        // final write reports its own failure.
        if let Some(file) = epoch.checkpoint
            && let Err(failure) = output::write_atomically(&args.output, file)
            && !log.checkpoint_failed
        {
            log.checkpoint_failed = true;
            bar.suspend(|| {
                eprintln!(
                    "geomattn train: the checkpoint of epoch {} was not written: {failure} \
                     (training goes on; this is said once)",
                    epoch.epoch
                );
            });
        }
        let seconds = start.elapsed().as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let rate = (epoch.epoch as f64 * epoch.windows as f64) / seconds.max(1e-9);
        bar.set_position(epoch.epoch);
        bar.set_message(format!("loss {:.6e} ({rate:.0} windows/s)", epoch.loss));
        log.epoch(&bar, &epoch, seconds);
    });
    bar.finish_and_clear();
    let trained = trained?;
    // The network and its plot together: both in place, or neither.
    network_file.write_all(&trained.file)?;
    let mut files = vec![network_file];
    if let Some(mut plot_file) = plot_file {
        let title = format!("Training loss of {arch}");
        plot_file.write_all(plot::losses_svg(&trained.losses, &title).as_bytes())?;
        files.push(plot_file);
    }
    output::commit_all(files)?;
    Ok(ExitCode::SUCCESS)
}

/// The epoch lines on standard output: a log of the training, not its result. When standard
/// output stops taking them (`| head -1` went away, a full disk), the lines stop, the training
/// goes on and its network is written: the reason is said once on stderr, or not at all for a
/// reader that went away.
#[derive(Default)]
struct Log {
    stdout_failed: bool,
    checkpoint_failed: bool,
}

impl Log {
    fn epoch(&mut self, bar: &ProgressBar, epoch: &Epoch<'_>, seconds: f64) {
        if self.stdout_failed {
            return;
        }
        let printed = output::print(format_args!(
            "epoch {} loss {:e} windows {} time {seconds:.3} s\n",
            epoch.epoch, epoch.loss, epoch.windows
        ));
        if let Err(failure) = printed {
            self.stdout_failed = true;
            if !failure.is_closed_pipe() {
                bar.suspend(|| {
                    eprintln!("geomattn train: {failure}; the epoch lines stop, training goes on");
                });
            }
        }
    }
}
