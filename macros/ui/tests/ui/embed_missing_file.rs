geomattn::embed_gml!(static NET: geomattn::VolumePreservingFeedForward<f64, 3, 6, 1, geomattn::Tanh> =
    "no/such/network.h5");

fn main() {}
