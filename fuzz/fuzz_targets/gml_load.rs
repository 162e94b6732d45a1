//! Any bytes, read by everything the command reads a GML file with: `inspect`, the listing of
//! every parameter that `embed_gml!` and `export --to rust` read (`GmlFile::contents`), and the
//! loader as each rigid-body architecture (by value and in place on the heap) and as GML's MNIST
//! classifier (on the heap). Every outcome must be `Ok` or an error, never a panic, a hang or an allocation
//! without bound. Seed the corpus with `../fixtures/gml/*.h5` (the classifiers' files are
//! 800 KB: raise `-max_len` to reach them whole) and Float64 rewrites of them (see `README.md`).
#![no_main]

use geomattn::gml::{GmlFile, load, load_boxed};
use geomattn::{
    ClassificationTransformer, MultiHeadAttention, NoConnection, Schema, StandardTransformerIntegrator, Stiefel,
    Tanh, VolumePreservingFeedForward, VolumePreservingTransformer,
};
use libfuzzer_sys::fuzz_target;

type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
type Vpff = VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>;
type St = StandardTransformerIntegrator<f64, 3, MultiHeadAttention<f64, 3, 1, 3, NoConnection>, 2, 3, Tanh>;
type Mnist = ClassificationTransformer<f32, 49, 7, 7, 16, 10, NoConnection, Stiefel, Tanh>;

fn both<N: Schema<Scalar = f64>>(file: &GmlFile) {
    let _ = load::<N>(file);
    let _ = load_boxed::<N>(file);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = GmlFile::from_bytes(data.to_vec()) {
        let _ = geomattn_networks::inspect::inspect(&file);
        let _ = file.contents();
        both::<Vpt>(&file);
        both::<Vpff>(&file);
        both::<St>(&file);
        let _ = load_boxed::<Mnist>(&file);
    }
});
