//! The schema of symplectic attention: GML's `SymplecticAttentionQ / P`, its options and its
//! one parameter `A` (dense or a `SymmetricMatrix`).

use super::{DenseA, SymmetricA, SymmetricMode, SymplecticAttention};
use crate::scalar::Field;
use crate::schema::params::{read_matrix, read_packed, write_matrix, write_packed};
use crate::schema::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, layer_type_description,
};
use crate::softmax::Softmax;
use crate::symplectic::{PhaseSide, sided};

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
