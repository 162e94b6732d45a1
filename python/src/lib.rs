//! Python bindings of geomattn (module `geomattn`, built with maturin): load a network trained in
//! GeometricMachineLearning.jl by its architecture spec, and run batches of forward passes and
//! rollouts on numpy arrays, in place, in parallel, with the GIL released.
//!
//! ```python
//! import numpy as np, geomattn
//! net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
//!     arch="vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
//!     dtype="float32")
//! z = np.random.default_rng(0).uniform(-1, 1, (100_000, 3, 3)).astype(np.float32)
//! out = net.forward(z)                # (100000, 3, 3), all cores, GIL released
//! traj = net.rollout(z[:10], 100)     # (10, 3, 101)
//! mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
//!     arch="classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
//!           Stiefel=true, add_connection=false)")
//! labels, probabilities = mnist.predict(images)   # uint8 (N, 28, 28) → (N,), (N, 10)
//! ```
//!
//! Dependencies: `pyo3` (the bindings, stable ABI `abi3-py39`: one wheel for CPython ≥ 3.9),
//! `numpy` (zero-copy access to numpy arrays), `rayon` (the batches over all cores, in a pool
//! of settable size), `geomattn-networks` (the spec → monomorphised network dispatch and its batch
//! kernels). Everything that touches the spec crate is in `spec_api`.

mod arrays;
mod attention;
mod classifier;
mod dtype;
mod inspect;
mod network;
mod parallel;
mod rollout;
mod spec_api;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// `value` as a count, or a `ValueError` naming the argument `name` if it is negative.
pub(crate) fn non_negative(name: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} must be ≥ 0, got {value}")))
}

/// The most threads `set_num_threads` takes: a batch gains nothing past the cores, and the pool
/// starts every thread at once (10⁶ took 20 s before the system refused one).
const MAX_THREADS: usize = 1024;

/// Sets the number of threads batches use from now on.
///
/// Parameters
/// ----------
/// n : int or None
///     The number of threads, from 1 to 1024; ``None``: one per core (or ``RAYON_NUM_THREADS``).
///
/// Raises
/// ------
/// ValueError
///     ``n`` is not from 1 to 1024.
/// RuntimeError
///     The operating system refused a thread.
///
/// Examples
/// --------
/// >>> geomattn.set_num_threads(1)
/// >>> geomattn.get_num_threads()
/// 1
/// >>> geomattn.set_num_threads(None)
#[pyfunction]
#[pyo3(signature = (n))]
fn set_num_threads(n: Option<i64>) -> PyResult<()> {
    let n = n.map(|n| non_negative("n", n)).transpose()?;
    if n.is_some_and(|n| !(1..=MAX_THREADS).contains(&n)) {
        return Err(PyValueError::new_err(format!(
            "the number of threads must be from 1 to {MAX_THREADS} (or None)"
        )));
    }
    parallel::set_threads(n).map_err(PyRuntimeError::new_err)
}

/// The number of threads batches use.
///
/// Returns
/// -------
/// int
///     The number :func:`set_num_threads` set, else one per core (or ``RAYON_NUM_THREADS``).
///
/// Examples
/// --------
/// >>> geomattn.get_num_threads() >= 1
/// True
#[pyfunction]
fn get_num_threads() -> usize {
    parallel::threads()
}

/// The native module of geomattn (the Rust crate ``geomattn-python``): import ``geomattn``.
#[pymodule]
fn _geomattn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<network::PyNetwork>()?;
    m.add_class::<network::Measurement>()?;
    m.add_class::<attention::PySkewAttention>()?;
    m.add_class::<classifier::PyClassifier>()?;
    m.add_function(wrap_pyfunction!(classifier::load_classifier, m)?)?;
    m.add_function(wrap_pyfunction!(network::load, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::inspect, m)?)?;
    m.add("ATTENTION_SIZES", spec_api::attention::SIZES.to_vec())?;
    m.add("LANES", geomattn_networks::batch::lanes())?;
    // The crate's version (the workspace's, which is also the wheel's): one source of truth.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
