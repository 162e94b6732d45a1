//! From a runtime architecture spec to a geomattn network of any size GML allows, behind
//! object-safe traits: what the `geomattn` command and the Python bindings build on.
//!
//! geomattn's layers come in two kinds of size: const generics (a
//! `VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>`, for typed Rust, `embed_gml!` and
//! `no_std`) and run-time sizes (`geomattn::engine`, the same maths, the sizes read from the
//! file). A tool that reads the architecture at run time (`vpt(dim=3, seq=3, …)`) takes the
//! second: this crate takes the spec ([`Arch`], parsed by `geomattn-arch`), loads a GML file on
//! the engine ([`open`], [`open_file`]; [`classify::open`] for the classifier) and hands it back
//! as a [`Network`] (forward, rollout and batches in `f32` or `f64`), measures the structure it
//! promises ([`check`], exact Jacobians), trains it ([`train`]), and [`export`]s it for another
//! program: the blob of its compile-time type, and the text of that type.
//!
//! ```
//! use geomattn_networks::{Arch, Precision, open_file, rigid_body};
//! use geomattn::nalgebra::Vector3;
//! let arch: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
//!     .parse()?;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
//! let net = open_file(path, &arch, Precision::F64)?;
//! // The first window: three states of the rigid body it was trained on, state after state.
//! let mut truth = [Vector3::zeros(); 10];
//! rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut truth);
//! let window: Vec<f64> = truth[..3].iter().flat_map(|z| z.iter().copied()).collect();
//! let states = net.rollout(&window, 9, &mut |_| {})?;
//! assert_eq!(states.len(), 10 * 3);
//! let last = Vector3::from_column_slice(&states[27..]);
//! assert!((last - truth[9]).amax() < 3e-2);
//! # Ok::<(), geomattn_networks::Error>(())
//! ```
//!
//! Dependencies: `geomattn` (the layers, their backward passes and its GML loader),
//! `geomattn-arch` (the specs, GML's chains as data, and [`inspect`]),
//! `matrixmultiply` (the batched classifier's products), `rand` (seeded sample inputs of the
//! structure check), `thiserror` (the [`Error`]).

pub mod batch;
pub mod classify;
mod dispatch;
pub mod engine;
mod error;
pub mod export;

mod network;

/// The README's and the guide's Rust examples (`docs/src`), run as this crate's doctests: the
/// crate has what they use (`geomattn` with its GML loader, and the specs).
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../README.md")]
    struct Readme;
    #[doc = include_str!("../../docs/src/rust.md")]
    struct RustApi;
}
pub mod rigid_body;
pub mod structure;
pub mod train;

pub use dispatch::{check, check_file, check_until, open, open_file};
pub use error::Error;
/// The architectures as data (`geomattn-arch`): specs, GML's chains, and what a file holds.
pub use geomattn_arch::{
    Activation, Arch, AttentionActivation, Ct, Kick, LinSympt, St, Sympt, Vpff, Vpt, gml_defaults,
    inspect, layout,
};
pub use network::{Network, Precision, Scalar};
pub use structure::Measurement;
