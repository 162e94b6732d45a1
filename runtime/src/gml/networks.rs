//! Building networks from a [`GmlFile`]: the caller names the architecture by its type, and the
//! file's layers `L1 … Ln` are read in order into it.

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
pub trait FromGml: Sized {
    /// How many layer groups it takes.
    const LAYERS: usize;

    /// Reads it from the next [`LAYERS`](Self::LAYERS) layers.
    ///
    /// # Errors
    /// Any [`LoadError`] but [`LoadError::LayerCount`].
    fn read(layers: &mut Layers) -> Result<Self, LoadError>;
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
pub struct Layers {
    nodes: Vec<Node>,
    next: usize,
    settings: Settings,
}

impl Layers {
    /// The settings the caller gave to [`load_with`].
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The next layer group.
    ///
    /// # Errors
    /// [`LoadError::LayerCount`] if there is none left.
    pub fn next_layer(&mut self) -> Result<&Node, LoadError> {
        let found = self.nodes.len();
        let node = self.nodes.get(self.next).ok_or(LoadError::LayerCount {
            expected: self.next + 1,
            found,
        })?;
        self.next += 1;
        Ok(node)
    }
}

/// Reads network `N` from a file whose layers are exactly those of `N`, with GML's default
/// [`Settings`].
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
    let nodes = file.layers()?;
    if nodes.len() != N::LAYERS {
        return Err(LoadError::LayerCount {
            expected: N::LAYERS,
            found: nodes.len(),
        });
    }
    N::read(&mut Layers {
        nodes,
        next: 0,
        settings,
    })
}

/// Opens the file at `path` and reads network `N` from it (see [`load_with`]).
///
/// # Errors
/// As [`GmlFile::open`] and [`load`].
pub fn load_file<N: FromGml>(path: impl AsRef<Path>, settings: Settings) -> Result<N, LoadError> {
    load_with(&GmlFile::open(path)?, settings)
}

/// `N` values read one after the other into an array.
fn read_array<T: FromGml, const LEN: usize>(layers: &mut Layers) -> Result<[T; LEN], LoadError> {
    into_array(
        (0..LEN)
            .map(|_| T::read(layers))
            .collect::<Result<_, _>>()?,
    )
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
        let nonlinear = read_array(layers)?;
        Ok(Self::new(nonlinear, ResNetLayer::read(layers)?))
    }
}

impl<Att: FromGml, Ff: FromGml, const L: usize> FromGml for Transformer<Att, Ff, L> {
    const LAYERS: usize = L * (Att::LAYERS + Ff::LAYERS);

    fn read(layers: &mut Layers) -> Result<Self, LoadError> {
        let mut blocks = Vec::with_capacity(L);
        for _ in 0..L {
            let attention = Att::read(layers)?;
            blocks.push((attention, Ff::read(layers)?));
        }
        Ok(Self::new(into_array(blocks)?))
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
        for projection in &projections {
            projection.reject(&format!("head_{}", H + 1))?;
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
