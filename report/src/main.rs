//! `geomattn-report`: the tables of the layers, one per layer family (the Cayley kernels with
//! their operation counts and accuracy, volume-preserving attention, throughput, symplectic and
//! multi-head attention, GML's fixtures, the MNIST classifiers, the supporting layers), each row
//! measured on seeded Glorot weights and a seeded random batch.
//!
//! A program of the repository, not part of the `geomattn` command: it measures with the test
//! kit (the accuracy sweep, dual-number Jacobians, the fixtures beside it), which is not
//! shipped. Run it with `cargo run --release -p geomattn-report [-- --quick]`.

mod attention;
mod cayley;
mod gml;
mod mnist;
mod supporting;
mod throughput;
mod vpa;

use std::hint::black_box;
use std::io::{ErrorKind, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use geomattn_cli::Table;

const USAGE: &str = "usage: geomattn-report [--quick]\n\n\
The tables of geomattn's layers (Cayley kernels, layers, GML's fixtures, classifiers).\n\
--quick: one timing round of one call, batches of 128 sequences, fewer accuracy samples.";

/// Whether this is a `--quick` run: one timing round of one call, batches of 128 sequences,
/// fewer accuracy samples.
static QUICK: AtomicBool = AtomicBool::new(false);

/// Whether this is a `--quick` run.
pub fn quick() -> bool {
    QUICK.load(Ordering::Relaxed)
}

/// Prints the report: every table, in order, each as soon as it is measured. Exit code 0 (also
/// when the reader of standard output goes away), 2 for an unknown argument or another failure
/// to write.
fn main() -> ExitCode {
    let mut quick = false;
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--quick" => quick = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("error: unknown argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    QUICK.store(quick, Ordering::Relaxed);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write the report: {error}");
            ExitCode::from(2)
        }
    }
}

/// Every table, each written as soon as it is measured.
fn run() -> std::io::Result<()> {
    let note = if quick() {
        " (--quick: one timing round, fewer samples)"
    } else {
        ""
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "# geomattn report{note}\n")?;
    out.flush()?;
    let tables: [fn() -> Table; 8] = [
        cayley::table,
        cayley::accuracy_table,
        vpa::table,
        throughput::table,
        attention::table,
        gml::table,
        mnist::table,
        supporting::table,
    ];
    for table in tables {
        writeln!(out, "{}", table())?;
        out.flush()?;
    }
    Ok(())
}

/// Sequences per timed batch, over which the layers' tables also measure their accuracy: 2048,
/// or 128 in a `--quick` run.
pub fn batch_len() -> usize {
    if quick() { 128 } else { 2048 }
}

/// Median over `rounds` of the time per call of `f`, called `calls` times per round (once in a
/// `--quick` run).
pub fn time_per_call(calls: usize, rounds: usize, mut f: impl FnMut()) -> Duration {
    let (calls, rounds) = if quick() { (1, 1) } else { (calls, rounds) };
    let mut samples: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..calls {
                f();
            }
            start.elapsed() / calls as u32
        })
        .collect();
    samples.sort();
    black_box(samples[samples.len() / 2])
}

/// Nanoseconds, for a table cell.
pub fn nanos(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1e9)
}

/// A number in scientific notation, for a table cell.
pub fn sci(x: f64) -> String {
    format!("{x:.1e}")
}
