//! Loading networks trained in GeometricMachineLearning.jl (feature `hdf5`).
//!
//! GML saves a network as one HDF5 group per layer of its flattened chain, `/L1 … /Ln`, each
//! holding the layer's named parameters. Dense matrices appear transposed (Julia writes
//! column-major data under reversed dimensions), special matrices are groups tagged with a
//! `gml_type` attribute, and the architecture itself is not in the file: the caller names it as the
//! type to [`load`] into. Every malformed input gives a [`LoadError`], never a panic.
//!
//! ```
//! use geomattn::activation::Tanh;
//! use geomattn::architectures::VolumePreservingTransformer;
//! use geomattn::gml::{load_file, rigid_body};
//! use geomattn::{SequenceLayer, nalgebra::Matrix3};
//! // VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, activation = tanh).
//! type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
//! let net: Vpt = load_file(concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../../shared/fixtures/gml/transformer_rigid_body_nn_vpt.h5"), Default::default())?;
//! let mut states = [Default::default(); 6];
//! rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut states);
//! let window = Matrix3::from_columns(&states[..3]);
//! let next = Matrix3::from_columns(&states[3..]);
//! assert!((net.forward(&window) - next).amax() < 3e-3);
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```

mod error;
mod file;
mod networks;
pub mod rigid_body;

pub use error::LoadError;
pub use file::{GmlFile, GmlType, Node};
pub use networks::{FromGml, Layers, STIEFEL_TOLERANCE, Settings, load, load_file, load_with};
