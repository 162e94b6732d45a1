//! Building networks from a [`GmlFile`] through their [`Schema`]: the caller names the
//! architecture by its type (every option GML's file leaves out included), and the file's layers
//! `L1 … Ln` are read in order into it.

use std::boxed::Box;
use std::path::Path;
use std::string::String;
use std::vec::Vec;

use nalgebra::RealField;

use super::file::param_name;
use super::{GmlFile, LoadError, Node};
use crate::{Param, Schema, Source};

/// The layer groups of a file as a [`Source`] of values: each layer's parameters are read by name,
/// and a layer group holding anything its schema does not have is rejected
/// ([`LoadError::Unexpected`]).
///
/// [`load`] and its variants read a whole file into one type; to read a file part by part (the
/// MNIST classifier's 32 attention and ResNet layers, then its classification layer), make one
/// with [`Layers::new`], read the parts, then [`finish`](Self::finish):
///
/// ```
/// use geomattn::{MultiHeadAttention, NoConnection, ResNetLayer, Stiefel, Tanh, Transformer};
/// use geomattn::{nalgebra::SMatrix, read_boxed};
/// use geomattn::gml::{GmlFile, Layers};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/mnist_nn2.h5");
/// // GML's MNIST ClassificationTransformer (add_connection = false, Stiefel = true): 16 blocks of
/// // attention and a ResNet layer in dim 49, then a 10×49 classification weight.
/// type Attention = MultiHeadAttention<f64, 49, 7, 7, NoConnection, Stiefel>;
/// type Body = Transformer<Attention, ResNetLayer<f64, 49, Tanh>, 16>;
/// let file = GmlFile::open(path)?;
/// let mut layers = Layers::new(&file)?;
/// let body: Box<Body> = read_boxed(&mut layers)?;
/// let classifier: SMatrix<f64, 10, 49> = layers.next_layer()?.matrix("weight")?;
/// layers.finish()?;
/// # Ok::<(), geomattn::gml::LoadError>(())
/// ```
pub struct Layers {
    nodes: Vec<Node>,
    next: usize,
    /// The names read from the current layer group: `(plain group, child)`.
    read: Vec<(Option<&'static str>, String)>,
}

impl Layers {
    /// The layer groups `L1 … Ln` of `file`, to be read from the first.
    ///
    /// # Errors
    /// As [`GmlFile::layers`].
    pub fn new(file: &GmlFile) -> Result<Self, LoadError> {
        Ok(Self {
            nodes: file.layers()?,
            next: 0,
            read: Vec::new(),
        })
    }

    /// How many layer groups are left to read.
    pub fn remaining(&self) -> usize {
        self.nodes.len().saturating_sub(self.next)
    }

    /// The next layer group, to read by hand (its contents are not checked).
    ///
    /// # Errors
    /// [`LoadError::LayerCount`] if there is none left.
    pub fn next_layer(&mut self) -> Result<&Node, LoadError> {
        let found = self.nodes.len();
        let node = self.nodes.get(self.next).ok_or(LoadError::LayerCount {
            expected: self.next.saturating_add(1),
            found,
        })?;
        self.next += 1;
        Ok(node)
    }

    /// Checks that every layer group has been read.
    ///
    /// # Errors
    /// [`LoadError::LayerCount`] if some are left.
    pub fn finish(self) -> Result<(), LoadError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(LoadError::LayerCount {
                expected: self.next,
                found: self.nodes.len(),
            })
        }
    }

    /// The layers of `file`, checked to be exactly `count`.
    fn exactly(file: &GmlFile, count: usize) -> Result<Self, LoadError> {
        let layers = Self::new(file)?;
        if layers.nodes.len() != count {
            return Err(LoadError::LayerCount {
                expected: count,
                found: layers.nodes.len(),
            });
        }
        Ok(layers)
    }

    /// The layer group being read.
    fn current(&self) -> Result<&Node, LoadError> {
        self.next
            .checked_sub(1)
            .and_then(|k| self.nodes.get(k))
            .ok_or(LoadError::LayerCount {
                expected: 1,
                found: self.nodes.len(),
            })
    }

    /// Checks that `holder` (the layer group, or its plain group `parent`) has nothing but what
    /// was read from it.
    fn check_read(&self, holder: &Node, parent: Option<&'static str>) -> Result<(), LoadError> {
        let mut names = holder.group_names()?;
        names.extend(holder.dataset_names()?);
        for name in names {
            if parent.is_none() && self.read.iter().any(|(p, _)| *p == Some(name.as_str())) {
                let group = holder.group(&name)?;
                let parent = self.read.iter().find_map(|(p, _)| p.filter(|p| *p == name));
                self.check_read(&group, parent)?;
            } else if !self.read.iter().any(|(p, n)| *p == parent && *n == name) {
                holder.reject(&name)?;
            }
        }
        Ok(())
    }
}

impl<S: RealField + Copy> Source<S> for Layers {
    type Error = LoadError;

    fn begin_layer(&mut self) -> Result<(), LoadError> {
        self.read.clear();
        self.next_layer().map(drop)
    }

    fn end_layer(&mut self) -> Result<(), LoadError> {
        self.check_read(self.current()?, None)
    }

    fn param(&mut self, param: &Param, out: &mut [S]) -> Result<(), LoadError> {
        self.current()?.param(param, out)?;
        self.read.push((param.name.parent, param_name(param)));
        Ok(())
    }

    fn invalid(&mut self, source: crate::Error) -> LoadError {
        LoadError::Invalid {
            path: self
                .current()
                .map_or_else(|_| String::new(), |n| n.path().into()),
            source,
        }
    }
}

/// Reads network `N` from a file whose layers are exactly those of `N`.
///
/// `N` is built by value, on the stack; for a large network (hundreds of kilobytes and more) use
/// [`load_boxed`], which builds it in place on the heap.
///
/// ```
/// use geomattn::activation::Tanh;
/// use geomattn::architectures::VolumePreservingFeedForward;
/// use geomattn::gml::{GmlFile, load};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"),
///                    "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
/// let file = GmlFile::open(path)?;
/// let net: VolumePreservingFeedForward<f64, 3, 6, 1, Tanh> = load(&file)?;
/// // The same file cannot be read as a network with another number of blocks.
/// assert!(load::<VolumePreservingFeedForward<f64, 3, 5, 1, Tanh>>(&file).is_err());
/// # Ok::<(), geomattn::gml::LoadError>(())
/// ```
///
/// # Errors
/// [`LoadError::LayerCount`] if the file has another number of layers than `N`, and any other
/// [`LoadError`] for a layer that does not fit.
pub fn load<N: Schema>(file: &GmlFile) -> Result<N, LoadError>
where
    N::Scalar: RealField,
{
    let mut layers = Layers::exactly(file, N::LAYERS)?;
    N::read(&mut layers)
}

/// Opens the file at `path` and reads network `N` from it (see [`load`]).
///
/// # Errors
/// As [`GmlFile::open`] and [`load`].
pub fn load_file<N: Schema>(path: impl AsRef<Path>) -> Result<N, LoadError>
where
    N::Scalar: RealField,
{
    load(&GmlFile::open(path)?)
}

/// [`load`] onto the heap: `N` is built in place ([`Schema::read_into`]) and never passes
/// through the stack, so a network larger than the stack loads (the MNIST classifier, 1.2 MB in
/// `f64`, loads and runs on a thread with a 2 MiB stack).
///
/// To keep it for the whole program, leak it: `let net: &'static N = Box::leak(load_boxed(…)?)`.
/// Without `std` there is no loader; a large network then lives in a `static`, embedded at compile
/// time or read from a blob in place (see the docs of [`gml`](super)).
///
/// # Errors
/// As [`load`].
pub fn load_boxed<N: Schema>(file: &GmlFile) -> Result<Box<N>, LoadError>
where
    N::Scalar: RealField,
{
    let mut layers = Layers::exactly(file, N::LAYERS)?;
    crate::read_boxed(&mut layers)
}

/// Opens the file at `path` and reads network `N` from it onto the heap (see [`load_boxed`]).
///
/// # Errors
/// As [`GmlFile::open`] and [`load`].
pub fn load_file_boxed<N: Schema>(path: impl AsRef<Path>) -> Result<Box<N>, LoadError>
where
    N::Scalar: RealField,
{
    load_boxed(&GmlFile::open(path)?)
}
