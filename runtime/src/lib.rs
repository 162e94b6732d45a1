#![no_std]
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// The code `geomattn-macros` emits names `::geomattn`, here as in any other crate.
extern crate self as geomattn;

#[cfg(feature = "hdf5")]
extern crate std;

pub mod activation;
pub mod architectures;
pub mod cayley;
pub mod correlation;
mod error;
pub mod feedforward;
#[cfg(feature = "hdf5")]
pub mod gml;
pub mod init;
mod layer;
pub mod mha;
pub mod orthonormal;
pub mod packed;
mod scalar;
pub mod self_attention;
pub mod softmax;
pub mod symplectic;
pub mod vpa;

pub use cayley::{Cayley, DefaultCayley, Elimination, Generated, LuSolve, NalgebraInverse};
pub use error::Error;
pub use feedforward::{
    ColumnLayer, Dense, GradientLayerP, GradientLayerQ, ResNetLayer, VolumePreservingLowerLayer,
    VolumePreservingUpperLayer,
};
pub use layer::SequenceLayer;
pub use mha::MultiHeadAttention;
pub use orthonormal::OrthonormalAttention;
pub use packed::{SkewSymmetric, StrictlyLower, StrictlyUpper, Symmetric};
pub use scalar::Field;
pub use softmax::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};
pub use symplectic::attention::{SymplecticAttentionP, SymplecticAttentionQ};
pub use symplectic::linear::{LinearSymplecticAttentionP, LinearSymplecticAttentionQ};
pub use vpa::{ArbitraryVpa, ArbitraryWeight, SkewVpa, SkewWeight, VolumePreservingAttention};

/// What the code emitted by `geomattn-macros` calls; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::scalar::ratio;
}

/// The linear-algebra crate the layers are written on, re-exported so that users name the same
/// version.
pub use nalgebra;
