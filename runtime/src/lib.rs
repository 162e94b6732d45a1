#![no_std]
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

pub mod activation;
pub mod architectures;
pub mod backward;
pub mod cayley;
pub mod correlation;
#[cfg(feature = "std")]
pub mod engine;
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
pub mod train;
pub mod vpa;
mod workspace;

// The public face: every public item of the layers is re-exported here, so `geomattn::Name`
// always works; the modules keep the explanations. Only the optional loader keeps its own
// namespace, `geomattn::gml`, and so does the run-time engine, `geomattn::engine` (its layers
// share the names of the compile-time ones). The re-exports are inlined (`#[doc(inline)]`): the crate's front
// page lists the types, the architectures among them, not a list of `pub use` lines.
#[doc(inline)]
pub use activation::{
    Activation, Function as ActivationFunction, Identity, Relu, Sigmoid, Softplus, Tanh,
};
#[doc(inline)]
pub use architectures::{
    ClassificationLayer, ClassificationTransformer, Classifier, LinearPair,
    LinearSymplecticTransformer, ResNetStack, StandardTransformerIntegrator, SympNetStack,
    SymplecticTransformer, Transformer, VolumePreservingFeedForward, VolumePreservingTransformer,
    VpffBlock, forward_blocks_checked, iterate, mnist_patches,
};
#[doc(inline)]
pub use backward::{
    ActivationDerivative, Backward, CayleyDifferentiable, ColumnBackward, CorrelationBackward,
    LaneBackward, SoftmaxBackward, SymplecticWeightBackward, cayley_vjp,
};
#[doc(inline)]
pub use cayley::{
    Elimination, Generated, GramSchmidt, LuSolve, NARROW_BELOW, NalgebraInverse, WIDE_BELOW,
};
#[doc(inline)]
pub use correlation::{
    Additive, ArbitraryWeight, Bilinear, Correlation, LowRank, SkewCorrelation, SkewWeight,
    arbitrary_correlation, lower_correlation, skew_from_lower, skew_sym_correlation,
    tensor_mat_skew_sym_assign,
};
#[doc(inline)]
pub use error::{Error, FieldPath, NonFinite};
#[doc(inline)]
pub use exp::{Exp, ScalingSquaring};
#[doc(inline)]
pub use feedforward::{
    Dense, GradientLayer, GradientLayerP, GradientLayerQ, ResNetLayer, StrictlyTriangular,
    VolumePreservingLayer, VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
/// `#[derive(Network)]`: a struct whose fields are layers, applied in field order, becomes a
/// [`SequenceLayer`] with the fields' parameter [`Schema`]; see [`network`].
#[doc(inline)]
pub use geomattn_macros::Network;
#[cfg(feature = "std")]
#[doc(inline)]
pub use init::glorot_stiefel;
#[doc(inline)]
pub use init::{glorot_bound, glorot_dense, glorot_network, glorot_parameter, uniform};
#[doc(inline)]
pub use isa::{BatchScalar, Isa, LaneMatrix, ResidualLayer, ResidualStep};
#[doc(inline)]
pub use lanes::{LaneScalar, Lanes};
#[doc(inline)]
pub use lanewise::{
    Functions, GROUPS_PER_TASK, LaneTwin, Lanewise, ScalarFunctions, VectorFunctions,
};
#[doc(inline)]
pub use layer::{ColumnLayer, SequenceLayer};
#[doc(inline)]
pub use mha::{
    AddConnection, Connection, Euclidean, Head, MultiHeadAttention, NoConnection, Projection,
    STIEFEL_TOLERANCE, Stiefel, project_to_stiefel, stiefel_error,
};
#[doc(inline)]
pub use network::Then;
#[doc(inline)]
pub use orthogonal::{DefaultCayley, OrthogonalMap};
#[doc(inline)]
pub use orthonormal::OrthonormalAttention;
#[cfg(feature = "std")]
#[doc(inline)]
pub use packed::dense_from_packed;
#[doc(inline)]
pub use packed::{
    Lower, Mirror, Packed, PackedLayout, Skew, SkewSymmetric, StrictlyLower, StrictlyUpper, Sym,
    Symmetric, Upper,
};
#[doc(inline)]
pub use scalar::{Field, MapScalar, Real};
#[doc(inline)]
pub use schema::{After, EmbedFrom, Embedded, EmbeddedParam, Fitted, Mismatch, Nth, embedded};
#[doc(inline)]
pub use schema::{
    BLOB_HEADER_LEN, BLOB_MAGIC, BLOB_VERSION, BlobError, BlobScalar, Difference, Kind, LayerType,
    Name, Param, Schema, Setting, SettingValue, ShortText, Sink, Source, TypeMismatch, Visit,
    blob_len, fill, from_flat, read_blob, read_blob_into, to_flat, write_blob,
};
#[cfg(feature = "std")]
#[doc(inline)]
pub use schema::{
    OwnedLayerType, described_to_blob, read_blob_boxed, read_boxed, slice_to_blob, to_blob,
};
#[doc(inline)]
pub use self_attention::SoftmaxAttention;
#[doc(inline)]
pub use softmax::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};
#[doc(inline)]
pub use symplectic::attention::{
    DenseA, GmlCompatible, GradientExact, SymmetricA, SymmetricMode, SymplecticAttention,
    SymplecticAttentionP, SymplecticAttentionQ, SymplecticWeight,
};
#[doc(inline)]
pub use symplectic::linear::{
    LinearSymplecticAttention, LinearSymplecticAttentionP, LinearSymplecticAttentionQ,
};
#[doc(inline)]
pub use symplectic::{PhaseSide, Side, UpdateP, UpdateQ};
#[doc(inline)]
pub use train::{
    AdamOptimizer, AdamOptimizerWithDecay, GradientOptimizer, MomentumOptimizer, Optimizer,
    SquaredNorms, loss_and_gradient, loss_gradient, train_step, transformer_loss,
};
#[cfg(feature = "std")]
#[doc(inline)]
pub use train::{
    FlatOptimizer, ManifoldOptimizer, MinibatchWindows, Trajectories, train_epoch, window_order,
};
#[doc(inline)]
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
