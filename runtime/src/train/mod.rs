//! Training as GML 0.4.8 trains: its optimisers ([`optimizer`]) and its transformer loss
//! ([`loss`]), and, with the `std` feature, its epochs over trajectories (`epoch`) and its
//! optimisers on the Stiefel manifold (`stiefel`).
//!
//! The gradients come from the layers' exact backward passes ([`Backward`]).
//! [`train_step`] is one minibatch of GML's loop: the loss, its gradient, one optimiser step.

#[cfg(feature = "std")]
pub mod epoch;
pub mod loss;
pub mod optimizer;
#[cfg(feature = "std")]
pub mod stiefel;

#[cfg(feature = "std")]
pub use epoch::{MinibatchWindows, Trajectories, train_epoch, window_order};
pub use loss::{SquaredNorms, loss_and_gradient, loss_gradient, transformer_loss};
#[cfg(feature = "std")]
pub use optimizer::FlatOptimizer;
pub use optimizer::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
};
#[cfg(feature = "std")]
pub use stiefel::ManifoldOptimizer;

use nalgebra::{RealField, SMatrix};

use crate::backward::Backward;
use crate::error::Error;
use crate::schema::Schema;

/// One minibatch of GML's training: the [transformer loss](loss) of `net` on the windows
/// `inputs` → `targets`, its gradient, and one step of `optimizer`. Returns the loss before the
/// step. No allocation.
///
/// # Errors
/// As [`loss_and_gradient`] (then nothing changes) and [`Optimizer::step_network`].
pub fn train_step<S, N, O, const D: usize, const T: usize, const P: usize>(
    net: &mut N,
    optimizer: &mut O,
    inputs: &[SMatrix<S, D, T>],
    targets: &[SMatrix<S, D, T>],
) -> Result<S, Error>
where
    S: RealField + Copy,
    N: Backward<S, D, T> + Schema<Scalar = S>,
    N::Gradient: Schema<Scalar = S>,
    O: Optimizer<S, P>,
{
    let mut gradient = net.zero_gradient();
    let loss = loss_and_gradient(net, inputs, targets, &mut gradient)?;
    optimizer.step_network(net, &gradient)?;
    Ok(loss)
}
