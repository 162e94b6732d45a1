//! `geomattn export` as a user runs it: the Rust module of the bundled volume-preserving
//! transformer is the committed `tests/exported/vpt_f32.rs` byte for byte (which
//! `tests/tests/exported.rs` compiles and runs); the blob reads back into the network the loader
//! reads, bit for bit; a classifier exports in both formats; bad input is one line, exit code 2,
//! and no file.
//!
//! After a deliberate change of the module, re-bless it with
//! `GEOMATTN_BLESS=1 cargo test -p geomattn-cli --test export`.

mod common;

use common::geomattn_in;
use std::path::{Path, PathBuf};
use std::process::Output;

use geomattn::gml::load_file;
use geomattn::nalgebra::{RealField, SMatrix};
use geomattn::{
    BlobScalar, Field, GmlCompatible, SequenceLayer, SymmetricA, SymplecticTransformer, Tanh,
    UpdateQ, VectorSoftmax, VolumePreservingTransformer, read_blob, to_blob,
};
use geomattn_testkit::{fixture, random_matrix};
use rand::SeedableRng;
use rand::rngs::SmallRng;

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
/// The bundled file, as the committed module names it (relative to the repository).
const VPT_FILE: &str = "fixtures/gml/transformer_rigid_body_nn_vpt.h5";

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Runs `geomattn export … -o OUT` in the repository and returns the bytes written.
fn export(args: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out");
    let mut args = args.to_vec();
    args.extend(["-o", target.to_str().unwrap()]);
    let out = geomattn_in(&repository(), &args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    std::fs::read(&target).unwrap()
}

/// `module` is the committed `tests/exported/{name}` (written there under `GEOMATTN_BLESS=1`).
fn committed(name: &str, module: &[u8]) {
    let committed = repository().join("tests/exported").join(name);
    if std::env::var_os("GEOMATTN_BLESS").is_some() {
        std::fs::write(&committed, module).unwrap();
    }
    let expected = std::fs::read(&committed).unwrap();
    assert!(
        module == expected,
        "tests/exported/{name} is not what `geomattn export` writes; re-bless with \
         GEOMATTN_BLESS=1 if the change is deliberate"
    );
}

/// The symplectic transformer of `tests/fixtures` (GML's `symmetric = true` kick), and its spec.
const SYMPT_FILE: &str = "tests/fixtures/symplectic_transformer.h5";
const SYMPT: &str = "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, \
                     L=1, sympnet_activation=tanh, attention_activation=VectorSoftmax, \
                     init_upper=true, symmetric=true, kick=gml)";

/// Its type, as the Rust module names it.
type Sympt = SymplecticTransformer<
    f64,
    2,
    4,
    2,
    1,
    Tanh,
    VectorSoftmax,
    SymmetricA<f64, 2, GmlCompatible>,
    UpdateQ,
>;

#[test]
fn export_of_a_symplectic_transformer_is_a_rust_module_or_the_blob_of_its_type() {
    let module = export(&["export", SYMPT_FILE, "--arch", SYMPT, "--to", "rust"]);
    committed("symplectic_f64.rs", &module);
    let bytes = export(&["export", SYMPT_FILE, "--arch", SYMPT, "--to", "blob"]);
    let exported: Sympt = read_blob(&bytes).unwrap();
    let loaded: Sympt = load_file(repository().join(SYMPT_FILE)).unwrap();
    assert!(to_blob(&loaded).unwrap() == bytes);
    assert!(to_blob(&exported).unwrap() == bytes);
}

/// A classification transformer at a size of its own (Glorot weights, seeded, written as GML
/// lays it out): the Rust module declares the classifier's type, and the blob reads into it.
#[test]
fn export_of_a_classifier_is_a_rust_module_or_the_blob_of_its_type() {
    use geomattn::gml::{GmlWriter, Storage};
    use geomattn::{ClassificationTransformer, Euclidean, NoConnection};
    type Ct = ClassificationTransformer<f64, 6, 3, 2, 2, 4, NoConnection, Euclidean, Tanh>;
    let net: Ct = geomattn::glorot_network(&mut SmallRng::seed_from_u64(5)).unwrap();
    let mut writer = GmlWriter::new(Storage::Float64);
    writer.write(&net).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ct.h5");
    std::fs::write(&file, writer.finish().unwrap()).unwrap();
    let file = file.to_str().unwrap();
    let spec = "classification_transformer(dim=6, seq=5, classes=4, n_heads=3, L=2, \
                Stiefel=false, add_connection=false)";
    let module = export(&["export", file, "--arch", spec, "--to", "rust"]);
    let module = String::from_utf8(module).unwrap();
    assert!(
        module.contains(
            "pub type Network = geomattn::Classifier<\n    geomattn::Transformer<\n        \
             geomattn::MultiHeadAttention<f64, 6, 3, 2, geomattn::NoConnection>,\n        \
             geomattn::ResNetLayer<f64, 6, geomattn::Tanh>,\n        2,\n    >,\n    \
             geomattn::ClassificationLayer<f64, 6, 4>,\n>;"
        ),
        "{module}"
    );
    let bytes = export(&["export", file, "--arch", spec, "--to", "blob"]);
    let exported: Ct = read_blob(&bytes).unwrap();
    assert!(to_blob(&exported).unwrap() == to_blob(&net).unwrap());
}

#[test]
fn export_to_rust_reproduces_the_committed_module() {
    let module = export(&["export", VPT_FILE, "--arch", VPT, "--to", "rust", "--f32"]);
    committed("vpt_f32.rs", &module);
    let text = String::from_utf8(module).unwrap();
    assert!(text.starts_with(&format!(
        "// Generated by `geomattn export` from `{VPT_FILE}`:\n\
         //     geomattn export {VPT_FILE} --arch \"{VPT}\" --to rust --f32\n"
    )));
    assert!(!text.contains("include_bytes"));
}

/// Every scalar of `a` and `b` (3×3 windows) has the same bits.
fn same_bits<S: BlobScalar + Copy>(a: &SMatrix<S, 3, 3>, b: &SMatrix<S, 3, 3>) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| {
        let (mut bx, mut by) = ([0; 8], [0; 8]);
        x.put(&mut bx[..usize::from(S::WIDTH)]);
        y.put(&mut by[..usize::from(S::WIDTH)]);
        bx == by
    })
}

fn blob_reads_back_as_the_loaded_network<S>(flag: &str, from: fn(f64) -> S)
where
    S: RealField + Field + BlobScalar + Copy,
{
    let bytes = export(&["export", VPT_FILE, "--arch", VPT, "--to", "blob", flag]);
    let exported: Vpt<S> = read_blob(&bytes).unwrap();
    let loaded: Vpt<S> = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    // The same weights, bit for bit (the blob is every weight, through the schema).
    assert!(to_blob(&loaded).unwrap() == bytes);
    let mut rng = SmallRng::seed_from_u64(10);
    for _ in 0..50 {
        let z: SMatrix<S, 3, 3> = random_matrix::<3, 3>(&mut rng).map(from);
        assert!(same_bits(&exported.forward(&z), &loaded.forward(&z)));
    }
}

#[test]
fn export_to_blob_reads_back_as_the_loaded_network_in_f32_and_f64() {
    #[allow(clippy::cast_possible_truncation)]
    blob_reads_back_as_the_loaded_network::<f32>("--f32", |x| x as f32);
    blob_reads_back_as_the_loaded_network::<f64>("--f64", |x| x);
    // f64 is the default.
    assert_eq!(
        export(&["export", VPT_FILE, "--arch", VPT, "--to", "blob"]),
        export(&["export", VPT_FILE, "--arch", VPT, "--to", "blob", "--f64"])
    );
}

/// Runs a bad export in a fresh directory, writing `out` there (or `out` as given if absolute):
/// exit code 2, one line on stderr containing `needle`, nothing on stdout, no file left behind.
fn refused(args: &[&str], out: &str, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let vpt = fixture("transformer_rigid_body_nn_vpt.h5");
    let mut all = vec!["export", vpt.to_str().unwrap()];
    all.extend(args);
    all.extend(["-o", out]);
    let output = geomattn_in(dir.path(), &all);
    let error = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{all:?}: {error}");
    assert_eq!(error.lines().count(), 1, "{all:?}: {error}");
    assert!(
        error.starts_with("error: ") && error.contains(needle),
        "{all:?}: {error}"
    );
    assert!(output.stdout.is_empty());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{all:?} left {left:?}");
}

#[test]
fn bad_exports_are_one_line_exit_code_2_and_no_file() {
    let vpff = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";
    let l5 = VPT.replace("L=3", "L=5");
    let dim5 = VPT.replace("dim=3", "dim=5");
    let init_upper = "VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3, init_upper = true)";
    let cases: [(&[&str], &str, &str); 9] = [
        (
            &["--arch", VPT, "--to", "png"],
            "out",
            "`png` is not an export format",
        ),
        // Any L exports: this one is refused as not the file's.
        (
            &["--arch", &l5, "--to", "blob"],
            "out",
            "the file has 33 layers",
        ),
        (
            &["--arch", &l5, "--to", "rust"],
            "out.rs",
            "the file has 33 layers",
        ),
        // Any size exports: both formats read the file as the spec first (on the run-time
        // engine), and this file is not that network.
        (
            &["--arch", &dim5, "--to", "rust"],
            "out.rs",
            "`/L1/A` is 3×3 in the file",
        ),
        (
            &["--arch", &dim5, "--to", "blob"],
            "out",
            "`/L1/A` is 3×3 in the file",
        ),
        // An option no compile-time type has: no type to read a blob into.
        (
            &["--arch", init_upper, "--to", "blob"],
            "out",
            "has no compile-time type",
        ),
        (
            &["--arch", vpff, "--to", "blob"],
            "out",
            "does not load as vpff",
        ),
        (
            &["--arch", vpff, "--to", "rust", "--f32"],
            "out.rs",
            "does not load as vpff",
        ),
        (
            &["--arch", VPT, "--to", "rust"],
            "no-such-dir/out.rs",
            "cannot write `no-such-dir/out.rs`",
        ),
    ];
    for (args, out, needle) in cases {
        refused(args, out, needle);
    }
    refused(
        &["--arch", VPT, "--to", "blob"],
        "no-such-dir/out",
        "cannot write `no-such-dir/out`",
    );
}

#[test]
fn help_lists_export_and_its_formats() {
    let out = geomattn_in(&repository(), &["--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("export"), "{help}");
    let out = geomattn_in(&repository(), &["export", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    for word in [
        "--to <blob|rust>",
        "--f32",
        "--f64",
        "--out <OUT>",
        "--arch <SPEC>",
    ] {
        assert!(help.contains(word), "{word}: {help}");
    }
}

#[cfg(unix)]
#[test]
fn the_output_has_the_mode_of_a_plain_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"").unwrap();
    let vpt = fixture("transformer_rigid_body_nn_vpt.h5");
    let args = [
        "export",
        vpt.to_str().unwrap(),
        "--arch",
        VPT,
        "--to",
        "blob",
        "-o",
        "out",
    ];
    assert_eq!(geomattn_in(dir.path(), &args).status.code(), Some(0));
    let mode = |name: &str| {
        let metadata = std::fs::metadata(dir.path().join(name)).unwrap();
        metadata.permissions().mode()
    };
    assert_eq!(mode("out"), mode("plain"));
}
