//! Building networks from a [`GmlFile`]: the caller names the architecture by its type, and the
//! file's layers `L1 … Ln` are read in order into it.

use core::mem::MaybeUninit;
use std::boxed::Box;
use std::format;
use std::path::Path;
use std::vec::Vec;

use nalgebra::RealField;

use super::file::GmlType;
use super::{GmlFile, LoadError, Node};
use crate::{
    Activation, ArbitraryVpa, Head, Identity, MultiHeadAttention, ResNetLayer, ResNetStack,
    SkewVpa, StrictlyTriangular, Transformer, VolumePreservingFeedForward, VolumePreservingLayer,
    VpffBlock,
};

/// A network (or a part of one) that can be read from consecutive layers of a GML file.
///
/// Arrays `[T; LEN]` and pairs `(A, B)` of such parts are such parts too, read one after the
/// other.
pub trait FromGml: Sized {
    /// How many layer groups it takes.
    const LAYERS: usize;

    /// Reads it from the next [`LAYERS`](Self::LAYERS) layers.
    ///
    /// # Errors
    /// Any [`LoadError`] but [`LoadError::LayerCount`].
    fn read(layers: &mut Layers) -> Result<Self, LoadError>;

    /// Reads it into `slot`, in place, and returns the slot, now initialised. What
    /// [`read_boxed`](Self::read_boxed) builds on: the default writes [`read`](Self::read)'s value
    /// (which passes through the stack), and the containers (arrays, pairs, [`Transformer`],
    /// [`ResNetStack`]) override it to fill their parts one by one in place, so that only one
    /// layer at a time is on the stack.
    ///
    /// An implementation must return a reference to `slot` itself (which it can only obtain by
    /// initialising it); on an error the slot may be partly written, and what was written is
    /// leaked, never dropped.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    fn read_into<'slot>(
        slot: &'slot mut MaybeUninit<Self>,
        layers: &mut Layers,
    ) -> Result<&'slot mut Self, LoadError> {
        Ok(slot.write(Self::read(layers)?))
    }

    /// Reads it onto the heap, in place ([`read_into`](Self::read_into)): a large network (the
    /// MNIST classifier is 1.2 MB in `f64`) never passes through the stack.
    ///
    /// # Errors
    /// As [`read`](Self::read).
    ///
    /// # Panics
    /// Only if an implementation of [`read_into`](Self::read_into) breaks its contract (returns
    /// a reference other than to its slot): a bug in that implementation, never bad input.
    fn read_boxed(layers: &mut Layers) -> Result<Box<Self>, LoadError> {
        let mut slot = Box::<Self>::new_uninit();
        fill(&mut slot, layers)?;
        // SAFETY: `fill` returned Ok, so `read_into` returned a reference to the slot itself, and
        // a `&mut Self` to the slot exists only once the slot holds a valid `Self` (obtained from
        // `MaybeUninit::write`, or from `assume_init_mut` on the implementor's own promise).
        Ok(unsafe { slot.assume_init() })
    }
}

/// Fills `slot` with [`FromGml::read_into`], checking that it returned the slot itself: then, and
/// only then, the slot is initialised. (Public only for the code `derive(Network)` emits.)
#[doc(hidden)]
pub fn fill<T: FromGml>(slot: &mut MaybeUninit<T>, layers: &mut Layers) -> Result<(), LoadError> {
    let at = slot.as_ptr();
    let filled: *const T = T::read_into(slot, layers)?;
    assert!(
        core::ptr::eq(filled, at),
        "FromGml::read_into of {} returned a reference other than to its slot",
        core::any::type_name::<T>()
    );
    Ok(())
}

/// The slots of the elements of an uninitialised array.
fn array_slots<T, const LEN: usize>(
    slot: &mut MaybeUninit<[T; LEN]>,
) -> &mut [MaybeUninit<T>; LEN] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, so `[MaybeUninit<T>; LEN]` has that of
    // `[T; LEN]`, and every bit pattern (uninitialised included) is a valid
    // `[MaybeUninit<T>; LEN]`. The reference borrows `slot` mutably, so it is the only one.
    unsafe { &mut *slot.as_mut_ptr().cast::<[MaybeUninit<T>; LEN]>() }
}

/// The slot of a field of an uninitialised struct or tuple: `field!(slot, name => Type)`.
macro_rules! field {
    ($slot:expr, $field:tt => $ty:ty) => {{
        let base = $slot.as_mut_ptr();
        // SAFETY: `&raw mut` takes the field's address inside the slot without making a
        // reference to the (uninitialised) field. `MaybeUninit<F>` has `F`'s layout and accepts
        // any bits, so the reference to it is valid; it borrows the slot mutably, and each call
        // names a different field, so no two references alias.
        unsafe { &mut *(&raw mut (*base).$field).cast::<MaybeUninit<$ty>>() }
    }};
}

/// What a GML file leaves out and a layer's type does not say either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// GML's `add_connection` of multi-head attention: add the input to the output (GML's
    /// default: `true`).
    pub add_connection: bool,
}

impl Default for Settings {
    /// GML's defaults.
    fn default() -> Self {
        Self {
            add_connection: true,
        }
    }
}

/// The layer groups of a file, consumed in order by [`FromGml::read`].
///
/// [`load`] and its variants read a whole file into one type; to read a file part by part (the
/// MNIST classifier's 32 attention and ResNet layers, then its classification layer), make one
/// with [`Layers::new`], read the parts, then [`finish`](Self::finish):
///
/// ```
/// use geomattn::{MultiHeadAttention, ResNetLayer, Tanh, Transformer, nalgebra::SMatrix};
/// use geomattn::gml::{FromGml, GmlFile, Layers, Settings};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/gml/mnist_nn2.h5");
/// # if !std::path::Path::new(path).is_file() { return Ok(()); }
/// // GML's MNIST ClassificationTransformer: 16 blocks of attention and a ResNet layer in dim 49,
/// // then a 10×49 classification weight.
/// type Body = Transformer<MultiHeadAttention<f64, 49, 7, 7>, ResNetLayer<f64, 49, Tanh>, 16>;
/// let file = GmlFile::open(path)?;
/// let mut layers = Layers::new(&file, Settings { add_connection: false })?;
/// let body: Box<Body> = Body::read_boxed(&mut layers)?;
/// let classifier: SMatrix<f64, 10, 49> = layers.next_layer()?.matrix("weight")?;
/// layers.finish()?;
/// # Ok::<(), geomattn::gml::LoadError>(())
/// ```
pub struct Layers {
    nodes: Vec<Node>,
    next: usize,
    settings: Settings,
}

impl Layers {
    /// The layer groups `L1 … Ln` of `file`, to be read from the first.
    ///
    /// # Errors
    /// As [`GmlFile::layers`].
    pub fn new(file: &GmlFile, settings: Settings) -> Result<Self, LoadError> {
        Ok(Self {
            nodes: file.layers()?,
            next: 0,
            settings,
        })
    }

    /// The settings the caller gave to [`load_with`] or [`Layers::new`].
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// How many layer groups are left to read.
    pub fn remaining(&self) -> usize {
        self.nodes.len().saturating_sub(self.next)
    }

    /// The next layer group.
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
    fn exactly(file: &GmlFile, settings: Settings, count: usize) -> Result<Self, LoadError> {
        let layers = Self::new(file, settings)?;
        if layers.nodes.len() != count {
            return Err(LoadError::LayerCount {
                expected: count,
                found: layers.nodes.len(),
            });
        }
        Ok(layers)
    }
}

/// Reads network `N` from a file whose layers are exactly those of `N`, with GML's default
/// [`Settings`].
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
pub fn load<N: FromGml>(file: &GmlFile) -> Result<N, LoadError> {
    load_with(file, Settings::default())
}

/// [`load`] with explicit [`Settings`].
///
/// # Errors
/// As [`load`].
pub fn load_with<N: FromGml>(file: &GmlFile, settings: Settings) -> Result<N, LoadError> {
    N::read(&mut Layers::exactly(file, settings, N::LAYERS)?)
}

/// Opens the file at `path` and reads network `N` from it (see [`load_with`]).
///
/// # Errors
/// As [`GmlFile::open`] and [`load`].
pub fn load_file<N: FromGml>(path: impl AsRef<Path>, settings: Settings) -> Result<N, LoadError> {
    load_with(&GmlFile::open(path)?, settings)
}

/// [`load_with`] onto the heap: `N` is built in place ([`FromGml::read_boxed`]) and never passes
/// through the stack, so a network larger than the stack loads (the MNIST classifier, 1.2 MB in
/// `f64`, loads and runs on a thread with a 2 MiB stack).
///
/// To keep it for the whole program, leak it: `let net: &'static N = Box::leak(load_boxed(…)?)`.
/// Without `std` there is no loader; a large network then lives in a `static`, whose storage is
/// reserved at link time and never on the stack (see the crate's docs on `gml`).
///
/// # Errors
/// As [`load`].
pub fn load_boxed<N: FromGml>(file: &GmlFile, settings: Settings) -> Result<Box<N>, LoadError> {
    N::read_boxed(&mut Layers::exactly(file, settings, N::LAYERS)?)
}

/// Opens the file at `path` and reads network `N` from it onto the heap (see [`load_boxed`]).
///
/// # Errors
/// As [`GmlFile::open`] and [`load`].
pub fn load_file_boxed<N: FromGml>(
    path: impl AsRef<Path>,
    settings: Settings,
) -> Result<Box<N>, LoadError> {
    load_boxed(&GmlFile::open(path)?, settings)
}

impl<T: FromGml, const LEN: usize> FromGml for [T; LEN] {
    const LAYERS: usize = LEN * T::LAYERS;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        into_array(
            (0..LEN)
                .map(|_| T::read(layers))
                .collect::<Result<_, _>>()?,
        )
    }

    fn read_into<'slot>(
        slot: &'slot mut MaybeUninit<Self>,
        layers: &mut Layers,
    ) -> Result<&'slot mut Self, LoadError> {
        for element in array_slots(slot) {
            fill(element, layers)?;
        }
        // SAFETY: every element has been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }
}

impl<A: FromGml, B: FromGml> FromGml for (A, B) {
    const LAYERS: usize = A::LAYERS + B::LAYERS;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let a = A::read(layers)?;
        Ok((a, B::read(layers)?))
    }

    fn read_into<'slot>(
        slot: &'slot mut MaybeUninit<Self>,
        layers: &mut Layers,
    ) -> Result<&'slot mut Self, LoadError> {
        fill(field!(slot, 0 => A), layers)?;
        fill(field!(slot, 1 => B), layers)?;
        // SAFETY: both fields have been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }
}

/// A volume-preserving lower or upper layer: a special-matrix group `weight`, and a dataset `bias`
/// exactly when the architecture has one there.
fn vp_layer<S, const D: usize, Layout, Act>(
    node: &Node,
    use_bias: bool,
) -> Result<VolumePreservingLayer<S, D, Layout, Act>, LoadError>
where
    S: RealField + Copy,
    Layout: StrictlyTriangular + GmlType,
{
    let weight = node.packed::<S, D, Layout>("weight")?;
    let bias = if use_bias {
        Some(node.vector("bias")?)
    } else {
        node.reject("bias")?;
        None
    };
    Ok(VolumePreservingLayer::new(weight, bias))
}

fn next_vp<S, const D: usize, Layout, Act>(
    layers: &mut Layers,
    use_bias: bool,
) -> Result<VolumePreservingLayer<S, D, Layout, Act>, LoadError>
where
    S: RealField + Copy,
    Layout: StrictlyTriangular + GmlType,
{
    vp_layer(layers.next_layer()?, use_bias)
}

impl<S, const D: usize, const NB: usize, const NL: usize, Act> FromGml
    for VolumePreservingFeedForward<S, D, NB, NL, Act>
where
    S: RealField + Copy,
    Act: Activation<S>,
{
    const LAYERS: usize = Self::LAYERS;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let mut blocks = Vec::with_capacity(NB);
        for _ in 0..NB {
            let mut linear = Vec::with_capacity(NL);
            for k in 0..NL {
                // Only the last linear pair of a block has a bias, on its upper layer.
                let lower = next_vp::<S, D, _, Identity>(layers, false)?;
                let upper = next_vp::<S, D, _, Identity>(layers, k + 1 == NL)?;
                linear.push((lower, upper));
            }
            blocks.push(VpffBlock {
                linear: into_array(linear)?,
                lower: next_vp(layers, true)?,
                upper: next_vp(layers, true)?,
            });
        }
        let last = (next_vp(layers, false)?, next_vp(layers, true)?);
        Ok(Self::new(into_array(blocks)?, last))
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, Map> FromGml
    for ArbitraryVpa<S, D, T, Map>
{
    const LAYERS: usize = 1;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        Ok(Self::arbitrary(layers.next_layer()?.matrix("A")?))
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, Map> FromGml for SkewVpa<S, D, T, Map> {
    const LAYERS: usize = 1;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        Ok(Self::skew_sym(layers.next_layer()?.packed("A")?))
    }
}

impl<S: RealField + Copy, const D: usize, Act> FromGml for ResNetLayer<S, D, Act> {
    const LAYERS: usize = 1;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let node = layers.next_layer()?;
        Ok(Self::new(
            node.matrix("weight")?,
            Some(node.vector("bias")?),
        ))
    }
}

impl<S: RealField + Copy, const D: usize, const NB: usize, Act> FromGml
    for ResNetStack<S, D, NB, Act>
{
    const LAYERS: usize = Self::LAYERS;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let nonlinear = <[_; NB]>::read(layers)?;
        Ok(Self::new(nonlinear, ResNetLayer::read(layers)?))
    }

    fn read_into<'slot>(
        slot: &'slot mut MaybeUninit<Self>,
        layers: &mut Layers,
    ) -> Result<&'slot mut Self, LoadError> {
        fill(
            field!(slot, nonlinear => [ResNetLayer<S, D, Act>; NB]),
            layers,
        )?;
        fill(field!(slot, linear => ResNetLayer<S, D, Identity>), layers)?;
        // SAFETY: both fields have been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }
}

impl<Att: FromGml, Ff: FromGml, const L: usize> FromGml for Transformer<Att, Ff, L> {
    const LAYERS: usize = L * (Att::LAYERS + Ff::LAYERS);

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        Ok(Self::new(<[(Att, Ff); L]>::read(layers)?))
    }

    fn read_into<'slot>(
        slot: &'slot mut MaybeUninit<Self>,
        layers: &mut Layers,
    ) -> Result<&'slot mut Self, LoadError> {
        fill(field!(slot, blocks => [(Att, Ff); L]), layers)?;
        // SAFETY: its one field has been filled (`fill` checks it).
        Ok(unsafe { slot.assume_init_mut() })
    }
}

/// The bound on `‖WᵀW − I‖_max` for Stiefel weights read from a file. Weights trained in GML
/// drift off the manifold in Float32: up to 6.2·10⁻³ in the MNIST fixture.
pub const STIEFEL_TOLERANCE: f64 = 1e-2;

/// Multi-head attention: groups `PQ`, `PK`, `PV`, each with `head_1 … head_H` (dense datasets, or
/// `StiefelManifold` groups, which make it GML's `Stiefel = true` layer and are checked to have
/// orthonormal columns to [`STIEFEL_TOLERANCE`]).
impl<S: RealField + Copy, const D: usize, const H: usize, const DH: usize, Sm> FromGml
    for MultiHeadAttention<S, D, H, DH, Sm>
{
    const LAYERS: usize = 1;

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let add_connection = layers.settings.add_connection;
        let node = layers.next_layer()?;
        let projections = [node.group("PQ")?, node.group("PK")?, node.group("PV")?];
        for projection in &projections {
            let found = projection.numbered_children("head_")?.len();
            if found != H {
                return Err(LoadError::Count {
                    path: projection.path().into(),
                    what: "heads",
                    expected: H,
                    found,
                });
            }
        }
        let mut heads = Vec::with_capacity(H);
        let mut stiefel = false;
        for h in 1..=H {
            let name = format!("head_{h}");
            let [q, k, v] = &projections;
            stiefel |= q.is_stiefel(&name)?;
            heads.push(Head::new(
                q.matrix(&name)?,
                k.matrix(&name)?,
                v.matrix(&name)?,
            ));
        }
        let heads = into_array(heads)?;
        if !stiefel {
            return Ok(Self::new(heads, add_connection));
        }
        let tolerance = nalgebra::convert(STIEFEL_TOLERANCE);
        Self::stiefel_with_tolerance(heads, add_connection, tolerance).map_err(|source| {
            LoadError::Invalid {
                path: node.path().into(),
                source,
            }
        })
    }
}

fn into_array<T, const LEN: usize>(items: Vec<T>) -> Result<[T; LEN], LoadError> {
    items
        .try_into()
        .map_err(|items: Vec<T>| LoadError::LayerCount {
            expected: LEN,
            found: items.len(),
        })
}
