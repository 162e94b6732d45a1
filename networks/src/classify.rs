//! Classifiers: GML's `ClassificationTransformer` loaded for a [`Ct`] spec, images in the IDX
//! format of the MNIST files, and the evaluation (accuracy, per class, confusion matrix).
//!
//! ```
//! use geomattn_networks::{Arch, Precision, classify};
//! let arch: Arch = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
//!                   Stiefel=true, add_connection=false)".parse()?;
//! # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
//! # let path = format!("{root}/fixtures/gml/mnist_nn2.h5");
//! let net = classify::open_file(&path, &arch, Precision::F32)?;
//! let images = classify::Images::read(format!("{root}/fixtures/mnist/mnist-train-300-images.idx3-ubyte"))?;
//! let labels = classify::read_labels(format!("{root}/fixtures/mnist/mnist-train-300-labels.idx1-ubyte"))?;
//! let evaluation = classify::evaluate(net.as_ref(), &images.take(20), &labels[..20])?;
//! assert_eq!(evaluation.total(), 20);
//! # Ok::<(), geomattn_networks::Error>(())
//! ```

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Mutex;

use geomattn::gml::{GmlFile, Layers, LoadError};
use geomattn::nalgebra::SMatrix;
use geomattn::{
    AddConnection, ClassificationLayer, Euclidean, Isa, MultiHeadAttention, NoConnection,
    ResNetLayer, Schema, SequenceLayer, Stiefel, Tanh, mnist_patches,
};

use crate::dispatch::{load_error, read};
use crate::network::{Scalar, Units};
use crate::{Arch, Ct, Error, Precision};

mod batched;
pub mod engine;

pub use batched::CHUNK;
use batched::{Body, Element, Unit};

/// A loaded classifier, behind one object-safe face.
pub trait Classifier: Send + Sync {
    /// The architecture it was loaded as.
    fn arch(&self) -> &Arch;

    /// The scalar it computes in.
    fn precision(&self) -> Precision;

    /// The class probabilities of one input: `seq` columns of `dim` values, column-major.
    ///
    /// # Errors
    /// [`Error::Length`] for an input of the wrong size, [`Error::NonFinite`] for NaN or ∞ in it.
    fn probabilities(&self, sequence: &[f64]) -> Result<Vec<f64>, Error>;

    /// The class probabilities of a 28×28 MNIST image (bytes, rows of the upright image), cut
    /// into GML's 16 patches of 7×7 ([`geomattn::mnist_patches`]).
    ///
    /// # Errors
    /// [`Error::Unsupported`] if the network does not read 49×16 sequences.
    fn image_probabilities(&self, image: &[u8; 784]) -> Result<Vec<f64>, Error>;

    /// The class probabilities of many inputs at once, on this thread, through the batched
    /// path (each layer one matrix product over [`CHUNK`] inputs at a time; within rounding of
    /// [`Classifier::probabilities`]). `sequences` holds the
    /// inputs one after another, each `seq` columns of `dim` values, column-major (Julia's
    /// `(dim, seq, N)` array); the result holds `classes` probabilities per input, in order.
    ///
    /// # Errors
    /// [`Error::Length`] if `sequences` is not a whole number of inputs, [`Error::NonFinite`]
    /// for NaN or ∞ in it.
    fn batch_probabilities(&self, sequences: &[f64]) -> Result<Vec<f64>, Error>;

    /// [`Classifier::batch_probabilities`] of 28×28 MNIST images, each cut as
    /// [`Classifier::image_probabilities`] cuts it.
    ///
    /// # Errors
    /// [`Error::Unsupported`] if the network does not read 49×16 sequences.
    fn batch_image_probabilities(&self, images: &[[u8; 784]]) -> Result<Vec<f64>, Error>;
}

/// The `L` blocks and the classification layer, computing in `S`: as loaded (the
/// image-by-image path) and laid out for the batched path.
struct Loaded<S, Att, Ff, const D: usize, const T: usize, const CLASSES: usize> {
    arch: Arch,
    body: Units<Att, Ff>,
    head: ClassificationLayer<S, D, CLASSES>,
    batched: Body<S>,
    /// The instruction set of the batched path's kernels: the best of this processor.
    isa: Isa,
}

impl<S, Att, Ff, const D: usize, const T: usize, const CLASSES: usize>
    Loaded<S, Att, Ff, D, T, CLASSES>
where
    S: Scalar,
    Units<Att, Ff>: SequenceLayer<S, D, T>,
{
    fn run(&self, z: &SMatrix<S, D, T>) -> Vec<f64> {
        let p = self.head.probabilities(&self.body.forward(z));
        p.iter().map(|x| x.to_double()).collect()
    }
}

impl<S, Att, Ff, const D: usize, const T: usize, const CLASSES: usize>
    Loaded<S, Att, Ff, D, T, CLASSES>
where
    S: Element,
{
    /// The probabilities of `count` inputs through the batched path ([`run_batched`]);
    /// `input(b)` is input `b` as a `D×T` matrix.
    fn run_batched(&self, count: usize, input: impl Fn(usize) -> SMatrix<S, D, T>) -> Vec<f64> {
        let input = |b| input(b).as_slice().to_vec();
        run_batched(&self.batched, self.isa, count, input, |last| {
            let p = self
                .head
                .probabilities(&SMatrix::<S, D, 1>::from_column_slice(last));
            p.iter().map(|x| x.to_double()).collect()
        })
    }

    /// [`Error::Unsupported`] unless the network reads MNIST images (`D = 49`, `T = 16`).
    fn reads_images(&self) -> Result<(), Error> {
        if D * T == 784 && D == 49 {
            Ok(())
        } else {
            Err(Error::Unsupported {
                arch: self.arch.to_string(),
                reason: "does not read MNIST images (16 patches of 7×7: dim = 49, seq = 16)".into(),
            })
        }
    }
}

impl<S, Att, Ff, const D: usize, const T: usize, const CLASSES: usize> Classifier
    for Loaded<S, Att, Ff, D, T, CLASSES>
where
    S: Element,
    Att: Send + Sync,
    Ff: Send + Sync,
    Units<Att, Ff>: SequenceLayer<S, D, T>,
{
    fn arch(&self) -> &Arch {
        &self.arch
    }

    fn precision(&self) -> Precision {
        S::PRECISION
    }

    fn probabilities(&self, sequence: &[f64]) -> Result<Vec<f64>, Error> {
        if sequence.len() != D * T {
            return Err(Error::Length {
                what: "the input",
                arch: self.arch.to_string(),
                expected: (D * T).to_string(),
                found: sequence.len(),
            });
        }
        finite("the input", sequence)?;
        let z = SMatrix::<S, D, T>::from_iterator(sequence.iter().map(|&x| S::from_double(x)));
        Ok(self.run(&z))
    }

    fn image_probabilities(&self, image: &[u8; 784]) -> Result<Vec<f64>, Error> {
        self.reads_images()?;
        Ok(self.run(&patches(image)))
    }

    fn batch_probabilities(&self, sequences: &[f64]) -> Result<Vec<f64>, Error> {
        if !sequences.len().is_multiple_of(D * T) {
            return Err(Error::Length {
                what: "the inputs",
                arch: self.arch.to_string(),
                expected: format!("a multiple of dim·seq = {}", D * T),
                found: sequences.len(),
            });
        }
        finite("the inputs", sequences)?;
        let input = |b: usize| {
            let values = &sequences[b * D * T..(b + 1) * D * T];
            SMatrix::from_iterator(values.iter().map(|&x| S::from_double(x)))
        };
        Ok(self.run_batched(sequences.len() / (D * T), input))
    }

    fn batch_image_probabilities(&self, images: &[[u8; 784]]) -> Result<Vec<f64>, Error> {
        self.reads_images()?;
        Ok(self.run_batched(images.len(), |b| patches(&images[b])))
    }
}

/// The probabilities of `count` inputs through the batched `body`, [`CHUNK`] at a time, with the
/// instruction set `isa`: `input(b)` gives input `b`'s entries column by column (`dim × seq`),
/// `head` the probabilities of an output's last column.
fn run_batched<S: Element, I: IntoIterator<Item = S>>(
    body: &Body<S>,
    isa: Isa,
    count: usize,
    input: impl Fn(usize) -> I,
    head: impl Fn(&[S]) -> Vec<f64>,
) -> Vec<f64> {
    let (dim, seq) = (body.dim, body.seq);
    let mut probabilities = Vec::new();
    for start in (0..count).step_by(CHUNK) {
        let inputs = start..count.min(start + CHUNK);
        let mut work = body.workspace(inputs.len());
        for (b, index) in inputs.clone().enumerate() {
            let entries = (0..seq).flat_map(|t| (0..dim).map(move |i| (i, t)));
            for ((i, t), value) in entries.zip(input(index)) {
                let at = body.index(&work, i, t, b);
                work.x[at] = value;
            }
        }
        body.forward(&mut work, isa);
        for b in 0..inputs.len() {
            let last: Vec<S> = (0..dim)
                .map(|i| work.x[body.index(&work, i, seq - 1, b)])
                .collect();
            probabilities.extend(head(&last));
        }
    }
    probabilities
}

/// [`Error::NonFinite`] for the first NaN or ∞ of `values`.
fn finite(what: &'static str, values: &[f64]) -> Result<(), Error> {
    match values.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// The image's 16 patches of 7×7 as a `D×T` matrix (`D·T = 784`: checked by the caller;
/// zeros otherwise).
fn patches<S: Scalar, const D: usize, const T: usize>(image: &[u8; 784]) -> SMatrix<S, D, T> {
    let patches = mnist_patches::<S>(image);
    SMatrix::from_iterator(patches.iter().copied().chain(std::iter::repeat(S::zero())))
}

/// Reads `L` units of attention and ResNet layer, then the classification layer.
fn load<S, Att, Ff, const D: usize, const T: usize, const CLASSES: usize>(
    file: &GmlFile,
    arch: &Arch,
    l: usize,
) -> Result<Box<dyn Classifier>, Error>
where
    S: Element,
    (Att, Ff): Schema<Scalar = S> + Unit<S>,
    Units<Att, Ff>: SequenceLayer<S, D, T>,
    Att: Send + Sync + 'static,
    Ff: Send + Sync + 'static,
{
    let read = || -> Result<_, LoadError> {
        let mut layers = Layers::new(file)?;
        let expected = l.saturating_mul(<(Att, Ff)>::LAYERS).saturating_add(1);
        if layers.remaining() != expected {
            return Err(LoadError::LayerCount {
                expected,
                found: layers.remaining(),
            });
        }
        let units = (0..l)
            .map(|_| layers.read::<(Att, Ff)>())
            .collect::<Result<_, _>>()?;
        let head = layers.read::<ClassificationLayer<S, D, CLASSES>>()?;
        layers.finish()?;
        Ok((Units(units), head))
    };
    let (body, head) = read().map_err(|source| load_error(file, arch, source))?;
    Ok(Box::new(Loaded::<S, Att, Ff, D, T, CLASSES> {
        arch: *arch,
        batched: Body::new(D, T, &body.0),
        body,
        head,
        isa: Isa::best(),
    }))
}

/// The grid of classifiers: GML's MNIST sizes (`dim = 49`, `seq = 16`, `classes = 10`,
/// `n_heads = 7`), any `L`, `Stiefel` and `add_connection` either.
fn on_grid<S: Element>(file: &GmlFile, arch: &Arch, ct: &Ct) -> Result<Box<dyn Classifier>, Error> {
    let off = |what: String| Error::OffGrid {
        arch: arch.to_string(),
        what,
        grid: crate::grid::CT.line(),
    };
    if (ct.dim, ct.seq, ct.classes, ct.n_heads) != (49, 16, 10, 7) {
        return Err(off(format!(
            "dim = {}, seq = {}, classes = {}, n_heads = {}",
            ct.dim, ct.seq, ct.classes, ct.n_heads
        )));
    }
    type Att<S, C, P> = MultiHeadAttention<S, 49, 7, 7, C, P>;
    type Ff<S> = ResNetLayer<S, 49, Tanh>;
    match (ct.stiefel, ct.add_connection) {
        (true, false) => {
            load::<S, Att<S, NoConnection, Stiefel>, Ff<S>, 49, 16, 10>(file, arch, ct.l)
        }
        (false, false) => {
            load::<S, Att<S, NoConnection, Euclidean>, Ff<S>, 49, 16, 10>(file, arch, ct.l)
        }
        (true, true) => {
            load::<S, Att<S, AddConnection, Stiefel>, Ff<S>, 49, 16, 10>(file, arch, ct.l)
        }
        (false, true) => {
            load::<S, Att<S, AddConnection, Euclidean>, Ff<S>, 49, 16, 10>(file, arch, ct.l)
        }
    }
}

/// Loads `file` as the classifier `arch`, computing in `precision`.
///
/// # Errors
/// [`Error::Unsupported`] if `arch` is not a classifier, [`Error::Load`] or [`Error::Mismatch`]
/// if the file does not hold that architecture. GML's MNIST sizes load compiled (with the batched
/// path), every other size on the run-time engine ([`engine`]).
pub fn open(
    file: &GmlFile,
    arch: &Arch,
    precision: Precision,
) -> Result<Box<dyn Classifier>, Error> {
    let Arch::Ct(ct) = arch else {
        return Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: "is not a classifier (give `classification_transformer(…)`)".into(),
        });
    };
    let compiled = match precision {
        Precision::F32 => on_grid::<f32>(file, arch, ct),
        Precision::F64 => on_grid::<f64>(file, arch, ct),
    };
    match compiled {
        Err(Error::OffGrid { .. }) => engine::open(file, arch, precision),
        loaded => loaded,
    }
}

/// Opens the file at `path` and loads it as the classifier `arch` (see [`open`]).
///
/// # Errors
/// As [`open`], and [`Error::Unreadable`] if the file cannot be read.
pub fn open_file(
    path: impl AsRef<Path>,
    arch: &Arch,
    precision: Precision,
) -> Result<Box<dyn Classifier>, Error> {
    open(&read(path.as_ref())?, arch, precision)
}

/// Images of 28×28 bytes, as in an IDX file (`idx3-ubyte`, the format of the MNIST files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Images {
    images: Vec<[u8; 784]>,
}

/// Reads an IDX file: its header (magic `0x0000_08_ND`, `ND` big-endian `u32` sizes) and its bytes.
fn idx(path: &Path, dims: u8, expected: &'static str) -> Result<(Vec<usize>, Vec<u8>), Error> {
    let bad = |reason: String| Error::Idx {
        file: path.display().to_string(),
        expected,
        reason,
    };
    geomattn::gml::regular_file(path).map_err(|e| bad(e.to_string()))?;
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let header = 4 * (1 + usize::from(dims));
    if bytes.len() < header {
        return Err(bad(format!(
            "{} bytes, shorter than its header",
            bytes.len()
        )));
    }
    if bytes[..4] != [0, 0, 8, dims] {
        return Err(bad(format!(
            "magic {:02x?}, expected [00, 00, 08, {dims:02x}] (unsigned bytes, {dims} dimensions)",
            &bytes[..4]
        )));
    }
    let sizes: Vec<usize> = bytes[4..header]
        .chunks_exact(4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    let len = sizes.iter().try_fold(1_usize, |n, &s| n.checked_mul(s));
    if len != Some(bytes.len() - header) {
        return Err(bad(format!(
            "the header says {sizes:?}, the file has {} bytes of data",
            bytes.len() - header
        )));
    }
    Ok((sizes, bytes[header..].to_vec()))
}

impl Images {
    /// Reads an `idx3-ubyte` file of 28×28 images.
    ///
    /// # Errors
    /// [`Error::Idx`] if it cannot be read, is not IDX of unsigned bytes, or its images are not
    /// 28×28.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        const WHAT: &str = "an IDX file of 28×28 images (idx3-ubyte)";
        let (sizes, pixels) = idx(path, 3, WHAT)?;
        if sizes[1..] != [28, 28] {
            return Err(Error::Idx {
                file: path.display().to_string(),
                expected: WHAT,
                reason: format!("its images are {}×{}", sizes[1], sizes[2]),
            });
        }
        let images = pixels
            .chunks_exact(784)
            .map(|image| image.try_into().expect("chunks of 784"))
            .collect();
        Ok(Self { images })
    }

    /// The images from their bytes.
    pub fn new(images: Vec<[u8; 784]>) -> Self {
        Self { images }
    }

    /// The first `count` images (all if fewer).
    pub fn take(&self, count: usize) -> Self {
        Self::new(self.images.iter().take(count).copied().collect())
    }

    /// The images.
    pub fn images(&self) -> &[[u8; 784]] {
        &self.images
    }
}

/// Reads an `idx1-ubyte` file of labels.
///
/// # Errors
/// [`Error::Idx`] if it cannot be read or is not IDX of unsigned bytes in one dimension.
pub fn read_labels(path: impl AsRef<Path>) -> Result<Vec<u8>, Error> {
    idx(path.as_ref(), 1, "an IDX file of labels (idx1-ubyte)").map(|(_, labels)| labels)
}

/// The outcome of classifying labelled images: the confusion matrix and what follows from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// `confusion[label][predicted]`: how many images of class `label` were predicted as
    /// `predicted`.
    pub confusion: Vec<Vec<usize>>,
}

impl Evaluation {
    /// How many images were classified.
    pub fn total(&self) -> usize {
        self.confusion.iter().flatten().sum()
    }

    /// How many were classified correctly.
    pub fn correct(&self) -> usize {
        self.confusion
            .iter()
            .enumerate()
            .map(|(k, row)| row[k])
            .sum()
    }

    /// The fraction classified correctly (0 for no images).
    #[allow(clippy::cast_precision_loss)]
    pub fn accuracy(&self) -> f64 {
        self.correct() as f64 / self.total().max(1) as f64
    }

    /// Per class: `(images of that class, of which correct)`.
    pub fn per_class(&self) -> Vec<(usize, usize)> {
        self.confusion
            .iter()
            .enumerate()
            .map(|(k, row)| (row.iter().sum(), row[k]))
            .collect()
    }
}

/// The first index of the largest probability (GML's `argmax`).
pub fn predicted(probabilities: &[f64]) -> usize {
    probabilities.iter().enumerate().fold(
        0,
        |best, (k, p)| if *p > probabilities[best] { k } else { best },
    )
}

/// The class probabilities of `images` (`classes` per image, in order) through the batched path,
/// [`CHUNK`] images at a time, over `threads` threads that take the next chunk as they finish
/// one.
///
/// # Errors
/// [`Error::Unsupported`] if the network does not read MNIST images.
pub fn image_probabilities(
    net: &dyn Classifier,
    images: &[[u8; 784]],
    threads: NonZeroUsize,
) -> Result<Vec<f64>, Error> {
    let classes = match net.arch() {
        Arch::Ct(ct) => ct.classes,
        _ => 0,
    };
    let mut probabilities = vec![0.0; images.len() * classes];
    let chunks = Mutex::new(
        images
            .chunks(CHUNK)
            .zip(probabilities.chunks_mut(CHUNK * classes.max(1))),
    );
    let work = || -> Result<(), Error> {
        loop {
            let next = chunks.lock().map_err(|_| poisoned())?.next();
            let Some((images, out)) = next else {
                return Ok(());
            };
            out.copy_from_slice(&net.batch_image_probabilities(images)?);
        }
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads.get()).map(|_| scope.spawn(work)).collect();
        let mine = work();
        workers
            .into_iter()
            .map(|worker| worker.join().map_err(|_| poisoned())?)
            .fold(mine, Result::and)
    })?;
    Ok(probabilities)
}

/// A worker panicked (a bug: the batched path does not panic on any input).
fn poisoned() -> Error {
    Error::Unsupported {
        arch: "the batched classifier".into(),
        reason: "stopped: one of its threads panicked".into(),
    }
}

/// The threads of this process: as many as the cores it may run on (1 if unknown).
pub fn all_threads() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// Classifies every image through the batched path on every core ([`image_probabilities`]) and
/// counts the outcomes against `labels`.
///
/// # Errors
/// [`Error::Length`] if there are not as many labels as images, [`Error::Unsupported`] if a
/// label is not a class of the network or the network does not read MNIST images.
pub fn evaluate(net: &dyn Classifier, images: &Images, labels: &[u8]) -> Result<Evaluation, Error> {
    let classes = match net.arch() {
        Arch::Ct(ct) => ct.classes,
        _ => 0,
    };
    if labels.len() != images.images().len() {
        return Err(Error::Length {
            what: "the labels",
            arch: net.arch().to_string(),
            expected: format!("one per image ({})", images.images().len()),
            found: labels.len(),
        });
    }
    if let Some(&label) = labels.iter().find(|&&l| usize::from(l) >= classes) {
        return Err(Error::Unsupported {
            arch: net.arch().to_string(),
            reason: format!("has {classes} classes, a label is {label}"),
        });
    }
    let probabilities = image_probabilities(net, images.images(), all_threads())?;
    let mut confusion = vec![vec![0; classes]; classes];
    for (p, &label) in probabilities.chunks_exact(classes.max(1)).zip(labels) {
        confusion[usize::from(label)][predicted(p)] += 1;
    }
    Ok(Evaluation { confusion })
}
