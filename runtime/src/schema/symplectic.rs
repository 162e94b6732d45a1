//! The schemas of the phase-space layers: symplectic attention (`A` dense or a
//! `SymmetricMatrix`), linear symplectic attention (`A`, a `T×T` `SymmetricMatrix`), the SympNet
//! gradient layers (`weight`, `bias`, `scale`) and their stacks.

use nalgebra::RealField;

use super::layers::{
    matrix_param, packed_param, read_matrix, read_packed, read_vector, vector_param, write_matrix,
    write_packed, write_vector,
};
use super::{Kind, LayerType, Name, Schema, Setting, Sink, Source, Visit, layer_type_description};
use crate::{
    Activation, DenseA, Field, GradientLayer, GradientLayerQ, LinearSymplecticAttention, PhaseSide,
    Softmax, Sym, SymmetricA, SymmetricMode, SympNetStack, SymplecticAttention, UpdateP, UpdateQ,
};

/// GML's name of a phase-space layer: `Q` if it updates `q`, else `P`.
const fn sided<Side: PhaseSide>(q: &'static str, p: &'static str) -> &'static str {
    if Side::UPDATES_Q { q } else { p }
}

impl<S: Field, const N: usize, Side: PhaseSide, Sm: Softmax>
    SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    const TYPE: LayerType = LayerType {
        name: sided::<Side>("SymplecticAttentionQ", "SymplecticAttentionP"),
        settings: &[
            Setting::number("dim", 2 * N),
            Setting::flag("symmetric", false),
            Setting::name("activation", Sm::NAME),
        ],
        params: &[matrix_param::<N, N>(Name::new("A"), Kind::Dense)],
    };
}

/// GML's `SymplecticAttention(…; symmetric = false)`: a dense `A` (`N×N`).
impl<S: Field, const N: usize, Side: PhaseSide, Sm: Softmax> Schema
    for SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    type Scalar = S;
    const SCALARS: usize = N * N;
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
        write_matrix(sink, Name::new("A"), Kind::Dense, self.weight().a())
    }
}

impl<S: Field, const N: usize, Side: PhaseSide, Sm: Softmax, Mode: SymmetricMode>
    SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
{
    const TYPE: LayerType = LayerType {
        name: sided::<Side>("SymplecticAttentionQ", "SymplecticAttentionP"),
        settings: &[
            Setting::number("dim", 2 * N),
            Setting::flag("symmetric", true),
            Setting::name("activation", Sm::NAME),
            Setting::name("kick", if Mode::GML { "gml" } else { "exact" }),
        ],
        params: &[packed_param::<N, Sym>("A")],
    };
}

/// GML's `SymplecticAttention(…; symmetric = true)`: `A` a `SymmetricMatrix` (`N(N+1)/2` packed
/// values); the kick formula `Mode` is not in GML's file (a blob records it).
impl<S: Field, const N: usize, Side: PhaseSide, Sm: Softmax, Mode: SymmetricMode> Schema
    for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
{
    type Scalar = S;
    const SCALARS: usize = Kind::Symmetric.len(N, N);
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let a = read_packed(source, "A")?;
        source.end_layer()?;
        Ok(SymplecticAttention::<S, N, Side, Sm>::symmetric(a).with_mode())
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        write_packed(sink, "A", self.weight().a())
    }
}

impl<S: Field, const N: usize, const T: usize, Side: PhaseSide>
    LinearSymplecticAttention<S, N, T, Side>
{
    const TYPE: LayerType = LayerType {
        name: sided::<Side>("LinearSymplecticAttentionQ", "LinearSymplecticAttentionP"),
        settings: &[
            Setting::number("dim", 2 * N),
            Setting::number("seq_length", T),
        ],
        params: &[packed_param::<T, Sym>("A")],
    };
}

/// GML's `LinearSymplecticAttention(2N, T)`: `A` a `T×T` `SymmetricMatrix`.
impl<S: Field, const N: usize, const T: usize, Side: PhaseSide> Schema
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Scalar = S;
    const SCALARS: usize = Kind::Symmetric.len(T, T);
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let a = read_packed(source, "A")?;
        source.end_layer()?;
        Ok(Self::new(a))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        write_packed(sink, "A", self.a())
    }
}

impl<S: Field, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act: Activation<S>>
    GradientLayer<S, N, HIDDEN, Side, Act>
{
    const TYPE: LayerType = LayerType {
        name: sided::<Side>("GradientLayerQ", "GradientLayerP"),
        settings: &[
            Setting::number("dim", 2 * N),
            Setting::number("upscaling_dimension", 2 * HIDDEN),
            Setting::name("activation", Act::NAME),
        ],
        params: &[
            matrix_param::<HIDDEN, N>(Name::new("weight"), Kind::Dense),
            vector_param::<HIDDEN>("bias"),
            vector_param::<HIDDEN>("scale"),
        ],
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

/// `NS` gradient layers, one after the other, alternating sides from `First` (the sides are the
/// type's, not GML's file's; a blob records them).
impl<S: RealField + Copy, const N: usize, const HIDDEN: usize, const NS: usize, Act, First> Schema
    for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    Act: Activation<S>,
    First: PhaseSide,
{
    type Scalar = S;
    const SCALARS: usize = <[GradientLayerQ<S, N, HIDDEN, Act>; NS]>::SCALARS;
    const LAYERS: usize = NS;
    const DESCRIPTION_LEN: usize = {
        let q_layers = if First::UPDATES_Q {
            NS.div_ceil(2)
        } else {
            NS / 2
        };
        q_layers * GradientLayer::<S, N, HIDDEN, UpdateQ, Act>::DESCRIPTION_LEN
            + (NS - q_layers) * GradientLayer::<S, N, HIDDEN, UpdateP, Act>::DESCRIPTION_LEN
    };

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        for i in 0..NS {
            if Self::layer_updates_q(i) {
                GradientLayer::<S, N, HIDDEN, UpdateQ, Act>::describe(visitor);
            } else {
                GradientLayer::<S, N, HIDDEN, UpdateP, Act>::describe(visitor);
            }
        }
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        Ok(Self::new(Schema::read(source)?))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.layers().write(sink)
    }
}
