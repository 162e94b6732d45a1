#![no_std]
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

pub mod activation;
pub mod architectures;
pub mod cayley;
pub mod correlation;
mod error;
pub mod exp;
pub mod feedforward;
#[cfg(feature = "hdf5")]
pub mod gml;
pub mod init;
pub mod isa;
pub mod lanes;
pub mod lanewise;
mod layer;
mod macros;
pub mod mha;
pub mod network;
pub mod orthogonal;
pub mod orthonormal;
pub mod packed;
mod product;
mod scalar;
pub mod schema;
pub mod self_attention;
pub mod softmax;
pub mod symplectic;
pub mod vpa;

// The public face: every public item of the layers is re-exported here, so `geomattn::Name`
// always works; the modules keep the explanations. Only the optional loader keeps its own
// namespace, `geomattn::gml`.
pub use activation::{Activation, Identity, Tanh};
pub use architectures::{
    ClassificationLayer, ClassificationTransformer, Classifier, LinearPair,
    LinearSymplecticTransformer, ResNetStack, StandardTransformerIntegrator, SympNetStack,
    SymplecticTransformer, Transformer, VolumePreservingFeedForward, VolumePreservingTransformer,
    VpffBlock, forward_blocks_checked, iterate, mnist_patches,
};
pub use cayley::{Elimination, Generated, GramSchmidt, LuSolve, NalgebraInverse};
pub use correlation::{
    Additive, ArbitraryWeight, Bilinear, Correlation, LowRank, SkewCorrelation, SkewWeight,
    lower_correlation, skew_from_lower, tensor_mat_skew_sym_assign,
};
pub use error::{Error, FieldPath, NonFinite};
pub use exp::{Exp, ScalingSquaring};
pub use feedforward::{
    Dense, GradientLayer, GradientLayerP, GradientLayerQ, ResNetLayer, StrictlyTriangular,
    VolumePreservingLayer, VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
/// `#[derive(Network)]`: a struct whose fields are layers, applied in field order, becomes a
/// [`SequenceLayer`] with the fields' parameter [`Schema`]; see [`network`].
pub use geomattn_macros::Network;
pub use init::{glorot_bound, glorot_dense, uniform};
pub use isa::{BatchScalar, Isa};
pub use lanes::{LaneScalar, Lanes};
pub use lanewise::{
    Functions, GROUPS_PER_TASK, LaneTwin, Lanewise, ScalarFunctions, VectorFunctions,
};
pub use layer::{ColumnLayer, SequenceLayer};
pub use mha::{
    AddConnection, Connection, Euclidean, Head, MultiHeadAttention, NoConnection, Projection,
    STIEFEL_TOLERANCE, Stiefel, project_to_stiefel, stiefel_error,
};
pub use network::Then;
pub use orthogonal::{DefaultCayley, OrthogonalMap};
pub use orthonormal::OrthonormalAttention;
pub use packed::{
    Lower, Mirror, Packed, PackedLayout, Skew, SkewSymmetric, StrictlyLower, StrictlyUpper, Sym,
    Symmetric, Upper,
};
pub use scalar::{Field, MapScalar, Real};
pub use schema::{After, EmbedFrom, Embedded, EmbeddedParam, Nth, embedded};
pub use schema::{
    BLOB_HEADER_LEN, BLOB_MAGIC, BLOB_VERSION, BlobError, BlobScalar, Difference, Kind, LayerType,
    Name, Param, Schema, Setting, SettingValue, ShortText, Sink, Source, TypeMismatch, Visit,
    blob_len, fill, read_blob, read_blob_into, write_blob,
};
#[cfg(feature = "std")]
pub use schema::{read_blob_boxed, read_boxed, to_blob};
pub use self_attention::SoftmaxAttention;
pub use softmax::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};
pub use symplectic::attention::{
    DenseA, GmlCompatible, GradientExact, SymmetricA, SymmetricMode, SymplecticAttention,
    SymplecticAttentionP, SymplecticAttentionQ, SymplecticWeight,
};
pub use symplectic::linear::{
    LinearSymplecticAttention, LinearSymplecticAttentionP, LinearSymplecticAttentionQ,
};
pub use symplectic::{PhaseSide, UpdateP, UpdateQ};
pub use vpa::{ArbitraryVpa, SkewVpa, VolumePreservingAttention};

/// What `cayley!`, `derive(Network)` and the code `geomattn-macros` emits name; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::__read_fields_into as read_fields_into;
    pub use crate::network::forward_checked_field;
    pub use crate::scalar::{Field, ratio};
    pub use geomattn_macros::{cayley_with_crate, embed_gml_with_crate};
    pub use nalgebra::{ArrayStorage, SMatrix};
}

/// The linear-algebra crate the layers are written on, re-exported so that users name the same
/// version.
pub use nalgebra;
