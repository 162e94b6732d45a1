//! The backward passes of the ResNet layer and of the ResNet stack, the feed-forward part of a
//! standard transformer block.

use nalgebra::{SMatrix, SVector};

use super::ResNetLayer;
use crate::architectures::ResNetStack;
use crate::backward::{ActivationDerivative, ColumnBackward};
use crate::feedforward::{residual_keeping, residual_pullback};
use crate::layer::ColumnLayer;
use crate::scalar::Field;

/// The gradient is the stack's own type, every layer holding its gradient. The inputs of the
/// nonlinear layers are kept on the stack during the forward pass, then the layers' backward
/// passes run in reverse.
impl<S, const D: usize, const NB: usize, Act> ColumnBackward<D> for ResNetStack<S, D, NB, Act>
where
    S: Field,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        ResNetStack::new(
            self.nonlinear.each_ref().map(ColumnBackward::zero_gradient),
            ColumnBackward::zero_gradient(&self.linear),
        )
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut inputs = [SVector::<S, D>::zeros(); NB];
        let mut v = *x;
        for (input, layer) in inputs.iter_mut().zip(&self.nonlinear) {
            *input = v;
            v = layer.apply(&v);
        }
        let mut bar = self.linear.column_backward(&v, y_bar, &mut gradient.linear);
        for ((input, layer), layer_gradient) in inputs
            .iter()
            .zip(&self.nonlinear)
            .zip(&mut gradient.nonlinear)
            .rev()
        {
            bar = layer.column_backward(input, &bar, layer_gradient);
        }
        bar
    }
}

/// The gradient is the layer's own type: `∂L/∂W` in its weight, `∂L/∂b` in its bias.
impl<S: Field, const D: usize, Act: ActivationDerivative<S>> ColumnBackward<D>
    for ResNetLayer<S, D, Act>
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(SMatrix::zeros(), self.bias().map(|_| SVector::zeros()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (_, activated) = residual_keeping::<S, Act, D>(self.weight(), x, self.bias());
        let (x_bar, w_bar, s) = residual_pullback::<S, Act, D>(self.weight(), x, &activated, y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
    }
}
