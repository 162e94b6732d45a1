//! The schema of the volume-preserving layers: GML's `VolumePreservingLowerLayer` and
//! `VolumePreservingUpperLayer`, their options and their parameters, a strictly triangular
//! `weight` and a `bias`.

use core::marker::PhantomData;

use super::{StrictlyTriangular, VolumePreservingLayer};
use crate::activation::Activation;
use crate::error::Error;
use crate::scalar::Field;
use crate::schema::params::{
    read_packed, read_vector, required_bias, step_layer_settings, write_packed, write_vector,
};
use crate::schema::{Kind, LayerType, Name, Param, Schema, Sink, Source, Visit};

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
