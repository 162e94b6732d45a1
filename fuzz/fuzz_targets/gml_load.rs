//! Any bytes, loaded as each rigid-body architecture (by value and in place on the heap): the
//! loader must return `Ok` or a `LoadError`, never panic, hang or allocate without bound.
//! Seed the corpus with `../fixtures/gml/*.h5`.
#![no_main]

use geomattn::gml::{GmlFile, load, load_boxed};
use geomattn::{
    MultiHeadAttention, NoConnection, Schema, StandardTransformerIntegrator, Tanh, VolumePreservingFeedForward,
    VolumePreservingTransformer,
};
use libfuzzer_sys::fuzz_target;

type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
type Vpff = VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>;
type St = StandardTransformerIntegrator<f64, 3, MultiHeadAttention<f64, 3, 1, 3, NoConnection>, 2, 3, Tanh>;

fn both<N: Schema<Scalar = f64>>(file: &GmlFile) {
    let _ = load::<N>(file);
    let _ = load_boxed::<N>(file);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = GmlFile::from_bytes(data.to_vec()) {
        both::<Vpt>(&file);
        both::<Vpff>(&file);
        both::<St>(&file);
    }
});
