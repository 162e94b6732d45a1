//! `geomattn export --to rust` writes a module ready to embed: the committed export of the bundled
//! volume-preserving transformer (`tests/exported/vpt_f32.rs`, which the CLI's tests check it
//! reproduces byte for byte) compiles as it is, declares the type the loader reads, and its
//! `static` is the loaded network: the same weights, the same outputs bit for bit. The same for
//! the export of a symplectic transformer (`tests/exported/symplectic_f64.rs`).

use geomattn::gml::load_file;
use geomattn::nalgebra::SMatrix;
use geomattn::{SequenceLayer, Tanh, VolumePreservingTransformer, to_blob};
use geomattn_testkit::{fixture, random_matrix};
use rand::SeedableRng;
use rand::rngs::SmallRng;

mod vpt_f32 {
    include!("../exported/vpt_f32.rs");
}

mod symplectic_f64 {
    include!("../exported/symplectic_f64.rs");
}

/// The exported symplectic transformer (`geomattn export tests/fixtures/symplectic_transformer.h5
/// --arch "symplectic_transformer(…, symmetric=true, kick=gml)" --to rust`) is the loaded one.
#[test]
fn the_exported_symplectic_transformer_is_the_loaded_network() {
    use geomattn::{GmlCompatible, SymmetricA, SymplecticTransformer, VectorSoftmax};
    type Declared = SymplecticTransformer<
        f64,
        2,
        4,
        2,
        1,
        Tanh,
        VectorSoftmax,
        SymmetricA<f64, 2, GmlCompatible>,
    >;
    let exported: &Declared = &symplectic_f64::NETWORK;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/symplectic_transformer.h5"
    );
    let loaded: Declared = load_file(path).unwrap();
    assert_eq!(*exported, loaded);
    let mut rng = SmallRng::seed_from_u64(12);
    for _ in 0..10 {
        let z: SMatrix<f64, 4, 3> = random_matrix::<4, 3>(&mut rng);
        assert_eq!(exported.forward(&z), loaded.forward(&z));
    }
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
