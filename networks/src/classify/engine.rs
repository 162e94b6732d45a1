//! Classifiers of every size GML allows, on the run-time engine
//! ([`geomattn::engine::ClassificationTransformer`]): what [`super::open`] loads. One input goes
//! through the engine's layers (on GML's MNIST networks the compile-time classifier's bits);
//! batches through the batched path (`batched::Body`, laid out from the engine's layers).

use geomattn::engine::ClassificationTransformer;
use geomattn::gml::GmlFile;
use geomattn::nalgebra::DMatrix;
use geomattn::{Isa, mnist_patches};

use super::batched::{Body, Element};
use super::{Classifier, finite, run_batched};
use crate::error::Error;
use crate::network::Precision;
use geomattn_arch::Arch;

/// A classifier on the run-time engine, with its architecture, and its blocks laid out for the
/// batched path.
struct OnEngine<S> {
    arch: Arch,
    net: ClassificationTransformer<S>,
    batched: Body<S>,
    /// The instruction set of the batched path's kernels: the best of this processor.
    isa: Isa,
}

/// Loads `file` as the classifier `arch` on the run-time engine, computing in `precision`.
///
/// # Errors
/// As [`super::open`].
pub fn open(
    file: &GmlFile,
    arch: &Arch,
    precision: Precision,
) -> Result<Box<dyn Classifier>, Error> {
    Ok(match precision {
        Precision::F32 => Box::new(OnEngine::<f32>::open(file, arch)?),
        Precision::F64 => Box::new(OnEngine::<f64>::open(file, arch)?),
    })
}

impl<S: Element> OnEngine<S> {
    fn open(file: &GmlFile, arch: &Arch) -> Result<Self, Error> {
        let net = crate::engine::classifier(file, arch)?;
        let batched = Body::of_engine(net.blocks(), arch.dim(), arch.seq());
        Ok(Self {
            arch: *arch,
            net,
            batched,
            isa: Isa::best(),
        })
    }

    /// The probabilities of `count` inputs through the batched path; `input(b)` gives input
    /// `b`'s entries column by column.
    fn batched<I: IntoIterator<Item = S>>(
        &self,
        count: usize,
        input: impl Fn(usize) -> I,
    ) -> Vec<f64> {
        let dim = self.arch.dim();
        run_batched(&self.batched, self.isa, count, input, |last| {
            let p = self
                .net
                .head()
                .probabilities(&DMatrix::from_column_slice(dim, 1, last));
            p.iter().map(|x| x.to_double()).collect()
        })
    }

    /// `(dim, seq)` of an input.
    fn shape(&self) -> (usize, usize) {
        (self.arch.dim(), self.arch.seq())
    }

    /// The probabilities of the input `z` (of the network's shape).
    fn run(&self, z: &DMatrix<S>) -> Vec<f64> {
        let p = self
            .net
            .probabilities(z)
            .expect("inputs are checked against the architecture's shape");
        p.iter().map(|x| x.to_double()).collect()
    }

    /// The input of `values` (column-major, `dim·seq` of them).
    fn input(&self, values: &[f64]) -> DMatrix<S> {
        let (dim, seq) = self.shape();
        DMatrix::from_iterator(dim, seq, values.iter().map(|&x| S::from_double(x)))
    }

    /// [`Error::Unsupported`] unless the network reads MNIST images (`dim = 49`, `seq = 16`).
    fn reads_images(&self) -> Result<(), Error> {
        if self.shape() == (49, 16) {
            return Ok(());
        }
        Err(Error::Unsupported {
            arch: self.arch.to_string(),
            reason: "does not read MNIST images (16 patches of 7×7: dim = 49, seq = 16)".into(),
        })
    }

    /// `Ok` if `values` is one input (`one`) or a whole number of them, all finite.
    ///
    /// # Errors
    /// [`Error::Length`] otherwise, [`Error::NonFinite`] for the first NaN or ∞.
    fn whole_inputs(&self, what: &'static str, values: &[f64], one: bool) -> Result<(), Error> {
        let len = self.arch.dim() * self.arch.seq();
        let fits = if one {
            values.len() == len
        } else {
            len > 0 && values.len().is_multiple_of(len)
        };
        if fits {
            return finite(what, values);
        }
        Err(Error::Length {
            what,
            arch: self.arch.to_string(),
            expected: if one {
                len.to_string()
            } else {
                format!("a multiple of dim·seq = {len}")
            },
            found: values.len(),
        })
    }
}

impl<S: Element> Classifier for OnEngine<S> {
    fn arch(&self) -> &Arch {
        &self.arch
    }

    fn precision(&self) -> Precision {
        S::PRECISION
    }

    fn probabilities(&self, sequence: &[f64]) -> Result<Vec<f64>, Error> {
        self.whole_inputs("the input", sequence, true)?;
        Ok(self.run(&self.input(sequence)))
    }

    fn image_probabilities(&self, image: &[u8; 784]) -> Result<Vec<f64>, Error> {
        self.reads_images()?;
        let patches = mnist_patches::<S>(image);
        Ok(self.run(&DMatrix::from_column_slice(49, 16, patches.as_slice())))
    }

    fn batch_probabilities(&self, sequences: &[f64]) -> Result<Vec<f64>, Error> {
        self.whole_inputs("the inputs", sequences, false)?;
        let len = self.arch.dim() * self.arch.seq();
        let input = |b: usize| {
            sequences[b * len..(b + 1) * len]
                .iter()
                .map(|&x| S::from_double(x))
        };
        Ok(self.batched(sequences.len() / len, input))
    }

    fn batch_image_probabilities(&self, images: &[[u8; 784]]) -> Result<Vec<f64>, Error> {
        self.reads_images()?;
        let input = |b: usize| mnist_patches::<S>(&images[b]).as_slice().to_vec();
        Ok(self.batched(images.len(), input))
    }
}
