//! The backward passes of the per-time-step layers: the derivatives of the activations, and the
//! blanket [`Backward`] that applies a column layer's backward pass to every time step.

use nalgebra::{SMatrixView, SMatrixViewMut, SVector};

use super::Backward;
use nalgebra::RealField;

use crate::activation::{Activation, Identity, Relu, Sigmoid, Softplus, Tanh};
use crate::layer::ColumnLayer;
use crate::scalar::{Field, Real};

/// An [`Activation`] with its derivative.
pub trait ActivationDerivative<S>: Activation<S> {
    /// `σ'(x)` given the value `σ(x)` (which a backward pass has from its forward pass).
    fn derivative_from_value(value: S) -> S;

    /// `σ'(x)`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative(x: S) -> S {
        Self::derivative_from_value(Self::apply(x))
    }
}

impl<S: Field> ActivationDerivative<S> for Identity {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(_: S) -> S {
        S::one()
    }
}

/// `tanh' = 1 − tanh²`.
impl<S: Real> ActivationDerivative<S> for Tanh {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(t: S) -> S {
        S::one() - t * t
    }
}

/// `σ' = σ (1 − σ)`.
impl<S: RealField + Copy> ActivationDerivative<S> for Sigmoid {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(s: S) -> S {
        s * (S::one() - s)
    }
}

/// `relu'(x) = 1` where `relu(x) > 0`, else 0 (NNlib's, so 0 at `x = 0`).
impl<S: RealField + Copy> ActivationDerivative<S> for Relu {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(r: S) -> S {
        if r > S::zero() { S::one() } else { S::zero() }
    }
}

/// `softplus'(x) = sigmoid(x) = 1 − e^{−softplus(x)}`, as `−expm1(−v)` (accurate where
/// `softplus(x)` is tiny).
impl<S: RealField + Copy> ActivationDerivative<S> for Softplus {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn derivative_from_value(v: S) -> S {
        -(-v).exp_m1()
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

    #[cfg_attr(not(debug_assertions), inline(always))]
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
