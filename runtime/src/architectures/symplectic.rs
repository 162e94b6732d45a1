//! GML's symplectic transformers: `SymplecticTransformer` and `LinearSymplecticTransformer`,
//! each `L` units of `[attention Q, n_sympnet gradient layers, attention P, n_sympnet gradient
//! layers]`, every layer a symplectic shear of each time step's phase space (except GML's own
//! `symmetric = true` kick with [`VectorSoftmax`](crate::VectorSoftmax); see
//! [`symplectic::attention`](crate::symplectic::attention)).

use core::marker::PhantomData;

use nalgebra::SVector;

use crate::activation::{Activation, Identity, Tanh};
use crate::architectures::Transformer;
use crate::feedforward::{GradientLayer, GradientLayerQ};
use crate::lanewise::LaneTwin;
use crate::layer::ColumnLayer;
use crate::scalar::{Field, MapScalar, Real};
use crate::symplectic::attention::{DenseA, SymplecticAttentionP, SymplecticAttentionQ};
use crate::symplectic::linear::{LinearSymplecticAttentionP, LinearSymplecticAttentionQ};
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ};

/// GML's `n_sympnet` gradient layers of a symplectic transformer, alternating `Q`, `P`, `Q`, … when
/// `First` is [`UpdateQ`] (GML's `init_upper = true`), `P`, `Q`, … when it is [`UpdateP`]. Layer
/// `i` (from 0) updates `First`'s half if `i` is even, the other half if odd.
///
/// The layers are stored as `Q` layers (`weight`, `bias`, `scale` are the same for both sides);
/// [`layer_updates_q`](Self::layer_updates_q) says which half each one updates.
///
/// ```
/// use geomattn::{ColumnLayer, GradientLayerQ, Identity, SympNetStack, UpdateQ};
/// use geomattn::nalgebra::{Matrix1, Vector1, Vector2};
/// // n = 1, one hidden unit, K = 1, b = 0, a = 1, identity: q ← q + p, then p ← p + q.
/// let shear = GradientLayerQ::<f64, 1, 1, Identity>::new(Matrix1::new(1.0), Vector1::new(0.0),
///                                                       Vector1::new(1.0));
/// let stack = SympNetStack::<f64, 1, 1, 2, Identity, UpdateQ>::new([shear, shear]);
/// assert_eq!(stack.apply(&Vector2::new(1.0, 2.0)), Vector2::new(3.0, 5.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SympNetStack<S, const N: usize, const HIDDEN: usize, const NS: usize, Act, First> {
    pub(crate) layers: [GradientLayerQ<S, N, HIDDEN, Act>; NS],
    first: PhantomData<First>,
}

impl<S, const N: usize, const HIDDEN: usize, const NS: usize, Act, First: PhaseSide>
    SympNetStack<S, N, HIDDEN, NS, Act, First>
{
    /// The stack from its layers' weights, in order.
    pub const fn new(layers: [GradientLayerQ<S, N, HIDDEN, Act>; NS]) -> Self {
        Self {
            layers,
            first: PhantomData,
        }
    }

    /// The layers' weights, in order.
    pub const fn layers(&self) -> &[GradientLayerQ<S, N, HIDDEN, Act>; NS] {
        &self.layers
    }

    /// Whether layer `i` (from 0) updates `q` (GML's `GradientLayerQ`) rather than `p`.
    pub const fn layer_updates_q(i: usize) -> bool {
        i.is_multiple_of(2) == First::UPDATES_Q
    }
}

impl<S, const D: usize, const N: usize, const HIDDEN: usize, const NS: usize, Act, First>
    ColumnLayer<D> for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    S: Field,
    Act: Activation<S>,
    First: PhaseSide,
{
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        let mut x = *x;
        for i in 0..NS {
            x = self.apply_layer(i, &x);
        }
        x
    }
}

impl<S, const N: usize, const HIDDEN: usize, const NS: usize, Act, First>
    SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    S: Field,
    Act: Activation<S>,
    First: PhaseSide,
{
    /// Layer `i` (from 0) alone, on the side it updates.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn apply_layer<const D: usize>(&self, i: usize, x: &SVector<S, D>) -> SVector<S, D> {
        let layer = &self.layers[i];
        if Self::layer_updates_q(i) {
            layer.apply(x)
        } else {
            let p = GradientLayer::<S, N, HIDDEN, UpdateP, Act>::new(
                *layer.weight(),
                *layer.bias(),
                *layer.scale(),
            );
            p.apply(x)
        }
    }
}

/// The same stack over another scalar, weight by weight.
impl<S: Field, const N: usize, const HIDDEN: usize, const NS: usize, Act, First: PhaseSide>
    MapScalar for SympNetStack<S, N, HIDDEN, NS, Act, First>
{
    type Scalar = S;
    type Over<S2: Field> = SympNetStack<S2, N, HIDDEN, NS, Act, First>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        SympNetStack::new(self.layers.each_ref().map(|layer| layer.map_scalar(&mut f)))
    }
}

/// The lane twins of the stack with GML's activations.
macro_rules! sympnet_lane_twins {
    ($($act:ty),*) => {$(
        impl<S, const D: usize, const T: usize, const N: usize, const HIDDEN: usize, const NS: usize, First>
            LaneTwin<D, T> for SympNetStack<S, N, HIDDEN, NS, $act, First>
        where
            S: Field,
            First: PhaseSide,
        {
            type Twin<X: Real> = SympNetStack<X, N, HIDDEN, NS, $act, First>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

sympnet_lane_twins!(Tanh, Identity);

/// GML's `SymplecticTransformer(2N; n_sympnet = NS, upscaling_dimension = 2·HIDDEN, L,
/// sympnet_activation = Act, attention_activation = Sm, init_upper, symmetric)`:
/// `L × [SymplecticAttentionQ, NS gradient layers, SymplecticAttentionP, NS gradient layers]`,
/// as nested [`Transformer`]s (each half a one-block transformer of attention and
/// [`SympNetStack`]). `First` is [`UpdateQ`] for `init_upper = true`.
///
/// The weight says `symmetric`: [`DenseA`] for `false`; for GML's default `true`,
/// [`SymmetricA`](crate::SymmetricA)`<S, N, `[`GmlCompatible`](crate::GmlCompatible)`>` computes
/// GML's numbers and [`SymmetricA`](crate::SymmetricA)`<S, N, `[`GradientExact`](crate::GradientExact)`>`
/// the structure-preserving kick (they agree with [`MatrixSoftmax`](crate::MatrixSoftmax), GML's
/// default; with [`VectorSoftmax`](crate::VectorSoftmax) only the second is symplectic).
pub type SymplecticTransformer<
    S,
    const N: usize,
    const HIDDEN: usize,
    const NS: usize,
    const L: usize,
    Act,
    Sm,
    Weight = DenseA<S, N>,
    First = UpdateQ,
> = Transformer<
    Transformer<
        SymplecticAttentionQ<S, N, Sm, Weight>,
        SympNetStack<S, N, HIDDEN, NS, Act, First>,
        1,
    >,
    Transformer<
        SymplecticAttentionP<S, N, Sm, Weight>,
        SympNetStack<S, N, HIDDEN, NS, Act, First>,
        1,
    >,
    L,
>;

/// GML's `LinearSymplecticTransformer(2N, T; n_sympnet = NS, upscaling_dimension = 2·HIDDEN, L,
/// activation = Act, init_upper)`: `L × [LinearSymplecticAttentionQ, NS gradient layers,
/// LinearSymplecticAttentionP, NS gradient layers]`, nested as [`SymplecticTransformer`].
pub type LinearSymplecticTransformer<
    S,
    const N: usize,
    const T: usize,
    const HIDDEN: usize,
    const NS: usize,
    const L: usize,
    Act,
    First = UpdateQ,
> = Transformer<
    Transformer<LinearSymplecticAttentionQ<S, N, T>, SympNetStack<S, N, HIDDEN, NS, Act, First>, 1>,
    Transformer<LinearSymplecticAttentionP<S, N, T>, SympNetStack<S, N, HIDDEN, NS, Act, First>, 1>,
    L,
>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_upper_picks_the_first_side() {
        type Upper = SympNetStack<f64, 1, 1, 3, crate::activation::Tanh, UpdateQ>;
        type Lower = SympNetStack<f64, 1, 1, 3, crate::activation::Tanh, UpdateP>;
        assert_eq!([0, 1, 2].map(Upper::layer_updates_q), [true, false, true]);
        assert_eq!([0, 1, 2].map(Lower::layer_updates_q), [false, true, false]);
    }
}
