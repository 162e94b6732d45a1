//! GML's integrator architectures, assembled from the layers: the volume-preserving feed-forward
//! network, the transformers, and the rollout that turns a trained network into a trajectory.
//!
//! | type | GML | layers in the flattened chain |
//! |---|---|---|
//! | [`VolumePreservingFeedForward`] | `VolumePreservingFeedForward(D, NB, NL, act)` | `NB·(2·NL + 2) + 2` |
//! | [`VolumePreservingTransformer`] | `VolumePreservingTransformer(D, T; NB, NL, L, act, skew_sym)` | `L·(NB·(2·NL + 2) + 3)` |
//! | [`StandardTransformerIntegrator`] | `StandardTransformerIntegrator(D; n_heads, NB, L, act, add_connection)` | `L·(NB + 2)` |
//! | [`SymplecticTransformer`] | `SymplecticTransformer(2N; n_sympnet = NS, upscaling_dimension, L, …)` | `L·(2·NS + 2)` |
//! | [`LinearSymplecticTransformer`] | `LinearSymplecticTransformer(2N, T; n_sympnet = NS, upscaling_dimension, L, …)` | `L·(2·NS + 2)` |
//! | [`ClassificationTransformer`] | `ClassificationTransformer(dl; n_heads, L, Stiefel, add_connection)` | `2·L + 1` |
//!
//! The numbers of blocks are const generics, the layers are held in arrays, and every forward
//! pass runs on the stack: no allocation, no `std`.

mod classification;
mod feedforward;
mod iterate;
mod symplectic;
mod transformer;

pub use classification::{
    ClassificationLayer, ClassificationTransformer, Classifier, mnist_patches,
};
pub use feedforward::{LinearPair, ResNetStack, VolumePreservingFeedForward, VpffBlock};
pub use iterate::iterate;
pub use symplectic::{LinearSymplecticTransformer, SympNetStack, SymplecticTransformer};
pub use transformer::{
    StandardTransformerIntegrator, Transformer, VolumePreservingTransformer, forward_blocks_checked,
};
