//! Chains of layers on each time step at run-time sizes (GML's `VolumePreservingFeedForward`, a
//! standard transformer's ResNet layers), and the residual update `x + σ(W x + b)` they share.

use std::vec::Vec;

use nalgebra::{DMatrix, DVector};

use super::backward::add_affine_gradient;
use super::{Element, Forward, Scratch, mul, tr_mul};
use crate::activation::Function;
use crate::error::Error;
use crate::feedforward::resnet::engine::ResNetLayer;
use crate::feedforward::volume_preserving::engine::VolumePreservingLayer;
use crate::feedforward::{residual_after_product, residual_pullback_in_place};
use crate::scalar::{Field, MapScalar};

/// A chain of layers of one kind on states of one dimension, applied to every time step: GML's
/// `VolumePreservingFeedForward` ([`VolumePreservingFeedForward`], the compile-time
/// [`crate::VolumePreservingFeedForward`]) and the ResNet layers of a standard transformer's
/// block ([`ResNetStack`], the compile-time [`crate::ResNetStack`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FeedForward<L> {
    dim: usize,
    layers: Vec<L>,
}

/// GML's `VolumePreservingFeedForward`.
pub type VolumePreservingFeedForward<S> = FeedForward<VolumePreservingLayer<S>>;

/// A standard transformer's ResNet layers.
pub type ResNetStack<S> = FeedForward<ResNetLayer<S>>;

/// A layer of a [`FeedForward`] chain, and GML's name of the chain (in errors).
pub trait StackLayer<S: Element>: Forward<S> {
    /// GML's name of a chain of such layers.
    const STACK: &'static str;

    /// The layer's `W`, `b` and `σ` if it is the residual update `x ↦ x + σ(W x + b)`, for
    /// running a chain of them in one pass ([`Element::residual_chain_in_place`]).
    fn residual_parts(&self) -> Option<Affine<'_, S>> {
        None
    }
}

impl<L> FeedForward<L> {
    /// The chain `layers` on states of dimension `dim`.
    ///
    /// # Errors
    /// [`Error::WeightShape`] if a layer is of another dimension.
    pub fn new<S: Element>(dim: usize, layers: Vec<L>) -> Result<Self, Error>
    where
        L: StackLayer<S>,
    {
        if let Some(layer) = layers.iter().find(|l| l.input_shape().0 != dim) {
            let n = layer.input_shape().0;
            return Err(Error::WeightShape {
                name: "weight",
                expected_rows: dim,
                expected_cols: dim,
                found_rows: n,
                found_cols: n,
            });
        }
        Ok(Self { dim, layers })
    }

    /// The layers, in order.
    pub fn layers(&self) -> &[L] {
        &self.layers
    }
}

impl<S: Element, L: StackLayer<S>> Forward<S> for FeedForward<L> {
    fn name(&self) -> &'static str {
        L::STACK
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, None)
    }

    /// In one pass if every layer is a residual update with a kernel for the scalar
    /// ([`Element::residual_chain_in_place`]), else layer by layer.
    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let parts = self.layers.iter().map(StackLayer::residual_parts);
        if parts.clone().all(|parts| parts.is_some())
            && S::residual_chain_in_place(parts.flatten(), z)
        {
            return;
        }
        for layer in &self.layers {
            layer.forward_in_place(z, scratch);
        }
    }
}

/// `x + σ(W x + b)` for every column of `x`, written over `x`: the residual update of the
/// volume-preserving and ResNet layers, through the compile-time layers' kernel
/// ([`residual_after_product`]) with the scalar's product and `σ` on the whole of `W x + b` at
/// once ([`Element::activate_all`]), unless the scalar has a fused kernel
/// ([`Element::residual_in_place`], the same values).
pub(crate) fn residual<S: Element>(
    w: &DMatrix<S>,
    x: &mut DMatrix<S>,
    b: Option<&DVector<S>>,
    activation: Function,
    scratch: &mut Scratch<S>,
) {
    if S::residual_in_place(w, b, activation, x) {
        return;
    }
    let mut update = mul(w, &*x, scratch);
    residual_after_product(&mut update, b, activate_all(activation), x);
    scratch.recycle(update);
}

/// `σ` on the whole of a matrix ([`Element::activate_all`]): the engine's `σ` for the shared
/// kernels (`crate::feedforward`'s).
pub(crate) fn activate_all<S: Element>(activation: Function) -> impl FnOnce(&mut DMatrix<S>) {
    move |u| S::activate_all(u.as_mut_slice(), activation)
}

/// A layer's `W`, `b` and `σ` in `σ(W x + b)`.
pub type Affine<'a, S> = (&'a DMatrix<S>, Option<&'a DVector<S>>, Function);

/// [`residual`], keeping its input and `σ(W x + b)` on `kept` (in that order) for
/// [`residual_backward`]: the input's buffer itself, and no product or activation twice.
pub(crate) fn residual_keeping<S: Element>(
    (w, b, activation): Affine<'_, S>,
    x: &mut DMatrix<S>,
    kept: &mut Vec<DMatrix<S>>,
    scratch: &mut Scratch<S>,
) {
    let mut update = mul(w, &*x, scratch);
    let mut out = scratch.copy(x);
    residual_after_product(&mut update, b, activate_all(activation), &mut out);
    core::mem::swap(x, &mut out);
    kept.push(out);
    kept.push(update);
}

/// The backward pass of `x + σ(W x + b)` ([`residual`]) from the input `z` and its
/// `activated = σ(W x + b)`: `x̄ = ȳ + Wᵀ δ` written over `bar`, `δ = ȳ ⊙ σ'(W x + b)`;
/// `∂L/∂W = δ xᵀ` at `positions` (the entries `W` holds as parameters), then `∂L/∂b`, added to
/// `gradient`: in one pass where the scalar has a kernel ([`Element::residual_backward_in_place`],
/// the same values), else step by step.
pub(crate) fn residual_backward<S: Element>(
    (w, b, activation): Affine<'_, S>,
    mut positions: impl Iterator<Item = (usize, usize)>,
    (z, activated): (&DMatrix<S>, DMatrix<S>),
    bar: &mut DMatrix<S>,
    gradient: &mut [S],
    scratch: &mut Scratch<S>,
) {
    // The positions, one past the kernels' most (to tell whether there are more).
    let mut at = [(0, 0); MAX_FUSED_POSITIONS + 1];
    let mut count = 0;
    for (slot, position) in at.iter_mut().zip(positions.by_ref()) {
        *slot = position;
        count += 1;
    }
    let fused = count <= MAX_FUSED_POSITIONS
        && S::residual_backward_in_place(
            (w, b.is_some(), activation),
            &at[..count],
            (z, &activated),
            bar,
            gradient,
        );
    if fused {
        scratch.recycle(activated);
        return;
    }
    let positions = at[..count].iter().copied().chain(positions);
    let mut delta = activated;
    let back = residual_pullback_in_place(
        &mut delta,
        |value| value.derivative_from_value(activation),
        bar,
        |delta| tr_mul(w, delta, scratch),
    );
    scratch.recycle(back);
    add_affine_gradient(&delta, z, positions, b.is_some(), gradient);
    scratch.recycle(delta);
}

/// The most positions of `W` a fused backward pass takes ([`Element::residual_backward_in_place`]:
/// a dense `W` of dimension 8); a layer with more takes the steps.
const MAX_FUSED_POSITIONS: usize = 64;

/// [`residual_backward`] from what [`residual_keeping`] kept, popping it.
pub(crate) fn residual_backward_kept<S: Element>(
    affine: Affine<'_, S>,
    positions: impl Iterator<Item = (usize, usize)>,
    kept: &mut Vec<DMatrix<S>>,
    bar: &mut DMatrix<S>,
    gradient: &mut [S],
    scratch: &mut Scratch<S>,
) {
    let activated = kept.pop().expect("residual_keeping kept σ(W x + b)");
    let z = kept.pop().expect("residual_keeping kept the input");
    residual_backward(affine, positions, (&z, activated), bar, gradient, scratch);
    scratch.recycle(z);
}

impl<L: MapScalar> MapScalar for FeedForward<L> {
    type Scalar = L::Scalar;
    type Over<X: Field> = FeedForward<L::Over<X>>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(L::Scalar) -> X) -> Self::Over<X> {
        FeedForward {
            dim: self.dim,
            layers: self.layers.iter().map(|l| l.map_scalar(&mut f)).collect(),
        }
    }
}
