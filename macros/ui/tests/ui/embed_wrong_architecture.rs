use geomattn::{Tanh, VolumePreservingFeedForward};

// The file is GML's VolumePreservingFeedForward(3, 6, 1, tanh): dimension 3, not 4. (The path is
// relative to the crate trybuild generates, in `target/tests/trybuild/geomattn-macros`.)
geomattn::embed_gml!(static NET: VolumePreservingFeedForward<f64, 4, 6, 1, Tanh> =
    "../../../../fixtures/gml/transformer_rigid_body_nn_vpff.h5");

fn main() {}
