//! Batches split over the cores with rayon, in a pool whose size Python can set.
//!
//! Each chunk of windows is handed to a batch kernel that runs it sequentially; the chunks run in
//! parallel. Errors are reported for the first failing chunk in batch order (every chunk runs to
//! its end or its own first error, so the report does not depend on the scheduling), with the
//! window's index in the whole batch.

use std::sync::{Arc, PoisonError, RwLock};

use geomattn::{Error, NonFinite};
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The pool set by `set_num_threads`, or `None` for rayon's global pool (`RAYON_NUM_THREADS`, or
/// one thread per core).
static POOL: RwLock<Option<Arc<ThreadPool>>> = RwLock::new(None);

/// Windows below which a batch is not split: the work of one task should dwarf its scheduling.
const MIN_CHUNK: usize = 256;

/// Uses `threads` threads from now on (`None`: rayon's default).
///
/// # Errors
/// The pool cannot be created (the operating system refused a thread).
pub(crate) fn set_threads(threads: Option<usize>) -> Result<(), String> {
    let pool = match threads {
        None => None,
        Some(n) => Some(Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| e.to_string())?,
        )),
    };
    *POOL.write().unwrap_or_else(PoisonError::into_inner) = pool;
    Ok(())
}

fn pool() -> Option<Arc<ThreadPool>> {
    POOL.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// Runs `work` in the pool batches use (its `par_iter`s spread over [`threads`] threads).
pub(crate) fn install<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Threads a batch uses.
pub(crate) fn threads() -> usize {
    pool().map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
}

/// Runs `kernel` on the windows of `input` (`per_input` values each) and the matching items of
/// `output` (`per_output` values each), in chunks, in parallel.
///
/// # Errors
/// The first error in batch order; a [`NonFinite`] names its window in the whole batch.
pub(crate) fn run<X: Sync + Send>(
    input: &[X],
    per_input: usize,
    output: &mut [X],
    per_output: usize,
    kernel: impl Fn(&[X], &mut [X]) -> Result<(), Error> + Sync,
) -> Result<(), Error> {
    let windows = input.len().checked_div(per_input).unwrap_or(0);
    let threads = threads();
    // A few chunks per thread balance uneven cores; none smaller than MIN_CHUNK.
    let chunk = windows.div_ceil(threads * 4).max(MIN_CHUNK);
    if windows <= chunk || per_output == 0 {
        return kernel(input, output);
    }
    let work = || {
        input
            .par_chunks(chunk * per_input)
            .zip(output.par_chunks_mut(chunk * per_output))
            .enumerate()
            .map(|(k, (input, output))| kernel(input, output).map_err(|e| in_batch(e, k * chunk)))
            .collect::<Vec<_>>()
    };
    let results = install(work);
    results.into_iter().collect()
}

/// An error of a chunk starting at window `offset`, with the window's index in the batch.
fn in_batch(error: Error, offset: usize) -> Error {
    match error {
        Error::NonFinite(found) => Error::NonFinite(NonFinite {
            sequence: found.sequence.map(|s| s + offset),
            ..found
        }),
        other => other,
    }
}
