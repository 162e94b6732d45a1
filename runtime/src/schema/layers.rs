//! The schemas of the layers: each names its type as a constant [`LayerType`] (GML's layer, the
//! options its Rust type fixes) and its parameters as GML's file does, in GML's order.

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SVector};

use super::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, Visit, layer_type_description,
};
use crate::activation::Activation;
use crate::error::Error;
use crate::feedforward::{ResNetLayer, StrictlyTriangular, VolumePreservingLayer};
use crate::mha::check_stiefel;
use crate::mha::{Connection, Head, MultiHeadAttention, Projection, STIEFEL_TOLERANCE};
use crate::orthogonal::OrthogonalMap;
use crate::packed::{Packed, PackedLayout};
use crate::scalar::Field;
use crate::schema::Kind as ParamKind;
use crate::softmax::Softmax;
use crate::vpa::{ArbitraryVpa, SkewVpa};

/// The parameter `name`, a dense (or Stiefel) `ROWS×COLS` matrix.
pub(crate) const fn matrix_param<const ROWS: usize, const COLS: usize>(
    name: Name,
    kind: Kind,
) -> Param {
    Param::new(name, kind, ROWS, COLS)
}

/// The parameter `name`, a vector of `LEN` entries.
pub(crate) const fn vector_param<const LEN: usize>(name: &'static str) -> Param {
    Param::new(Name::new(name), Kind::Vector, LEN, 1)
}

/// The parameter `name`, a packed `SIZE×SIZE` matrix of layout `Layout`.
pub(crate) const fn packed_param<const SIZE: usize, Layout: PackedLayout>(
    name: &'static str,
) -> Param {
    Param::new(Name::new(name), Layout::PARAM_KIND, SIZE, SIZE)
}

/// Reads a dense (or Stiefel) matrix.
pub(crate) fn read_matrix<S: Field, const ROWS: usize, const COLS: usize, Src>(
    source: &mut Src,
    name: Name,
    kind: Kind,
) -> Result<SMatrix<S, ROWS, COLS>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let mut matrix = SMatrix::<S, ROWS, COLS>::zeros();
    source.param(
        &matrix_param::<ROWS, COLS>(name, kind),
        matrix.as_mut_slice(),
    )?;
    Ok(matrix)
}

/// Writes a dense (or Stiefel) matrix.
pub(crate) fn write_matrix<S: Field, const ROWS: usize, const COLS: usize, K>(
    sink: &mut K,
    name: Name,
    kind: Kind,
    matrix: &SMatrix<S, ROWS, COLS>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    sink.param(&matrix_param::<ROWS, COLS>(name, kind), matrix.as_slice())
}

/// Reads a vector.
pub(crate) fn read_vector<S: Field, const LEN: usize, Src>(
    source: &mut Src,
    name: &'static str,
) -> Result<SVector<S, LEN>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let mut vector = SVector::<S, LEN>::zeros();
    source.param(&vector_param::<LEN>(name), vector.as_mut_slice())?;
    Ok(vector)
}

/// Writes a vector.
pub(crate) fn write_vector<S: Field, const LEN: usize, K>(
    sink: &mut K,
    name: &'static str,
    vector: &SVector<S, LEN>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    sink.param(&vector_param::<LEN>(name), vector.as_slice())
}

/// Reads a packed matrix: its packed entries pass through a `SIZE×SIZE` scratch matrix on the
/// stack (they are never more than `SIZE²`), so nothing is allocated.
pub(crate) fn read_packed<S: Field, const SIZE: usize, Layout: PackedLayout, Src>(
    source: &mut Src,
    name: &'static str,
) -> Result<Packed<S, SIZE, Layout>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let param = packed_param::<SIZE, Layout>(name);
    let mut scratch = SMatrix::<S, SIZE, SIZE>::zeros();
    let values = &mut scratch.as_mut_slice()[..param.len()];
    source.param(&param, values)?;
    Packed::from_packed(values).map_err(|error| source.invalid(error))
}

/// Writes a packed matrix (through a scratch matrix, as [`read_packed`]).
pub(crate) fn write_packed<S: Field, const SIZE: usize, Layout: PackedLayout, K>(
    sink: &mut K,
    name: &'static str,
    packed: &Packed<S, SIZE, Layout>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    let param = packed_param::<SIZE, Layout>(name);
    let mut scratch = SMatrix::<S, SIZE, SIZE>::zeros();
    let values = &mut scratch.as_mut_slice()[..param.len()];
    packed
        .write_packed(values)
        .map_err(|error| sink.invalid(error))?;
    sink.param(&param, values)
}

/// The bias of a layer whose architecture has one: an error if the layer was built without.
pub(crate) fn required_bias<'a, S, const LEN: usize, K: Sink<S> + ?Sized>(
    sink: &mut K,
    layer: &'static str,
    bias: Option<&'a SVector<S, LEN>>,
) -> Result<&'a SVector<S, LEN>, K::Error> {
    bias.ok_or_else(|| {
        sink.invalid(Error::NotInSchema {
            layer,
            what: "no bias, where the architecture has one",
        })
    })
}

/// GML's name of volume-preserving attention.
pub(crate) const VPA: &str = "VolumePreservingAttention";

/// The options of `VolumePreservingAttention(dim, seq_length; skew_sym)` with an orthogonal map
/// computing `map` ([`OrthogonalMap::FUNCTION`]).
pub(crate) const fn vpa_settings(
    dim: usize,
    seq: usize,
    skew_sym: bool,
    map: &'static str,
) -> [Setting; 4] {
    [
        Setting::number("dim", dim),
        Setting::number("seq_length", seq),
        Setting::flag("skew_sym", skew_sym),
        Setting::name("orthogonal_map", map),
    ]
}

/// Its one parameter `A` (`dim×dim`): skew-symmetric (packed) or dense.
pub(crate) const fn vpa_params(dim: usize, skew_sym: bool) -> [Param; 1] {
    let kind = if skew_sym { Kind::Skew } else { Kind::Dense };
    [Param::new(Name::new("A"), kind, dim, dim)]
}

impl<S: Field, const D: usize, const T: usize, Map: OrthogonalMap<S, T>> SkewVpa<S, D, T, Map> {
    const TYPE: LayerType<'static> = LayerType {
        name: VPA,
        settings: &vpa_settings(D, T, true, Map::FUNCTION),
        params: &vpa_params(D, true),
    };
}

/// `VolumePreservingAttention` with GML's `skew_sym = true`: one skew-symmetric `A` (`D×D`).
impl<S: Field, const D: usize, const T: usize, Map: OrthogonalMap<S, T>> Schema
    for SkewVpa<S, D, T, Map>
{
    type Scalar = S;
    const SCALARS: usize = Kind::Skew.len(D, D);
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let a = read_packed(source, "A")?;
        source.end_layer()?;
        Ok(Self::skew_sym(a))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        write_packed(sink, "A", self.weight().a())
    }
}

impl<S: Field, const D: usize, const T: usize, Map: OrthogonalMap<S, T>>
    ArbitraryVpa<S, D, T, Map>
{
    const TYPE: LayerType<'static> = LayerType {
        name: VPA,
        settings: &vpa_settings(D, T, false, Map::FUNCTION),
        params: &vpa_params(D, false),
    };
}

/// `VolumePreservingAttention` with GML's default weighting: one dense `A` (`D×D`), scaled by
/// `1/√D` (a layer built with another scale has no GML form, and is not written).
impl<S: RealField + Copy, const D: usize, const T: usize, Map: OrthogonalMap<S, T>> Schema
    for ArbitraryVpa<S, D, T, Map>
{
    type Scalar = S;
    const SCALARS: usize = D * D;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let a = read_matrix(source, Name::new("A"), Kind::Dense)?;
        source.end_layer()?;
        Ok(Self::arbitrary(a))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        let weight = self.weight();
        if weight.scale() != Self::arbitrary(*weight.a()).weight().scale() {
            return Err(sink.invalid(Error::NotInSchema {
                layer: "VolumePreservingAttention",
                what: "a scale other than GML's 1/√D",
            }));
        }
        write_matrix(sink, Name::new("A"), Kind::Dense, weight.a())
    }
}

/// GML's name of the ResNet layer.
pub(crate) const RESNET: &str = "ResNetLayer";

/// The options of a layer on each time step, `ResNetLayer` or `VolumePreserving{Lower,Upper}Layer`
/// `(dim, activation; use_bias)` (a ResNet layer always has its bias).
pub(crate) const fn step_layer_settings(
    dim: usize,
    activation: &'static str,
    use_bias: bool,
) -> [Setting; 3] {
    [
        Setting::number("dim", dim),
        Setting::name("activation", activation),
        Setting::flag("use_bias", use_bias),
    ]
}

/// Its parameters: a dense `weight` (`dim×dim`) and a `bias`.
pub(crate) const fn resnet_params(dim: usize) -> [Param; 2] {
    [
        Param::new(Name::new("weight"), Kind::Dense, dim, dim),
        Param::new(Name::new("bias"), Kind::Vector, dim, 1),
    ]
}

impl<S: Field, const D: usize, Act: Activation<S>> ResNetLayer<S, D, Act> {
    const TYPE: LayerType<'static> = LayerType {
        name: RESNET,
        settings: &step_layer_settings(D, Act::NAME, true),
        params: &resnet_params(D),
    };
}

/// GML's `ResNetLayer(D, Act; use_bias = true)`: a dense `weight` (`D×D`) and a `bias`.
impl<S: Field, const D: usize, Act: Activation<S>> Schema for ResNetLayer<S, D, Act> {
    type Scalar = S;
    const SCALARS: usize = D * D + D;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let weight = read_matrix(source, Name::new("weight"), Kind::Dense)?;
        let bias = read_vector(source, "bias")?;
        source.end_layer()?;
        Ok(Self::new(weight, Some(bias)))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        let bias = required_bias(sink, "ResNetLayer", self.bias())?;
        write_matrix(sink, Name::new("weight"), Kind::Dense, self.weight())?;
        write_vector(sink, "bias", bias)
    }
}

/// GML's name of a volume-preserving layer, lower or upper.
pub(crate) const fn vp_layer_name(upper: bool) -> &'static str {
    if upper {
        "VolumePreservingUpperLayer"
    } else {
        "VolumePreservingLowerLayer"
    }
}

/// Its parameters: the packed strictly triangular `weight`, then the `bias` (the first alone
/// without one).
pub(crate) const fn vp_layer_params(dim: usize, upper: bool) -> [Param; 2] {
    let kind = if upper {
        Kind::StrictlyUpper
    } else {
        Kind::StrictlyLower
    };
    [
        Param::new(Name::new("weight"), kind, dim, dim),
        Param::new(Name::new("bias"), Kind::Vector, dim, 1),
    ]
}

/// A volume-preserving lower or upper layer `Layer`, with or without a bias (which its place in
/// the architecture decides).
pub(crate) struct VpLayer<const BIAS: bool, Layer>(PhantomData<Layer>);

impl<const BIAS: bool, S, const D: usize, Layout, Act>
    VpLayer<BIAS, VolumePreservingLayer<S, D, Layout, Act>>
where
    S: Field,
    Layout: StrictlyTriangular,
    Act: Activation<S>,
{
    pub(crate) const SCALARS: usize = Kind::StrictlyLower.len(D, D) + if BIAS { D } else { 0 };
    const UPPER: bool = matches!(Layout::PARAM_KIND, Kind::StrictlyUpper);
    const WITH_BIAS: &[Param] = &vp_layer_params(D, Self::UPPER);
    const TYPE: LayerType<'static> = LayerType {
        name: vp_layer_name(Self::UPPER),
        settings: &step_layer_settings(D, Act::NAME, BIAS),
        params: Self::WITH_BIAS.split_at(if BIAS { 2 } else { 1 }).0,
    };
    pub(crate) const DESCRIPTION_LEN: usize = Self::TYPE.description_len();

    pub(crate) fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer(&Self::TYPE);
    }

    pub(crate) fn read<Src: Source<S> + ?Sized>(
        source: &mut Src,
    ) -> Result<VolumePreservingLayer<S, D, Layout, Act>, Src::Error> {
        source.begin_layer()?;
        let weight = read_packed(source, "weight")?;
        let bias = if BIAS {
            Some(read_vector(source, "bias")?)
        } else {
            None
        };
        source.end_layer()?;
        Ok(VolumePreservingLayer::new(weight, bias))
    }

    pub(crate) fn write<K: Sink<S> + ?Sized>(
        layer: &VolumePreservingLayer<S, D, Layout, Act>,
        sink: &mut K,
    ) -> Result<(), K::Error> {
        sink.begin_layer()?;
        let bias = match (BIAS, layer.bias()) {
            (true, bias) => Some(required_bias(sink, "VolumePreservingLayer", bias)?),
            (false, None) => None,
            (false, Some(_)) => {
                return Err(sink.invalid(Error::NotInSchema {
                    layer: "VolumePreservingLayer",
                    what: "a bias, where the architecture has none",
                }));
            }
        };
        write_packed(sink, "weight", layer.weight())?;
        match bias {
            Some(bias) => write_vector(sink, "bias", bias),
            None => Ok(()),
        }
    }
}

/// GML's `VolumePreservingLowerLayer` / `VolumePreservingUpperLayer(D, Act; use_bias = true)`: a
/// strictly triangular `weight` and a `bias`. Inside a
/// [`VolumePreservingFeedForward`](crate::VolumePreservingFeedForward), where some have no bias,
/// the network's schema says which.
impl<S: Field, const D: usize, Layout: StrictlyTriangular, Act: Activation<S>> Schema
    for VolumePreservingLayer<S, D, Layout, Act>
{
    type Scalar = S;
    const SCALARS: usize = VpLayer::<true, Self>::SCALARS;
    const LAYERS: usize = 1;
    const DESCRIPTION_LEN: usize = VpLayer::<true, Self>::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        VpLayer::<true, Self>::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        VpLayer::<true, Self>::read(source)
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        VpLayer::<true, Self>::write(self, sink)
    }
}

/// GML's names of the three projections of multi-head attention, in its order.
const PROJECTIONS: [&str; 3] = ["PQ", "PK", "PV"];

/// GML's name of multi-head attention.
pub(crate) const MHA: &str = "MultiHeadAttention";

/// The options of `MultiHeadAttention(dim, n_heads; Stiefel, add_connection)` with `softmax`.
pub(crate) const fn mha_settings(
    dim: usize,
    n_heads: usize,
    stiefel: bool,
    add_connection: bool,
    softmax: &'static str,
) -> [Setting; 5] {
    [
        Setting::number("dim", dim),
        Setting::number("n_heads", n_heads),
        Setting::flag("Stiefel", stiefel),
        Setting::flag("add_connection", add_connection),
        Setting::name("softmax", softmax),
    ]
}

/// Head `h` (from 0) of the projection group `group` (from 0, in [`PROJECTIONS`]): a `dim×dh`
/// matrix of `kind` (dense or Stiefel).
pub(crate) const fn mha_head(group: usize, h: usize, dim: usize, dh: usize, kind: Kind) -> Param {
    Param::new(
        Name::numbered(PROJECTIONS[group], "head_", h + 1),
        kind,
        dim,
        dh,
    )
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    Conn: Connection,
    Proj: Projection,
    Sm: Softmax,
{
    /// The projections, group by group (`PQ`, `PK`, `PV`), head by head.
    const HEADS: [[Param; H]; 3] = {
        let mut heads = [[mha_head(0, 0, D, DH, Proj::KIND); H]; 3];
        let mut group = 0;
        while group < 3 {
            let mut h = 0;
            while h < H {
                heads[group][h] = mha_head(group, h, D, DH, Proj::KIND);
                h += 1;
            }
            group += 1;
        }
        heads
    };
    const HEADS_REF: &[[Param; H]; 3] = &Self::HEADS;

    const TYPE: LayerType<'static> = LayerType {
        name: MHA,
        settings: &mha_settings(
            D,
            H,
            matches!(Proj::KIND, Kind::Stiefel),
            Conn::ADD,
            Sm::NAME,
        ),
        params: Self::HEADS_REF.as_flattened(),
    };
}

/// GML's `MultiHeadAttention`: plain groups `PQ`, `PK`, `PV`, each with `head_1 … head_H`
/// (`D×DH`, dense or, for [`Stiefel`](crate::Stiefel) projections, `StiefelManifold` checked to
/// [`STIEFEL_TOLERANCE`]); all of `PQ`, then `PK`, then `PV`.
impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm> Schema
    for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    S: RealField + Copy,
    Conn: Connection,
    Proj: Projection,
    Sm: Softmax,
{
    type Scalar = S;
    const SCALARS: usize = 3 * H * D * DH;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let zero = SMatrix::zeros();
        let mut heads = [Head::new(zero, zero, zero); H];
        for group in PROJECTIONS {
            for (h, head) in heads.iter_mut().enumerate() {
                let name = Name::numbered(group, "head_", h + 1);
                let weight = match group {
                    "PQ" => &mut head.query,
                    "PK" => &mut head.key,
                    _ => &mut head.value,
                };
                *weight = read_matrix(source, name, Proj::KIND)?;
            }
        }
        source.end_layer()?;
        if matches!(Proj::KIND, ParamKind::Stiefel) {
            check_stiefel(&heads, nalgebra::convert(STIEFEL_TOLERANCE))
                .map_err(|error| source.invalid(error))?;
        }
        Ok(Self::from_heads(heads))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        for group in PROJECTIONS {
            for (h, head) in self.heads().iter().enumerate() {
                let name = Name::numbered(group, "head_", h + 1);
                let weight = match group {
                    "PQ" => &head.query,
                    "PK" => &head.key,
                    _ => &head.value,
                };
                write_matrix(sink, name, Proj::KIND, weight)?;
            }
        }
        Ok(())
    }
}
