//! The schemas of the phase-space layers: symplectic attention (`A` dense or a
//! `SymmetricMatrix`), linear symplectic attention (`A`, a `T×T` `SymmetricMatrix`), the SympNet
//! gradient layers (`weight`, `bias`, `scale`) and their stacks.

use nalgebra::RealField;

use super::layers::{
    matrix_param, packed_param, read_matrix, read_packed, read_vector, vector_param, write_matrix,
    write_packed, write_vector,
};
use super::{Kind, Name, Schema, Sink, Source, Visit};
use crate::{
    DenseA, Field, GradientLayer, GradientLayerQ, LinearSymplecticAttention, PhaseSide, Sym,
    SymmetricA, SympNetStack, SymplecticAttention,
};

/// GML's `SymplecticAttention(…; symmetric = false)`: a dense `A` (`N×N`).
impl<S: Field, const N: usize, Side, Sm> Schema
    for SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    type Scalar = S;
    const SCALARS: usize = N * N;
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&matrix_param::<N, N>(Name::new("A"), Kind::Dense));
    }

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

/// GML's `SymplecticAttention(…; symmetric = true)`: `A` a `SymmetricMatrix` (`N(N+1)/2` packed
/// values); the kick formula `Mode` is not in the file.
impl<S: Field, const N: usize, Side, Sm, Mode> Schema
    for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
{
    type Scalar = S;
    const SCALARS: usize = Kind::Symmetric.len(N, N);
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&packed_param::<N, Sym>("A"));
    }

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

/// GML's `LinearSymplecticAttention(2N, T)`: `A` a `T×T` `SymmetricMatrix`.
impl<S: Field, const N: usize, const T: usize, Side: PhaseSide> Schema
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Scalar = S;
    const SCALARS: usize = Kind::Symmetric.len(T, T);
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&packed_param::<T, Sym>("A"));
    }

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

/// GML's `GradientLayerQ / P(2N, 2·HIDDEN, act)`: `weight` (`HIDDEN×N`), `bias` and `scale`
/// (`HIDDEN` each).
impl<S: Field, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act> Schema
    for GradientLayer<S, N, HIDDEN, Side, Act>
{
    type Scalar = S;
    const SCALARS: usize = HIDDEN * N + 2 * HIDDEN;
    const LAYERS: usize = 1;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        visitor.layer();
        visitor.param(&matrix_param::<HIDDEN, N>(Name::new("weight"), Kind::Dense));
        visitor.param(&vector_param::<HIDDEN>("bias"));
        visitor.param(&vector_param::<HIDDEN>("scale"));
    }

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

/// `NS` gradient layers, one after the other (their sides are the type's, not the file's).
impl<S: RealField + Copy, const N: usize, const HIDDEN: usize, const NS: usize, Act, First> Schema
    for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    First: PhaseSide,
{
    type Scalar = S;
    const SCALARS: usize = <[GradientLayerQ<S, N, HIDDEN, Act>; NS]>::SCALARS;
    const LAYERS: usize = NS;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        <[GradientLayerQ<S, N, HIDDEN, Act>; NS]>::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        Ok(Self::new(Schema::read(source)?))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.layers().write(sink)
    }
}
