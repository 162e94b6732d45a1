//! `geomattn`: the project's command line. Each subcommand lives in its own module; this file
//! only parses the arguments and dispatches.
//!
//! - `geomattn report` (also the default, with no subcommand): the main job. Instantiates
//!   geomattn's layers for a range of sizes with seeded weights, runs a batch through them, and
//!   prints what they preserve, how they agree with the generic baselines, and how long they take.

mod report;

use clap::{Parser, Subcommand};

/// Structure-preserving attention layers: volume-preserving and symplectic transformers, and
/// networks trained in GeometricMachineLearning.jl.
#[derive(Parser)]
#[command(name = "geomattn", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Instantiate the layers, run seeded batches, print what they preserve and how fast they are
    /// (the default).
    Report,
}

fn main() {
    match Cli::parse().command.unwrap_or(Command::Report) {
        Command::Report => report::run(),
    }
}
