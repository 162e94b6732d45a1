//! GML's classifiers (`ClassificationTransformer`, its MNIST networks) from Python: 28×28 images
//! in, labels and class probabilities out, over every thread with the GIL released.

use geomattn_spec::Precision;
use geomattn_spec::classify::Classifier;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use numpy::{PyReadonlyArrayDyn, ndarray::Array2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::{parallel, spec_api};

/// Pixels of one MNIST image.
const PIXELS: usize = 784;

/// A classifier trained in GeometricMachineLearning.jl (``ClassificationTransformer``), loaded
/// by :func:`load_classifier`.
#[pyclass(frozen, module = "geomattn", name = "Classifier")]
pub(crate) struct PyClassifier {
    net: Box<dyn Classifier>,
    path: String,
    arch: String,
    precision: Precision,
    classes: usize,
}

/// The images of `images` (an array of `uint8`: `(28, 28)`, `(N, 28, 28)` or `(N, 784)`),
/// copied, and whether it was a single image.
fn images(images: &Bound<'_, PyAny>) -> PyResult<(Vec<[u8; PIXELS]>, bool)> {
    let asarray = images.py().import("numpy")?.getattr("asarray")?;
    let array = asarray.call1((images,))?;
    let untyped = array.cast::<PyUntypedArray>()?;
    let expected = "images must be uint8 pixels (0 … 255, rows of the upright image, as MNIST \
                    stores them) of shape (28, 28), (N, 28, 28) or (N, 784)";
    let dtype = untyped.dtype().to_string();
    let typed = untyped
        .cast::<numpy::PyArrayDyn<u8>>()
        .map_err(|_| PyTypeError::new_err(format!("{expected}, got dtype {dtype}")))?;
    let shape = untyped.shape().to_vec();
    let single = match shape.as_slice() {
        [28, 28] => true,
        [_, 28, 28] | [_, PIXELS] => false,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{expected}, got shape {shape:?}"
            )));
        }
    };
    let readonly: PyReadonlyArrayDyn<'_, u8> = typed
        .try_readonly()
        .map_err(|e| PyValueError::new_err(format!("images are being written elsewhere: {e}")))?;
    let pixels: Vec<u8> = readonly.as_array().iter().copied().collect();
    let images = pixels
        .chunks_exact(PIXELS)
        .map(|image| image.try_into().expect("chunks of 784"))
        .collect();
    Ok((images, single))
}

impl PyClassifier {
    /// The probabilities of every image, in order, computed with the GIL released.
    fn all_probabilities(&self, py: Python<'_>, images: &[[u8; PIXELS]]) -> PyResult<Array2<f64>> {
        let net = &*self.net;
        let rows: Vec<Vec<f64>> = py.detach(|| {
            parallel::install(|| {
                images
                    .par_iter()
                    .map(|image| spec_api::image_probabilities(net, image))
                    .collect::<PyResult<_>>()
            })
        })?;
        let flat: Vec<f64> = rows.into_iter().flatten().collect();
        Ok(Array2::from_shape_vec((images.len(), self.classes), flat)
            .expect("one row of probabilities per image"))
    }
}

#[pymethods]
impl PyClassifier {
    /// The class probabilities of ``images``: ``uint8`` pixels of shape ``(28, 28)`` (one
    /// image: a ``(classes,)`` array), ``(N, 28, 28)`` or ``(N, 784)`` (an ``(N, classes)``
    /// array), each image cut into GML's 16 patches of 7×7. Probabilities are float64 whatever
    /// the network's dtype.
    ///
    /// Raises ``TypeError`` for another dtype than ``uint8`` and ``ValueError`` for another
    /// shape, or a classifier that does not read 16 patches of 49 pixels.
    fn probabilities<'py>(
        &self,
        py: Python<'py>,
        images: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (images, single) = self::images(images)?;
        let probabilities = self.all_probabilities(py, &images)?;
        let array = PyArray2::from_owned_array(py, probabilities);
        if single {
            Ok(array.reshape(vec![self.classes])?.into_any())
        } else {
            Ok(array.into_any())
        }
    }

    /// ``(labels, probabilities)`` of ``images`` (as :meth:`probabilities` takes them): the
    /// predicted class of each image, the first index of its largest probability (GML's
    /// ``argmax``), as ``int64``, beside the probabilities.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        images: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (images, single) = self::images(images)?;
        let probabilities = self.all_probabilities(py, &images)?;
        let labels: Vec<i64> = probabilities
            .rows()
            .into_iter()
            .map(|row| {
                let row = row.to_vec();
                i64::try_from(geomattn_spec::classify::predicted(&row)).expect("a class index")
            })
            .collect();
        let labels = PyArray1::from_vec(py, labels);
        let probabilities = PyArray2::from_owned_array(py, probabilities);
        if single {
            Ok((
                labels.reshape(Vec::<usize>::new())?.into_any(),
                probabilities.reshape(vec![self.classes])?.into_any(),
            ))
        } else {
            Ok((labels.into_any(), probabilities.into_any()))
        }
    }

    /// ``predict(images)`` (a classifier is called as a function, as ``Network`` is).
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        images: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        self.predict(py, images)
    }

    /// The architecture, in the spec's short form.
    #[getter]
    fn arch(&self) -> &str {
        &self.arch
    }

    /// The number of classes.
    #[getter]
    fn classes(&self) -> usize {
        self.classes
    }

    /// The scalar it computes in, ``"float32"`` or ``"float64"``.
    #[getter]
    fn dtype(&self) -> &'static str {
        spec_api::dtype_name(self.precision)
    }

    /// The file it was loaded from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    fn __repr__(&self) -> String {
        format!(
            "geomattn.load_classifier({:?}, arch={:?}, dtype={:?})",
            self.path,
            self.arch,
            self.dtype()
        )
    }
}

/// Loads the classifier (GML's ``ClassificationTransformer``) at ``path`` as ``arch`` (for
/// example ``"classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16,
/// Stiefel=true, add_connection=false)"``), computing in ``dtype``.
///
/// Raises ``OSError`` if the file cannot be read and ``ValueError`` if ``arch`` is not a
/// classifier or the file does not hold it.
#[pyfunction]
#[pyo3(signature = (path, arch, dtype = "float32"))]
pub(crate) fn load_classifier(
    py: Python<'_>,
    path: std::path::PathBuf,
    arch: &str,
    dtype: &str,
) -> PyResult<PyClassifier> {
    let precision = spec_api::precision(dtype)?;
    let path = path.display().to_string();
    let (net, classes) = py.detach(|| spec_api::load_classifier(&path, arch, precision))?;
    Ok(PyClassifier {
        arch: net.arch().to_string(),
        net,
        path,
        precision,
        classes,
    })
}
