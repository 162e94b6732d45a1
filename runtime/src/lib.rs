#![no_std]
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

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
mod macros;
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

/// What `cayley!` and the code `geomattn-macros` emits name; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::scalar::{Field, ratio};
    pub use geomattn_macros::cayley_with_crate;
    pub use nalgebra::{ArrayStorage, SMatrix};
}

/// The linear-algebra crate the layers are written on, re-exported so that users name the same
/// version.
pub use nalgebra;
