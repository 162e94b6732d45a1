//! One description of a network's parameters, in GML's order, that every source and sink of
//! weights is built on: the HDF5 loader ([`gml`](crate#loading-a-trained-network)), the flat
//! binary blob ([`read_blob`], [`write_blob`]) and the compile-time embedding.
//!
//! A type that implements [`Schema`] says, without allocating and without an instance:
//!
//! - how many scalars it holds ([`Schema::SCALARS`]) and how many of GML's layer groups `L1 … Ln`
//!   it takes ([`Schema::LAYERS`]), both known at compile time;
//! - its whole type, layer group by layer group ([`Schema::describe`]), each a [`LayerType`]:
//!   GML's name of the layer, every option the Rust type fixes that is not a parameter (a
//!   [`Setting`]: sizes, activation, `add_connection`, the orthogonal map, …), and its parameters,
//!   each a [`Param`]: a [`Name`] (GML's, as in the file: `A`, `weight`, `PQ/head_1`), a [`Kind`]
//!   of matrix, and a shape;
//! - how to build it from the values of those parameters ([`Schema::read`], from any [`Source`])
//!   and how to hand its values out ([`Schema::write`], to any [`Sink`]).
//!
//! Values travel as flat slices of scalars in the kind's order: Julia's column-major order for
//! dense matrices (nalgebra's too), GML's packed order for special matrices (see
//! [`packed`](crate::packed)).
//!
//! Containers compose their parts' schemas: arrays `[T; LEN]` (one element after the other),
//! pairs `(A, B)`, [`Transformer`](crate::Transformer), [`ResNetStack`](crate::ResNetStack),
//! [`VolumePreservingFeedForward`](crate::VolumePreservingFeedForward). They add no layer types
//! of their own: a network's type is the sequence of its layers' types, so a struct of layers
//! (`#[derive(Network)]`) has the type of the built-in architecture with the same layers.
//!
//! ```
//! use geomattn::{ArbitraryVpa, LayerType, Schema, SkewVpa, Visit};
//! // Two layers of volume-preserving attention in R³: a dense 3×3 `A`, then a skew one.
//! type Net = (ArbitraryVpa<f64, 3, 4>, SkewVpa<f64, 3, 4>);
//! assert_eq!((Net::SCALARS, Net::LAYERS), (9 + 3, 2));
//!
//! struct Lines(Vec<String>);
//! impl Visit for Lines {
//!     fn layer(&mut self, layer: &LayerType) {
//!         let settings = layer.settings.iter().map(|s| format!("{}={}", s.key, s.value));
//!         let params = layer.params.iter().map(|p| format!("{} {:?} {}×{}", p.name, p.kind, p.rows, p.cols));
//!         let all: Vec<String> = settings.chain(params).collect();
//!         self.0.push(format!("{}: {}", layer.name, all.join(", ")));
//!     }
//! }
//! let mut lines = Lines(Vec::new());
//! Net::describe(&mut lines);
//! assert_eq!(lines.0, [
//!     "VolumePreservingAttention: dim=3, seq_length=4, skew_sym=false, orthogonal_map=cayley, A Dense 3×3",
//!     "VolumePreservingAttention: dim=3, seq_length=4, skew_sym=true, orthogonal_map=cayley, A Skew 3×3",
//! ]);
//! ```

mod blob;
mod classification;
mod containers;
#[cfg(feature = "std")]
pub mod described;
pub(crate) mod embed;
mod flat;
mod layer_type;
pub(crate) mod params;
mod sympnet;

use core::fmt;
use core::mem::MaybeUninit;

/// [`Schema::DESCRIPTION_LEN`] and [`Schema::describe`] of a layer whose type is the constant
/// `Self::TYPE` (a [`LayerType`]).
macro_rules! layer_type_description {
    () => {
        const DESCRIPTION_LEN: usize = Self::TYPE.description_len();

        fn describe<V: $crate::Visit + ?Sized>(visitor: &mut V) {
            visitor.layer(&Self::TYPE);
        }
    };
}
pub(crate) use layer_type_description;

pub use blob::{
    BLOB_HEADER_LEN, BLOB_MAGIC, BLOB_VERSION, BlobError, BlobScalar, Difference, ShortText,
    TypeMismatch, blob_len, read_blob, read_blob_into, write_blob,
};
#[cfg(feature = "std")]
pub use blob::{described_to_blob, read_blob_boxed, slice_to_blob, to_blob};
pub use embed::{After, EmbedFrom, Embedded, EmbeddedParam, Fitted, Mismatch, Nth, embedded};
pub use flat::{from_flat, to_flat};
#[cfg(feature = "std")]
pub use layer_type::OwnedLayerType;
pub use layer_type::{LayerType, Setting, SettingValue};

pub use geomattn_gml_file::Kind;

/// A parameter's name inside its layer group, as GML writes it: `stem` (`A`, `weight`), or a
/// numbered child of a plain group (`PQ/head_1`: `parent = Some("PQ")`, `stem = "head_"`,
/// `number = Some(1)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name {
    /// The plain group holding the parameter, if any.
    pub parent: Option<&'static str>,
    /// The name, or its prefix when numbered.
    pub stem: &'static str,
    /// The number appended to `stem`, if any (from 1, as in GML).
    pub number: Option<usize>,
}

impl Name {
    /// A parameter directly in its layer group.
    pub const fn new(stem: &'static str) -> Self {
        Self {
            parent: None,
            stem,
            number: None,
        }
    }

    /// The `number`-th child `<stem><number>` of the plain group `parent`.
    pub const fn numbered(parent: &'static str, stem: &'static str, number: usize) -> Self {
        Self {
            parent: Some(parent),
            stem,
            number: Some(number),
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            write!(f, "{parent}/")?;
        }
        f.write_str(self.stem)?;
        match self.number {
            Some(number) => write!(f, "{number}"),
            None => Ok(()),
        }
    }
}

/// One parameter of a layer: its name, kind and shape (Julia's `rows×cols`; `n×n` for the
/// special matrices, `rows×1` for a vector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Param {
    /// GML's name of it inside the layer group.
    pub name: Name,
    /// The kind of matrix.
    pub kind: Kind,
    /// Rows (Julia's first dimension).
    pub rows: usize,
    /// Columns (`1` for a vector).
    pub cols: usize,
}

impl Param {
    /// A parameter; `cols` is ignored (taken as 1) for a [`Kind::Vector`], and as `rows` for the
    /// special (square) kinds.
    pub const fn new(name: Name, kind: Kind, rows: usize, cols: usize) -> Self {
        let cols = match kind {
            Kind::Vector => 1,
            Kind::Dense | Kind::Stiefel => cols,
            Kind::Skew | Kind::Symmetric | Kind::StrictlyLower | Kind::StrictlyUpper => rows,
        };
        Self {
            name,
            kind,
            rows,
            cols,
        }
    }

    /// Its number of scalars.
    pub const fn len(&self) -> usize {
        self.kind.len(self.rows, self.cols)
    }

    /// Whether it has no scalars (a `0×n` matrix, a `1×1` skew one).
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What receives a network's description ([`Schema::describe`]): its layer groups' types, in
/// order.
pub trait Visit {
    /// The next layer group: its type, and its parameters in order.
    fn layer(&mut self, layer: &LayerType);
}

/// Where a network's values come from ([`Schema::read`]): a GML file, a blob, constants.
pub trait Source<S> {
    /// Why a value could not be read.
    type Error;

    /// The next layer group begins.
    ///
    /// # Errors
    /// If there is none.
    fn begin_layer(&mut self) -> Result<(), Self::Error>;

    /// The current layer group ends: a source that can tell checks that it held nothing else.
    ///
    /// # Errors
    /// If the group holds something the schema does not have.
    fn end_layer(&mut self) -> Result<(), Self::Error>;

    /// Fills `out` (exactly [`param.len()`](Param::len) scalars) with the values of `param`, in
    /// the kind's order.
    ///
    /// # Errors
    /// If the parameter is missing, of another kind or shape, or not finite.
    fn param(&mut self, param: &Param, out: &mut [S]) -> Result<(), Self::Error>;

    /// The layer being read rejected its values (a Stiefel weight off the manifold): the error,
    /// with where it happened.
    fn invalid(&mut self, error: crate::error::Error) -> Self::Error;
}

/// Where a network's values go ([`Schema::write`]): a blob, a comparison, a checksum.
pub trait Sink<S> {
    /// Why a value could not be written.
    type Error;

    /// The next layer group begins.
    ///
    /// # Errors
    /// As the sink says.
    fn begin_layer(&mut self) -> Result<(), Self::Error>;

    /// Takes the values of `param` (exactly [`param.len()`](Param::len) scalars, in the kind's
    /// order).
    ///
    /// # Errors
    /// As the sink says (e.g. it is full).
    fn param(&mut self, param: &Param, values: &[S]) -> Result<(), Self::Error>;

    /// The network does not fit its own schema (a bias where the architecture has none): the
    /// error, with where it happened.
    fn invalid(&mut self, error: crate::error::Error) -> Self::Error;
}

/// A network (or a part of one) described layer by layer and parameter by parameter in GML's
/// order; see the [module docs](self).
///
/// The three methods walk the same parameters in the same order; [`SCALARS`](Self::SCALARS) is
/// the sum of their lengths, [`LAYERS`](Self::LAYERS) the number of layer groups and
/// [`DESCRIPTION_LEN`](Self::DESCRIPTION_LEN) the length of their types' record in a blob.
///
/// A layer implements it with a constant [`LayerType`] (`const TYPE: LayerType = …`):
/// `describe` hands it to the visitor, `DESCRIPTION_LEN` is its
/// [`description_len`](LayerType::description_len); a container sums its parts'.
pub trait Schema: Sized {
    /// The scalar of every parameter.
    type Scalar: Copy;
    /// How many scalars the parameters hold together.
    const SCALARS: usize;
    /// How many of GML's layer groups (`L1 … Ln`) it takes.
    const LAYERS: usize;
    /// How many bytes the types [`describe`](Self::describe) hands out take in a blob: the sum
    /// of their [`LayerType::description_len`]s.
    const DESCRIPTION_LEN: usize;

    /// Tells `visitor` the type of every layer group, in order.
    fn describe<V: Visit + ?Sized>(visitor: &mut V);

    /// Builds it from the values `source` gives, in order.
    ///
    /// # Errors
    /// Whatever `source` reports, or `source.invalid(…)` if the layer rejects the values.
    fn read<Src: Source<Self::Scalar> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error>;

    /// Builds it into `slot`, in place, and returns the slot, now initialised. The default writes
    /// [`read`](Self::read)'s value (which passes through the stack); the containers override it
    /// to fill their parts one by one in place, so that only one layer at a time is on the stack
    /// (what loading a large network onto the heap builds on).
    ///
    /// An implementation must return a reference to `slot` itself (which it can only obtain by
    /// initialising it); on an error the slot may be partly written, and what was written is
    /// leaked, never dropped.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    fn read_into<'slot, Src: Source<Self::Scalar> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        Ok(slot.write(Self::read(source)?))
    }

    /// Hands its values to `sink`, in order.
    ///
    /// # Errors
    /// Whatever `sink` reports, or `sink.invalid(…)` if the network does not fit its schema.
    fn write<K: Sink<Self::Scalar> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error>;
}

/// Fills `slot` with [`Schema::read_into`], checking that it returned the slot itself: then, and
/// only then, the slot is initialised.
///
/// # Errors
/// As [`Schema::read`].
///
/// # Panics
/// Only if an implementation of [`Schema::read_into`] breaks its contract (returns a reference
/// other than to its slot): a bug in that implementation, never bad input.
pub fn fill<N: Schema, Src: Source<N::Scalar> + ?Sized>(
    slot: &mut MaybeUninit<N>,
    source: &mut Src,
) -> Result<(), Src::Error> {
    let at = slot.as_ptr();
    let filled: *const N = N::read_into(slot, source)?;
    assert!(
        core::ptr::eq(filled, at),
        "Schema::read_into of {} returned a reference other than to its slot",
        core::any::type_name::<N>()
    );
    Ok(())
}

/// Builds `N` onto the heap, in place ([`Schema::read_into`]): a large network (the MNIST
/// classifier is 1.2 MB in `f64`) never passes through the stack.
///
/// # Errors
/// As [`Schema::read`].
#[cfg(feature = "std")]
pub fn read_boxed<N: Schema, Src: Source<N::Scalar> + ?Sized>(
    source: &mut Src,
) -> Result<std::boxed::Box<N>, Src::Error> {
    let mut slot = std::boxed::Box::<N>::new_uninit();
    fill(&mut slot, source)?;
    // SAFETY: `fill` returned Ok, so `read_into` returned a reference to the slot itself, and a
    // `&mut N` to the slot exists only once the slot holds a valid `N` (obtained from
    // `MaybeUninit::write`, or from `assume_init_mut` on the implementor's own promise).
    Ok(unsafe { slot.assume_init() })
}
