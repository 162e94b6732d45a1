//! The integration tests of geomattn, one module per concept (exact vectors, structure
//! properties, GML fixtures, the engine against the compile-time networks), in one test binary:
//! `cargo test -p geomattn-tests --test integration <module>` runs one of them.

#[macro_use]
mod twins;

mod backward_mha;
mod batch_lanes;
mod blob_types;
mod cayley;
mod cayley_generated;
mod cayley_lanes;
mod cayley_range;
mod cayley_robust;
mod checked;
mod committed_code;
mod embed;
mod embed_symplectic;
mod engine;
mod engine_backward;
mod engine_classifier;
mod engine_lanes;
mod engine_standard;
mod engine_symplectic;
mod exported;
mod feedforward;
mod float64;
mod gml_f32;
mod gml_fixtures;
mod gml_large;
mod gml_loader;
mod gml_mutation;
mod gml_save;
mod init;
mod inspect;
mod lanewise;
mod lanewise_backward;
mod lanewise_layers;
mod mha;
mod network;
mod orthonormal;
mod packed;
mod public_api;
mod schema;
mod self_attention;
mod softmax;
mod statics;
mod symplectic;
mod symplectic_spec;
mod symplectic_transformer;
mod train;
mod train_spec;
mod train_spec_architectures;
mod vector_functions;
mod vpa;

/// Every file and folder of tests here is compiled: a module of this binary, or a test of its own
/// in the manifest. The manifest turns off Cargo's discovery of tests (`autotests = false`), so a
/// file added without its `mod` line would never run.
#[test]
fn every_test_file_is_compiled() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let modules = include_str!("main.rs");
    let manifest = include_str!("../Cargo.toml");
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let (stem, own_test) = match name.strip_suffix(".rs") {
            Some(stem) => (stem.to_owned(), format!("path = \"tests/{name}\"")),
            None if path.is_dir() => (name.clone(), format!("path = \"tests/{name}/main.rs\"")),
            None => continue,
        };
        if stem == "main" {
            continue;
        }
        assert!(
            modules.contains(&format!("mod {stem};\n")) || manifest.contains(&own_test),
            "tests/tests/{name} is neither a module of tests/tests/main.rs nor a test of its own \
             in tests/Cargo.toml"
        );
    }
}
