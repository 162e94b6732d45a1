//! The schema of volume-preserving attention: GML's layer, its options and its one parameter.

use nalgebra::RealField;

use super::{ArbitraryVpa, SkewVpa};
use crate::error::Error;
use crate::orthogonal::OrthogonalMap;
use crate::scalar::Field;
use crate::schema::params::{read_matrix, read_packed, write_matrix, write_packed};
use crate::schema::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, layer_type_description,
};

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
