//! Volume-preserving attention built from a GML file at compile time ([`EmbedFrom`]): its one
//! parameter `A`, skew-symmetric (packed) or dense.

use super::{ArbitraryVpa, SkewVpa};
use crate::packed::Skew;
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::embed::sqrt;
use crate::schema::params::{matrix_param, packed_param};
use crate::schema::{EmbedFrom, Embedded, Fitted, Kind, Name};

per_scalar! {
    impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src> for SkewVpa<S, D, T, Map>
    where
        Src: Embedded,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let at = fit.expect(Src::LAYER + 1, &[packed_param::<D, Skew>("A")]);
            let a = packed_at::<D, Skew>(&mut fit, at);
            fit.fitted(Self::skew_sym(a))
        };
    }

    impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src>
        for ArbitraryVpa<S, D, T, Map>
    where
        Src: Embedded,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let a = matrix_param::<D, D>(Name::new("A"), Kind::Dense);
            let at = fit.expect(Src::LAYER + 1, &[a]);
            let a = matrix_at::<D, D>(&mut fit, at);
            // GML's 1/√D, as `ArbitraryVpa::arbitrary` computes it in S.
            let scale = 1.0 / sqrt(D) as S;
            fit.fitted(Self::arbitrary_with_scale(a, scale))
        };
    }
}
