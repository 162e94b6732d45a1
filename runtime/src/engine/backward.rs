//! Vector-Jacobian products at run-time sizes: the backward passes of training a network read
//! from a file (`geomattn train`), and a chain of layers that runs them.
//!
//! A layer's gradient is a flat slice of scalars, its parameters one after the other in GML's
//! order and packing (as the layer's constructor takes them: a skew-symmetric or triangular
//! weight as its packed entries, a dense one column-major), so that a network's gradient is its
//! layers' side by side and an optimiser steps them as GML's optimisers step its arrays. Like the
//! forward passes, the backward passes are written once over [`Element`], so they run over lanes
//! of windows too, and take their intermediate matrices from a [`Scratch`].
//!
//! ```
//! use geomattn::activation::Function;
//! use geomattn::engine::{Backward, Chain, Forward, ResNetLayer, Scratch};
//! use geomattn::nalgebra::DMatrix;
//! // y = x + tanh(W x + b) on R², one time step; L = y₀.
//! let layer = ResNetLayer::new(2, &[0.5, 0.0, 0.0, 0.5], Some(&[0.0, 0.0]), Function::Tanh)?;
//! let chain = Chain::new(vec![layer]);
//! let x = DMatrix::from_column_slice(2, 1, &[1.0, 2.0]);
//! let mut gradient = vec![0.0; chain.parameter_count()];
//! let mut scratch = Scratch::new();
//! let mut bar = DMatrix::from_column_slice(2, 1, &[1.0, 0.0]);
//! chain.backward_in_place(&x, &mut bar, &mut gradient, &mut scratch);
//! // ∂y₀/∂x₀ = 1 + tanh'(0.5)·0.5, and ∂y₀/∂W₀₀ = tanh'(0.5)·x₀ (W column-major, then b).
//! let d = 1.0 - 0.5_f64.tanh().powi(2);
//! assert!((bar[0] - (1.0 + 0.5 * d)).abs() < 1e-15);
//! assert!((gradient[0] - d).abs() < 1e-15 && (gradient[4] - d).abs() < 1e-15);
//! # Ok::<(), geomattn::Error>(())
//! ```

use std::vec::Vec;

use nalgebra::{DMatrix, DMatrixView, DVector};

use super::{Element, Forward, Scratch};
use crate::activation::Function;
use crate::feedforward::activated_after_product;
use crate::scalar::MapScalar;

/// A layer of run-time size with its exact vector-Jacobian product: its gradient a flat slice,
/// its parameters one after the other in GML's order and packing; a network's, its layers' side
/// by side ([`Chain`]).
pub trait Backward<S: Element>: Forward<S> {
    /// The scalars of the layer's parameters: the length of its gradient.
    fn parameter_count(&self) -> usize;

    /// Given the layer's input `z` and `bar = ∂L/∂out` for a scalar `L`, writes `∂L/∂z` over
    /// `bar` (which takes `z`'s shape) and adds `∂L/∂θ` to `gradient`
    /// ([`parameter_count`](Self::parameter_count) scalars, in GML's order and packing). The
    /// forward quantities it needs are recomputed from `z`.
    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    );

    /// The forward pass, pushing onto `kept` what [`backward_kept`](Self::backward_kept) needs:
    /// by default a copy of the input; a layer may keep more (an intermediate result) so that
    /// its backward pass does not compute it again.
    fn forward_keeping(
        &self,
        z: &mut DMatrix<S>,
        kept: &mut Vec<DMatrix<S>>,
        scratch: &mut Scratch<S>,
    ) {
        kept.push(scratch.copy(z));
        self.forward_in_place(z, scratch);
    }

    /// [`backward_in_place`](Self::backward_in_place) from what
    /// [`forward_keeping`](Self::forward_keeping) pushed, popping it (its buffers recycled).
    fn backward_kept(
        &self,
        kept: &mut Vec<DMatrix<S>>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let z = kept.pop().expect("forward_keeping kept the input");
        self.backward_in_place(&z, bar, gradient, scratch);
        scratch.recycle(z);
    }
}

/// Layers applied one after the other: a network as GML's `Chain` of its layers, with the
/// backward pass that keeps each layer's input from one forward pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain<L> {
    layers: Vec<L>,
}

impl<L> Chain<L> {
    /// The chain of `layers`, applied in order.
    pub fn new(layers: Vec<L>) -> Self {
        Self { layers }
    }

    /// The layers, in order.
    pub fn layers(&self) -> &[L] {
        &self.layers
    }
}

impl<L: MapScalar> MapScalar for Chain<L> {
    type Scalar = L::Scalar;
    type Over<X: crate::scalar::Field> = Chain<L::Over<X>>;

    fn map_scalar<X: crate::scalar::Field>(
        &self,
        mut f: impl FnMut(L::Scalar) -> X,
    ) -> Self::Over<X> {
        Chain::new(self.layers.iter().map(|l| l.map_scalar(&mut f)).collect())
    }
}

impl<S: Element, L: Forward<S>> Forward<S> for Chain<L> {
    fn name(&self) -> &'static str {
        self.layers.first().map_or("Chain", |l| l.name())
    }

    /// The first layer's (an empty chain takes anything of dimension 0).
    fn input_shape(&self) -> (usize, Option<usize>) {
        self.layers.first().map_or((0, None), |l| l.input_shape())
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        for layer in &self.layers {
            layer.forward_in_place(z, scratch);
        }
    }
}

impl<S: Element, L: Backward<S>> Backward<S> for Chain<L> {
    fn parameter_count(&self) -> usize {
        self.layers.iter().map(Backward::parameter_count).sum()
    }

    /// [`backward_from_output`](Chain::backward_from_output) with the cotangent `bar`.
    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let z_bar = self.backward_from_output(z, |out| out.copy_from(bar), gradient, scratch);
        scratch.replace(bar, z_bar);
    }
}

impl<L> Chain<L> {
    /// One forward pass from `z`, keeping what each layer's backward pass needs
    /// ([`Backward::forward_keeping`]); `cotangent` turns the output, in place, into `∂L/∂out`
    /// (a loss's residual, say); then the layers' backward passes in reverse
    /// ([`Backward::backward_kept`]), each adding to its own part of `gradient`. Returns
    /// `∂L/∂z`.
    pub fn backward_from_output<S: Element>(
        &self,
        z: &DMatrix<S>,
        cotangent: impl FnOnce(&mut DMatrix<S>),
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) -> DMatrix<S>
    where
        L: Backward<S>,
    {
        let mut kept: Vec<DMatrix<S>> = Vec::with_capacity(2 * self.layers.len());
        let mut bar = scratch.copy(z);
        for layer in &self.layers {
            layer.forward_keeping(&mut bar, &mut kept, scratch);
        }
        cotangent(&mut bar);
        let mut end = gradient.len();
        for layer in self.layers.iter().rev() {
            let start = end - layer.parameter_count();
            layer.backward_kept(&mut kept, &mut bar, &mut gradient[start..end], scratch);
            end = start;
        }
        bar
    }
}

/// `σ(W x + b)` for every column `x` of `z`, on a buffer of `scratch`: the activated part of
/// dense layers `σ(W x + b)` and residual ones `x + σ(W x + b)`, in the compile-time layers'
/// order of sums.
pub(crate) fn activated<S: Element>(
    w: &DMatrix<S>,
    z: &DMatrix<S>,
    b: Option<&DVector<S>>,
    activation: Function,
    scratch: &mut Scratch<S>,
) -> DMatrix<S> {
    let mut y = super::mul(w, z, scratch);
    activated_after_product(&mut y, b, super::feedforward::activate_all(activation));
    y
}

/// `δ = ȳ ⊙ σ'(W x + b)` for `ȳ = bar`, written over `activated = σ(W x + b)` ([`activated`]):
/// the shared step of the backward passes of dense and residual layers.
pub(crate) fn activation_cotangent<S: Element>(
    mut activated: DMatrix<S>,
    activation: Function,
    bar: &DMatrix<S>,
) -> DMatrix<S> {
    for (d, y_bar) in activated.iter_mut().zip(bar.iter()) {
        *d = d.derivative_from_value(activation) * *y_bar;
    }
    activated
}

/// Adds `∂L/∂W = δ zᵀ` at `positions` (in their order) and then, if there is a bias,
/// `∂L/∂b = Σ_t δ_t`, to `gradient`: the parameters' share of `σ(W x + b)`.
pub(crate) fn add_affine_gradient<S: Element>(
    delta: &DMatrix<S>,
    z: &DMatrix<S>,
    positions: impl Iterator<Item = (usize, usize)>,
    bias: bool,
    gradient: &mut [S],
) {
    let mut at = gradient.iter_mut();
    for ((i, j), g) in positions.zip(&mut at) {
        *g += dot_rows(delta, i, z, j);
    }
    if bias {
        for (i, g) in (0..delta.nrows()).zip(at) {
            *g += delta.row(i).iter().fold(S::zero(), |sum, d| sum + *d);
        }
    }
}

/// `Σ_t a[i, t] b[j, t]`: the entry `(i, j)` of `a bᵀ`.
pub(crate) fn dot_rows<'a, 'b, S: Element>(
    a: impl Into<DMatrixView<'a, S>>,
    i: usize,
    b: impl Into<DMatrixView<'b, S>>,
    j: usize,
) -> S {
    let (a, b) = (a.into(), b.into());
    (0..a.ncols()).fold(S::zero(), |sum, t| sum + a[(i, t)] * b[(j, t)])
}

/// Every position of a `rows×cols` matrix, column by column (Julia's order of a dense array).
pub(crate) fn column_major(rows: usize, cols: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..cols).flat_map(move |j| (0..rows).map(move |i| (i, j)))
}

/// `mᵀ`, on a buffer of `scratch`.
pub(crate) fn transpose<S: Element>(m: &DMatrix<S>, scratch: &mut Scratch<S>) -> DMatrix<S> {
    let mut out = scratch.unfilled(m.ncols(), m.nrows());
    m.transpose_to(&mut out);
    out
}
