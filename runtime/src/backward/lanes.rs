//! The backward passes over lane vectors: [`LaneBackward`], what
//! [`Lanewise::backward_flat`](crate::Lanewise::backward_flat) runs a batch's backward passes with.

use super::{Backward, SoftmaxBackward};
use crate::activation::{Identity, Tanh};
use crate::architectures::{ResNetStack, SympNetStack, Transformer, VolumePreservingFeedForward};
use crate::cayley::{Elimination, Generated, GramSchmidt};
use crate::feedforward::{ResNetLayer, VolumePreservingLayer};
use crate::mha::MultiHeadAttention;
use crate::mha::{Connection, Euclidean};
use crate::packed::{Lower, Upper};
use crate::scalar::{Field, MapScalar, Real};
use crate::symplectic::PhaseSide;
use crate::symplectic::attention::{DenseA, SymmetricA, SymmetricMode, SymplecticAttention};
use crate::symplectic::linear::LinearSymplecticAttention;
use crate::vpa::{ArbitraryVpa, SkewVpa};

/// A layer with a [`Backward`] pass that can be rebuilt over any [`Real`] scalar with its backward
/// pass there too (its *backward twin*, over lane vectors for the lane path), and whose gradient
/// moves between the two scalars weight by weight.
///
/// ```
/// use geomattn::{Backward, LaneBackward, Lanes, SkewSymmetric, SkewVpa};
/// let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
/// let twin = LaneBackward::<f64, 2, 3>::backward_twin(&layer, Lanes::<f64, 2>::splat);
/// let z = nalgebra::SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + 2 * j) as f64);
/// let out_bar = z.map(|x| 0.5 - x);
/// let mut lane_gradient = Backward::<_, 2, 3>::zero_gradient(&twin);
/// let lanes = twin.backward(&z.map(Lanes::splat), &out_bar.map(Lanes::splat), &mut lane_gradient);
/// let mut gradient = Backward::<_, 2, 3>::zero_gradient(&layer);
/// assert_eq!(lanes.map(|x| x.lane(1)), layer.backward(&z, &out_bar, &mut gradient));
/// let lane_one = <SkewVpa<f64, 2, 3> as LaneBackward<f64, 2, 3>>::lower_gradient(&lane_gradient, |x| x.lane(1));
/// // The gradient of lane 1 is the scalar pass's, weight by weight.
/// assert_eq!(lane_one.weight().a().matrix(), gradient.weight().a().matrix());
/// # Ok::<(), geomattn::Error>(())
/// ```
pub trait LaneBackward<S: Field, const D: usize, const T: usize>: Backward<S, D, T> {
    /// The same layer over the scalar `X`, with its backward pass.
    type BackwardTwin<X: Real>: Backward<X, D, T>;

    /// The same layer with every weight `w` replaced by `f(w)`.
    fn backward_twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::BackwardTwin<X>;

    /// A gradient of the twin: every entry `g` of `gradient` replaced by `f(g)`.
    fn lift_gradient<X: Real>(
        gradient: &Self::Gradient,
        f: impl FnMut(S) -> X,
    ) -> <Self::BackwardTwin<X> as Backward<X, D, T>>::Gradient;

    /// A gradient of the layer: every entry `g` of the twin's `gradient` replaced by `f(g)`.
    fn lower_gradient<X: Real>(
        gradient: &<Self::BackwardTwin<X> as Backward<X, D, T>>::Gradient,
        f: impl FnMut(X) -> S,
    ) -> Self::Gradient;
}

/// [`LaneBackward`] for layers whose gradient is a value of their own type: every conversion is
/// [`MapScalar::map_scalar`].
macro_rules! self_gradient_lane_backward {
    ($([$($generics:tt)*] $layer:ty => $twin:ty;)*) => {$(
        impl<S: Real, const D: usize, const T: usize, $($generics)*> LaneBackward<S, D, T> for $layer {
            type BackwardTwin<X: Real> = $twin;

            fn backward_twin<X: Real>(&self, f: impl FnMut(S) -> X) -> $twin {
                self.map_scalar(f)
            }

            fn lift_gradient<X: Real>(gradient: &Self, f: impl FnMut(S) -> X) -> $twin {
                gradient.map_scalar(f)
            }

            fn lower_gradient<X: Real>(gradient: &$twin, f: impl FnMut(X) -> S) -> Self {
                gradient.map_scalar(f)
            }
        }
    )*};
}

self_gradient_lane_backward! {
    [] SkewVpa<S, D, T, Generated> => SkewVpa<X, D, T, Generated>;
    [] SkewVpa<S, D, T, GramSchmidt> => SkewVpa<X, D, T, GramSchmidt>;
    [] SkewVpa<S, D, T, Elimination> => SkewVpa<X, D, T, Elimination>;
    [] ArbitraryVpa<S, D, T, Generated> => ArbitraryVpa<X, D, T, Generated>;
    [] ArbitraryVpa<S, D, T, GramSchmidt> => ArbitraryVpa<X, D, T, GramSchmidt>;
    [] ArbitraryVpa<S, D, T, Elimination> => ArbitraryVpa<X, D, T, Elimination>;
    [] VolumePreservingLayer<S, D, Lower, Tanh> => VolumePreservingLayer<X, D, Lower, Tanh>;
    [] VolumePreservingLayer<S, D, Upper, Tanh> => VolumePreservingLayer<X, D, Upper, Tanh>;
    [] VolumePreservingLayer<S, D, Lower, Identity> => VolumePreservingLayer<X, D, Lower, Identity>;
    [] VolumePreservingLayer<S, D, Upper, Identity> => VolumePreservingLayer<X, D, Upper, Identity>;
    [const NB: usize, const NL: usize] VolumePreservingFeedForward<S, D, NB, NL, Tanh>
        => VolumePreservingFeedForward<X, D, NB, NL, Tanh>;
    [const NB: usize, const NL: usize] VolumePreservingFeedForward<S, D, NB, NL, Identity>
        => VolumePreservingFeedForward<X, D, NB, NL, Identity>;
    [] ResNetLayer<S, D, Tanh> => ResNetLayer<X, D, Tanh>;
    [] ResNetLayer<S, D, Identity> => ResNetLayer<X, D, Identity>;
    [const NB: usize] ResNetStack<S, D, NB, Tanh> => ResNetStack<X, D, NB, Tanh>;
    [const NB: usize] ResNetStack<S, D, NB, Identity> => ResNetStack<X, D, NB, Identity>;
    [const H: usize, const DH: usize, Conn: Connection, Sm: SoftmaxBackward]
        MultiHeadAttention<S, D, H, DH, Conn, Euclidean, Sm>
        => MultiHeadAttention<X, D, H, DH, Conn, Euclidean, Sm>;
    [const N: usize, Side: PhaseSide]
        LinearSymplecticAttention<S, N, T, Side> => LinearSymplecticAttention<X, N, T, Side>;
    [const N: usize, Side: PhaseSide, Sm: SoftmaxBackward]
        SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
        => SymplecticAttention<X, N, Side, Sm, DenseA<X, N>>;
    [const N: usize, Side: PhaseSide, Sm: SoftmaxBackward, Mode: SymmetricMode]
        SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
        => SymplecticAttention<X, N, Side, Sm, SymmetricA<X, N, Mode>>;
    [const N: usize, const H: usize, const NS: usize, First: PhaseSide]
        SympNetStack<S, N, H, NS, Tanh, First> => SympNetStack<X, N, H, NS, Tanh, First>;
    [const N: usize, const H: usize, const NS: usize, First: PhaseSide]
        SympNetStack<S, N, H, NS, Identity, First> => SympNetStack<X, N, H, NS, Identity, First>;
}

/// Block by block: the attention's and the feed-forward part's conversions.
impl<S, Att, Ff, const D: usize, const T: usize, const L: usize> LaneBackward<S, D, T>
    for Transformer<Att, Ff, L>
where
    S: Field,
    Att: LaneBackward<S, D, T>,
    Ff: LaneBackward<S, D, T>,
{
    type BackwardTwin<X: Real> = Transformer<Att::BackwardTwin<X>, Ff::BackwardTwin<X>, L>;

    fn backward_twin<X: Real>(&self, mut f: impl FnMut(S) -> X) -> Self::BackwardTwin<X> {
        Transformer::new(self.blocks.each_ref().map(|(attention, feedforward)| {
            (
                attention.backward_twin(&mut f),
                feedforward.backward_twin(&mut f),
            )
        }))
    }

    fn lift_gradient<X: Real>(
        gradient: &Self::Gradient,
        mut f: impl FnMut(S) -> X,
    ) -> <Self::BackwardTwin<X> as Backward<X, D, T>>::Gradient {
        Transformer::new(gradient.blocks.each_ref().map(|(attention, feedforward)| {
            (
                Att::lift_gradient(attention, &mut f),
                Ff::lift_gradient(feedforward, &mut f),
            )
        }))
    }

    fn lower_gradient<X: Real>(
        gradient: &<Self::BackwardTwin<X> as Backward<X, D, T>>::Gradient,
        mut f: impl FnMut(X) -> S,
    ) -> Self::Gradient {
        Transformer::new(gradient.blocks.each_ref().map(|(attention, feedforward)| {
            (
                Att::lower_gradient(attention, &mut f),
                Ff::lower_gradient(feedforward, &mut f),
            )
        }))
    }
}
