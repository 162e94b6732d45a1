//! GML's classifiers (`ClassificationTransformer`, its MNIST networks) from Python: 28×28 images
//! in, labels and class probabilities out, over every thread with the GIL released.

use std::ops::Range;

use geomattn_networks::Precision;
use geomattn_networks::batch::Layout;
use geomattn_networks::classify::{CHUNK, Classifier};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use numpy::{PyReadonlyArrayDyn, ndarray::Array2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::arrays::{self, Windows};
use crate::dtype::DType;
use crate::parallel::{self, Pacer};
use crate::spec_api::{self, Element};

/// Pixels of one MNIST image.
const PIXELS: usize = 784;

/// A classifier trained in GeometricMachineLearning.jl (``ClassificationTransformer``, such as
/// GML's MNIST networks), loaded by :func:`load_classifier`.
///
/// Images are pixels 0 … 255 of the upright image (as MNIST stores them): ``(28, 28)``,
/// ``(N, 28, 28)`` or ``(N, 784)``, each cut into GML's 16 patches of 7×7. They are converted as
/// numpy converts them (lists by ``numpy.asarray``; integers of another dtype to ``uint8`` if
/// every value is in 0 … 255) and copied once. Batches run on :func:`get_num_threads` threads
/// with the GIL released. A classifier is called as a function: ``mnist(images)`` is
/// ``mnist.predict(images)``.
///
/// Examples
/// --------
/// >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
/// ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
/// ...     "Stiefel=true, add_connection=false)")
/// >>> mnist.classes, mnist.dtype
/// (10, 'float32')
/// >>> labels, probabilities = mnist(np.zeros((5, 28, 28), dtype=np.uint8))
/// >>> labels.shape, probabilities.shape
/// ((5,), (5, 10))
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

/// The images of `images` (pixels 0 … 255: `(28, 28)`, `(N, 28, 28)` or `(N, 784)`), copied,
/// and whether it was a single image.
fn images(images: &Bound<'_, PyAny>) -> PyResult<(Vec<[u8; PIXELS]>, bool)> {
    let expected = "images must be uint8 pixels (0 … 255, rows of the upright image, as MNIST \
                    stores them) of shape (28, 28), (N, 28, 28) or (N, 784)";
    let untyped = arrays::as_array(images, expected)?;
    let typed = pixels(&untyped, expected)?;
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
    let view = readonly.as_array();
    let count = view.len() / PIXELS;
    // One copy, into images (a copy into a flat vector first took twice the memory).
    let mut pixels = view.iter();
    let images = arrays::collected(
        count,
        std::iter::repeat_with(|| {
            let mut image = [0; PIXELS];
            for (to, from) in image.iter_mut().zip(&mut pixels) {
                *to = *from;
            }
            image
        }),
    )?;
    Ok((images, single))
}

/// `array` as `uint8`: itself, or its integers converted if every one is in 0 … 255 (a
/// `ValueError` otherwise); a `TypeError` for any other dtype (floats are not pixels).
fn pixels<'py>(
    array: &Bound<'py, PyUntypedArray>,
    expected: &str,
) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
    if let Ok(typed) = array.cast::<PyArrayDyn<u8>>() {
        return Ok(typed.clone());
    }
    let dtype = array.dtype();
    if !matches!(dtype.kind(), b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "{expected}, got dtype {dtype}"
        )));
    }
    let converted = array.call_method1("astype", ("uint8",))?;
    // A value out of 0 … 255 wraps around in the cast: the converted array differs.
    let exact: bool = converted
        .rich_compare(array, pyo3::basic::CompareOp::Eq)?
        .call_method0("all")?
        .extract()?;
    if !exact {
        return Err(PyValueError::new_err(format!(
            "{expected}, got {dtype} values outside 0 … 255"
        )));
    }
    Ok(converted.cast_into::<PyArrayDyn<u8>>()?)
}

impl PyClassifier {
    /// The probabilities of every image, in order, computed with the GIL released by the
    /// batched path, [`CHUNK`] images per task over the pool's threads.
    fn all_probabilities(&self, py: Python<'_>, images: &[[u8; PIXELS]]) -> PyResult<Array2<f64>> {
        let net = &*self.net;
        self.rows(py, images.len(), |block| {
            images[block]
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
        let len = windows.values.len();
        let columns: Vec<f64> = match windows.layout {
            Layout::Columns => {
                arrays::collected(len, windows.values.iter().map(|x| x.to_double()))?
            }
            Layout::Rows => arrays::collected(
                len,
                windows
                    .values
                    .chunks_exact(size)
                    .flat_map(|w| (0..size).map(|k| w[(k % self.dim) * self.seq + k / self.dim]))
                    .map(|x| x.to_double()),
            )?,
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
        self.rows(py, windows.count(), |block| {
            columns[block.start * size..block.end * size]
                .par_chunks(CHUNK * size)
                .map(|chunk| net.batch_probabilities(chunk))
                .collect()
        })
    }

    /// `count` rows of probabilities, from the chunks `block` gives for each block of inputs (run
    /// on the pool with the GIL released, pending signals looked at between blocks), or the
    /// first chunk's error as a `ValueError`.
    fn rows(
        &self,
        py: Python<'_>,
        count: usize,
        block: impl Fn(Range<usize>) -> Result<Vec<Vec<f64>>, geomattn_networks::Error> + Sync,
    ) -> PyResult<Array2<f64>> {
        let mut chunks = Vec::new();
        let mut pacer = Pacer::new(CHUNK * parallel::threads());
        let mut start = 0;
        while start < count {
            let inputs = pacer.next(start, count);
            start = inputs.end;
            let work = || parallel::install(|| block(inputs)).map_err(|e| spec_api::exception(&e));
            chunks.extend(pacer.run(py, work)?);
        }
        Ok(
            Array2::from_shape_vec((count, self.classes), chunks.concat())
                .expect("one row of probabilities per input"),
        )
    }
}

#[pymethods]
impl PyClassifier {
    /// The class probabilities of images.
    ///
    /// Parameters
    /// ----------
    /// images : array_like of uint8, shape (28, 28), (N, 28, 28) or (N, 784)
    ///     Pixels 0 … 255, as the class says.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray of float64
    ///     ``(classes,)`` for one image, ``(N, classes)`` for ``N``, whatever the classifier's
    ///     dtype.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     Pixels that are not integers (floats are not converted: scale them yourself).
    /// ValueError
    ///     Another shape, integers outside 0 … 255, or a classifier that does not read 16
    ///     patches of 49 pixels.
    ///
    /// Examples
    /// --------
    /// >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
    /// ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    /// ...     "Stiefel=true, add_connection=false)")
    /// >>> p = mnist.probabilities(np.zeros((28, 28), dtype=np.uint8))
    /// >>> p.shape, bool(abs(p.sum() - 1) < 1e-6)
    /// ((10,), True)
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

    /// The predicted classes of images, beside their probabilities.
    ///
    /// Parameters
    /// ----------
    /// images : array_like of uint8, shape (28, 28), (N, 28, 28) or (N, 784)
    ///     Pixels 0 … 255, as the class says.
    ///
    /// Returns
    /// -------
    /// labels : numpy.ndarray of int64
    ///     The first index of each image's largest probability (GML's ``argmax``): shape ``()``
    ///     for one image, ``(N,)`` for ``N``.
    /// probabilities : numpy.ndarray of float64
    ///     As :meth:`probabilities` returns them.
    ///
    /// Raises
    /// ------
    /// TypeError
    ///     Pixels that are not integers.
    /// ValueError
    ///     As :meth:`probabilities`.
    ///
    /// Examples
    /// --------
    /// >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
    /// ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    /// ...     "Stiefel=true, add_connection=false)")
    /// >>> labels, probabilities = mnist.predict(np.zeros((3, 784), dtype=np.uint8))
    /// >>> bool((labels == probabilities.argmax(axis=1)).all())
    /// True
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
                i64::try_from(geomattn_networks::classify::predicted(&row)).expect("a class index")
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

    /// The class probabilities of sequences: the network's inputs themselves, not images.
    ///
    /// A sequence is what GML's network reads: ``dim`` features (the 49 pixels of a 7×7 patch,
    /// divided by 255, for MNIST) at each of ``seq`` steps (its 16 patches). The batched path of
    /// :meth:`probabilities` computes them: an image and its sequence give the same numbers.
    ///
    /// Parameters
    /// ----------
    /// sequences : array_like, shape (dim, seq) or (N, dim, seq)
    ///     The sequences, converted to the classifier's dtype as :class:`Network` converts
    ///     windows; C order or column-major (Julia's) are read as they are.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray of float64
    ///     ``(classes,)`` for one sequence, ``(N, classes)`` for ``N``, whatever the classifier's
    ///     dtype.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     Another shape, numpy cannot convert it, or a value is NaN or infinite: the message names
    ///     its place ``[sequence, feature, step]``.
    /// TypeError
    ///     Its dtype does not cast to the classifier's (complex numbers, strings, objects).
    ///
    /// Examples
    /// --------
    /// >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
    /// ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    /// ...     "Stiefel=true, add_connection=false)")
    /// >>> p = mnist.sequence_probabilities(np.zeros((4, 49, 16)))
    /// >>> p.shape, bool((p == mnist.probabilities(np.zeros((4, 784), dtype=np.uint8))).all())
    /// ((4, 10), True)
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

    /// ``mnist(images)`` is :meth:`predict`.
    /// (Python shows a slot's own docstring: the class's docs say it.)
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

/// Loads a classifier GeometricMachineLearning.jl saved (``ClassificationTransformer``).
///
/// Parameters
/// ----------
/// path : str or os.PathLike
///     The HDF5 file GML wrote.
/// arch : str
///     The architecture: ``"classification_transformer(dim=49, seq=16, classes=10, n_heads=7,
///     L=16, Stiefel=true, add_connection=false)"`` for GML's MNIST networks, or GML's
///     constructor call.
/// dtype : numpy dtype or str, default "float32"
///     The scalar it computes in, float32 or float64, as :func:`load` takes it.
///
/// Returns
/// -------
/// Classifier
///
/// Raises
/// ------
/// FileNotFoundError
///     There is no file at ``path`` (other ``OSError`` subclasses as :func:`load` raises them).
/// OSError
///     The file is not a readable HDF5 file.
/// ValueError
///     ``arch`` is malformed or not a classifier, the file does not hold it, or ``dtype`` is
///     another dtype than float32 and float64.
/// TypeError
///     ``dtype`` is not a dtype.
///
/// Examples
/// --------
/// >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
/// ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
/// ...     "Stiefel=true, add_connection=false)", dtype="f8")
/// >>> mnist.dtype
/// 'float64'
#[pyfunction]
#[pyo3(signature = (path, arch, dtype = DType::F32), text_signature = "(path, arch, dtype='float32')")]
pub(crate) fn load_classifier(
    py: Python<'_>,
    path: std::path::PathBuf,
    arch: &str,
    dtype: DType,
) -> PyResult<PyClassifier> {
    let DType(precision) = dtype;
    let path = path.display().to_string();
    let (net, classes) = py.detach(|| spec_api::load_classifier(&path, arch, precision))?;
    let (dim, seq) = match net.arch() {
        geomattn_networks::Arch::Ct(ct) => (ct.dim, ct.seq),
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
