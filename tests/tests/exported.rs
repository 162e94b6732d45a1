//! `geomattn export --to rust` writes a module ready to embed: the committed export of the bundled
//! volume-preserving transformer (`tests/exported/vpt_f32.rs`, which the CLI's tests check it
//! reproduces byte for byte) compiles as it is, declares the type the loader reads, and its
//! `static` is the loaded network: the same weights, the same outputs bit for bit.

use geomattn::gml::load_file;
use geomattn::nalgebra::SMatrix;
use geomattn::{SequenceLayer, Tanh, VolumePreservingTransformer, to_blob};
use geomattn_testkit::{fixture, random_matrix};
use rand::SeedableRng;
use rand::rngs::SmallRng;

mod vpt_f32 {
    include!("../exported/vpt_f32.rs");
}

#[test]
fn the_exported_module_is_the_loaded_network() {
    // The declared type is the built-in one (a type mismatch would not compile).
    let exported: &VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh> = &vpt_f32::NETWORK;
    let loaded: vpt_f32::Network = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    // The same weights, bit for bit (the blob is every weight, through the schema).
    assert_eq!(to_blob(exported), to_blob(&loaded));
    let mut rng = SmallRng::seed_from_u64(10);
    for _ in 0..100 {
        #[allow(clippy::cast_possible_truncation)]
        let z: SMatrix<f32, 3, 3> = random_matrix::<3, 3>(&mut rng).map(|x| x as f32);
        let (a, b) = (exported.forward(&z), loaded.forward(&z));
        assert!(
            a.iter()
                .zip(b.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{z}"
        );
    }
}
