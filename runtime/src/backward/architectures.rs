//! The backward passes of GML's architectures, by composition: the volume-preserving feed-forward
//! network (per time step) and the transformer skeleton (per sequence). Each stores the inputs of
//! its parts on the stack during a forward pass, then runs the parts' backward passes in reverse.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, SVector};

use super::{ActivationDerivative, Backward, ColumnBackward};
use crate::{
    ColumnLayer, Field, LinearPair, Packed, Transformer, VolumePreservingFeedForward,
    VolumePreservingLayer, VpffBlock,
};

/// A layer of the feed-forward network with its gradient zeroed (the same bias presence).
fn zeroed<S: Field, const D: usize, Layout, Act>(
    layer: &VolumePreservingLayer<S, D, Layout, Act>,
) -> VolumePreservingLayer<S, D, Layout, Act>
where
    Layout: crate::StrictlyTriangular,
{
    VolumePreservingLayer::new(Packed::zeros(), layer.bias().map(|_| SVector::zeros()))
}

fn zeroed_pair<S: Field, const D: usize>(pair: &LinearPair<S, D>) -> LinearPair<S, D> {
    (zeroed(&pair.0), zeroed(&pair.1))
}

/// `lower` then `upper`, backward: `ȳ` of the pair's output to `x̄` of its input.
#[inline(always)]
fn pair_backward<S, const D: usize, Lo, Up>(
    (lower, upper): (&Lo, &Up),
    x: &SVector<S, D>,
    y_bar: &SVector<S, D>,
    (lower_gradient, upper_gradient): (&mut Lo::Gradient, &mut Up::Gradient),
) -> SVector<S, D>
where
    S: Field,
    Lo: ColumnBackward<D, Scalar = S>,
    Up: ColumnBackward<D, Scalar = S>,
{
    let middle = lower.apply(x);
    let middle_bar = upper.column_backward(&middle, y_bar, upper_gradient);
    lower.column_backward(x, &middle_bar, lower_gradient)
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

    #[inline(always)]
    fn backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut inputs = [SVector::<S, D>::zeros(); NL];
        let mut v = *x;
        for (input, (lower, upper)) in inputs.iter_mut().zip(&self.linear) {
            *input = v;
            v = upper.apply(&lower.apply(&v));
        }
        let mut bar = pair_backward(
            (&self.lower, &self.upper),
            &v,
            y_bar,
            (&mut gradient.lower, &mut gradient.upper),
        );
        for ((input, (lower, upper)), (lower_gradient, upper_gradient)) in inputs
            .iter()
            .zip(&self.linear)
            .zip(&mut gradient.linear)
            .rev()
        {
            bar = pair_backward(
                (lower, upper),
                input,
                &bar,
                (lower_gradient, upper_gradient),
            );
        }
        bar
    }
}

/// The gradient is the network's own type, every layer holding its gradient.
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

    #[inline(always)]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut inputs = [SVector::<S, D>::zeros(); NB];
        let mut v = *x;
        for (input, block) in inputs.iter_mut().zip(&self.blocks) {
            *input = v;
            v = block.apply(&v);
        }
        let (lower_gradient, upper_gradient) = &mut gradient.last;
        let mut bar = pair_backward(
            (&self.last.0, &self.last.1),
            &v,
            y_bar,
            (lower_gradient, upper_gradient),
        );
        for ((input, block), block_gradient) in inputs
            .iter()
            .zip(&self.blocks)
            .zip(&mut gradient.blocks)
            .rev()
        {
            bar = block.backward(input, &bar, block_gradient);
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

    #[inline(always)]
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
