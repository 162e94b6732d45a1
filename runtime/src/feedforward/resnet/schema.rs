//! The schema of the ResNet layer: GML's `ResNetLayer`, its options and its parameters `weight`
//! and `bias`.

use super::ResNetLayer;
use crate::activation::Activation;
use crate::scalar::Field;
use crate::schema::params::{
    read_matrix, read_vector, required_bias, step_layer_settings, write_matrix, write_vector,
};
use crate::schema::{Kind, LayerType, Name, Param, Schema, Sink, Source, layer_type_description};

/// GML's name of the ResNet layer.
pub(crate) const RESNET: &str = "ResNetLayer";

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
