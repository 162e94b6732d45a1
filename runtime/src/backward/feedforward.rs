//! The backward passes of the per-time-step layers: the residual updates `x + σ(W x + b)` of
//! GML's volume-preserving feed-forward layers and of ResNet, and the blanket [`Backward`] that
//! applies a column layer's backward pass to every time step.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, SVector};

use super::Backward;
use crate::activation::{Activation, Identity, Tanh};
use crate::feedforward::StrictlyTriangular;
use crate::{ColumnLayer, Field, Packed, Real, ResNetLayer, VolumePreservingLayer};

/// An [`Activation`] with its derivative.
pub trait ActivationDerivative<S>: Activation<S> {
    /// `σ'(x)`.
    fn derivative(x: S) -> S;
}

impl<S: Field> ActivationDerivative<S> for Identity {
    #[inline(always)]
    fn derivative(_: S) -> S {
        S::one()
    }
}

/// `tanh' = 1 − tanh²`.
impl<S: Real> ActivationDerivative<S> for Tanh {
    #[inline(always)]
    fn derivative(x: S) -> S {
        let t = x.tanh();
        S::one() - t * t
    }
}

/// A [`ColumnLayer`] that keeps the dimension, with its vector-Jacobian product per time step.
/// Every such layer is a [`Backward`] sequence layer through one blanket implementation, which
/// sums the parameters' gradient over the time steps.
pub trait ColumnBackward<const D: usize>: ColumnLayer<D, D> {
    /// The gradient with respect to the layer's parameters, laid out as the parameters are.
    type Gradient;

    /// A gradient of zeros.
    fn zero_gradient(&self) -> Self::Gradient;

    /// `∂L/∂x` for the input `x` and `y_bar = ∂L/∂y`; adds `∂L/∂θ` to `gradient`.
    fn column_backward(
        &self,
        x: &SVector<Self::Scalar, D>,
        y_bar: &SVector<Self::Scalar, D>,
        gradient: &mut Self::Gradient,
    ) -> SVector<Self::Scalar, D>;
}

impl<S: Field, const D: usize, const T: usize, Layer> Backward<S, D, T> for Layer
where
    Layer: ColumnBackward<D, Scalar = S>,
{
    type Gradient = Layer::Gradient;

    fn zero_gradient(&self) -> Layer::Gradient {
        ColumnBackward::zero_gradient(self)
    }

    #[inline(always)]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Layer::Gradient,
    ) {
        for t in 0..T {
            let x_bar = self.column_backward(
                &z.column(t).into_owned(),
                &out_bar.column(t).into_owned(),
                gradient,
            );
            z_bar.set_column(t, &x_bar);
        }
    }
}

/// The residual update's backward pass: for `y = x + σ(u)`, `u = W x + b`, with
/// `s = σ'(u) ⊙ ȳ`: `x̄ = ȳ + Wᵀ s`, `W̄ = s xᵀ`, `b̄ = s`. Returns `(x̄, W̄, s)`.
#[inline(always)]
fn residual_backward<S: Field, Act: ActivationDerivative<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
    y_bar: &SVector<S, D>,
) -> (SVector<S, D>, SMatrix<S, D, D>, SVector<S, D>) {
    let mut u = w * x;
    if let Some(b) = b {
        u += b;
    }
    let s = SVector::<S, D>::from_fn(|i, _| Act::derivative(u[i]) * y_bar[i]);
    (y_bar + w.transpose() * s, s * x.transpose(), s)
}

/// The gradient is the layer's own type: its packed weight holds `∂L/∂W` entry by packed entry,
/// its bias (where the layer has one) `∂L/∂b`.
impl<S, const D: usize, Layout, Act> ColumnBackward<D> for VolumePreservingLayer<S, D, Layout, Act>
where
    S: Field,
    Layout: StrictlyTriangular,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(Packed::zeros(), self.bias().map(|_| SVector::zeros()))
    }

    #[inline(always)]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (x_bar, w_bar, s) =
            residual_backward::<S, Act, D>(self.weight().matrix(), x, self.bias(), y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
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

    #[inline(always)]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (x_bar, w_bar, s) =
            residual_backward::<S, Act, D>(self.weight(), x, self.bias(), y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
    }
}
