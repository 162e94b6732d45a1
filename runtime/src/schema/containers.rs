//! The schemas of the containers: arrays, pairs and GML's architectures, their parts one after
//! the other; each also fills itself in place ([`Schema::read_into`]).

use core::mem::MaybeUninit;

use super::{Schema, Sink, Source, Visit, fill};
use crate::activation::{Activation, Identity};
use crate::architectures::{ResNetStack, Transformer, VolumePreservingFeedForward, VpffBlock};
use crate::feedforward::volume_preserving::schema::VpLayer;
use crate::feedforward::{ResNetLayer, VolumePreservingLayer};
use crate::packed::{Lower, Upper};
use crate::scalar::Field;

/// The slots of the elements of an uninitialised array.
fn array_slots<T, const LEN: usize>(
    slot: &mut MaybeUninit<[T; LEN]>,
) -> &mut [MaybeUninit<T>; LEN] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, so `[MaybeUninit<T>; LEN]` has that of
    // `[T; LEN]`, and every bit pattern (uninitialised included) is a valid
    // `[MaybeUninit<T>; LEN]`. The reference borrows `slot` mutably, so it is the only one.
    unsafe { &mut *slot.as_mut_ptr().cast::<[MaybeUninit<T>; LEN]>() }
}

/// The slot of a field of an uninitialised struct or tuple: `field!(slot, name => Type)`.
macro_rules! field {
    ($slot:expr, $field:tt => $ty:ty) => {{
        let base = $slot.as_mut_ptr();
        // SAFETY: `&raw mut` takes the field's address inside the slot without making a
        // reference to the (uninitialised) field. `MaybeUninit<F>` has `F`'s layout and accepts
        // any bits, so the reference to it is valid; it borrows the slot mutably, and each call
        // names a different field, so no two references alias.
        unsafe { &mut *(&raw mut (*base).$field).cast::<MaybeUninit<$ty>>() }
    }};
}

/// Builds an array element by element, in place (no copy of the whole array on the stack).
fn read_array<T: Schema, const LEN: usize, Src: Source<T::Scalar> + ?Sized>(
    source: &mut Src,
) -> Result<[T; LEN], Src::Error> {
    let mut slot = MaybeUninit::<[T; LEN]>::uninit();
    for element in array_slots(&mut slot) {
        fill(element, source)?;
    }
    // SAFETY: every element has been filled (`fill` checks each).
    Ok(unsafe { slot.assume_init() })
}

/// `LEN` parts, one after the other.
impl<T: Schema, const LEN: usize> Schema for [T; LEN] {
    type Scalar = T::Scalar;
    const SCALARS: usize = LEN * T::SCALARS;
    const LAYERS: usize = LEN * T::LAYERS;
    const DESCRIPTION_LEN: usize = LEN * T::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        for _ in 0..LEN {
            T::describe(visitor);
        }
    }

    fn read<Src: Source<T::Scalar> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        read_array(source)
    }

    fn read_into<'slot, Src: Source<T::Scalar> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        for element in array_slots(slot) {
            fill(element, source)?;
        }
        // SAFETY: every element has been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }

    fn write<K: Sink<T::Scalar> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.iter().try_for_each(|element| element.write(sink))
    }
}

/// `A`, then `B`.
impl<S: Copy, A: Schema<Scalar = S>, B: Schema<Scalar = S>> Schema for (A, B) {
    type Scalar = S;
    const SCALARS: usize = A::SCALARS + B::SCALARS;
    const LAYERS: usize = A::LAYERS + B::LAYERS;
    const DESCRIPTION_LEN: usize = A::DESCRIPTION_LEN + B::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        A::describe(visitor);
        B::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        let a = A::read(source)?;
        Ok((a, B::read(source)?))
    }

    fn read_into<'slot, Src: Source<S> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        fill(field!(slot, 0 => A), source)?;
        fill(field!(slot, 1 => B), source)?;
        // SAFETY: both fields have been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.0.write(sink)?;
        self.1.write(sink)
    }
}

/// `L` blocks of attention `Att` and feed-forward part `Ff`.
impl<S: Copy, Att, Ff, const L: usize> Schema for Transformer<Att, Ff, L>
where
    Att: Schema<Scalar = S>,
    Ff: Schema<Scalar = S>,
{
    type Scalar = S;
    const SCALARS: usize = <[(Att, Ff); L]>::SCALARS;
    const LAYERS: usize = <[(Att, Ff); L]>::LAYERS;
    const DESCRIPTION_LEN: usize = <[(Att, Ff); L]>::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        <[(Att, Ff); L]>::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        Ok(Self::new(read_array(source)?))
    }

    fn read_into<'slot, Src: Source<S> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        fill(field!(slot, blocks => [(Att, Ff); L]), source)?;
        // SAFETY: its one field has been filled (`fill` checks it).
        Ok(unsafe { slot.assume_init_mut() })
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.blocks().write(sink)
    }
}

/// `NB` ResNet layers with activation `Act`, then one with the identity.
impl<S: Field, const D: usize, const NB: usize, Act: Activation<S>> Schema
    for ResNetStack<S, D, NB, Act>
{
    type Scalar = S;
    const SCALARS: usize = (NB + 1) * ResNetLayer::<S, D, Act>::SCALARS;
    const LAYERS: usize = NB + 1;
    const DESCRIPTION_LEN: usize = NB * ResNetLayer::<S, D, Act>::DESCRIPTION_LEN
        + ResNetLayer::<S, D, Identity>::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        <[ResNetLayer<S, D, Act>; NB]>::describe(visitor);
        ResNetLayer::<S, D, Identity>::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        let nonlinear = read_array(source)?;
        Ok(Self::new(nonlinear, ResNetLayer::read(source)?))
    }

    fn read_into<'slot, Src: Source<S> + ?Sized>(
        slot: &'slot mut MaybeUninit<Self>,
        source: &mut Src,
    ) -> Result<&'slot mut Self, Src::Error> {
        fill(
            field!(slot, nonlinear => [ResNetLayer<S, D, Act>; NB]),
            source,
        )?;
        fill(field!(slot, linear => ResNetLayer<S, D, Identity>), source)?;
        // SAFETY: both fields have been filled (`fill` checks each).
        Ok(unsafe { slot.assume_init_mut() })
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.nonlinear.write(sink)?;
        self.linear.write(sink)
    }
}

/// A linear (identity) lower layer of a feed-forward network, with or without a bias.
type LinearLower<const BIAS: bool, S, const D: usize> =
    VpLayer<BIAS, VolumePreservingLayer<S, D, Lower, Identity>>;
/// A linear (identity) upper layer of a feed-forward network, with or without a bias.
type LinearUpper<const BIAS: bool, S, const D: usize> =
    VpLayer<BIAS, VolumePreservingLayer<S, D, Upper, Identity>>;
/// A nonlinear lower layer of a feed-forward network (always with a bias).
type NonlinearLower<S, const D: usize, Act> =
    VpLayer<true, VolumePreservingLayer<S, D, Lower, Act>>;
/// A nonlinear upper layer of a feed-forward network (always with a bias).
type NonlinearUpper<S, const D: usize, Act> =
    VpLayer<true, VolumePreservingLayer<S, D, Upper, Act>>;

/// GML's `VolumePreservingFeedForward(D, NB, NL, Act)`: per block, `NL` linear pairs of which only
/// the last upper layer has a bias, then a lower and an upper layer with biases and activation
/// `Act`; then a final linear pair whose upper layer has a bias.
impl<S: Field, const D: usize, const NB: usize, const NL: usize, Act: Activation<S>> Schema
    for VolumePreservingFeedForward<S, D, NB, NL, Act>
{
    type Scalar = S;
    const SCALARS: usize = NB
        * (NL * LinearLower::<false, S, D>::SCALARS
            + NL.saturating_sub(1) * LinearUpper::<false, S, D>::SCALARS
            + if NL > 0 {
                LinearUpper::<true, S, D>::SCALARS
            } else {
                0
            }
            + NonlinearLower::<S, D, Act>::SCALARS
            + NonlinearUpper::<S, D, Act>::SCALARS)
        + LinearLower::<false, S, D>::SCALARS
        + LinearUpper::<true, S, D>::SCALARS;
    const LAYERS: usize = Self::LAYERS;
    const DESCRIPTION_LEN: usize = NB
        * (NL * LinearLower::<false, S, D>::DESCRIPTION_LEN
            + NL.saturating_sub(1) * LinearUpper::<false, S, D>::DESCRIPTION_LEN
            + if NL > 0 {
                LinearUpper::<true, S, D>::DESCRIPTION_LEN
            } else {
                0
            }
            + NonlinearLower::<S, D, Act>::DESCRIPTION_LEN
            + NonlinearUpper::<S, D, Act>::DESCRIPTION_LEN)
        + LinearLower::<false, S, D>::DESCRIPTION_LEN
        + LinearUpper::<true, S, D>::DESCRIPTION_LEN;

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        for _ in 0..NB {
            for k in 0..NL {
                LinearLower::<false, S, D>::describe(visitor);
                if k + 1 == NL {
                    LinearUpper::<true, S, D>::describe(visitor);
                } else {
                    LinearUpper::<false, S, D>::describe(visitor);
                }
            }
            NonlinearLower::<S, D, Act>::describe(visitor);
            NonlinearUpper::<S, D, Act>::describe(visitor);
        }
        LinearLower::<false, S, D>::describe(visitor);
        LinearUpper::<true, S, D>::describe(visitor);
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        let mut blocks = MaybeUninit::<[VpffBlock<S, D, NL, Act>; NB]>::uninit();
        for block in array_slots(&mut blocks) {
            let mut linear = MaybeUninit::<[_; NL]>::uninit();
            for (k, pair) in array_slots(&mut linear).iter_mut().enumerate() {
                let lower = LinearLower::<false, S, D>::read(source)?;
                let upper = if k + 1 == NL {
                    LinearUpper::<true, S, D>::read(source)?
                } else {
                    LinearUpper::<false, S, D>::read(source)?
                };
                pair.write((lower, upper));
            }
            block.write(VpffBlock {
                // SAFETY: every pair has been written in the loop above.
                linear: unsafe { linear.assume_init() },
                lower: NonlinearLower::<S, D, Act>::read(source)?,
                upper: NonlinearUpper::<S, D, Act>::read(source)?,
            });
        }
        let last = (
            LinearLower::<false, S, D>::read(source)?,
            LinearUpper::<true, S, D>::read(source)?,
        );
        // SAFETY: every block has been written in the loop above.
        Ok(Self::new(unsafe { blocks.assume_init() }, last))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        for block in self.blocks() {
            for (k, (lower, upper)) in block.linear.iter().enumerate() {
                LinearLower::<false, S, D>::write(lower, sink)?;
                if k + 1 == NL {
                    LinearUpper::<true, S, D>::write(upper, sink)?;
                } else {
                    LinearUpper::<false, S, D>::write(upper, sink)?;
                }
            }
            NonlinearLower::<S, D, Act>::write(&block.lower, sink)?;
            NonlinearUpper::<S, D, Act>::write(&block.upper, sink)?;
        }
        let (lower, upper) = self.last();
        LinearLower::<false, S, D>::write(lower, sink)?;
        LinearUpper::<true, S, D>::write(upper, sink)
    }
}
