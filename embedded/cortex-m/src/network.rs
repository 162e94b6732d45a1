//! The rigid-body VPT, embedded at compile time from GML's file by `geomattn::embed_gml!`: a
//! `static` built in `const` evaluation, its weights literals in flash (`.rodata`), nothing to
//! parse, build or allocate at run time. The file is tracked: editing it rebuilds the firmware.

use geomattn::{Tanh, VolumePreservingTransformer};

/// GML's `VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, activation = tanh,
/// skew_sym = false)`, in `f32`.
pub type Vpt = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>;

geomattn::embed_gml!(
    /// The network the firmware runs.
    pub static NETWORK: Vpt = "../../fixtures/gml/transformer_rigid_body_nn_vpt.h5"
);
