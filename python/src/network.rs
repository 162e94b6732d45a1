//! The `Network` Python class: a loaded GML network and its batch forward pass and rollout.

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use numpy::{PyArray, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays;
use crate::dtype::DType;
use crate::parallel;
use crate::rollout::Rollout;
use crate::spec_api::{self, Element, Loaded};
use geomattn_networks::batch::Arithmetic;

/// A network trained in GeometricMachineLearning.jl, loaded for one architecture spec by
/// :func:`load`.
///
/// Windows are ``(dim, seq)`` arrays: state ``t`` is the column ``z[:, t]`` (GML's orientation);
/// batches are ``(B, dim, seq)``. Inputs are array-likes, converted as numpy converts them:
/// lists and tuples by ``numpy.asarray``, another dtype by ``astype`` to the network's dtype
/// under ``casting="same_kind"`` (float64 rounds to float32; complex numbers are refused).
/// The input is always copied once before the GIL is released (so another thread may resize,
/// write or drop the array meanwhile); a conversion makes one temporary copy more. Windows
/// stored column-major (``x.transpose(0, 2, 1)`` of a C-order ``(B, seq, dim)`` array) are read
/// as such. Batches run on :func:`get_num_threads` threads with the GIL released. A network is
/// called as a function: ``net(z)`` is ``net.forward(z)``. It pickles as the call that loads it.
///
/// Examples
/// --------
/// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
/// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
/// >>> net
/// geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5", arch="vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)", dtype="float64")
/// >>> net.dim, net.seq, net.dtype
/// (3, 3, 'float64')
/// >>> net([[1.0, 0.9, 0.8], [0.0, 0.1, 0.2], [0.0, 0.0, 0.1]]).shape
/// (3, 3)
#[pyclass(frozen, module = "geomattn", name = "Network")]
pub(crate) struct PyNetwork {
    loaded: Loaded,
    path: String,
    precision: geomattn_networks::Precision,
    /// The parameters as read-only numpy arrays, created at load.
    parameters: Py<PyDict>,
}

/// What `__reduce__` returns: `load` and its arguments `(path, arch, dtype)`.
type Reduced<'py> = (Bound<'py, PyAny>, (String, String, &'static str));

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
            parallel::run_in_blocks(py, input, dim * seq, output, dim * seq, |i, o| {
                X::forward(net, i, layout, o, checked, arithmetic)
            })?;
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
            let rollout = Rollout {
                net: &*self.loaded.net,
                dim,
                seq,
                states,
                checked,
                arithmetic,
            };
            rollout.run(py, &windows.values, windows.layout, output)?;
        }
        Ok(out.into_any())
    }
}

#[pymethods]
impl PyNetwork {
    /// The forward pass of one window or a batch of windows.
    ///
    /// Parameters
    /// ----------
    /// z : array_like, shape (dim, seq) or (B, dim, seq)
    ///     The windows, converted to the network's dtype as the class says.
    /// checked : bool, default False
    ///     Raise at the first non-finite value of an input or of a layer's output (the checked
    ///     pass); unchecked, NaN and inf propagate.
    /// exact : bool, default False
    ///     Where :data:`LANES` (a processor with AVX2 or AVX-512), a float32
    ///     network runs several windows at a time, one per SIMD lane, with vectorised
    ///     ``exp``/``tanh`` and fused products: no further from the exact result than four
    ///     times the scalar path's own rounding (and 16 ε). ``True``, any float64 network,
    ///     and any network where :data:`LANES` is ``False`` give the scalar path's results bit
    ///     for bit.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     A new C-order array of ``z``'s shape, in the network's dtype.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     ``z`` has another shape, numpy cannot convert it, or (``checked=True``) a value is not
    ///     finite: the message names the window, the time step and the layer.
    /// TypeError
    ///     ``z``'s dtype does not cast to the network's (complex numbers, strings, objects).
    ///
    /// Examples
    /// --------
    /// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    /// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
    /// >>> z = np.zeros((100, 3, 3))
    /// >>> net.forward(z).shape
    /// (100, 3, 3)
    /// >>> bool((net.forward(z[7]) == net.forward(z)[7]).all())
    /// True
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
            geomattn_networks::Precision::F32 => self.forward_as::<f32>(py, z, checked, arithmetic),
            geomattn_networks::Precision::F64 => self.forward_as::<f64>(py, z, checked, arithmetic),
        }
    }

    /// GML's ``iterate``: the trajectory from one initial window or a batch of them.
    ///
    /// Each pass feeds the last ``seq`` states to the network and appends the ``seq`` states it
    /// returns (GML's prediction window ``seq``); the trajectory is cut at ``steps + 1`` states.
    ///
    /// Parameters
    /// ----------
    /// z0 : array_like, shape (dim, seq) or (B, dim, seq)
    ///     The initial windows, converted to the network's dtype as the class says.
    /// steps : int
    ///     The number of steps, ``≥ 0``.
    /// checked : bool, default False
    ///     Raise at the first non-finite state; unchecked, NaN and inf propagate.
    /// exact : bool, default False
    ///     As in :meth:`forward`: the lane path by default where :data:`LANES`, the scalar
    ///     path's bits if ``True``.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     The states ``z_0 … z_steps``, shape ``(dim, steps + 1)`` or ``(B, dim, steps + 1)``,
    ///     the initial window first (cut to ``steps + 1`` states if ``steps < seq``).
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     ``z0`` has another shape or numpy cannot convert it, ``steps`` is negative or too
    ///     large, or (``checked=True``) a state is not finite.
    /// TypeError
    ///     ``z0``'s dtype does not cast to the network's.
    /// MemoryError
    ///     The trajectories do not fit in memory.
    ///
    /// Examples
    /// --------
    /// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    /// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
    /// >>> z0 = np.array([[0.0, 0.0, 0.0], [0.89, 0.90, 0.91], [0.45, 0.44, 0.43]])
    /// >>> trajectory = net.rollout(z0, 100)
    /// >>> trajectory.shape
    /// (3, 101)
    /// >>> bool((trajectory[:, :3] == z0).all())
    /// True
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
        let steps = crate::non_negative("steps", steps)?;
        match self.precision {
            geomattn_networks::Precision::F32 => {
                self.rollout_as::<f32>(py, z0, steps, checked, arithmetic)
            }
            geomattn_networks::Precision::F64 => {
                self.rollout_as::<f64>(py, z0, steps, checked, arithmetic)
            }
        }
    }

    /// The structure the architecture promises, measured with exact Jacobians.
    ///
    /// The file is read anew and evaluated in float64 on ``samples`` random windows, the
    /// Jacobians row by row from the backward passes; the standard transformer promises nothing
    /// (an empty list).
    ///
    /// Parameters
    /// ----------
    /// samples : int, default 100
    ///     The number of random windows, from 1 to 10⁶.
    /// seed : int, default 0
    ///     The seed of the random windows, ``≥ 0``.
    ///
    /// Returns
    /// -------
    /// list of Measurement
    ///     One per property (volume preservation, symplecticity, …).
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     ``samples`` is not from 1 to 10⁶ (none measured would pass everything), or the
    ///     file no longer holds the network.
    /// OSError
    ///     The file can no longer be read (``FileNotFoundError`` if it is gone).
    /// KeyboardInterrupt
    ///     Ctrl-C (or what a signal handler raises) during the check: signals are looked at
    ///     every 50 ms.
    ///
    /// Examples
    /// --------
    /// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    /// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
    /// >>> [m.passes for m in net.check(samples=10)]
    /// [True, True, True]
    #[pyo3(signature = (samples = 100, seed = 0))]
    fn check(&self, py: Python<'_>, samples: i64, seed: u64) -> PyResult<Vec<Measurement>> {
        let samples = crate::non_negative("samples", samples)?;
        let (path, arch) = (&self.path, &self.loaded.arch);
        // Ctrl-C: the interpreter's pending signals are looked at every 50 ms; a handler's
        // exception (KeyboardInterrupt) ends the check and is raised.
        let interrupt: Mutex<Option<PyErr>> = Mutex::new(None);
        let last_look = Mutex::new(Instant::now());
        let stop = || {
            let mut last = last_look.lock().unwrap_or_else(PoisonError::into_inner);
            if last.elapsed() < parallel::BLOCK_TIME {
                return false;
            }
            *last = Instant::now();
            let Err(error) = Python::attach(|py| py.check_signals()) else {
                return false;
            };
            *interrupt.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
            true
        };
        let measurements = py.detach(|| spec_api::check(path, arch, samples, seed, &stop));
        if let Some(error) = interrupt
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
        {
            return Err(error);
        }
        let measurements = measurements.map_err(|e| spec_api::exception(&e))?;
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

    /// The file's parameters by path.
    ///
    /// Returns
    /// -------
    /// dict of str to numpy.ndarray
    ///     A new dict of read-only arrays, by their path in the file (``"L1/A"``), in Julia's
    ///     shape and in the element type the file stores (float32, or float64 for a network GML
    ///     trained in Float64); a special matrix (``SkewSymMatrix``, ``LowerTriangular``, …) as
    ///     GML's packed vector ``S``, a Stiefel weight as its matrix ``A``.
    ///
    /// Examples
    /// --------
    /// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    /// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
    /// >>> parameters = net.parameters()
    /// >>> parameters["L1/A"].shape, parameters["L1/A"].dtype
    /// ((3, 3), dtype('float32'))
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.parameters.bind(py).copy()
    }

    /// The architecture, in the spec's short form.
    #[getter]
    fn arch(&self) -> &str {
        &self.loaded.arch
    }

    /// The scalar it computes in, ``"float32"`` or ``"float64"``.
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

    /// ``net(z, checked=False, exact=False)`` is :meth:`forward`.
    /// (Python shows a slot's own docstring: the class's docs say it.)
    #[pyo3(signature = (z, *, checked = false, exact = false))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        z: &Bound<'py, PyAny>,
        checked: bool,
        exact: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.forward(py, z, checked, exact)
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

/// One measured property of :meth:`Network.check`.
///
/// Examples
/// --------
/// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpff.h5",
/// ...     "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)")
/// >>> m = net.check(samples=10)[0]
/// >>> m.property
/// '|det J − 1| of the map of one state'
/// >>> m.promised, m.passes, m.worst < m.tolerance
/// (True, True, True)
#[pyclass(frozen, get_all, module = "geomattn", name = "Measurement")]
pub(crate) struct Measurement {
    /// What is measured.
    property: String,
    /// The worst value over all samples.
    worst: f64,
    /// The bound it must stay under, if promised.
    tolerance: f64,
    /// Whether the architecture promises it (otherwise it is reported only).
    promised: bool,
    /// A promised property within its tolerance, or one not promised.
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

/// Loads a network GeometricMachineLearning.jl saved.
///
/// Parameters
/// ----------
/// path : str or os.PathLike
///     The HDF5 file GML wrote.
/// arch : str
///     The architecture: a spec such as ``"vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3,
///     activation=tanh, skew_sym=false)"``, or GML's constructor call.
/// dtype : numpy dtype or str, default "float64"
///     The scalar it computes in: ``numpy.float32``, ``numpy.dtype("float64")``, ``"float32"``,
///     ``"f4"``, … (float32 or float64).
///
/// Returns
/// -------
/// Network
///
/// Raises
/// ------
/// FileNotFoundError
///     There is no file at ``path`` (``PermissionError``, ``IsADirectoryError``, … likewise: the
///     ``OSError`` of the operating system's error, with ``filename``).
/// OSError
///     The file is not a readable HDF5 file.
/// ValueError
///     A malformed spec, a file that does not hold ``arch`` (any size GML allows loads),
///     or a ``dtype`` other than float32 and float64.
/// TypeError
///     ``dtype`` is not a dtype.
///
/// Examples
/// --------
/// >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
/// ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
/// ...     dtype=np.float32)
/// >>> net.dtype
/// 'float32'
#[pyfunction]
#[pyo3(signature = (path, arch, dtype = DType::F64), text_signature = "(path, arch, dtype='float64')")]
pub(crate) fn load(
    py: Python<'_>,
    path: std::path::PathBuf,
    arch: &str,
    dtype: DType,
) -> PyResult<PyNetwork> {
    let DType(precision) = dtype;
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
