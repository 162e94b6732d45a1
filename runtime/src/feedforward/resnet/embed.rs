//! The ResNet layer built from a GML file at compile time ([`EmbedFrom`]): `weight` and `bias`.

use super::ResNetLayer;
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::params::{matrix_param, vector_param};
use crate::schema::{EmbedFrom, Embedded, Fitted, Kind, Name};

per_scalar! {
    impl<Src, const D: usize, Act> EmbedFrom<Src> for ResNetLayer<S, D, Act>
    where
        Src: Embedded,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let weight = matrix_param::<D, D>(Name::new("weight"), Kind::Dense);
            let at = fit.expect(Src::LAYER + 1, &[weight, vector_param::<D>("bias")]);
            let weight = matrix_at(&mut fit, at);
            let bias = matrix_at(&mut fit, at + 1);
            fit.fitted(Self::new(weight, Some(bias)))
        };
    }
}
