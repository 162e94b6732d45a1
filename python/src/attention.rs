//! The `SkewAttention` Python class: GML's volume-preserving attention with a skew-symmetric
//! weight (`skew_sym = true`), alone, at `d = T`. It is what the batched NumPy and JAX peers of the
//! benchmark implement, so the comparison is of the same layer on the same arrays.

use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::arrays;
use crate::parallel;
use crate::spec_api::attention::{self, Kernel};
use crate::spec_api::{self, Element};
use geomattn_networks::batch::Arithmetic;

enum Layer {
    F32(Box<dyn Kernel<f32>>),
    F64(Box<dyn Kernel<f64>>),
}

/// GML's volume-preserving attention ``Z ↦ Z·Cay(Zᵀ A Z)`` (``skew_sym = true``) alone.
///
/// Parameters
/// ----------
/// a : array_like, shape (d(d−1)/2,)
///     GML's packed skew-symmetric weight (the strict lower triangle, row by row), for ``d`` in
///     :data:`ATTENTION_SIZES`. A float32 array makes a float32 layer; anything else is
///     converted to float64 (``casting="same_kind"``) and makes a float64 layer.
///
/// Raises
/// ------
/// ValueError
///     ``a`` has another shape, or numpy cannot convert it.
/// TypeError
///     ``a``'s dtype does not cast to float64 (complex numbers, strings, objects).
///
/// Notes
/// -----
/// Sequences are ``(d, d)`` (``T = d``), converted and copied as :class:`Network` does. A layer
/// is called as a function: ``layer(z)`` is ``layer.forward(z)``.
///
/// Examples
/// --------
/// >>> layer = geomattn.SkewAttention(np.array([0.5, -0.2, 0.1], dtype=np.float32))
/// >>> layer.dim, layer.dtype
/// (3, 'float32')
/// >>> z = np.eye(3, dtype=np.float32)
/// >>> out = layer(z)
/// >>> out.shape, out.dtype
/// ((3, 3), dtype('float32'))
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
    if let Some(index) = values.iter().position(|x| !x.to_double().is_finite()) {
        return Err(PyValueError::new_err(format!(
            "a has a non-finite value at position {index}: a weight must be a number"
        )));
    }
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
            parallel::run_in_blocks(py, input, d * d, output, d * d, |i, o| {
                kernel.forward(i, layout, o, checked, arithmetic)
            })?;
        }
        Ok(out.into_any())
    }
}

#[pymethods]
impl PySkewAttention {
    #[new]
    fn new(a: &Bound<'_, PyAny>) -> PyResult<Self> {
        const EXPECTED: &str = "a must be GML's packed skew-symmetric weight, a vector";
        let untyped = arrays::as_array(a, EXPECTED)?;
        if let Ok(a) = untyped.cast::<PyArrayDyn<f32>>() {
            let (kernel, dim) = build(a)?;
            return Ok(Self {
                layer: Layer::F32(kernel),
                dim,
            });
        }
        let a = match untyped.cast::<PyArrayDyn<f64>>() {
            Ok(a) => a.clone(),
            Err(_) => arrays::converted::<f64>(&untyped, EXPECTED)?,
        };
        let (kernel, dim) = build(&a)?;
        Ok(Self {
            layer: Layer::F64(kernel),
            dim,
        })
    }

    /// The forward pass of one sequence or a batch of sequences.
    ///
    /// Parameters
    /// ----------
    /// z : array_like, shape (d, d) or (B, d, d)
    ///     The sequences, converted to the layer's dtype as :class:`Network` converts them.
    /// checked : bool, default False
    ///     Raise at the first non-finite value; unchecked, NaN and inf propagate.
    /// exact : bool, default False
    ///     As in :meth:`Network.forward`: the lane path by default where :data:`LANES`, the
    ///     scalar path's bits if ``True``.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     A new C-order array of ``z``'s shape, in the layer's dtype.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     ``z`` has another shape or numpy cannot convert it, or (``checked=True``) a value is
    ///     not finite.
    /// TypeError
    ///     ``z``'s dtype does not cast to the layer's.
    ///
    /// Examples
    /// --------
    /// >>> layer = geomattn.SkewAttention([0.5, -0.2, 0.1])
    /// >>> layer.forward(np.ones((10, 3, 3))).shape
    /// (10, 3, 3)
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

    /// The scalar it computes in, ``"float32"`` or ``"float64"``.
    #[getter]
    fn dtype(&self) -> &'static str {
        match self.layer {
            Layer::F32(_) => f32::NAME,
            Layer::F64(_) => f64::NAME,
        }
    }

    /// ``layer(z, checked=False, exact=False)`` is :meth:`forward`.
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
}
