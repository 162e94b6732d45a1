//! numpy arrays in, flat slices out: the conversion of array-likes, the shape checks, and the
//! memory layout.
//!
//! The Python-facing convention is the and GML's: a window is a `(D, T)` array (state
//! `t` is the column `z[:, t]`), a batch `(B, D, T)`. In C order that is row-major per window
//! ([`Layout::Rows`]); the kernels read it in place. An array whose windows are column-major
//! (the transpose `(B, T, D).transpose(0, 2, 1)` of a C-order array, or a Fortran-order `(D, T)`)
//! is also read in place ([`Layout::Columns`]). Any other strides are copied once into C order
//! by numpy.
//!
//! Anything else is converted as numpy converts it: an array-like (a list, a tuple, nested lists,
//! an object with `__array__`) by `numpy.asarray`, an array of another dtype by `astype` under
//! numpy's default casting rule for ufuncs, `"same_kind"` (integers and booleans become floats,
//! float64 rounds to float32; complex numbers, strings and objects are a `TypeError`).
//!
//! The values are copied into memory of our own before the GIL is released: while a kernel runs,
//! another Python thread may resize the array (`a.resize(n, refcheck=False)` frees its buffer),
//! write to it, or drop it, and a kernel reading the array's buffer then would read freed memory.
//! The copy is one pass over the input, and fresh memory: for the cheapest forward pass, the bare
//! `SkewAttention` at d = T = 8 in f32 on the lane path, the copy and the page faults of the
//! call (the copy's and the output array's) took over 40% of it (perf, the performance guide). A
//! conversion costs one more pass, into a temporary numpy array.

use geomattn_networks::batch::Layout;
use numpy::ndarray::{ArrayViewD, Axis};
use numpy::{
    PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::spec_api::Element;

/// A batch of windows copied from a numpy array.
pub(crate) struct Windows<X> {
    /// The values, window after window.
    pub(crate) values: Vec<X>,
    /// How each window is laid out.
    pub(crate) layout: Layout,
    /// `B`, or `None` for a single `(D, T)` window.
    pub(crate) batch: Option<usize>,
}

impl<X> Windows<X> {
    /// The number of windows.
    pub(crate) fn count(&self) -> usize {
        self.batch.unwrap_or(1)
    }

    /// The shape of an array of these windows with `states` states each: `(B, dim, states)` or
    /// `(dim, states)`.
    pub(crate) fn shape(&self, dim: usize, states: usize) -> Vec<usize> {
        match self.batch {
            Some(b) => vec![b, dim, states],
            None => vec![dim, states],
        }
    }
}

/// A new C-order array of `shape` for results, allocated by numpy (`numpy.empty`: a batch
/// kernel writes every value), so that an allocation too large is Python's `MemoryError`.
pub(crate) fn output<'py, X: Element>(
    py: Python<'py>,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyArrayDyn<X>>> {
    let array = py
        .import("numpy")?
        .getattr("empty")?
        .call1((shape, X::NAME))?;
    Ok(array.cast_into::<PyArrayDyn<X>>()?)
}

/// The shape a window must have, as Python writes it.
fn expected(what: &str, dim: usize, seq: usize) -> String {
    format!("{what} must be an array of shape ({dim}, {seq}) or (B, {dim}, {seq})")
}

/// Converts `array` to windows of `dim × seq` of `X` (as the module says) and borrows them; an
/// array in neither layout is copied into C order first (by numpy).
fn borrow<'py, X: Element>(
    array: &Bound<'py, PyAny>,
    what: &str,
    dim: usize,
    seq: usize,
) -> PyResult<PyReadonlyArrayDyn<'py, X>> {
    let expected = expected(what, dim, seq);
    let untyped = as_array(array, &expected)?;
    let shape = untyped.shape();
    let fits = match shape {
        [d, t] | [_, d, t] => *d == dim && *t == seq,
        _ => false,
    };
    if !fits {
        return Err(PyValueError::new_err(format!(
            "{expected}, got shape {shape:?}"
        )));
    }
    let typed = match untyped.cast::<PyArrayDyn<X>>() {
        Ok(typed) => typed.clone(),
        Err(_) => converted::<X>(&untyped, &expected)?,
    };
    // A non-writeable array can be read; only a writer holding it blocks us.
    let readonly = typed
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{what} is being written elsewhere: {e}")))?;
    if layout(&readonly.as_array()).is_some() {
        return Ok(readonly);
    }
    drop(readonly);
    let copy = typed.call_method1("copy", ("C",))?;
    Ok(copy.cast_into::<PyArrayDyn<X>>()?.readonly())
}

/// `array` itself if it is a numpy array, else `numpy.asarray(array)`; `expected` (what the
/// argument must be) begins the message of a `ValueError` if numpy cannot convert it.
pub(crate) fn as_array<'py>(
    array: &Bound<'py, PyAny>,
    expected: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(untyped) = array.cast::<PyUntypedArray>() {
        return Ok(untyped.clone());
    }
    let converted = array
        .py()
        .import("numpy")?
        .getattr("asarray")?
        .call1((array,))
        .map_err(|e| {
            let found = array
                .get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string());
            PyValueError::new_err(format!(
                "{expected}: numpy cannot convert this {found} to an array ({e})"
            ))
        })?;
    Ok(converted.cast_into::<PyUntypedArray>()?)
}

/// `array` (of another dtype than `X`) as a new array of `X`, cast as numpy's ufuncs cast: a
/// `TypeError`, its message beginning with `expected`, if `"same_kind"` casting does not allow it.
pub(crate) fn converted<'py, X: Element>(
    array: &Bound<'py, PyUntypedArray>,
    expected: &str,
) -> PyResult<Bound<'py, PyArrayDyn<X>>> {
    let dtype = array.dtype();
    let numpy = array.py().import("numpy")?;
    let allowed: bool = numpy
        .getattr("can_cast")?
        .call1((&dtype, X::NAME, "same_kind"))?
        .extract()?;
    if !allowed {
        return Err(PyTypeError::new_err(format!(
            "{expected} of real numbers (cast to {}), got dtype {dtype}, which numpy does not \
             cast to {} (casting=\"same_kind\")",
            X::NAME,
            X::NAME
        )));
    }
    Ok(array
        .call_method1("astype", (X::NAME,))?
        .cast_into::<PyArrayDyn<X>>()?)
}

/// The `len` values of `values` in memory of our own, or Python's `MemoryError` if it cannot be
/// allocated (`Vec`'s own allocation aborts the interpreter instead: a batch of 10⁸ windows of
/// 3×3 under a 4 GB limit did).
pub(crate) fn collected<X>(len: usize, values: impl IntoIterator<Item = X>) -> PyResult<Vec<X>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| {
        PyMemoryError::new_err(format!(
            "cannot allocate {} bytes for a copy of the input",
            len.saturating_mul(size_of::<X>())
        ))
    })?;
    out.extend(values.into_iter().take(len));
    Ok(out)
}

/// How the windows of `view` lie in memory, if they can be read in place.
fn layout<X>(view: &ArrayViewD<'_, X>) -> Option<Layout> {
    if view.is_standard_layout() {
        return Some(Layout::Rows);
    }
    let last = view.ndim().checked_sub(1)?;
    let mut swapped = view.view();
    swapped.swap_axes(last.checked_sub(1)?, last);
    swapped.is_standard_layout().then_some(Layout::Columns)
}

/// The windows of `array` (checked as [`borrow`] checks it), copied in their layout, to be read
/// with the GIL released. The borrow ends before this returns and no Python code runs while it
/// lasts: another thread that resizes the array between two of our Python calls moves its
/// buffer, and numpy's borrow tracking must see the same buffer when the borrow is released.
pub(crate) fn copied<X: Element>(
    array: &Bound<'_, PyAny>,
    what: &str,
    dim: usize,
    seq: usize,
) -> PyResult<Windows<X>> {
    let readonly = borrow::<X>(array, what, dim, seq)?;
    windows(readonly.as_array())
}

/// The windows of an array [`borrow`] returned, copied in their layout.
fn windows<X: Copy>(view: ArrayViewD<'_, X>) -> PyResult<Windows<X>> {
    let batch = (view.ndim() == 3).then(|| view.len_of(Axis(0)));
    let layout = layout(&view);
    let mut swapped = view;
    if layout == Some(Layout::Columns) {
        let last = swapped.ndim() - 1;
        swapped.swap_axes(last - 1, last);
    }
    match (layout, swapped.to_slice()) {
        (Some(layout), Some(values)) => Ok(Windows {
            values: collected(values.len(), values.iter().copied())?,
            layout,
            batch,
        }),
        _ => Err(PyRuntimeError::new_err(
            "an array borrowed in C order is not contiguous",
        )),
    }
}
