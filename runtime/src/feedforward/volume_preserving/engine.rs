//! GML's volume-preserving feed-forward layers at run-time sizes.

use std::vec::Vec;

use nalgebra::{DMatrix, DVector};

use crate::activation::Function;
use crate::engine::backward::activated;
use crate::engine::feedforward::{
    Affine, StackLayer, residual, residual_backward, residual_backward_kept, residual_keeping,
};
use crate::engine::{Backward, Element, Forward, Scratch, vector};
use crate::error::Error;
use crate::packed::{Lower, PackedLayout, Upper, dense_from_packed};
use crate::scalar::{Field, MapScalar};

/// GML's `VolumePreservingLowerLayer` / `VolumePreservingUpperLayer(dim, activation; use_bias)`:
/// `x ↦ x + σ(W x + b)` on every time step, `W` strictly lower / upper triangular (the
/// compile-time [`crate::VolumePreservingLayer`], whose maths it runs).
#[derive(Debug, Clone, PartialEq)]
pub struct VolumePreservingLayer<S> {
    weight: DMatrix<S>,
    bias: Option<DVector<S>>,
    activation: Function,
    upper: bool,
}

impl<S: Field> VolumePreservingLayer<S> {
    /// GML's `VolumePreservingLowerLayer(dim, activation; use_bias = bias.is_some())` from the
    /// packed `weight` (GML's `LowerTriangular` vector `S`) and the bias.
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `weight` does not have `dim(dim−1)/2` entries,
    /// [`Error::WeightLength`] if `bias` does not have `dim`.
    pub fn lower(
        dim: usize,
        weight: &[S],
        bias: Option<&[S]>,
        activation: Function,
    ) -> Result<Self, Error> {
        Self::new::<Lower>(dim, weight, bias, activation, false)
    }

    /// GML's `VolumePreservingUpperLayer(dim, activation; use_bias = bias.is_some())`, as
    /// [`lower`](Self::lower).
    ///
    /// # Errors
    /// As [`lower`](Self::lower).
    pub fn upper(
        dim: usize,
        weight: &[S],
        bias: Option<&[S]>,
        activation: Function,
    ) -> Result<Self, Error> {
        Self::new::<Upper>(dim, weight, bias, activation, true)
    }

    fn new<Layout: PackedLayout>(
        dim: usize,
        weight: &[S],
        bias: Option<&[S]>,
        activation: Function,
        upper: bool,
    ) -> Result<Self, Error> {
        let weight = dense_from_packed::<S, Layout>(dim, weight)?;
        let bias = bias.map(|b| vector("bias", dim, b)).transpose()?;
        Ok(Self {
            weight,
            bias,
            activation,
            upper,
        })
    }

    /// The activation.
    pub fn activation(&self) -> Function {
        self.activation
    }
}

impl<S: Element> Forward<S> for VolumePreservingLayer<S> {
    fn name(&self) -> &'static str {
        if self.upper {
            "VolumePreservingUpperLayer"
        } else {
            "VolumePreservingLowerLayer"
        }
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

impl<S: Element> VolumePreservingLayer<S> {
    /// The weight, bias and activation.
    fn parts(&self) -> Affine<'_, S> {
        (&self.weight, self.bias.as_ref(), self.activation)
    }

    /// The positions of `W`'s packed entries.
    fn positions(&self) -> impl Iterator<Item = (usize, usize)> {
        let dim = self.weight.nrows();
        let (lower, upper) = if self.upper {
            (None, Some(Upper::positions(dim)))
        } else {
            (Some(Lower::positions(dim)), None)
        };
        lower
            .into_iter()
            .flatten()
            .chain(upper.into_iter().flatten())
    }
}

/// `x̄ = ȳ + Wᵀ δ`, `δ = ȳ ⊙ σ'(W x + b)`; `∂L/∂W = δ xᵀ` at the packed positions, then `∂L/∂b`.
/// Keeps its input and `σ(W x + b)` from the forward pass.
impl<S: Element> Backward<S> for VolumePreservingLayer<S> {
    fn parameter_count(&self) -> usize {
        let dim = self.weight.nrows();
        Lower::packed_len(dim) + self.bias.as_ref().map_or(0, DVector::len)
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let (w, b, activation) = self.parts();
        let y = activated(w, z, b, activation, scratch);
        residual_backward(
            self.parts(),
            self.positions(),
            (z, y),
            bar,
            gradient,
            scratch,
        );
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
        residual_backward_kept(self.parts(), self.positions(), kept, bar, gradient, scratch);
    }
}

impl<S: Element> StackLayer<S> for VolumePreservingLayer<S> {
    const STACK: &'static str = "VolumePreservingFeedForward";

    fn residual_parts(&self) -> Option<Affine<'_, S>> {
        Some(self.parts())
    }
}

impl<S: Field> MapScalar for VolumePreservingLayer<S> {
    type Scalar = S;
    type Over<X: Field> = VolumePreservingLayer<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> VolumePreservingLayer<X> {
        VolumePreservingLayer {
            weight: self.weight.map(&mut f),
            bias: self.bias.as_ref().map(|b| b.map(&mut f)),
            activation: self.activation,
            upper: self.upper,
        }
    }
}
