//! The `Network` Python class: a loaded GML network and its batch forward pass and rollout.

use numpy::{PyArray, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays;
use crate::parallel;
use crate::spec_api::{self, Element, Loaded};
use geomattn_spec::batch::Arithmetic;

/// A network trained in GeometricMachineLearning.jl, loaded for one architecture spec.
///
/// Windows are ``(dim, seq)`` arrays (state ``t`` is the column ``z[:, t]``), batches
/// ``(B, dim, seq)``; the dtype is the network's.
#[pyclass(frozen, module = "geomattn", name = "Network")]
pub(crate) struct PyNetwork {
    loaded: Loaded,
    path: String,
    precision: geomattn_spec::Precision,
    /// The parameters as read-only numpy arrays, created at load.
    parameters: Py<PyDict>,
}

/// What `__reduce__` returns: `load` and its arguments `(path, arch, dtype)`.
type Reduced<'py> = (Bound<'py, PyAny>, (String, String, &'static str));

/// Maps a library error of a batch to a `ValueError` with its message.
fn batch_error(error: &geomattn::Error) -> PyErr {
    PyValueError::new_err(error.to_string())
}

impl PyNetwork {
    fn forward_as<'py, X: Element>(
        &self,
        py: Python<'py>,
        z: &Bound<'py, PyAny>,
        checked: bool,
        arithmetic: Arithmetic,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (dim, seq) = (self.loaded.dim, self.loaded.seq);
        let windows = arrays::copied::<X>(z, "z", dim, seq)?;
        let out = arrays::output::<X>(py, windows.shape(dim, seq))?;
        {
            let mut writer = out.readwrite();
            let output = writer
                .as_slice_mut()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            let (input, layout, net) = (&windows.values[..], windows.layout, &*self.loaded.net);
            py.detach(|| {
                parallel::run(input, dim * seq, output, dim * seq, |i, o| {
                    X::forward(net, i, layout, o, checked, arithmetic)
                })
            })
            .map_err(|e| batch_error(&e))?;
        }
        Ok(out.into_any())
    }

    fn rollout_as<'py, X: Element>(
        &self,
        py: Python<'py>,
        z0: &Bound<'py, PyAny>,
        steps: usize,
        checked: bool,
        arithmetic: Arithmetic,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (dim, seq) = (self.loaded.dim, self.loaded.seq);
        let windows = arrays::copied::<X>(z0, "z0", dim, seq)?;
        let states = steps
            .checked_add(1)
            .filter(|n| n.checked_mul(dim * windows.count()).is_some())
            .ok_or_else(|| PyValueError::new_err(format!("steps = {steps} is too large")))?;
        let out = arrays::output::<X>(py, windows.shape(dim, states))?;
        {
            let mut writer = out.readwrite();
            let output = writer
                .as_slice_mut()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            let (input, layout, net) = (&windows.values[..], windows.layout, &*self.loaded.net);
            py.detach(|| {
                parallel::run(input, dim * seq, output, dim * states, |i, o| {
                    X::rollout(net, i, layout, o, checked, arithmetic)
                })
            })
            .map_err(|e| batch_error(&e))?;
        }
        Ok(out.into_any())
    }
}

#[pymethods]
impl PyNetwork {
    /// The forward pass of one window ``(dim, seq)`` or a batch ``(B, dim, seq)``. A ``float32``
    /// network runs on the lane path (the best instruction set of this processor, vectorised
    /// ``exp``/``tanh``, within the bound of ``Arithmetic::Fast``); ``exact=True``, and a
    /// ``float64`` network, take the scalar path (``exact=True``: its bits).
    #[pyo3(signature = (z, *, checked = false, exact = false))]
    fn forward<'py>(
        &self,
        py: Python<'py>,
        z: &Bound<'py, PyAny>,
        checked: bool,
        exact: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arithmetic = spec_api::arithmetic(exact);
        match self.precision {
            geomattn_spec::Precision::F32 => self.forward_as::<f32>(py, z, checked, arithmetic),
            geomattn_spec::Precision::F64 => self.forward_as::<f64>(py, z, checked, arithmetic),
        }
    }

    /// GML's ``iterate`` from one initial window ``(dim, seq)`` or a batch ``(B, dim, seq)``, on
    /// the lane path; ``exact`` as in ``forward``.
    #[pyo3(signature = (z0, steps, *, checked = false, exact = false))]
    fn rollout<'py>(
        &self,
        py: Python<'py>,
        z0: &Bound<'py, PyAny>,
        steps: i64,
        checked: bool,
        exact: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arithmetic = spec_api::arithmetic(exact);
        let steps = usize::try_from(steps)
            .map_err(|_| PyValueError::new_err(format!("steps must be ≥ 0, got {steps}")))?;
        match self.precision {
            geomattn_spec::Precision::F32 => {
                self.rollout_as::<f32>(py, z0, steps, checked, arithmetic)
            }
            geomattn_spec::Precision::F64 => {
                self.rollout_as::<f64>(py, z0, steps, checked, arithmetic)
            }
        }
    }

    /// The structure the architecture promises, measured with exact Jacobians.
    #[pyo3(signature = (samples = 100, seed = 0))]
    fn check(&self, py: Python<'_>, samples: usize, seed: u64) -> PyResult<Vec<Measurement>> {
        let (path, arch) = (&self.path, &self.loaded.arch);
        let measurements = py
            .detach(|| spec_api::check(path, arch, samples, seed))
            .map_err(|e| spec_api::exception(&e))?;
        Ok(measurements
            .into_iter()
            .map(|m| Measurement {
                property: m.property,
                worst: m.worst,
                tolerance: m.tolerance,
                promised: m.promised,
                passes: m.passes,
            })
            .collect())
    }

    /// The file's parameters by path (``"L1/A"``), read-only arrays in the element type the file
    /// stores (``float32``, or ``float64`` for a network GML trained in Float64).
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.parameters.bind(py).copy()
    }

    /// The architecture, in the spec's short form.
    #[getter]
    fn arch(&self) -> &str {
        &self.loaded.arch
    }

    /// ``"float32"`` or ``"float64"``.
    #[getter]
    fn dtype(&self) -> &'static str {
        spec_api::dtype_name(self.precision)
    }

    /// The dimension of one state.
    #[getter]
    fn dim(&self) -> usize {
        self.loaded.dim
    }

    /// States per window (1 for the feed-forward network).
    #[getter]
    fn seq(&self) -> usize {
        self.loaded.seq
    }

    /// The file it was loaded from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Pickled as the call that loads it again (for Dask and Ray workers): the file is read
    /// anew where it is unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let load = py.import("geomattn")?.getattr("load")?;
        Ok((
            load,
            (self.path.clone(), self.loaded.arch.clone(), self.dtype()),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "geomattn.load({:?}, arch={:?}, dtype={:?})",
            self.path,
            self.loaded.arch,
            self.dtype()
        )
    }
}

/// One measured property of ``Network.check``.
#[pyclass(frozen, get_all, module = "geomattn", name = "Measurement")]
pub(crate) struct Measurement {
    property: String,
    worst: f64,
    tolerance: f64,
    promised: bool,
    passes: bool,
}

#[pymethods]
impl Measurement {
    fn __repr__(&self) -> String {
        format!(
            "Measurement(property={:?}, worst={:e}, tolerance={:e}, promised={}, passes={})",
            self.property,
            self.worst,
            self.tolerance,
            if self.promised { "True" } else { "False" },
            if self.passes { "True" } else { "False" }
        )
    }
}

/// Loads the GML file at ``path`` as the architecture ``arch``, computing in ``dtype``.
#[pyfunction]
#[pyo3(signature = (path, arch, dtype = "float64"))]
pub(crate) fn load(
    py: Python<'_>,
    path: std::path::PathBuf,
    arch: &str,
    dtype: &str,
) -> PyResult<PyNetwork> {
    let precision = spec_api::precision(dtype)?;
    let path = path.display().to_string();
    let loaded = py.detach(|| spec_api::load(&path, arch, precision))?;
    let parameters = PyDict::new(py);
    for parameter in &loaded.parameters {
        // In the element type the file stores (a Float32 value widened to f64 narrows exactly).
        #[allow(clippy::cast_possible_truncation)]
        let array = if parameter.float32 {
            let single: Vec<f32> = parameter.values.iter().map(|&x| x as f32).collect();
            PyArray::from_vec(py, single)
                .reshape(parameter.shape.clone())?
                .into_any()
        } else {
            PyArray::from_slice(py, &parameter.values)
                .reshape(parameter.shape.clone())?
                .into_any()
        };
        array.call_method1("setflags", ((), false))?;
        parameters.set_item(&parameter.name, array)?;
    }
    Ok(PyNetwork {
        loaded,
        path,
        precision,
        parameters: parameters.unbind(),
    })
}
