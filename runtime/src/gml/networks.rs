//! Building networks from a [`GmlFile`] through their [`Schema`]: the caller names the
//! architecture by its type (every option GML's file leaves out included), and the file's layers
//! `L1 … Ln` are read in order into it. A file geomattn wrote records each layer's type
//! ([`LAYER_TYPE`](super::LAYER_TYPE)), and is read only as that type:
//!
//! ```
//! use geomattn::{GradientLayerQ, GradientLayerP, Identity, Tanh};
//! use geomattn::gml::{GmlFile, LoadError, Storage, load, to_bytes};
//! use geomattn::nalgebra::{SMatrix, SVector};
//! let layer =
//!     GradientLayerQ::<f64, 2, 3, Tanh>::new(SMatrix::repeat(0.5), SVector::zeros(), SVector::repeat(1.0));
//! let file = GmlFile::from_bytes(to_bytes(&layer, Storage::Float64)?)?;
//! assert!(load::<GradientLayerQ<f64, 2, 3, Tanh>>(&file).is_ok());
//! // The same names and shapes, another activation: GML's file would not tell them apart.
//! let error = load::<GradientLayerQ<f64, 2, 3, Identity>>(&file).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "`/L1` was written as GradientLayerQ(dim = 4, upscaling_dimension = 6, activation = tanh), \
//!      but is read as GradientLayerQ(dim = 4, upscaling_dimension = 6, activation = identity)"
//! );
//! // Q and P layers have the same parameters too.
//! assert!(matches!(
//!     load::<GradientLayerP<f64, 2, 3, Tanh>>(&file),
//!     Err(LoadError::LayerType { .. })
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::boxed::Box;
use std::format;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use nalgebra::RealField;

use super::weights::{self, param_name};
use super::{GmlFile, LoadError, Node};
use crate::schema::{LayerType, Param, Schema, Source, Visit};

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
/// use geomattn::gml::{GmlFile, Layers, ReadWeights};
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

    /// Reads network `N` from the next layer groups, after checking the types geomattn recorded
    /// on them ([`LAYER_TYPE`](super::LAYER_TYPE); GML's own files record none): every option
    /// but the sequence length, which attention's weights do not depend on (linear symplectic
    /// attention's `A` is `seq × seq`, and its shape says it).
    ///
    /// # Errors
    /// [`LoadError::LayerType`] if a group records another type than `N`'s there, and what
    /// reading `N` reports.
    pub fn read<N: Schema>(&mut self) -> Result<N, LoadError>
    where
        N::Scalar: RealField,
    {
        self.check_recorded::<N>()?;
        N::read(self)
    }

    /// [`read`](Self::read) onto the heap, `N` built in place (see [`load_boxed`]).
    ///
    /// # Errors
    /// As [`read`](Self::read).
    pub fn read_boxed<N: Schema>(&mut self) -> Result<Box<N>, LoadError>
    where
        N::Scalar: RealField,
    {
        self.check_recorded::<N>()?;
        crate::schema::read_boxed(self)
    }

    /// Reads the values of the next layer group as the layer of type `layer` (a type built at
    /// run time, [`described`](crate::schema::described)), after checking the type recorded on
    /// it as [`read`](Self::read) does: every parameter's values, in order, as
    /// [`Schema::read`] of that layer's compile-time type receives them.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    pub fn read_values<S: RealField + Copy>(
        &mut self,
        layer: &LayerType,
    ) -> Result<Vec<S>, LoadError> {
        self.check_types(&[layer.to_string()])?;
        let mut values = std::vec![S::zero(); layer.params.iter().map(Param::len).sum()];
        Source::<S>::begin_layer(self)?;
        let mut rest = values.as_mut_slice();
        for param in layer.params {
            let (these, after) = rest.split_at_mut(param.len());
            self.param(param, these)?;
            rest = after;
        }
        Source::<S>::end_layer(self)?;
        Ok(values)
    }

    /// Checks the types recorded on the next `N::LAYERS` groups against `N`'s.
    fn check_recorded<N: Schema>(&self) -> Result<(), LoadError> {
        let mut types = LayerTypes(Vec::new());
        N::describe(&mut types);
        self.check_types(&types.0)
    }

    /// Checks the types recorded on the next groups against `types`, but for the sequence
    /// length ([`without_window`]); a group not in the file is left to the read, which reports
    /// it.
    fn check_types(&self, types: &[String]) -> Result<(), LoadError> {
        for (node, expected) in self.nodes.iter().skip(self.next).zip(types) {
            if let Some(recorded) = node.recorded_type()?
                && without_window(&recorded) != without_window(expected)
            {
                return Err(LoadError::LayerType {
                    path: node.path().into(),
                    recorded,
                    expected: expected.clone(),
                });
            }
        }
        Ok(())
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

    /// The layer groups of `file`, checked to be exactly `count`.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`LoadError::LayerCount`] for another number of groups.
    pub fn exactly(file: &GmlFile, count: usize) -> Result<Self, LoadError> {
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

/// A recorded layer type (`Name(key = value, …)`) as it is compared: without the sequence
/// length. Attention's weights do not depend on it (a network trained on windows of 3 runs on
/// windows of 4, as in GML), except linear symplectic attention's, whose `A` is `seq × seq`: its
/// shape says it.
fn without_window(layer_type: &str) -> String {
    let Some((name, options)) = layer_type
        .strip_suffix(')')
        .and_then(|rest| rest.split_once('('))
    else {
        return layer_type.into();
    };
    let options: Vec<&str> = options
        .split(", ")
        .filter(|option| !option.starts_with("seq_length = "))
        .collect();
    format!("{name}({})", options.join(", "))
}

/// The type of every layer group of a network, in order, as GML's constructor reads
/// (`LayerType`'s display).
pub(super) struct LayerTypes(pub(super) Vec<String>);

impl Visit for LayerTypes {
    fn layer(&mut self, layer: &LayerType) {
        self.0.push(layer.to_string());
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
        weights::param(self.current()?, param, out)?;
        self.read.push((param.name.parent, param_name(param)));
        Ok(())
    }

    fn invalid(&mut self, source: crate::error::Error) -> LoadError {
        LoadError::Invalid {
            path: self
                .current()
                .map_or_else(|_| String::new(), |n| n.path().into()),
            source: source.into(),
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
    Layers::exactly(file, N::LAYERS)?.read()
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
    Layers::exactly(file, N::LAYERS)?.read_boxed()
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
