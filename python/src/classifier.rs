//! GML's classifiers (`ClassificationTransformer`, its MNIST networks) from Python: 28×28 images
//! in, labels and class probabilities out, over every thread with the GIL released.

use geomattn_spec::batch::Layout;
use geomattn_spec::classify::{CHUNK, Classifier};
use geomattn_spec::Precision;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use numpy::{PyReadonlyArrayDyn, ndarray::Array2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays::{self, Windows};
use crate::parallel;
use crate::spec_api::{self, Element};

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
    /// The size of one input sequence, `dim × seq`.
    dim: usize,
    seq: usize,
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
    /// The probabilities of every image, in order, computed with the GIL released by the
    /// batched path, [`CHUNK`] images per task over the pool's threads.
    fn all_probabilities(&self, py: Python<'_>, images: &[[u8; PIXELS]]) -> PyResult<Array2<f64>> {
        let net = &*self.net;
        self.rows(py, images.len(), || {
            images
                .par_chunks(CHUNK)
                .map(|chunk| net.batch_image_probabilities(chunk))
                .collect()
        })
    }

    /// The probabilities of the sequences `windows` (the network's `dim × seq` windows, in
    /// either layout), as [`Self::all_probabilities`] computes them.
    fn sequence_rows<X: Element>(
        &self,
        py: Python<'_>,
        windows: &Windows<X>,
    ) -> PyResult<Array2<f64>> {
        let (net, size) = (&*self.net, self.dim * self.seq);
        // Column-major (Julia's) windows of f64: exact from either float.
        let columns: Vec<f64> = match windows.layout {
            Layout::Columns => windows.values.iter().map(|x| x.to_double()).collect(),
            Layout::Rows => windows
                .values
                .chunks_exact(size)
                .flat_map(|w| (0..size).map(|k| w[(k % self.dim) * self.seq + k / self.dim]))
                .map(|x| x.to_double())
                .collect(),
        };
        // A NaN or ∞ is named by its place in the caller's array, `[window, row, column]`.
        if let Some(index) = columns.iter().position(|x| !x.is_finite()) {
            let (window, k) = (index / size, index % size);
            return Err(PyValueError::new_err(format!(
                "sequences has a non-finite value at [{window}, {}, {}]",
                k % self.dim,
                k / self.dim
            )));
        }
        self.rows(py, windows.count(), || {
            columns
                .par_chunks(CHUNK * size)
                .map(|chunk| net.batch_probabilities(chunk))
                .collect()
        })
    }

    /// `count` rows of probabilities from `chunks` (run on the pool with the GIL released), or
    /// the first chunk's error as a `ValueError`.
    fn rows(
        &self,
        py: Python<'_>,
        count: usize,
        chunks: impl FnOnce() -> Result<Vec<Vec<f64>>, geomattn_spec::Error> + Send,
    ) -> PyResult<Array2<f64>> {
        let chunks = py
            .detach(|| parallel::install(chunks))
            .map_err(|e| spec_api::exception(&e))?;
        Ok(
            Array2::from_shape_vec((count, self.classes), chunks.concat())
                .expect("one row of probabilities per input"),
        )
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

    /// The class probabilities of ``sequences``: the network's inputs themselves, a
    /// ``(dim, seq)`` array (one sequence: a ``(classes,)`` array) or ``(N, dim, seq)`` (an
    /// ``(N, classes)`` array), of the network's dtype, as ``Network.forward`` takes windows.
    ///
    /// Raises ``TypeError`` for what is not an array, ``ValueError`` for another dtype or shape
    /// and for NaN or ∞ in the sequences.
    fn sequence_probabilities<'py>(
        &self,
        py: Python<'py>,
        sequences: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (rows, single) = match self.precision {
            Precision::F32 => {
                let windows = arrays::copied::<f32>(sequences, "sequences", self.dim, self.seq)?;
                (self.sequence_rows(py, &windows)?, windows.batch.is_none())
            }
            Precision::F64 => {
                let windows = arrays::copied::<f64>(sequences, "sequences", self.dim, self.seq)?;
                (self.sequence_rows(py, &windows)?, windows.batch.is_none())
            }
        };
        let array = PyArray2::from_owned_array(py, rows);
        if single {
            Ok(array.reshape(vec![self.classes])?.into_any())
        } else {
            Ok(array.into_any())
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
    let (dim, seq) = match net.arch() {
        geomattn_spec::Arch::Ct(ct) => (ct.dim, ct.seq),
        _ => unreachable!("classify::open_file loads classifiers only"),
    };
    Ok(PyClassifier {
        arch: net.arch().to_string(),
        net,
        path,
        precision,
        classes,
        dim,
        seq,
    })
}
