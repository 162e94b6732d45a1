use geomattn::{ArbitraryVpa, SkewVpa, Tanh, VolumePreservingFeedForward};

type Feedforward = VolumePreservingFeedForward<f64, 3, 2, 1, Tanh>;

// GML's VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, skew_sym = false),
// layer by layer, with the second attention given the other weighting: its layer group is L12
// (one attention, then the ten of a feed-forward part), where the file has a dense A.
#[derive(geomattn::Network)]
#[geomattn(scalar = f64, dim = 3, len = 3)]
struct RigidBody {
    attention_1: ArbitraryVpa<f64, 3, 3>,
    feedforward_1: Feedforward,
    attention_2: SkewVpa<f64, 3, 3>,
    feedforward_2: Feedforward,
    attention_3: SkewVpa<f64, 3, 3>,
    feedforward_3: Feedforward,
}

geomattn::embed_gml!(static NET: RigidBody =
    "../../../../fixtures/gml/transformer_rigid_body_nn_vpt.h5");

fn main() {}
