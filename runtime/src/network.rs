//! Networks of your own: `#[derive(Network)]` on a struct whose fields are layers, applied in
//! field order.
//!
//! The derive implements [`SequenceLayer`] for the struct: the forward pass applies the fields in
//! order (through two stack buffers, whatever the number of fields; no allocation), so the batch,
//! flat and checked entry points come with it. The checked pass checks the output of every field
//! and names it in [`NonFinite::field`] (a [`FieldPath`], outermost first when derived networks
//! nest), next to the layer's type and, inside a [`Transformer`](crate::Transformer), its block.
//! The struct's parameter [`Schema`](crate::Schema) is its fields', in order (read in place,
//! field by field, for [`read_boxed`](crate::read_boxed)), so it loads like a built-in
//! architecture from a blob ([`read_blob`](crate::read_blob)) and, with the feature `hdf5`, from
//! a GML file (`gml::load`): its fields are read from consecutive layer groups, so a GML `Chain`
//! loads into the struct that names its layers.
//!
//! ```
//! use geomattn::nalgebra::{Matrix3, SMatrix};
//! use geomattn::{Error, Identity, Network, ResNetLayer, SequenceLayer, SkewSymmetric, SkewVpa};
//!
//! /// Attention, then a ResNet layer, on sequences of four states in R³.
//! #[derive(Network)]
//! #[geomattn(scalar = f64, dim = 3, len = 4)]
//! struct Block {
//!     attention: SkewVpa<f64, 3, 4>,
//!     feedforward: ResNetLayer<f64, 3, Identity>,
//! }
//!
//! let attention = SkewVpa::skew_sym(SkewSymmetric::from_packed(&[0.3, -0.2, 0.5])?);
//! let feedforward = ResNetLayer::new(Matrix3::identity() * 0.5, None);
//! let block = Block { attention, feedforward };
//! let z = SMatrix::<f64, 3, 4>::from_fn(|i, j| (i + j) as f64 / 4.0);
//! assert_eq!(block.forward(&z), feedforward.forward(&attention.forward(&z)));
//!
//! // The checked pass names the field whose output is not finite.
//! let huge = Block { feedforward: ResNetLayer::new(Matrix3::repeat(f64::MAX), None), ..block };
//! let Err(Error::NonFinite(found)) = huge.forward_checked(&z) else { panic!() };
//! assert!(found.field.names().eq(["feedforward"]));
//! assert_eq!(found.layer, "ResNetLayer");
//! assert_eq!(
//!     found.to_string(),
//!     "non-finite value at time step 0 in the output of ResNetLayer (field `feedforward`)"
//! );
//! # Ok::<(), Error>(())
//! ```
//!
//! # Options
//!
//! `#[geomattn(...)]` on the struct, all optional:
//!
//! | option | meaning | when absent |
//! |---|---|---|
//! | `scalar = Type` | the scalar `S` of the sequences | the implementation is generic over `S` |
//! | `dim = expr` | the dimension `D` of one time step | generic over `D` |
//! | `len = expr` | the sequence length `T` | generic over `T` |
//! | `crate = path` | the path of this crate (for a renamed dependency: `crate = ga`) | `::geomattn` |
//!
//! The struct's own type and const parameters are kept, with their bounds; each option may name
//! one of them (`scalar = S, dim = D`). An option left out makes the implementation generic over
//! it: `struct Block<Att, Ff> { attention: Att, feedforward: Ff }` is a sequence layer for every
//! `S`, `D` and `T` both of its layers handle.
//!
//! # Lanes
//! The derive also implements [`MapScalar`] and [`LaneTwin`]: the network over another scalar,
//! and over lane vectors, is its fields' layers over it chained with [`Then`] in field order, so
//! [`Lanewise`](crate::Lanewise) runs it bit-identically to the scalar pass. Their bounds are
//! deferred like the schema's: a field without a lane twin (a layer of your own) does not stop the
//! derive; only running the network in lanes is then an error.
//!
//! ```
//! use geomattn::{Lanewise, Network, ResNetLayer, SequenceLayer, SkewVpa, Tanh};
//! use rand::{SeedableRng, rngs::SmallRng};
//!
//! #[derive(Network, Clone, Copy)]
//! #[geomattn(scalar = f32, dim = 3, len = 4)]
//! struct Block {
//!     attention: SkewVpa<f32, 3, 4>,
//!     feedforward: ResNetLayer<f32, 3, Tanh>,
//! }
//!
//! let mut rng = SmallRng::seed_from_u64(7);
//! let block = Block {
//!     attention: SkewVpa::glorot(&mut rng),
//!     feedforward: ResNetLayer::glorot(&mut rng, true),
//! };
//! let batch: Vec<f32> = (0..3 * 4 * 21).map(|i| (i as f32 * 0.1).cos()).collect();
//! let (mut lanes, mut scalar) = (vec![0.0; batch.len()], vec![0.0; batch.len()]);
//! Lanewise::new(block).forward_flat(&batch, &mut lanes)?;
//! block.forward_flat(&batch, &mut scalar)?;
//! assert_eq!(lanes, scalar);
//! # Ok::<(), geomattn::Error>(())
//! ```
//!
//! # Errors at compile time
//!
//! Each field must be a [`SequenceLayer`] of the network's `S`, `D` and `T`; the bound is spanned
//! at the field, so a field that is not a layer, or whose sizes or scalar do not chain with the
//! network's (a `SkewVpa<f64, 2, 4>` in a network of `dim = 3`), is a compile error there. (A
//! field whose type involves the struct's generic parameters is checked where the network is used
//! with concrete types; the error then notes the field's bound.) An enum, a union, a struct
//! without fields, lifetime parameters (a network owns its layers, to be loaded and embedded by
//! value), an unknown or repeated option, and `#[geomattn]` on a field are compile errors at the
//! offending token. A field without a loader makes only loading the network an error, not the
//! derive.
//!
//! Layers that change the dimension ([`Dense`](crate::Dense): `IN ≠ OUT`) are not sequence layers
//! and cannot be fields: apply them around the network with
//! [`ColumnLayer::apply_columns`](crate::ColumnLayer::apply_columns).

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};

use crate::error::INPUT;
use crate::error::{Error, NonFinite};
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::product;
use crate::scalar::{Field, MapScalar, Real};

#[cfg(doc)]
use crate::error::FieldPath;

/// The checked pass of one field of a derived network: `layer`'s own checked pass, with `field`
/// prepended to the error's [`NonFinite::field`] (except for the network's input, which belongs to
/// no field). Not a public API: what the derive emits.
#[doc(hidden)]
pub fn forward_checked_field<S, const D: usize, const T: usize, L>(
    layer: &L,
    field: &'static &'static str,
    z: SMatrixView<'_, S, D, T>,
    out: SMatrixViewMut<'_, S, D, T>,
) -> Result<(), Error>
where
    S: Field + RealField,
    L: SequenceLayer<S, D, T> + ?Sized,
{
    layer
        .forward_checked_into(z, out)
        .map_err(|error| match error {
            Error::NonFinite(found) if found.layer != INPUT => Error::NonFinite(NonFinite {
                field: found.field.within(field),
                ..found
            }),
            other => other,
        })
}

/// [`Schema::read_into`](crate::Schema::read_into) of a struct, field by field
/// in place: `read_fields_into!(fill, slot, source, { field: Type, … })` with **every** field of
/// the struct, in order (the derive lists them all; a missing field would leave the slot partly
/// uninitialised), `fill` the function that fills one slot and checks it
/// ([`fill`](crate::fill)). The unsafe code lives here, in this crate, so the derive emits none
/// into the caller's crate. Not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __read_fields_into {
    ($fill:path, $slot:ident, $source:ident, { $($field:tt : $ty:ty),+ $(,)? }) => {{
        let base = $slot.as_mut_ptr();
        $(
            $fill(
                // SAFETY: `&raw mut` takes the field's address inside the slot without making a
                // reference to the (uninitialised) field; `MaybeUninit<F>` has `F`'s layout and
                // accepts any bits, and each field is named once, so no two references alias.
                unsafe { &mut *(&raw mut (*base).$field).cast::<::core::mem::MaybeUninit<$ty>>() },
                $source,
            )?;
        )+
        // SAFETY: every field has been filled (`fill` checks each), and the derive names all.
        ::core::result::Result::Ok(unsafe { $slot.assume_init_mut() })
    }};
}

/// `First`, then `Second`: two sequence layers applied one after the other, through one stack
/// buffer. What a derived network is over another scalar and in lanes (its fields' layers,
/// chained in order), and usable on its own.
///
/// ```
/// use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, Then, nalgebra::SMatrix};
/// let vpa = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.3])?);
/// let both = Then::new(vpa, vpa);
/// let z = SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + j) as f64);
/// assert_eq!(both.forward(&z), vpa.forward(&vpa.forward(&z)));
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Then<First, Second> {
    /// The layer applied first.
    pub first: First,
    /// The layer applied to the first's output.
    pub second: Second,
}

impl<First, Second> Then<First, Second> {
    /// `first`, then `second`.
    pub const fn new(first: First, second: Second) -> Self {
        Self { first, second }
    }
}

impl<S, const D: usize, const T: usize, First, Second> SequenceLayer<S, D, T>
    for Then<First, Second>
where
    S: Field,
    First: SequenceLayer<S, D, T>,
    Second: SequenceLayer<S, D, T>,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, out: SMatrixViewMut<'_, S, D, T>) {
        let mut middle: SMatrix<S, D, T> = product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |_, _| S::zero(),
        );
        self.first.forward_into(z, middle.as_view_mut());
        self.second.forward_into(middle.as_view(), out);
    }
}

/// Both layers over another scalar, weight by weight.
impl<First, Second> MapScalar for Then<First, Second>
where
    First: MapScalar,
    Second: MapScalar<Scalar = First::Scalar>,
{
    type Scalar = First::Scalar;
    type Over<S2: Field> = Then<First::Over<S2>, Second::Over<S2>>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2> {
        Then::new(self.first.map_scalar(&mut f), self.second.map_scalar(f))
    }
}

/// Both layers' lane twins, chained.
impl<First, Second, const D: usize, const T: usize> LaneTwin<D, T> for Then<First, Second>
where
    First: LaneTwin<D, T>,
    Second: LaneTwin<D, T, Scalar = First::Scalar>,
{
    type Twin<X: Real> = Then<First::Twin<X>, Second::Twin<X>>;

    fn twin<X: Real>(&self, mut f: impl FnMut(Self::Scalar) -> X) -> Self::Twin<X> {
        Then::new(self.first.twin(&mut f), self.second.twin(f))
    }
}
