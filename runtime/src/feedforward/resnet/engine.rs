//! GML's `ResNetLayer` at run-time sizes.

use std::vec::Vec;

use nalgebra::{DMatrix, DVector};

use crate::activation::Function;
use crate::engine::backward::activated;
use crate::engine::backward::column_major;
use crate::engine::feedforward::{
    Affine, StackLayer, residual, residual_backward, residual_backward_kept, residual_keeping,
};
use crate::engine::{Backward, Element, Forward, Scratch, matrix, vector};
use crate::error::Error;
use crate::scalar::{Field, MapScalar};

/// GML's `ResNetLayer(dim, activation; use_bias)`: `x ↦ x + σ(W x + b)` on every time step, `W`
/// dense (the compile-time [`crate::ResNetLayer`]).
///
/// ```
/// use geomattn::activation::Function;
/// use geomattn::engine::{Forward, ResNetLayer};
/// use geomattn::nalgebra::DMatrix;
/// // W = [0 1; 0 0] (column-major [0, 0, 1, 0]), b = (0, 1): x + (x₁, 1).
/// let layer = ResNetLayer::new(2, &[0.0, 0.0, 1.0, 0.0], Some(&[0.0, 1.0]), Function::Identity)?;
/// let y = layer.forward(&DMatrix::from_column_slice(2, 1, &[1.0, 2.0]))?;
/// assert_eq!(y.as_slice(), [3.0, 3.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ResNetLayer<S> {
    weight: DMatrix<S>,
    bias: Option<DVector<S>>,
    activation: Function,
}

impl<S: Field> ResNetLayer<S> {
    /// The layer from `weight` (`dim×dim`, column-major, as Julia stores it) and the bias.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `weight` does not have `dim²` entries or `bias` not `dim`.
    pub fn new(
        dim: usize,
        weight: &[S],
        bias: Option<&[S]>,
        activation: Function,
    ) -> Result<Self, Error> {
        Ok(Self {
            weight: matrix("weight", dim, dim, weight)?,
            bias: bias.map(|b| vector("bias", dim, b)).transpose()?,
            activation,
        })
    }

    /// `W`, `dim×dim`.
    pub fn weight(&self) -> &DMatrix<S> {
        &self.weight
    }

    /// `b`, if the layer has one.
    pub fn bias(&self) -> Option<&DVector<S>> {
        self.bias.as_ref()
    }

    /// The activation.
    pub fn activation(&self) -> Function {
        self.activation
    }
}

impl<S: Element> Forward<S> for ResNetLayer<S> {
    fn name(&self) -> &'static str {
        "ResNetLayer"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.weight.nrows(), None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        residual(
            &self.weight,
            z,
            self.bias.as_ref(),
            self.activation,
            scratch,
        );
    }
}

impl<S: Element> ResNetLayer<S> {
    /// The weight, bias and activation.
    fn parts(&self) -> Affine<'_, S> {
        (&self.weight, self.bias.as_ref(), self.activation)
    }
}

/// As [`crate::engine::VolumePreservingLayer`]'s, `∂L/∂W` whole, column-major.
impl<S: Element> Backward<S> for ResNetLayer<S> {
    fn parameter_count(&self) -> usize {
        self.weight.len() + self.bias.as_ref().map_or(0, DVector::len)
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let dim = self.weight.nrows();
        let (w, b, activation) = self.parts();
        let y = activated(w, z, b, activation, scratch);
        let positions = column_major(dim, dim);
        residual_backward(self.parts(), positions, (z, y), bar, gradient, scratch);
    }

    fn forward_keeping(
        &self,
        z: &mut DMatrix<S>,
        kept: &mut Vec<DMatrix<S>>,
        scratch: &mut Scratch<S>,
    ) {
        residual_keeping(self.parts(), z, kept, scratch);
    }

    fn backward_kept(
        &self,
        kept: &mut Vec<DMatrix<S>>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let dim = self.weight.nrows();
        let positions = column_major(dim, dim);
        residual_backward_kept(self.parts(), positions, kept, bar, gradient, scratch);
    }
}

impl<S: Element> StackLayer<S> for ResNetLayer<S> {
    const STACK: &'static str = "ResNetStack";

    fn residual_parts(&self) -> Option<Affine<'_, S>> {
        Some(self.parts())
    }
}

impl<S: Field> MapScalar for ResNetLayer<S> {
    type Scalar = S;
    type Over<X: Field> = ResNetLayer<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> ResNetLayer<X> {
        ResNetLayer {
            weight: self.weight.map(&mut f),
            bias: self.bias.as_ref().map(|b| b.map(&mut f)),
            activation: self.activation,
        }
    }
}
