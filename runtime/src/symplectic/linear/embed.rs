//! Linear symplectic attention built from a GML file at compile time ([`EmbedFrom`]): its one
//! parameter `A`, a `T×T` `SymmetricMatrix`.

use super::LinearSymplecticAttention;
use crate::packed::Sym;
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::params::packed_param;
use crate::schema::{EmbedFrom, Embedded, Fitted};
use crate::symplectic::PhaseSide;

per_scalar! {
    impl<Src, const N: usize, const T: usize, Side> EmbedFrom<Src>
        for LinearSymplecticAttention<S, N, T, Side>
    where
        Src: Embedded,
        Side: PhaseSide,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let at = fit.expect(Src::LAYER + 1, &[packed_param::<T, Sym>("A")]);
            let a = packed_at::<T, Sym>(&mut fit, at);
            fit.fitted(Self::new(a))
        };
    }
}
