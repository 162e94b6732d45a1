//! GML's network architectures as data: what a GML file holds, independent of how geomattn runs
//! it.
//!
//! - [`spec`]: the text a user types, GML's constructor call (`VolumePreservingTransformer(3, 3;
//!   L = 3)`) or geomattn's short form (`vpt(dim=3, seq=3, …)`), parsed into an [`Arch`] with every
//!   keyword of GML 0.4.8's six constructors.
//! - [`layout`]: the chain GML's constructor builds from an [`Arch`], as data: each layer's GML
//!   type and its parameters' names, kinds and shapes, exactly as GML's `save` writes them.
//! - [`inspect`]: a GML file's layers read back, and the architectures whose layout it is, with
//!   the keywords the file cannot tell (the window length, activations) named as such.
//!
//! ```
//! use geomattn_arch::{Arch, layout};
//! let arch: Arch = "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, \
//!                   n_blocks = 3, L = 3, upscaling_activation = tanh, seq = 4)".parse()?;
//! let layers = layout::layers(&arch);
//! assert_eq!(layers.len(), 17);
//! assert_eq!(layers[0].to_string(), "Dense(2, 20, tanh): W 20×2, b 20");
//! # Ok::<(), geomattn_arch::Error>(())
//! ```
//!
//! Dependencies: `geomattn` (its GML file reader, for [`inspect`]) and `thiserror` (the
//! [`Error`]). Nothing here is generic over sizes: the crate compiles in seconds, and every tool
//! that reads a spec or a file's shapes shares it.

mod error;
pub mod inspect;
pub mod layout;
pub mod spec;

pub use error::Error;
pub use spec::{
    Activation, Arch, AttentionActivation, Ct, Kick, LinSympt, St, Sympt, Vpff, Vpt, gml_defaults,
};
