//! Exact vector-Jacobian products: the backward passes of training.
//!
//! A layer that implements [`Backward`] gives, for one sequence `Z` and the cotangent `Ō` of its
//! output (`∂L/∂out` for a scalar loss `L`), the cotangent of its input `Z̄ = ∂L/∂Z` and adds
//! the gradient of `L` with respect to its parameters to an accumulator. The gradient of every
//! layer is a value of the layer's own type, each weight holding its gradient, so it has the
//! network's [`crate::schema::Schema`] and flattens in GML's order like the weights. GML's packed
//! weights hold `∂L/∂S_k` for each packed entry `S_k`, as GML's custom pullbacks of its packed
//! matrices hand them to its optimisers.
//!
//! Like the forward passes, one sequence's backward pass is `no_std` and allocates nothing; the
//! forward quantities it needs are recomputed, not stored.
//!
//! ```
//! use geomattn::{Backward, SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::Matrix3};
//! let layer = SkewVpa::<f64, 3, 3>::skew_sym(SkewSymmetric::from_packed(&[0.3, -0.2, 0.5])?);
//! let z = Matrix3::new(1.0, 0.0, 1.0,
//!                      0.0, 1.0, 1.0,
//!                      1.0, 1.0, 0.0);
//! // L = ½‖out‖², whose cotangent is the output itself. The map is orthogonal in time, so
//! // ‖out‖ = ‖Z‖ for every weight: the weight's gradient vanishes.
//! let out = layer.forward(&z);
//! let mut gradient = layer.zero_gradient();
//! let z_bar = layer.backward(&z, &out, &mut gradient);
//! assert!(gradient.weight().a().matrix().amax() < 1e-14);
//! assert!((z_bar - z).amax() < 1e-14);
//! # Ok::<(), geomattn::Error>(())
//! ```

mod architectures;
mod cayley;
#[cfg(test)]
pub(crate) mod exact;
mod feedforward;
mod lanes;
pub(crate) mod softmax;

pub use crate::symplectic::attention::backward::SymplecticWeightBackward;
pub use crate::vpa::backward::CorrelationBackward;
#[cfg(feature = "std")]
pub(crate) use cayley::cayley_pullback;
pub use cayley::{CayleyDifferentiable, cayley_vjp};
pub use feedforward::{ActivationDerivative, ColumnBackward};
pub use lanes::LaneBackward;
pub use softmax::SoftmaxBackward;

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use crate::layer::SequenceLayer;
use crate::scalar::Field;

/// A [`SequenceLayer`] with its exact vector-Jacobian product (see the [module docs](self)).
pub trait Backward<S: Field, const D: usize, const T: usize>: SequenceLayer<S, D, T> {
    /// The gradient with respect to the layer's parameters, laid out as the parameters are.
    type Gradient;

    /// A gradient of zeros, to sum a batch's gradients into.
    fn zero_gradient(&self) -> Self::Gradient;

    /// Writes `∂L/∂Z` into `z_bar` and adds `∂L/∂θ` to `gradient`, given the input `z` and
    /// `out_bar = ∂L/∂out`.
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self::Gradient,
    );

    /// [`backward_into`](Self::backward_into) for one sequence, returning `∂L/∂Z`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward(
        &self,
        z: &SMatrix<S, D, T>,
        out_bar: &SMatrix<S, D, T>,
        gradient: &mut Self::Gradient,
    ) -> SMatrix<S, D, T> {
        let mut z_bar = SMatrix::<S, D, T>::zeros();
        self.backward_into(
            z.as_view(),
            out_bar.as_view(),
            z_bar.as_view_mut(),
            gradient,
        );
        z_bar
    }
}
