//! The per-time-step parts of GML's architectures: the volume-preserving feed-forward network and
//! the ResNet stack of the standard transformer.

use nalgebra::SVector;

use crate::activation::{Activation, Identity, Tanh};
use crate::feedforward::{ResNetLayer, VolumePreservingLowerLayer, VolumePreservingUpperLayer};
use crate::lanewise::LaneTwin;
use crate::layer::ColumnLayer;
#[cfg(doc)]
use crate::layer::SequenceLayer;
use crate::scalar::{Field, MapScalar, Real};

/// A linear lower layer followed by a linear upper layer (both with the identity activation).
pub type LinearPair<S, const D: usize> = (
    VolumePreservingLowerLayer<S, D, Identity>,
    VolumePreservingUpperLayer<S, D, Identity>,
);

/// One block of [`VolumePreservingFeedForward`]: `NL` linear pairs (only the last upper layer has
/// a bias, as in GML), then a lower and an upper layer with activation `Act` and biases.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VpffBlock<S, const D: usize, const NL: usize, Act> {
    /// The linear pairs, in order.
    pub linear: [LinearPair<S, D>; NL],
    /// The nonlinear lower layer.
    pub lower: VolumePreservingLowerLayer<S, D, Act>,
    /// The nonlinear upper layer.
    pub upper: VolumePreservingUpperLayer<S, D, Act>,
}

/// GML's `VolumePreservingFeedForward(D, NB, NL, Act)`: `NB` blocks ([`VpffBlock`]), then one more
/// linear pair (its upper layer with a bias). Each layer is triangular-residual, so the map has
/// Jacobian determinant exactly 1.
///
/// It acts on one state at a time ([`ColumnLayer`]), and on a sequence column by column
/// ([`SequenceLayer`]).
///
/// ```
/// use geomattn::{ColumnLayer, Packed, StrictlyTriangular, Tanh, VolumePreservingFeedForward};
/// use geomattn::{VolumePreservingLayer, VpffBlock, nalgebra::Vector2};
/// // A 2×2 layer with packed weight `[x]` and no bias.
/// fn layer<L: StrictlyTriangular, A>(x: f64) -> VolumePreservingLayer<f64, 2, L, A> {
///     VolumePreservingLayer::new(Packed::from_packed(&[x]).unwrap(), None)
/// }
/// let block = VpffBlock::<f64, 2, 1, Tanh> {
///     linear: [(layer(1.0), layer(0.0))],
///     lower: layer(0.0),
///     upper: layer(0.0),
/// };
/// let net = VolumePreservingFeedForward::new([block], (layer(0.0), layer(1.0)));
/// // (1, 1) → lower (1, 2) → upper (1 + 2, 2).
/// assert_eq!(net.apply(&Vector2::new(1.0, 1.0)), Vector2::new(3.0, 2.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumePreservingFeedForward<S, const D: usize, const NB: usize, const NL: usize, Act> {
    pub(crate) blocks: [VpffBlock<S, D, NL, Act>; NB],
    pub(crate) last: LinearPair<S, D>,
}

impl<S, const D: usize, const NB: usize, const NL: usize, Act>
    VolumePreservingFeedForward<S, D, NB, NL, Act>
{
    /// Number of layers of GML's flattened chain.
    pub const LAYERS: usize = NB * (2 * NL + 2) + 2;

    /// The network from its blocks and the final linear pair.
    pub const fn new(blocks: [VpffBlock<S, D, NL, Act>; NB], last: LinearPair<S, D>) -> Self {
        Self { blocks, last }
    }

    /// The blocks.
    pub const fn blocks(&self) -> &[VpffBlock<S, D, NL, Act>; NB] {
        &self.blocks
    }

    /// The final linear pair.
    pub const fn last(&self) -> &LinearPair<S, D> {
        &self.last
    }
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn pair<S: Field, const D: usize>(pair: &LinearPair<S, D>, x: &SVector<S, D>) -> SVector<S, D> {
    pair.1.apply(&pair.0.apply(x))
}

impl<S: Field, const D: usize, const NB: usize, const NL: usize, Act: Activation<S>> ColumnLayer<D>
    for VolumePreservingFeedForward<S, D, NB, NL, Act>
{
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        let mut x = *x;
        for block in &self.blocks {
            x = block.apply(&x);
        }
        pair(&self.last, &x)
    }
}

impl<S: Field, const D: usize, const NL: usize, Act: Activation<S>> VpffBlock<S, D, NL, Act> {
    /// The block on one state: its linear pairs, then its nonlinear lower and upper layers.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        let mut x = *x;
        for linear in &self.linear {
            x = pair(linear, &x);
        }
        self.upper.apply(&self.lower.apply(&x))
    }
}

fn map_pair<S: Field, S2: Field, const D: usize>(
    pair: &LinearPair<S, D>,
    f: &mut impl FnMut(S) -> S2,
) -> LinearPair<S2, D> {
    (pair.0.map_scalar(&mut *f), pair.1.map_scalar(f))
}

/// The same network over another scalar, weight by weight.
impl<S: Field, const D: usize, const NB: usize, const NL: usize, Act> MapScalar
    for VolumePreservingFeedForward<S, D, NB, NL, Act>
{
    type Scalar = S;
    type Over<S2: Field> = VolumePreservingFeedForward<S2, D, NB, NL, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        let blocks = self.blocks.each_ref().map(|block| VpffBlock {
            linear: block
                .linear
                .each_ref()
                .map(|linear| map_pair(linear, &mut f)),
            lower: block.lower.map_scalar(&mut f),
            upper: block.upper.map_scalar(&mut f),
        });
        VolumePreservingFeedForward::new(blocks, map_pair(&self.last, &mut f))
    }
}

/// The lane twins of the network with GML's activations.
macro_rules! vpff_lane_twins {
    ($($act:ty),*) => {$(
        impl<S: Field, const D: usize, const NB: usize, const NL: usize, const T: usize>
            LaneTwin<D, T> for VolumePreservingFeedForward<S, D, NB, NL, $act>
        {
            type Twin<X: Real> = VolumePreservingFeedForward<X, D, NB, NL, $act>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

vpff_lane_twins!(Tanh, Identity);

/// The feed-forward part of a standard transformer block: `NB` [`ResNetLayer`]s with activation
/// `Act`, then one with the identity.
///
/// ```
/// use geomattn::{ColumnLayer, Identity, ResNetLayer, ResNetStack, Tanh};
/// use geomattn::nalgebra::{Matrix2, Vector2};
/// let zero = ResNetLayer::<f64, 2, Tanh>::new(Matrix2::zeros(), None);
/// let shift = ResNetLayer::<f64, 2, Identity>::new(Matrix2::zeros(), Some(Vector2::new(1.0, 0.0)));
/// let stack = ResNetStack::new([zero, zero], shift);
/// assert_eq!(stack.apply(&Vector2::new(1.0, 1.0)), Vector2::new(2.0, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResNetStack<S, const D: usize, const NB: usize, Act> {
    pub(crate) nonlinear: [ResNetLayer<S, D, Act>; NB],
    pub(crate) linear: ResNetLayer<S, D, Identity>,
}

impl<S, const D: usize, const NB: usize, Act> ResNetStack<S, D, NB, Act> {
    /// Number of layers of GML's flattened chain.
    pub const LAYERS: usize = NB + 1;

    /// The stack from its nonlinear layers and the final linear one.
    pub const fn new(
        nonlinear: [ResNetLayer<S, D, Act>; NB],
        linear: ResNetLayer<S, D, Identity>,
    ) -> Self {
        Self { nonlinear, linear }
    }
}

impl<S: Field, const D: usize, const NB: usize, Act: Activation<S>> ColumnLayer<D>
    for ResNetStack<S, D, NB, Act>
{
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        let mut x = *x;
        for layer in &self.nonlinear {
            x = layer.apply(&x);
        }
        self.linear.apply(&x)
    }
}

/// The same stack over another scalar, weight by weight.
impl<S: Field, const D: usize, const NB: usize, Act> MapScalar for ResNetStack<S, D, NB, Act> {
    type Scalar = S;
    type Over<S2: Field> = ResNetStack<S2, D, NB, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        let nonlinear = self
            .nonlinear
            .each_ref()
            .map(|layer| layer.map_scalar(&mut f));
        ResNetStack::new(nonlinear, self.linear.map_scalar(f))
    }
}

/// The lane twins of the stack with GML's activations.
macro_rules! resnet_stack_lane_twins {
    ($($act:ty),*) => {$(
        impl<S: Field, const D: usize, const NB: usize, const T: usize> LaneTwin<D, T>
            for ResNetStack<S, D, NB, $act>
        {
            type Twin<X: Real> = ResNetStack<X, D, NB, $act>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

resnet_stack_lane_twins!(Tanh, Identity);
