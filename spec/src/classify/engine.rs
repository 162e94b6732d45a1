//! Classifiers of every size GML allows, on the run-time engine
//! ([`geomattn::engine::ClassificationTransformer`]): what [`super::open`] loads when no compiled
//! classifier has the size, one input at a time.

use geomattn::engine::ClassificationTransformer;
use geomattn::gml::GmlFile;
use geomattn::mnist_patches;
use geomattn::nalgebra::DMatrix;

use super::{Classifier, finite};
use crate::network::Scalar;
use crate::{Arch, Error, Precision};

/// A classifier on the run-time engine, with its architecture.
struct OnEngine<S> {
    arch: Arch,
    net: ClassificationTransformer<S>,
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

impl<S: Scalar> OnEngine<S> {
    fn open(file: &GmlFile, arch: &Arch) -> Result<Self, Error> {
        Ok(Self {
            arch: *arch,
            net: crate::engine::classifier(file, arch)?,
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

    /// The 16 patches of 7×7 of `image`, or [`Error::Unsupported`] unless the network reads
    /// MNIST images (`dim = 49`, `seq = 16`).
    fn patches(&self, image: &[u8; 784]) -> Result<DMatrix<S>, Error> {
        if self.shape() != (49, 16) {
            return Err(Error::Unsupported {
                arch: self.arch.to_string(),
                reason: "does not read MNIST images (16 patches of 7×7: dim = 49, seq = 16)".into(),
            });
        }
        let patches = mnist_patches::<S>(image);
        Ok(DMatrix::from_column_slice(49, 16, patches.as_slice()))
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

impl<S: Scalar> Classifier for OnEngine<S> {
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
        Ok(self.run(&self.patches(image)?))
    }

    fn batch_probabilities(&self, sequences: &[f64]) -> Result<Vec<f64>, Error> {
        self.whole_inputs("the inputs", sequences, false)?;
        let len = self.arch.dim() * self.arch.seq();
        Ok(sequences
            .chunks_exact(len)
            .flat_map(|values| self.run(&self.input(values)))
            .collect())
    }

    fn batch_image_probabilities(&self, images: &[[u8; 784]]) -> Result<Vec<f64>, Error> {
        let mut probabilities = Vec::new();
        for image in images {
            probabilities.extend(self.run(&self.patches(image)?));
        }
        Ok(probabilities)
    }
}
