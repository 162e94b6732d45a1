//! The schemas of GML's classification networks: the classification layer's `weight`, and a
//! [`Classifier`]'s body then its layer, filled in place.

use core::mem::MaybeUninit;

use super::params::{read_matrix, write_matrix};
use super::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, Visit, fill,
    layer_type_description,
};
use crate::architectures::{ClassificationLayer, Classifier};
use crate::scalar::Field;

/// GML's name of the classification layer.
pub(crate) const CLASSIFICATION: &str = "ClassificationLayer";

/// The options of `ClassificationLayer(input_dim, output_dim, softmax)`.
pub(crate) const fn classification_settings(input_dim: usize, classes: usize) -> [Setting; 2] {
    [
        Setting::number("input_dim", input_dim),
        Setting::number("output_dim", classes),
    ]
}

/// Its one dense `weight` (`classes×input_dim`).
pub(crate) const fn classification_params(input_dim: usize, classes: usize) -> [Param; 1] {
    [Param::new(
        Name::new("weight"),
        Kind::Dense,
        classes,
        input_dim,
    )]
}

impl<S: Field, const D: usize, const CLASSES: usize> ClassificationLayer<S, D, CLASSES> {
    const TYPE: LayerType<'static> = LayerType {
        name: CLASSIFICATION,
        settings: &classification_settings(D, CLASSES),
        params: &classification_params(D, CLASSES),
    };
}

/// GML's `ClassificationLayer(D, CLASSES, softmax)`: one dense `weight` (`CLASSES×D`), no bias.
impl<S: Field, const D: usize, const CLASSES: usize> Schema for ClassificationLayer<S, D, CLASSES> {
    type Scalar = S;
    const SCALARS: usize = CLASSES * D;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let weight = read_matrix(source, Name::new("weight"), Kind::Dense)?;
        source.end_layer()?;
        Ok(Self::new(weight))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        write_matrix(sink, Name::new("weight"), Kind::Dense, self.weight())
    }
}

/// The body's layers, then the classification layer's.
impl<S: Copy, Body, Head> Schema for Classifier<Body, Head>
where
    Body: Schema<Scalar = S>,
    Head: Schema<Scalar = S>,
{
    type Scalar = S;
    const SCALARS: usize = Body::SCALARS + Head::SCALARS;
    const LAYERS: usize = Body::LAYERS + Head::LAYERS;
    const DESCRIPTION_LEN: usize = Body::DESCRIPTION_LEN + Head::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        Body::describe(visitor);
        Head::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        let body = Body::read(source)?;
        Ok(Self::new(body, Head::read(source)?))
    }

    fn read_into<'slot, Src: Source<S> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        let base = slot.as_mut_ptr();
        // SAFETY: `&raw mut` takes each field's address inside the slot without a reference to
        // the (uninitialised) field; `MaybeUninit<F>` has `F`'s layout and accepts any bits, and
        // the two references name different fields, so they do not alias.
        let (body, head) = unsafe {
            (
                &mut *(&raw mut (*base).body).cast::<MaybeUninit<Body>>(),
                &mut *(&raw mut (*base).head).cast::<MaybeUninit<Head>>(),
            )
        };
        fill(body, source)?;
        fill(head, source)?;
        // SAFETY: both fields have been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.body().write(sink)?;
        self.head().write(sink)
    }
}
