//! The backward passes of GML's architectures, by composition: the volume-preserving feed-forward
//! network (per time step) and the transformer skeleton (per sequence). Each stores the inputs of
//! its parts on the stack during a forward pass, then runs the parts' backward passes in reverse.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, SVector};

use super::{ActivationDerivative, Backward, ColumnBackward};
use crate::architectures::{LinearPair, Transformer, VolumePreservingFeedForward, VpffBlock};
use crate::feedforward::{
    VolumePreservingLayer, VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
use crate::packed::Packed;
use crate::scalar::Field;

/// A layer of the feed-forward network with its gradient zeroed (the same bias presence).
fn zeroed<S: Field, const D: usize, Layout, Act>(
    layer: &VolumePreservingLayer<S, D, Layout, Act>,
) -> VolumePreservingLayer<S, D, Layout, Act>
where
    Layout: crate::feedforward::StrictlyTriangular,
{
    VolumePreservingLayer::new(Packed::zeros(), layer.bias().map(|_| SVector::zeros()))
}

fn zeroed_pair<S: Field, const D: usize>(pair: &LinearPair<S, D>) -> LinearPair<S, D> {
    (zeroed(&pair.0), zeroed(&pair.1))
}

/// What a layer's backward pass keeps of its forward pass: its input `x` and its activated part
/// `σ(W x + b)` ([`VolumePreservingLayer::apply_keeping`]).
type Kept<S, const D: usize> = (SVector<S, D>, SVector<S, D>);

/// A lower and an upper layer's [`Kept`] values, in that order.
type PairKept<S, const D: usize> = [Kept<S, D>; 2];

/// Nothing kept yet (the start of a forward pass's record).
fn nothing_kept<S: Field, const D: usize>() -> PairKept<S, D> {
    [(SVector::zeros(), SVector::zeros()); 2]
}

/// `lower` then `upper` on `x`, bit for bit their forward passes, keeping each layer's [`Kept`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn pair_forward<S, const D: usize, Act>(
    (lower, upper): (
        &VolumePreservingLowerLayer<S, D, Act>,
        &VolumePreservingUpperLayer<S, D, Act>,
    ),
    x: &SVector<S, D>,
    kept: &mut PairKept<S, D>,
) -> SVector<S, D>
where
    S: Field,
    Act: ActivationDerivative<S>,
{
    let (middle, lower_activated) = lower.apply_keeping(x);
    let (y, upper_activated) = upper.apply_keeping(&middle);
    *kept = [(*x, lower_activated), (middle, upper_activated)];
    y
}

/// `lower` then `upper`, backward: `ȳ` of the pair's output to `x̄` of its input, from what
/// [`pair_forward`] kept.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pair_backward<S, const D: usize, Act>(
    (lower, upper): (
        &VolumePreservingLowerLayer<S, D, Act>,
        &VolumePreservingUpperLayer<S, D, Act>,
    ),
    [(x, lower_activated), (middle, upper_activated)]: &PairKept<S, D>,
    y_bar: &SVector<S, D>,
    (lower_gradient, upper_gradient): (
        &mut VolumePreservingLowerLayer<S, D, Act>,
        &mut VolumePreservingUpperLayer<S, D, Act>,
    ),
) -> SVector<S, D>
where
    S: Field,
    Act: ActivationDerivative<S>,
{
    let middle_bar = upper.backward_kept(middle, upper_activated, y_bar, upper_gradient);
    lower.backward_kept(x, lower_activated, &middle_bar, lower_gradient)
}

/// What a block's backward pass keeps of its forward pass: each linear pair's and then the
/// nonlinear pair's [`PairKept`].
#[derive(Clone, Copy)]
struct BlockKept<S, const D: usize, const NL: usize> {
    linear: [PairKept<S, D>; NL],
    nonlinear: PairKept<S, D>,
}

impl<S: Field, const D: usize, const NL: usize> BlockKept<S, D, NL> {
    fn new() -> Self {
        Self {
            linear: [nothing_kept(); NL],
            nonlinear: nothing_kept(),
        }
    }
}

impl<S: Field, const D: usize, const NL: usize, Act: ActivationDerivative<S>>
    VpffBlock<S, D, NL, Act>
{
    fn zeroed(&self) -> Self {
        VpffBlock {
            linear: self.linear.each_ref().map(zeroed_pair),
            lower: zeroed(&self.lower),
            upper: zeroed(&self.upper),
        }
    }

    /// The block on `x`, bit for bit [`VpffBlock::apply`], keeping what its backward pass needs.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_keeping(&self, x: &SVector<S, D>, kept: &mut BlockKept<S, D, NL>) -> SVector<S, D> {
        let mut v = *x;
        for ((lower, upper), pair_kept) in self.linear.iter().zip(&mut kept.linear) {
            v = pair_forward((lower, upper), &v, pair_kept);
        }
        pair_forward((&self.lower, &self.upper), &v, &mut kept.nonlinear)
    }

    /// The block's backward pass from what [`Self::forward_keeping`] kept.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_kept(
        &self,
        kept: &BlockKept<S, D, NL>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut bar = pair_backward(
            (&self.lower, &self.upper),
            &kept.nonlinear,
            y_bar,
            (&mut gradient.lower, &mut gradient.upper),
        );
        for (((lower, upper), pair_kept), (lower_gradient, upper_gradient)) in self
            .linear
            .iter()
            .zip(&kept.linear)
            .zip(&mut gradient.linear)
            .rev()
        {
            bar = pair_backward(
                (lower, upper),
                pair_kept,
                &bar,
                (lower_gradient, upper_gradient),
            );
        }
        bar
    }
}

/// The gradient is the network's own type, every layer holding its gradient. One forward pass
/// keeps every layer's input and activated part; the backward passes reuse them (no activation
/// is evaluated twice).
impl<S, const D: usize, const NB: usize, const NL: usize, Act> ColumnBackward<D>
    for VolumePreservingFeedForward<S, D, NB, NL, Act>
where
    S: Field,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        VolumePreservingFeedForward::new(
            self.blocks.each_ref().map(VpffBlock::zeroed),
            zeroed_pair(&self.last),
        )
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut blocks_kept = [BlockKept::<S, D, NL>::new(); NB];
        let mut last_kept = nothing_kept();
        let mut v = *x;
        for (block, block_kept) in self.blocks.iter().zip(&mut blocks_kept) {
            v = block.forward_keeping(&v, block_kept);
        }
        pair_forward((&self.last.0, &self.last.1), &v, &mut last_kept);
        let (lower_gradient, upper_gradient) = &mut gradient.last;
        let mut bar = pair_backward(
            (&self.last.0, &self.last.1),
            &last_kept,
            y_bar,
            (lower_gradient, upper_gradient),
        );
        for ((block_kept, block), block_gradient) in blocks_kept
            .iter()
            .zip(&self.blocks)
            .zip(&mut gradient.blocks)
            .rev()
        {
            bar = block.backward_kept(block_kept, &bar, block_gradient);
        }
        bar
    }
}

/// The gradient is a transformer of the parts' gradients (for GML's architectures, the network's
/// own type).
impl<S, const D: usize, const T: usize, Att, Ff, const L: usize> Backward<S, D, T>
    for Transformer<Att, Ff, L>
where
    S: Field,
    Att: Backward<S, D, T>,
    Ff: Backward<S, D, T>,
{
    type Gradient = Transformer<Att::Gradient, Ff::Gradient, L>;

    fn zero_gradient(&self) -> Self::Gradient {
        Transformer::new(self.blocks.each_ref().map(|(attention, feedforward)| {
            (attention.zero_gradient(), feedforward.zero_gradient())
        }))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self::Gradient,
    ) {
        // The input of every block's attention and feed-forward part.
        let mut inputs = [(SMatrix::<S, D, T>::zeros(), SMatrix::<S, D, T>::zeros()); L];
        let mut x = z.into_owned();
        for (input, (attention, feedforward)) in inputs.iter_mut().zip(&self.blocks) {
            let y = attention.forward(&x);
            *input = (x, y);
            x = feedforward.forward(&y);
        }
        let mut bar = out_bar.into_owned();
        for (((x, y), (attention, feedforward)), (attention_gradient, feedforward_gradient)) in
            inputs
                .iter()
                .zip(&self.blocks)
                .zip(&mut gradient.blocks)
                .rev()
        {
            let y_bar = feedforward.backward(y, &bar, feedforward_gradient);
            bar = attention.backward(x, &y_bar, attention_gradient);
        }
        z_bar.copy_from(&bar);
    }
}
