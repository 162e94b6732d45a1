//! Training as GML 0.4.8 trains: its optimisers ([`optimizer`]).

pub mod optimizer;

pub use optimizer::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
};
