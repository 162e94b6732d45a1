//! Batches split over the cores with rayon, in a pool whose size Python can set.
//!
//! Each chunk of windows is handed to a batch kernel that runs it sequentially; the chunks run in
//! parallel. Errors are reported for the first failing chunk in batch order (every chunk runs to
//! its end or its own first error, so the report does not depend on the scheduling), with the
//! window's index in the whole batch.
//!
//! A long call runs in blocks ([`Pacer`]), each with the GIL released, and looks for the
//! interpreter's pending signals between them: Ctrl-C stops it within about [`BLOCK_TIME`], with
//! what the handler raises (`KeyboardInterrupt`).

use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use geomattn::{Error, NonFinite};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The pool set by `set_num_threads`, or `None` for rayon's global pool (`RAYON_NUM_THREADS`, or
/// one thread per core).
static POOL: RwLock<Option<Arc<ThreadPool>>> = RwLock::new(None);

/// Windows below which a batch is not split: the work of one task should dwarf its scheduling.
pub(crate) const MIN_CHUNK: usize = 256;

/// About how long a block of a long call runs before the interpreter's pending signals are
/// looked at.
pub(crate) const BLOCK_TIME: Duration = Duration::from_millis(50);

/// The most a block grows over the one before: a fast first block (a few microseconds, timed
/// coarsely) does not make the next one huge.
const MAX_GROWTH: usize = 64;

/// The blocks of a long call: each runs with the GIL released, then the interpreter's pending
/// signals are looked at (a handler's exception ends the call). The first block has a few chunks
/// per thread; each next one the items that take about [`BLOCK_TIME`] at the pace of the block
/// before (never fewer than it, at most [`MAX_GROWTH`] times as many). A call of a few
/// milliseconds is then one or two blocks, and a long one pays a look every 50 ms or so; each
/// block costs a fork and a join of the threads, a few percent of a call of 10 ms.
pub(crate) struct Pacer {
    block: usize,
    /// The items of the block last handed out.
    last: usize,
}

impl Pacer {
    /// Blocks of `first` items to begin with (at least one).
    pub(crate) fn new(first: usize) -> Self {
        Self {
            block: first.max(1),
            last: 0,
        }
    }

    /// The next block's items from `start` of `count`.
    pub(crate) fn next(&mut self, start: usize, count: usize) -> std::ops::Range<usize> {
        let block = start..count.min(start.saturating_add(self.block));
        self.last = block.len();
        block
    }

    /// Runs `work` (the block last handed out, or a part of it) with the GIL released, then looks
    /// for pending signals.
    ///
    /// # Errors
    /// What `work` returns, else what a signal handler raises.
    pub(crate) fn run<R: Send>(
        &mut self,
        py: Python<'_>,
        work: impl FnOnce() -> PyResult<R> + Send,
    ) -> PyResult<R> {
        let began = Instant::now();
        let result = py.detach(work)?;
        py.check_signals()?;
        let elapsed = began.elapsed().as_nanos().max(1);
        let paced = (self.last as u128 * BLOCK_TIME.as_nanos() / elapsed)
            .min(self.block.saturating_mul(MAX_GROWTH) as u128);
        self.block = self.block.max(usize::try_from(paced).unwrap_or(usize::MAX));
        Ok(result)
    }
}

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
            .map(|(k, (input, output))| kernel(input, output).map_err(|e| shifted(e, k * chunk, 0)))
            .collect::<Vec<_>>()
    };
    let results = install(work);
    results.into_iter().collect()
}

/// [`run`] in [`Pacer`]'s blocks of windows, each with the GIL released: Ctrl-C stops it between
/// blocks. An error is a `ValueError`, naming the window in the whole batch.
///
/// # Errors
/// As [`run`], and what a signal handler raises.
pub(crate) fn run_in_blocks<X: Sync + Send>(
    py: Python<'_>,
    input: &[X],
    per_input: usize,
    output: &mut [X],
    per_output: usize,
    kernel: impl Fn(&[X], &mut [X]) -> Result<(), Error> + Sync,
) -> PyResult<()> {
    let count = input.len().checked_div(per_input).unwrap_or(0);
    if count.checked_mul(per_output) != Some(output.len()) {
        // Not one output per window: `run` names the shapes.
        return py
            .detach(|| run(input, per_input, output, per_output, &kernel))
            .map_err(|e| batch_error(&e));
    }
    let mut pacer = Pacer::new(threads() * MIN_CHUNK * 16);
    let mut start = 0;
    while start < count {
        let block = pacer.next(start, count);
        let input = &input[block.start * per_input..block.end * per_input];
        let output = &mut output[block.start * per_output..block.end * per_output];
        pacer.run(py, || {
            run(input, per_input, output, per_output, &kernel)
                .map_err(|e| batch_error(&shifted(e, block.start, 0)))
        })?;
        start = block.end;
    }
    Ok(())
}

/// Maps a library error of a batch to a `ValueError` with its message.
pub(crate) fn batch_error(error: &Error) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// An error of the windows from `windows` on, whose states are counted from `steps` on: the
/// window's index in the batch and the state's in the trajectory.
pub(crate) fn shifted(error: Error, windows: usize, steps: usize) -> Error {
    match error {
        Error::NonFinite(found) => Error::NonFinite(NonFinite {
            sequence: found.sequence.map(|s| s + windows),
            step: found.step + steps,
            ..found
        }),
        other => other,
    }
}
