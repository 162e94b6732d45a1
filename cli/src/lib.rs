//! `geomattn`: the command for people with a network trained in GeometricMachineLearning.jl.
//! This library is the whole command, behind one function, [`main`], that the binary
//! (`src/main.rs`) calls. Cargo's pipelining may start a library while `geomattn-networks`, which
//! it builds on (spec parsing, loading, rollout, structure check, training),
//! is still in code generation; a binary waits for all of it. No gain has been measured: side by
//! side on one core each, where nothing can overlap, the build took as long as before (the
//! guide's Performance chapter). This file parses the arguments and dispatches; each subcommand
//! lives in its own module.
//!
//! - `geomattn` (no arguments): the main job on the bundled rigid-body network ([`main_job`]).
//! - `geomattn inspect FILE`: the layers, their parameters, the matching architectures.
//! - `geomattn rollout FILE --arch SPEC --init STATE [--states N]`: a trajectory of `N` states
//!   (GML's `n_points`) as CSV, streamed as it is computed, optionally a plot.
//! - `geomattn check FILE --arch SPEC`: the promised structure, measured.
//! - `geomattn export FILE --arch SPEC --to blob|rust -o OUT`: the network for another program.
//! - `geomattn classify FILE --arch SPEC --images IMAGES --labels LABELS`: a classifier's
//!   accuracy, per class and as a confusion matrix.
//! - `geomattn train --arch SPEC --data rigid-body|FILE --epochs N -o OUT.h5`: a network trained
//!   as GML trains it, in GML's layout, one line per epoch with its loss.
//!
//! Exit codes ([`EXIT_CODES`], also in `--help`):
//! - 0: done; also when the reader of standard output goes away (`geomattn rollout … | head`):
//!   the command stops quietly at that write (see [`output`]).
//! - 1: a structure check fails (`check`, the main job).
//! - 2: bad input or usage (a malformed spec, a size GML forbids, a file that does not
//!   match, a bad initial state, a count out of range, an unknown option, an output that cannot
//!   be written): one line on stderr, no output file.
//! - 3: a rollout diverged (a state stopped being finite): the states before it are written, and
//!   one line on stderr says where ([`rollout::DIVERGED`]). Or training diverged (its loss grew
//!   past [`geomattn_networks::train::DIVERGED`] times its start): no network is written, a
//!   checkpoint written before stays.
//! - On `SIGINT`, `SIGTERM` or `SIGHUP`: the unfinished outputs are removed, and the process
//!   ends by the signal (130 in the shell for Ctrl-C).

mod check;
mod classify;
mod count;
mod error;
mod export;
mod inspect;
mod main_job;
mod output;
mod plot;
mod progress;
mod rollout;
mod table;
mod train;
mod usage;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use error::Failure;
pub use table::Table;

/// Run, check and inspect structure-preserving networks trained in GeometricMachineLearning.jl.
/// With no arguments: roll the bundled rigid-body volume-preserving transformer out for 60 steps
/// against the ground truth, check its structure, and write the plot.
#[derive(Parser)]
#[command(name = "geomattn", version, after_help = after_help())]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The exit codes, as `--help` lists them.
const EXIT_CODES: &str = "Exit codes: 0 done (also when the reader of stdout goes away, as with \
     `| head`); 1 a structure check fails; 2 bad input or usage (one line on stderr); 3 a rollout \
     diverged (the states before it are written) or training diverged (no network written).";

fn after_help() -> String {
    format!(
        "SPEC names an architecture, in the short form with all its options, e.g.\n  \
         \"vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)\"\n  \
         \"vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)\"\n  \
         \"st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)\"\n  \
         \"classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, Stiefel=true, \
         add_connection=false)\"\n\
         or as GML's constructor call pasted from Julia, e.g.\n  \
         \"VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3)\"\n{}\n\nSizes: any that GML allows, \
         read at run time (`geomattn inspect FILE` prints the constructor call that fits a \
         file).\n\n{EXIT_CODES}",
        geomattn_networks::gml_defaults(),
    )
}

#[derive(Subcommand)]
enum Command {
    /// The layers of a GML file with their parameters, and the architectures that match them.
    Inspect {
        /// The `.h5` file GML saved.
        file: PathBuf,
    },
    /// Iterate the network from an initial state and write the trajectory as CSV.
    Rollout(rollout::Args),
    /// Measure the structure the architecture promises (exact Jacobians, random inputs).
    Check(check::Args),
    /// Write the network for another program: the runtime's blob, or a Rust module with the
    /// weights as literals.
    Export(export::Args),
    /// Classify labelled images (IDX files, as MNIST's): accuracy, per class, confusion matrix.
    Classify(classify::Args),
    /// Train a network as GML trains it and write it in GML's HDF5 layout.
    Train(train::Args),
}

/// The scalar to compute in.
#[derive(Clone, Copy, ValueEnum)]
pub enum Reference {
    /// The free rigid body with inertia (2, 1, 2/3), implicit midpoint rule, h = 0.2: the ground
    /// truth of GML's rigid-body networks.
    RigidBody,
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        None => main_job::run(),
        Some(Command::Inspect { file }) => inspect::run(&file),
        Some(Command::Rollout(args)) => rollout::run(&args),
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Export(args)) => export::run(&args),
        Some(Command::Classify(args)) => classify::run(&args),
        Some(Command::Train(args)) => train::run(&args),
    }
}

/// The command: parses the process's arguments, runs the subcommand, and returns the exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage::exit(&error),
    };
    if let Err(error) = output::remove_on_signals() {
        eprintln!("error: cannot watch for signals (to remove unfinished outputs): {error}");
        return ExitCode::from(2);
    }
    match run(cli) {
        Ok(code) => code,
        Err(failure) if failure.is_closed_pipe() => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}
