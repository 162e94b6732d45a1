//! The schemas of the layers: each names its parameters as GML's file does, in GML's order.

use nalgebra::{RealField, SMatrix, SVector};

use super::{Kind, Name, Param, Schema, Sink, Source, Visit};
use crate::mha::check_stiefel;
use crate::packed::{Packed, PackedLayout};
use crate::{
    ArbitraryVpa, Error, Field, Head, Kind as ParamKind, MultiHeadAttention, Projection,
    ResNetLayer, STIEFEL_TOLERANCE, SkewVpa, StrictlyTriangular, VolumePreservingLayer,
};

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

/// `VolumePreservingAttention` with GML's `skew_sym = true`: one skew-symmetric `A` (`D×D`).
impl<S: Field, const D: usize, const T: usize, Map> Schema for SkewVpa<S, D, T, Map> {
    type Scalar = S;
    const SCALARS: usize = Kind::Skew.len(D, D);
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&packed_param::<D, crate::Skew>("A"));
    }

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

/// `VolumePreservingAttention` with GML's default weighting: one dense `A` (`D×D`), scaled by
/// `1/√D` (a layer built with another scale has no GML form, and is not written).
impl<S: RealField + Copy, const D: usize, const T: usize, Map> Schema
    for ArbitraryVpa<S, D, T, Map>
{
    type Scalar = S;
    const SCALARS: usize = D * D;
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&matrix_param::<D, D>(Name::new("A"), Kind::Dense));
    }

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

/// GML's `ResNetLayer(D, Act; use_bias = true)`: a dense `weight` (`D×D`) and a `bias`.
impl<S: Field, const D: usize, Act> Schema for ResNetLayer<S, D, Act> {
    type Scalar = S;
    const SCALARS: usize = D * D + D;
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&matrix_param::<D, D>(Name::new("weight"), Kind::Dense));
        visitor.param(&vector_param::<D>("bias"));
    }

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

/// The parameters of a volume-preserving lower or upper layer, with or without a bias (which its
/// place in the architecture decides).
pub(crate) struct VpLayer<const BIAS: bool>;

impl<const BIAS: bool> VpLayer<BIAS> {
    pub(crate) const fn scalars<const D: usize>() -> usize {
        Kind::StrictlyLower.len(D, D) + if BIAS { D } else { 0 }
    }

    pub(crate) fn describe<const D: usize, Layout: PackedLayout, V: Visit + ?Sized>(
        visitor: &mut V,
    ) {
        visitor.layer();
        visitor.param(&packed_param::<D, Layout>("weight"));
        if BIAS {
            visitor.param(&vector_param::<D>("bias"));
        }
    }

    pub(crate) fn read<S, const D: usize, Layout, Act, Src>(
        source: &mut Src,
    ) -> Result<VolumePreservingLayer<S, D, Layout, Act>, Src::Error>
    where
        S: Field,
        Layout: StrictlyTriangular,
        Src: Source<S> + ?Sized,
    {
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

    pub(crate) fn write<S, const D: usize, Layout, Act, K>(
        layer: &VolumePreservingLayer<S, D, Layout, Act>,
        sink: &mut K,
    ) -> Result<(), K::Error>
    where
        S: Field,
        Layout: StrictlyTriangular,
        K: Sink<S> + ?Sized,
    {
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
impl<S: Field, const D: usize, Layout: StrictlyTriangular, Act> Schema
    for VolumePreservingLayer<S, D, Layout, Act>
{
    type Scalar = S;
    const SCALARS: usize = VpLayer::<true>::scalars::<D>();
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        VpLayer::<true>::describe::<D, Layout, V>(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        VpLayer::<true>::read(source)
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        VpLayer::<true>::write(self, sink)
    }
}

/// GML's names of the three projections of multi-head attention, in its order.
const PROJECTIONS: [&str; 3] = ["PQ", "PK", "PV"];

/// GML's `MultiHeadAttention`: plain groups `PQ`, `PK`, `PV`, each with `head_1 … head_H`
/// (`D×DH`, dense or, for [`Stiefel`](crate::Stiefel) projections, `StiefelManifold` checked to
/// [`STIEFEL_TOLERANCE`]); all of `PQ`, then `PK`, then `PV`.
impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm> Schema
    for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    S: RealField + Copy,
    Proj: Projection,
{
    type Scalar = S;
    const SCALARS: usize = 3 * H * D * DH;
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        for group in PROJECTIONS {
            for head in 1..=H {
                let name = Name::numbered(group, "head_", head);
                visitor.param(&matrix_param::<D, DH>(name, Proj::KIND));
            }
        }
    }

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
