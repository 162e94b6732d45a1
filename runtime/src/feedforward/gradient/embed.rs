//! The SympNet gradient layers built from a GML file at compile time ([`EmbedFrom`]): `weight`,
//! `bias` and `scale`.

use super::GradientLayer;
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::params::{matrix_param, vector_param};
use crate::schema::{EmbedFrom, Embedded, Fitted, Kind, Name};
use crate::symplectic::PhaseSide;

per_scalar! {
    impl<Src, const N: usize, const HIDDEN: usize, Side, Act> EmbedFrom<Src>
        for GradientLayer<S, N, HIDDEN, Side, Act>
    where
        Src: Embedded,
        Side: PhaseSide,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let params = [
                matrix_param::<HIDDEN, N>(Name::new("weight"), Kind::Dense),
                vector_param::<HIDDEN>("bias"),
                vector_param::<HIDDEN>("scale"),
            ];
            let at = fit.expect(Src::LAYER + 1, &params);
            let weight = matrix_at(&mut fit, at);
            let bias = matrix_at(&mut fit, at + 1);
            let scale = matrix_at(&mut fit, at + 2);
            fit.fitted(Self::new(weight, bias, scale))
        };
    }
}
