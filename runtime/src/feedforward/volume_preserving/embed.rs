//! The volume-preserving layers built from a GML file at compile time ([`EmbedFrom`]): a strictly
//! triangular `weight` and a `bias`.

use super::{StrictlyTriangular, VolumePreservingLayer};
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::{EmbedFrom, Embedded, Fitted};

per_scalar! {
    impl<Src, const D: usize, Layout, Act> EmbedFrom<Src>
        for VolumePreservingLayer<S, D, Layout, Act>
    where
        Src: Embedded,
        Layout: StrictlyTriangular,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let layer = vp_layer(&mut fit, Src::LAYER + 1, true);
            fit.fitted(layer)
        };
    }
}
