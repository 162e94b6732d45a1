//! `geomattn report`, the main job: one table per layer family, each row measured on seeded
//! Glorot weights and a seeded random batch.

pub mod attention;
pub mod cayley;
pub mod gml;
pub mod mnist;
pub mod supporting;
mod table;
pub mod throughput;
pub mod vpa;

pub use table::Table;

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::Failure;
use crate::output::print;

/// Whether this is a `--quick` run: one timing round of one call, fewer accuracy samples.
static QUICK: AtomicBool = AtomicBool::new(false);

/// Whether this is a `--quick` run.
pub fn quick() -> bool {
    QUICK.load(Ordering::Relaxed)
}

/// Prints the report: every table, in order, each as soon as it is measured (`quick`: a short
/// run, with rougher timings).
///
/// # Errors
/// [`Failure::Stdout`] (and the tables after it are not measured).
pub fn run(quick: bool) -> Result<(), Failure> {
    QUICK.store(quick, Ordering::Relaxed);
    let note = if quick {
        " (--quick: one timing round, fewer samples)"
    } else {
        ""
    };
    print(format_args!("# geomattn report{note}\n\n"))?;
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
        print(format_args!("{}\n", table()))?;
    }
    Ok(())
}

/// Sequences per timed batch.
pub const BATCH: usize = 2048;

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
