//! The schemas of the phase-space layers: symplectic attention (`A` dense or a
//! `SymmetricMatrix`), linear symplectic attention (`A`, a `T×T` `SymmetricMatrix`), the SympNet
//! gradient layers (`weight`, `bias`, `scale`) and their stacks.

use nalgebra::RealField;

use super::layers::{
    read_matrix, read_packed, read_vector, write_matrix, write_packed, write_vector,
};
use super::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, Visit, layer_type_description,
};
use crate::activation::Activation;
use crate::architectures::SympNetStack;
use crate::feedforward::{GradientLayer, GradientLayerQ};
use crate::scalar::Field;
use crate::softmax::Softmax;
use crate::symplectic::attention::{DenseA, SymmetricA, SymmetricMode, SymplecticAttention};
use crate::symplectic::linear::LinearSymplecticAttention;
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ};

/// GML's name of a phase-space layer: `q` if it updates `q`, else `p`.
pub(crate) const fn sided(updates_q: bool, q: &'static str, p: &'static str) -> &'static str {
    if updates_q { q } else { p }
}

/// GML's name of symplectic attention on the side `updates_q` says.
pub(crate) const fn symplectic_attention_name(updates_q: bool) -> &'static str {
    sided(updates_q, "SymplecticAttentionQ", "SymplecticAttentionP")
}

/// The options of `SymplecticAttention(2n; symmetric = false)` with `softmax`.
pub(crate) const fn dense_attention_settings(n: usize, softmax: &'static str) -> [Setting; 3] {
    [
        Setting::number("dim", 2 * n),
        Setting::flag("symmetric", false),
        Setting::name("activation", softmax),
    ]
}

/// The options of `SymplecticAttention(2n; symmetric = true)` with `softmax` and the kick
/// formula (GML's, or the exact gradient).
pub(crate) const fn symmetric_attention_settings(
    n: usize,
    softmax: &'static str,
    gml_kick: bool,
) -> [Setting; 4] {
    [
        Setting::number("dim", 2 * n),
        Setting::flag("symmetric", true),
        Setting::name("activation", softmax),
        Setting::name("kick", if gml_kick { "gml" } else { "exact" }),
    ]
}

/// Symplectic attention's `A` (`n×n`): dense, or a packed `SymmetricMatrix`.
pub(crate) const fn symplectic_attention_params(n: usize, symmetric: bool) -> [Param; 1] {
    let kind = if symmetric {
        Kind::Symmetric
    } else {
        Kind::Dense
    };
    [Param::new(Name::new("A"), kind, n, n)]
}

/// GML's name of linear symplectic attention on the side `updates_q` says.
pub(crate) const fn linear_attention_name(updates_q: bool) -> &'static str {
    sided(
        updates_q,
        "LinearSymplecticAttentionQ",
        "LinearSymplecticAttentionP",
    )
}

/// The options of `LinearSymplecticAttention(2n, seq)`.
pub(crate) const fn linear_attention_settings(n: usize, seq: usize) -> [Setting; 2] {
    [
        Setting::number("dim", 2 * n),
        Setting::number("seq_length", seq),
    ]
}

/// Its `A`: a `seq×seq` `SymmetricMatrix`.
pub(crate) const fn linear_attention_params(seq: usize) -> [Param; 1] {
    [Param::new(Name::new("A"), Kind::Symmetric, seq, seq)]
}

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

impl<S: Field, const N: usize, Side: PhaseSide, Sm: Softmax>
    SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    const TYPE: LayerType<'static> = LayerType {
        name: symplectic_attention_name(Side::UPDATES_Q),
        settings: &dense_attention_settings(N, Sm::NAME),
        params: &symplectic_attention_params(N, false),
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
    const TYPE: LayerType<'static> = LayerType {
        name: symplectic_attention_name(Side::UPDATES_Q),
        settings: &symmetric_attention_settings(N, Sm::NAME, Mode::GML),
        params: &symplectic_attention_params(N, true),
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
    const TYPE: LayerType<'static> = LayerType {
        name: linear_attention_name(Side::UPDATES_Q),
        settings: &linear_attention_settings(N, T),
        params: &linear_attention_params(T),
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
