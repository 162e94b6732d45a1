//! numpy arrays in, flat slices out: the shape and dtype checks, and the memory layout.
//!
//! The Python-facing convention is the and GML's: a window is a `(D, T)` array (state
//! `t` is the column `z[:, t]`), a batch `(B, D, T)`. In C order that is row-major per window
//! ([`Layout::Rows`]); the kernels read it in place. An array whose windows are column-major
//! (the transpose `(B, T, D).transpose(0, 2, 1)` of a C-order array, or a Fortran-order `(D, T)`)
//! is also read in place ([`Layout::Columns`]). Any other strides are copied once into C order.
//! The dtype must be the network's: converting would round silently.

use std::borrow::Cow;

use geomattn_spec::batch::Layout;
use numpy::ndarray::{ArrayViewD, Axis};
use numpy::{
    PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::spec_api::Element;

/// A batch of windows read from a numpy array, borrowed in place where its layout allows.
pub(crate) struct Windows<'a, X: Clone> {
    /// The values, window after window.
    pub(crate) values: Cow<'a, [X]>,
    /// How each window is laid out.
    pub(crate) layout: Layout,
    /// `B`, or `None` for a single `(D, T)` window.
    pub(crate) batch: Option<usize>,
}

impl<X: Clone> Windows<'_, X> {
    /// The number of windows.
    pub(crate) fn count(&self) -> usize {
        self.batch.unwrap_or(1)
    }
}

/// The shape a window must have, as Python writes it.
fn expected(what: &str, dim: usize, seq: usize) -> String {
    format!("{what} must be an array of shape ({dim}, {seq}) or (B, {dim}, {seq})")
}

/// Checks `array`'s type, dtype and shape against windows of `dim × seq`, and borrows it as an
/// `X` array.
pub(crate) fn borrow<'py, X: Element>(
    array: &Bound<'py, PyAny>,
    what: &str,
    dim: usize,
    seq: usize,
) -> PyResult<PyReadonlyArrayDyn<'py, X>> {
    let untyped = array.cast::<PyUntypedArray>().map_err(|_| {
        let found = array
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!(
            "{} of dtype {}, got a {found} (use numpy.asarray)",
            expected(what, dim, seq),
            X::NAME
        ))
    })?;
    let dtype = untyped.dtype().to_string();
    let typed = untyped.cast::<PyArrayDyn<X>>().map_err(|_| {
        PyValueError::new_err(format!(
            "{} of dtype {} (the network's), got dtype {dtype}: pass {what}.astype(numpy.{}) or load \
             the network with dtype=\"{dtype}\"",
            expected(what, dim, seq),
            X::NAME,
            X::NAME
        ))
    })?;
    let shape = untyped.shape();
    let fits = match shape {
        [d, t] | [_, d, t] => *d == dim && *t == seq,
        _ => false,
    };
    if !fits {
        return Err(PyValueError::new_err(format!(
            "{} of dtype {}, got shape {shape:?}",
            expected(what, dim, seq),
            X::NAME
        )));
    }
    // A non-writeable array can be read; only a writer holding it blocks us.
    typed
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("{what} is being written elsewhere: {e}")))
}

/// The windows of a checked array (see [`borrow`]), in place where the layout allows.
pub(crate) fn windows<'a, X: Element>(view: ArrayViewD<'a, X>) -> Windows<'a, X> {
    let batch = (view.ndim() == 3).then(|| view.len_of(Axis(0)));
    if let Some(values) = view.to_slice() {
        return Windows {
            values: Cow::Borrowed(values),
            layout: Layout::Rows,
            batch,
        };
    }
    let last = view.ndim() - 1;
    let mut swapped = view.clone();
    swapped.swap_axes(last - 1, last);
    if let Some(values) = swapped.to_slice() {
        return Windows {
            values: Cow::Borrowed(values),
            layout: Layout::Columns,
            batch,
        };
    }
    Windows {
        values: Cow::Owned(view.iter().cloned().collect()),
        layout: Layout::Rows,
        batch,
    }
}
