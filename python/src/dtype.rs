//! The `dtype` argument of `load` and `load_classifier`, read as numpy reads one: a numpy dtype
//! (`numpy.dtype("float64")`), a scalar type (`numpy.float32`, Python's `float`) or a name
//! (`"float32"`, `"f4"`, `"<f8"`, `"double"`), as long as it names `float32` or `float64`.

use geomattn_networks::Precision;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// What a `dtype` argument may be, for the error messages.
const ACCEPTED: &str = "dtype must be float32 or float64: numpy.float32, numpy.float64, \
                        numpy.dtype(\"float32\"), \"float32\", \"f4\", \"float64\", \"f8\", …";

/// A `dtype` argument: the precision a network computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DType(pub(crate) Precision);

impl DType {
    /// `float32`.
    pub(crate) const F32: Self = Self(Precision::F32);
    /// `float64`.
    pub(crate) const F64: Self = Self(Precision::F64);
}

impl<'a, 'py> FromPyObject<'a, 'py> for DType {
    type Error = PyErr;

    /// A `TypeError` for what `numpy.dtype` cannot read (and for `None`, which numpy would read
    /// as float64 whatever the default of the function), a `ValueError` for another dtype.
    fn extract(dtype: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let found = || {
            dtype
                .repr()
                .map_or_else(|_| "?".to_owned(), |r| r.to_string())
        };
        if dtype.is_none() {
            return Err(PyTypeError::new_err(format!("{ACCEPTED}, got None")));
        }
        let numpy_dtype = dtype
            .py()
            .import("numpy")?
            .getattr("dtype")?
            .call1((dtype,))
            .map_err(|_| PyTypeError::new_err(format!("{ACCEPTED}, got {}", found())))?;
        // The name ignores the byte order: ">f4" computes in float32 as "<f4" does.
        let name: String = numpy_dtype.getattr("name")?.extract()?;
        match name.as_str() {
            "float32" => Ok(Self::F32),
            "float64" => Ok(Self::F64),
            _ => Err(PyValueError::new_err(format!(
                "{ACCEPTED}, got {} (dtype {name})",
                found()
            ))),
        }
    }
}
