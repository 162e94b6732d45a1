//! `geomattn.inspect(path)`: what a GML file holds, as plain Python data.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::spec_api;

/// What a GML file holds: its layers, and every architecture whose chain it is, at any size.
///
/// The file records parameters only: what it cannot say (the window length, the activations,
/// ``add_connection``, …) is ``?`` in the spec and in GML's call, and named in ``unknown``.
///
/// Parameters
/// ----------
/// path : str or os.PathLike
///     The HDF5 file GML wrote.
///
/// Returns
/// -------
/// dict
///     ``"layers"``: one dict per layer group in order (``"name"``, and ``"parameters"``: dicts
///     with ``"name"``, ``"kind"``, ``"shape"`` as Julia writes it, ``"storage"``);
///     ``"matches"``: one dict per architecture (``"spec"``, the short form; ``"gml"``, GML's
///     constructor call; ``"unknown"``, what to give and why), empty if none.
///
/// Raises
/// ------
/// FileNotFoundError
///     There is no file at ``path`` (``PermissionError``, ``IsADirectoryError``, … likewise).
/// OSError
///     The file is not a readable HDF5 file.
///
/// Examples
/// --------
/// >>> found = geomattn.inspect("fixtures/gml/integrator_parameters.h5")
/// >>> len(found["layers"])
/// 17
/// >>> found["matches"][0]["gml"]
/// 'StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, L = 3, upscaling_activation = ?, resnet_activation = ?, attention_activation = ?, add_connection = ?)'
#[pyfunction]
#[pyo3(signature = (path))]
pub(crate) fn inspect(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Py<PyDict>> {
    let path = path.display().to_string();
    let inspection = py.detach(|| spec_api::inspect(&path))?;
    let layers = PyList::empty(py);
    for layer in &inspection.layers {
        let parameters = PyList::empty(py);
        for p in &layer.parameters {
            let parameter = PyDict::new(py);
            parameter.set_item("name", &p.name)?;
            parameter.set_item("kind", &p.kind)?;
            parameter.set_item("shape", &p.shape)?;
            parameter.set_item("storage", &p.storage)?;
            parameters.append(parameter)?;
        }
        let entry = PyDict::new(py);
        entry.set_item("name", &layer.name)?;
        entry.set_item("parameters", parameters)?;
        layers.append(entry)?;
    }
    let matches = PyList::empty(py);
    for found in &inspection.matches {
        let entry = PyDict::new(py);
        entry.set_item("spec", &found.spec)?;
        entry.set_item("gml", &found.gml)?;
        entry.set_item("unknown", &found.unknown)?;
        matches.append(entry)?;
    }
    let result = PyDict::new(py);
    result.set_item("layers", layers)?;
    result.set_item("matches", matches)?;
    Ok(result.unbind())
}
