//! The backward pass of the volume-preserving layers: the residual update's pullback, its
//! weight's gradient folded onto the strictly triangular entries.

use nalgebra::SVector;

use super::{StrictlyTriangular, VolumePreservingLayer};
use crate::backward::{ActivationDerivative, ColumnBackward};
use crate::feedforward::{residual_keeping, residual_pullback};
#[cfg(doc)]
use crate::layer::ColumnLayer;
use crate::packed::Packed;
use crate::scalar::Field;

impl<S, const D: usize, Layout, Act> VolumePreservingLayer<S, D, Layout, Act>
where
    S: Field,
    Layout: StrictlyTriangular,
    Act: ActivationDerivative<S>,
{
    /// The forward pass on one column, bit for bit [`ColumnLayer::apply`], with what
    /// [`Self::backward_kept`] needs of it: `(x + σ(W x + b), σ(W x + b))`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn apply_keeping(&self, x: &SVector<S, D>) -> (SVector<S, D>, SVector<S, D>) {
        residual_keeping::<S, Act, D>(self.weight().matrix(), x, self.bias())
    }

    /// [`ColumnBackward::column_backward`] given the forward pass's `activated = σ(W x + b)`
    /// from [`Self::apply_keeping`], without evaluating `σ` again.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn backward_kept(
        &self,
        x: &SVector<S, D>,
        activated: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (x_bar, w_bar, s) =
            residual_pullback::<S, Act, D>(self.weight().matrix(), x, activated, y_bar);
        gradient.accumulate(&w_bar, &s);
        x_bar
    }
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

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let (_, activated) = self.apply_keeping(x);
        self.backward_kept(x, &activated, y_bar, gradient)
    }
}
