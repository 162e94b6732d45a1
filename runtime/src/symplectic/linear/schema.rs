//! The schema of linear symplectic attention: GML's `LinearSymplecticAttentionQ / P`, its
//! options and its one parameter `A`, a `T×T` `SymmetricMatrix`.

use super::LinearSymplecticAttention;
use crate::scalar::Field;
use crate::schema::params::{read_packed, write_packed};
use crate::schema::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, layer_type_description,
};
use crate::symplectic::{PhaseSide, sided};

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
