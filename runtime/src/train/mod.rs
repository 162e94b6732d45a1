//! Training as GML 0.4.8 trains: its optimisers ([`optimizer`]) and its transformer loss
//! ([`loss`]).

pub mod loss;
pub mod optimizer;

pub use loss::{loss_and_gradient, loss_gradient, transformer_loss};
pub use optimizer::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
};
