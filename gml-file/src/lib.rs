//! GeometricMachineLearning.jl's files of trained networks, read in pure Rust.
//!
//! GML saves a network as one HDF5 group per layer of its flattened chain, `/L1 … /Ln`, each
//! holding the layer's named parameters. Dense matrices appear transposed (Julia writes
//! column-major data under reversed dimensions), special matrices are groups tagged with a
//! `gml_type` attribute (a packed vector `S` and the size `n`), points of the Stiefel manifold
//! groups holding `A`. This crate reads that layout, and nothing else: which layers the groups
//! are is the caller's to say.
//!
//! - [`Kind`] (always, `no_std`): what a parameter is, and how many values GML stores for it.
//! - [`GmlFile`] and [`Node`] (feature `hdf5`): a file and its groups, asked for a parameter of a
//!   known kind and shape ([`Node::stored`]: what `geomattn`'s loader does, for a network type
//!   or an architecture read at run time), or described without one ([`Node::entries`],
//!   [`GmlFile::contents`]: what `geomattn inspect` and the compile-time embedding do).
//!
//! Every malformed input is a [`LoadError`] naming the object in the file, never a panic, and
//! no dataset is read whose shape claims more bytes than the file holds (the checks are fuzzed
//! through `geomattn`'s loader, and mutation-tested on every fixture).
//!
//! It is a crate of its own because two crates read GML's files and neither can depend on the
//! other: `geomattn` (its loader) depends on `geomattn-macros`, whose `embed_gml!` reads the file
//! at compile time. `hdf5-pure` parses the HDF5 (pure Rust, no C library to install or link);
//! `thiserror` derives the error.
//!
//! ```
//! # #[cfg(feature = "hdf5")] {
//! use geomattn_gml_file::{GmlFile, Kind};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
//! let file = GmlFile::open(path)?;
//! let layers = file.layers()?;
//! // The first layer's attention matrix `A` (dense: GML's default `skew_sym = false`).
//! let a = layers[0].stored("A", Kind::Dense, 3, 3)?;
//! assert_eq!(a.len(), 9);
//! // Asked for something else, the file says what it has.
//! let error = layers[0].stored("A", Kind::Skew, 3, 3).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "`/L1/A`: found a dense matrix (a Float32 dataset of shape [3, 3]) where a skew-symmetric \
//!      matrix (a group with gml_type `SkewSymMatrix`) is expected"
//! );
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![no_std]

#[cfg(feature = "hdf5")]
extern crate std;

#[cfg(feature = "hdf5")]
mod contents;
#[cfg(feature = "hdf5")]
mod error;
#[cfg(feature = "hdf5")]
mod file;
mod kind;

#[cfg(feature = "hdf5")]
pub use contents::{Contents, Parameter};
#[cfg(feature = "hdf5")]
pub use error::{LoadError, Object};
#[cfg(feature = "hdf5")]
pub use file::{GmlFile, LAYER_TYPE, Node, regular_file};
pub use kind::Kind;
