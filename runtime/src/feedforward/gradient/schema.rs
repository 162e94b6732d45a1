//! The schema of the SympNet gradient layers: GML's `GradientLayerQ / P`, their options and
//! their parameters `weight`, `bias` and `scale`.

use super::GradientLayer;
use crate::activation::Activation;
use crate::scalar::Field;
use crate::schema::params::{read_matrix, read_vector, write_matrix, write_vector};
use crate::schema::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, layer_type_description,
};
use crate::symplectic::{PhaseSide, sided};

/// GML's name of a gradient layer on the side `updates_q` says.
pub(crate) const fn gradient_layer_name(updates_q: bool) -> &'static str {
    sided(updates_q, "GradientLayerQ", "GradientLayerP")
}

/// The options of `GradientLayer(2n, 2·hidden, activation)`.
pub(crate) const fn gradient_layer_settings(
    n: usize,
    hidden: usize,
    activation: &'static str,
) -> [Setting; 3] {
    [
        Setting::number("dim", 2 * n),
        Setting::number("upscaling_dimension", 2 * hidden),
        Setting::name("activation", activation),
    ]
}

/// Its parameters: `weight` (`hidden×n`), `bias` and `scale` (`hidden` each).
pub(crate) const fn gradient_layer_params(n: usize, hidden: usize) -> [Param; 3] {
    [
        Param::new(Name::new("weight"), Kind::Dense, hidden, n),
        Param::new(Name::new("bias"), Kind::Vector, hidden, 1),
        Param::new(Name::new("scale"), Kind::Vector, hidden, 1),
    ]
}

impl<S: Field, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act: Activation<S>>
    GradientLayer<S, N, HIDDEN, Side, Act>
{
    const TYPE: LayerType<'static> = LayerType {
        name: gradient_layer_name(Side::UPDATES_Q),
        settings: &gradient_layer_settings(N, HIDDEN, Act::NAME),
        params: &gradient_layer_params(N, HIDDEN),
    };
}

/// GML's `GradientLayerQ / P(2N, 2·HIDDEN, act)`: `weight` (`HIDDEN×N`), `bias` and `scale`
/// (`HIDDEN` each).
impl<S: Field, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act: Activation<S>> Schema
    for GradientLayer<S, N, HIDDEN, Side, Act>
{
    type Scalar = S;
    const SCALARS: usize = HIDDEN * N + 2 * HIDDEN;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let weight = read_matrix(source, Name::new("weight"), Kind::Dense)?;
        let bias = read_vector(source, "bias")?;
        let scale = read_vector(source, "scale")?;
        source.end_layer()?;
        Ok(Self::new(weight, bias, scale))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        write_matrix(sink, Name::new("weight"), Kind::Dense, self.weight())?;
        write_vector(sink, "bias", self.bias())?;
        write_vector(sink, "scale", self.scale())
    }
}
