//! Classifiers: GML's `ClassificationTransformer` loaded for a [`Ct`](crate::Ct) spec, images in the IDX
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

use geomattn::Isa;
use geomattn::gml::GmlFile;

use crate::dispatch::read;
use crate::error::Error;
use crate::network::Precision;
use geomattn_arch::Arch;

mod batched;
pub mod engine;

pub use batched::CHUNK;
use batched::{Body, Element};

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

/// Loads `file` as the classifier `arch`, computing in `precision`.
///
/// # Errors
/// [`Error::Unsupported`] if `arch` is not a classifier, [`Error::Load`] or [`Error::Mismatch`]
/// if the file does not hold that architecture. Any size, on the run-time engine ([`engine`]).
pub fn open(
    file: &GmlFile,
    arch: &Arch,
    precision: Precision,
) -> Result<Box<dyn Classifier>, Error> {
    let Arch::Ct(_) = arch else {
        return Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: "is not a classifier (give `classification_transformer(…)`)".into(),
        });
    };
    engine::open(file, arch, precision)
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
