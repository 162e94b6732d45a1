//! Loading networks trained in GeometricMachineLearning.jl (feature `hdf5`).
//!
//! The file is read by [`geomattn-gml-file`](geomattn_gml_file) (re-exported here: [`GmlFile`],
//! [`Node`], [`LoadError`]), the one reader of GML's files that the compile-time embedding
//! ([`embed_gml!`](crate::embed_gml)) uses too; this module builds networks from it.
//!
//! GML saves a network as one HDF5 group per layer of its flattened chain, `/L1 … /Ln`, each
//! holding the layer's named parameters. Dense matrices appear transposed (Julia writes
//! column-major data under reversed dimensions), special matrices are groups tagged with a
//! `gml_type` attribute, and the architecture itself is not in the file: the caller names it as the
//! type to [`load`] into. Every malformed input gives a [`LoadError`], never a panic.
//!
//! Weights are read in the element type GML trained them in, Float32 (its default, and every
//! fixture) or Float64, into a network of either scalar: a Float32 value is widened exactly, a
//! Float64 value goes into an `f64` network as it is and into an `f32` network rounded once to
//! nearest; one beyond `f32`'s range is [`LoadError::OutOfRange`] rather than an infinity.
//! [`embed_gml!`](crate::embed_gml) does the same at compile time.
//!
//! ```
//! use geomattn::activation::Tanh;
//! use geomattn::architectures::VolumePreservingTransformer;
//! use geomattn::gml::load_file;
//! use geomattn::{SequenceLayer, nalgebra::Matrix3};
//! // VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, activation = tanh).
//! type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
//! let net: Vpt = load_file(concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5"))?;
//! // Six consecutive states (columns) of the free rigid body the network was trained on, from
//! // z₀ = (0, sin 1.1, cos 1.1) by the implicit midpoint rule with h = 0.2: a window of three,
//! // and the three that follow it.
//! let window = Matrix3::new(
//!     0.0, 0.04046329031380565, 0.08107694675590625,
//!     0.8912073600614354, 0.8893683167853655, 0.8838006653296618,
//!     0.4535961214255773, 0.4553973201890261, 0.46078510465029915,
//! );
//! let next = Matrix3::new(
//!     0.12197579964946596, 0.16326299733692023, 0.20499275809231762,
//!     0.8743536854313704, 0.8607792667280054, 0.8427375017685413,
//!     0.4697100563884637, 0.4820832372855981, 0.49776648364732484,
//! );
//! assert!((net.forward(&window) - next).amax() < 3e-3);
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```
//!
//! # Nothing the file does not say is guessed
//!
//! GML's files hold the weights, not the architecture's options: the activations, the sequence
//! length, the weighting of volume-preserving attention, `add_connection` of multi-head
//! attention. Each is part of the network's type, and has no default where a wrong guess would
//! load without an error: multi-head attention names its [`Connection`](crate::Connection).
//! (Where the file does say it, a default is checked against it: GML's `Stiefel = true`
//! projections, [`Stiefel`](crate::Stiefel), are rejected as the default
//! [`Euclidean`](crate::Euclidean) ones, and the other way round.)
//!
//! ```compile_fail
//! use geomattn::{MultiHeadAttention, StandardTransformerIntegrator, Tanh};
//! // Without `add_connection` (`AddConnection` or `NoConnection`) the type is incomplete.
//! type St = StandardTransformerIntegrator<f64, 3, MultiHeadAttention<f64, 3, 1, 3>, 2, 3, Tanh>;
//! let _: St = geomattn::gml::load_file("transformer_rigid_body_nn_st.h5")?;
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```
//!
//! ```
//! use geomattn::{MultiHeadAttention, NoConnection, StandardTransformerIntegrator, Tanh};
//! // StandardTransformerIntegrator(3; n_heads = 1, n_blocks = 2, L = 3,
//! //                               resnet_activation = tanh, add_connection = false)
//! type Attention = MultiHeadAttention<f64, 3, 1, 3, NoConnection>;
//! type St = StandardTransformerIntegrator<f64, 3, Attention, 2, 3, Tanh>;
//! let _: St = geomattn::gml::load_file(concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../fixtures/gml/transformer_rigid_body_nn_st.h5"))?;
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```
//!
//! # Large networks
//!
//! [`load`] builds the network by value, on the stack. A large one (GML's MNIST classifier is
//! 1.2 MB in `f64`, more than a thread's default 2 MiB stack holds with the copies a by-value
//! build makes) loads with [`load_boxed`] / [`load_file_boxed`] / [`read_boxed`](crate::read_boxed), which
//! build it in place on the heap, one layer at a time on the stack; the forward pass itself needs
//! only a few sequences of stack. To keep it for the whole program, leak the box:
//! `let net: &'static N = Box::leak(load_boxed(&file)?)` (and put the reference in a
//! `static` `OnceLock` to reach it from anywhere).
//!
//! Without `std` there is no loader, and no heap: a network of any size lives in a `static`, whose
//! storage the linker reserves (never on the stack). [`embed_gml!`](crate::embed_gml) builds that
//! `static` at compile time from the GML file, in `const` evaluation, so its weights sit in
//! read-only memory (`.rodata`, flash on a microcontroller) and nothing is parsed or built at run
//! time (`tests/tests/embed.rs`; `embedded/cortex-m/` runs the rigid-body transformer so on a
//! Cortex-M4F). The `const` constructors of the layers write such a `static` by hand
//! (`tests/tests/statics.rs`), and [`read_blob_into`](crate::read_blob_into) fills one in place
//! from a blob in flash without an allocation.

mod networks;
mod save;
mod weights;

pub use geomattn_gml_file::{
    Contents, GmlFile, LAYER_TYPE, LoadError, Node, Object, Parameter, regular_file,
};
pub use networks::{Layers, load, load_boxed, load_file, load_file_boxed};
pub use save::{GmlWriter, SaveError, Storage, save_file, to_bytes};
pub use weights::ReadWeights;
