use geomattn::{Tanh, VolumePreservingFeedForward};

// The file is GML's VolumePreservingFeedForward(3, 6, 1, tanh): six blocks, not five. Every layer
// group the type has fits; the file has four more.
type Net = VolumePreservingFeedForward<f64, 3, 5, 1, Tanh>;
geomattn::embed_gml!(static NET: Net = "../../../../fixtures/gml/transformer_rigid_body_nn_vpff.h5");

fn main() {}
