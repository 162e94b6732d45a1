//! Symplectic attention built from a GML file at compile time ([`EmbedFrom`]): its one parameter
//! `A`, dense or a `SymmetricMatrix`.

use super::{DenseA, SymmetricA, SymplecticAttention};
use crate::packed::Sym;
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::params::{matrix_param, packed_param};
use crate::schema::{EmbedFrom, Embedded, Fitted, Kind, Name};

per_scalar! {
    /// GML's `SymplecticAttention(…; symmetric = false)`: a dense `A`.
    impl<Src, const N: usize, Side, Sm> EmbedFrom<Src>
        for SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
    where
        Src: Embedded,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let a = matrix_param::<N, N>(Name::new("A"), Kind::Dense);
            let at = fit.expect(Src::LAYER + 1, &[a]);
            let a = matrix_at::<N, N>(&mut fit, at);
            fit.fitted(Self::arbitrary(a))
        };
    }

    /// GML's `SymplecticAttention(…; symmetric = true)`, with the kick `Mode` of the type.
    impl<Src, const N: usize, Side, Sm, Mode> EmbedFrom<Src>
        for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
    where
        Src: Embedded,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let at = fit.expect(Src::LAYER + 1, &[packed_param::<N, Sym>("A")]);
            let a = packed_at::<N, Sym>(&mut fit, at);
            fit.fitted(Self::with_symmetric(a))
        };
    }
}
