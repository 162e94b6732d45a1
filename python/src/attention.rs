//! The `SkewAttention` Python class: GML's volume-preserving attention with a skew-symmetric
//! weight (`skew_sym = true`), alone, at `d = T`. It is what the batched NumPy and JAX peers of the
//! benchmark implement, so the comparison is of the same layer on the same arrays.

use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::arrays;
use crate::parallel;
use crate::spec_api::attention::{self, Kernel};
use crate::spec_api::{self, Element};
use geomattn_spec::batch::Arithmetic;

enum Layer {
    F32(Box<dyn Kernel<f32>>),
    F64(Box<dyn Kernel<f64>>),
}

/// Volume-preserving attention ``Z ↦ Z·Cay(Zᵀ A Z)`` with GML's packed skew-symmetric ``A``.
#[pyclass(frozen, module = "geomattn", name = "SkewAttention")]
pub(crate) struct PySkewAttention {
    layer: Layer,
    dim: usize,
}

fn build<X: Element>(packed: &Bound<'_, PyArrayDyn<X>>) -> PyResult<(Box<dyn Kernel<X>>, usize)> {
    let readonly = packed.readonly();
    let values = readonly.as_array().iter().copied().collect::<Vec<X>>();
    let sizes = attention::SIZES;
    let dim = sizes
        .iter()
        .copied()
        .find(|d| d * (d - 1) / 2 == values.len() && readonly.ndim() == 1)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "a must be GML's packed skew-symmetric weight, of length d(d−1)/2 for d in \
                 {sizes:?}, got shape {:?}",
                readonly.shape()
            ))
        })?;
    let kernel = attention::build::<X>(dim, &values)
        .ok_or_else(|| PyValueError::new_err(format!("d = {dim} is not compiled")))?
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((kernel, dim))
}

impl PySkewAttention {
    fn forward_as<'py, X: Element>(
        &self,
        py: Python<'py>,
        kernel: &dyn Kernel<X>,
        z: &Bound<'py, PyAny>,
        checked: bool,
        arithmetic: Arithmetic,
    ) -> PyResult<Bound<'py, PyAny>> {
        let d = self.dim;
        let windows = arrays::copied::<X>(z, "z", d, d)?;
        let out = arrays::output::<X>(py, windows.shape(d, d))?;
        {
            let mut writer = out.readwrite();
            let output = writer
                .as_slice_mut()
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            let (input, layout) = (&windows.values[..], windows.layout);
            py.detach(|| {
                parallel::run(input, d * d, output, d * d, |i, o| {
                    kernel.forward(i, layout, o, checked, arithmetic)
                })
            })
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        Ok(out.into_any())
    }
}

#[pymethods]
impl PySkewAttention {
    /// The layer with GML's packed weight ``a`` (``float32`` or ``float64``: the layer's dtype).
    #[new]
    fn new(a: &Bound<'_, PyAny>) -> PyResult<Self> {
        let untyped = a
            .cast::<PyUntypedArray>()
            .map_err(|_| PyTypeError::new_err("a must be a numpy array"))?;
        if let Ok(a) = untyped.cast::<PyArrayDyn<f32>>() {
            let (kernel, dim) = build(a)?;
            return Ok(Self {
                layer: Layer::F32(kernel),
                dim,
            });
        }
        if let Ok(a) = untyped.cast::<PyArrayDyn<f64>>() {
            let (kernel, dim) = build(a)?;
            return Ok(Self {
                layer: Layer::F64(kernel),
                dim,
            });
        }
        Err(PyValueError::new_err(format!(
            "a must have dtype float32 or float64, got {}",
            untyped.dtype()
        )))
    }

    /// The forward pass of one sequence ``(d, d)`` or a batch ``(B, d, d)``, on the lane path;
    /// ``exact`` as in ``Network.forward``.
    #[pyo3(signature = (z, *, checked = false, exact = false))]
    fn forward<'py>(
        &self,
        py: Python<'py>,
        z: &Bound<'py, PyAny>,
        checked: bool,
        exact: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arithmetic = spec_api::arithmetic(exact);
        match &self.layer {
            Layer::F32(kernel) => self.forward_as(py, &**kernel, z, checked, arithmetic),
            Layer::F64(kernel) => self.forward_as(py, &**kernel, z, checked, arithmetic),
        }
    }

    /// ``d`` (= ``T``).
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }

    /// ``"float32"`` or ``"float64"``.
    #[getter]
    fn dtype(&self) -> &'static str {
        match self.layer {
            Layer::F32(_) => f32::NAME,
            Layer::F64(_) => f64::NAME,
        }
    }
}
