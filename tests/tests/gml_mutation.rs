//! The GML loader on hostile input: seeded mutations of the three rigid-body fixtures, as GML
//! saved them and rewritten in Float64 (bit flips, truncations, overwrites, and sweeps of the
//! checksummed metadata with the checksums re-stamped, so that the mutation gets past the
//! checksum and into the parser), each loaded and inspected (`geomattn inspect`'s reader) under
//! `catch_unwind`, and a sample of the MNIST classifier's through `classify`'s loader: every one
//! must give `Ok` or an error, never a panic. Deterministic (a fixed
//! seed, no clock), a few seconds in debug.
//!
//! The files that found the bugs are committed as regression fixtures in `tests/malformed/` (a
//! dataspace turned to HDF5's NULL class that still lists its dimensions: 121 panics in
//! `SMatrix::from_iterator` before the fix; a dataspace claiming 2^60 elements), and the tests at
//! the end check that each is exactly the documented patch of an in-repo fixture before loading
//! it (re-write them with `GEOMATTN_BLESS=1 cargo test -p geomattn-tests --test integration gml_mutation::`).
//!
//! HDF5 1.10+ metadata (superblock v2/v3, object headers v2 `OHDR`, their continuation chunks
//! `OCHK`, B-tree v2 nodes, fractal heap headers) ends with a Jenkins lookup3 checksum of the
//! bytes before it, which hdf5-pure verifies (feature `checksum`). The structures are found by
//! their signatures, and their extent by where the checksum of the bytes before it is stored.

use std::panic::{AssertUnwindSafe, catch_unwind};

use geomattn::gml::{GmlFile, LoadError, load_boxed};
use geomattn::{
    MultiHeadAttention, NoConnection, Schema, StandardTransformerIntegrator, Tanh,
    VolumePreservingFeedForward, VolumePreservingTransformer,
};
use geomattn_testkit::fixture;
use geomattn_testkit::gml_layout::widened;
use geomattn_testkit::hdf5_mutation::{
    Block, blocks, lookup3, overwrite, panic_message, restamp, restamp_at,
};
use geomattn_testkit::seeded::XorShift;

type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
type Vpff = VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>;
type St = StandardTransformerIntegrator<
    f64,
    3,
    MultiHeadAttention<f64, 3, 1, 3, NoConnection>,
    2,
    3,
    Tanh,
>;

#[test]
fn lookup3_reproduces_the_fixtures_superblock_checksum() {
    // The superblock v2 is 48 bytes: signature, versions and sizes, 4 addresses, checksum.
    let bytes = std::fs::read(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    assert_eq!(bytes[8], 2, "superblock version");
    assert_eq!(lookup3(&bytes[..44]).to_le_bytes(), bytes[44..48]);
    assert_eq!(lookup3(b""), 0xdead_beef);
}

#[test]
fn the_fixtures_metadata_is_found() {
    for (name, at_least) in [
        ("transformer_rigid_body_nn_st.h5", 49),
        ("transformer_rigid_body_nn_vpff.h5", 124),
        ("transformer_rigid_body_nn_vpt.h5", 148),
    ] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let blocks = blocks(&bytes);
        assert!(blocks.len() >= at_least, "{name}: {}", blocks.len());
        assert_eq!(blocks[0].start, 0);
        assert_eq!(blocks[0].end, 48);
    }
}

// ---------------------------------------------------------------------------------------------
// Loading under catch_unwind.

/// Loads `bytes` as the fixture's architecture (alternately by value and in place on the heap):
/// `Err(message)` if that panicked, else whether it loaded.
fn try_load(name: &str, bytes: Vec<u8>, boxed: bool) -> Result<bool, String> {
    fn load<N: Schema<Scalar = f64>>(bytes: Vec<u8>, boxed: bool) -> Result<(), LoadError> {
        let file = GmlFile::from_bytes(bytes)?;
        if boxed {
            load_boxed::<N>(&file).map(drop)
        } else {
            geomattn::gml::load::<N>(&file).map(drop)
        }
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // `inspect` reads every file, whatever its architecture.
        if let Ok(file) = GmlFile::from_bytes(bytes.clone()) {
            let _ = geomattn_networks::inspect::inspect(&file);
        }
        match name.trim_end_matches(FLOAT64) {
            "transformer_rigid_body_nn_st.h5" => load::<St>(bytes, boxed),
            "transformer_rigid_body_nn_vpff.h5" => load::<Vpff>(bytes, boxed),
            _ => load::<Vpt>(bytes, boxed),
        }
    }));
    match outcome {
        Ok(result) => Ok(result.is_ok()),
        Err(payload) => Err(panic_message(payload.as_ref())),
    }
}

const FIXTURES: [&str; 3] = [
    "transformer_rigid_body_nn_st.h5",
    "transformer_rigid_body_nn_vpff.h5",
    "transformer_rigid_body_nn_vpt.h5",
];

/// The suffix of a subject that is a fixture rewritten in Float64 (as GML saves a network
/// trained in Float64, and geomattn's `train --float64`).
const FLOAT64: &str = " (Float64)";

/// The files mutated: the three rigid-body fixtures as GML saved them (Float32), then in Float64.
fn subjects() -> Vec<(String, Vec<u8>)> {
    let gml: Vec<(String, Vec<u8>)> = FIXTURES
        .iter()
        .map(|name| (name.to_string(), std::fs::read(fixture(name)).unwrap()))
        .collect();
    // GML's files first: they keep the seeds (1, 2, 3) they had before the Float64 ones came.
    let float64: Vec<(String, Vec<u8>)> = gml
        .iter()
        .map(|(name, bytes)| (format!("{name}{FLOAT64}"), widened(bytes.clone())))
        .collect();
    gml.into_iter().chain(float64).collect()
}

/// Runs every mutation of `mutations` on every subject, read by the loader and by `inspect`, and
/// fails with the panicking ones.
fn no_panics(mutations: impl Fn(&[u8], &[Block], &mut XorShift, &mut dyn FnMut(String, Vec<u8>))) {
    let mut panics = Vec::new();
    let mut runs = 0;
    for (seed, (name, bytes)) in (1..).zip(subjects()) {
        let name = name.as_str();
        let blocks = blocks(&bytes);
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ seed);
        mutations(&bytes, &blocks, &mut rng, &mut |what, mutated| {
            runs += 1;
            if let Err(message) = try_load(name, mutated, runs % 2 == 0) {
                panics.push(format!("{name}, {what}: {message}"));
            }
        });
    }
    assert!(runs > 0);
    eprintln!("{runs} mutated files loaded, {} panicked", panics.len());
    assert!(
        panics.is_empty(),
        "{} of {runs} mutated files panicked, e.g.:\n{}",
        panics.len(),
        panics[..panics.len().min(10)].join("\n")
    );
}

#[test]
fn the_intact_fixtures_load() {
    for (name, bytes) in subjects() {
        assert_eq!(try_load(&name, bytes.clone(), false), Ok(true), "{name}");
        assert_eq!(try_load(&name, bytes, true), Ok(true), "{name}");
    }
}

/// The MNIST classifier (800 KB, GML's Stiefel heads) under bit flips and overwrites, read by
/// `classify`'s loader and `inspect`: a sample here (its whole sweep is the campaign's,
/// `campaign.rs`).
#[test]
fn the_classifier_under_bit_flips_and_overwrites() {
    let spec = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
                Stiefel=true, add_connection=false)";
    let arch: geomattn_networks::Arch = spec.parse().unwrap();
    let bytes = std::fs::read(fixture("mnist_nn2.h5")).unwrap();
    let blocks = blocks(&bytes);
    let mut rng = XorShift(0x243f_6a88_85a3_08d3);
    let mut panics = Vec::new();
    for k in 0..60 {
        let (what, mutated) = if k % 2 == 0 {
            let mut mutated = bytes.clone();
            let (at, bit) = (rng.below(bytes.len()), rng.below(8));
            mutated[at] ^= 1 << bit;
            restamp_at(&mut mutated, &blocks, at);
            (format!("flipped {at}.{bit}"), mutated)
        } else {
            overwrite(&bytes, &blocks, &mut rng)
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(file) = GmlFile::from_bytes(mutated) else {
                return;
            };
            let _ = geomattn_networks::inspect::inspect(&file);
            let _ =
                geomattn_networks::classify::open(&file, &arch, geomattn_networks::Precision::F32);
        }));
        if let Err(payload) = outcome {
            panics.push(format!("{what}: {}", panic_message(payload.as_ref())));
        }
    }
    assert!(panics.is_empty(), "{panics:?}");
}

/// Whether to run the whole metadata sweep (`GEOMATTN_MUTATION_FULL=1`: every byte of every
/// structure, four values each, about 290 000 loads, minutes) instead of the default sample.
fn full() -> bool {
    std::env::var_os("GEOMATTN_MUTATION_FULL").is_some_and(|v| v == "1")
}

/// Every byte of checksummed structures (signature and checksum excepted) set to another value
/// (0x00, 0xff, 0x02, or its value with the low bit flipped), checksum re-stamped. By default
/// (seconds): every structure but the object headers; and one object header in twelve (chosen by
/// the seed), its first 40 bytes (the header's prefix and its first message, a dataset's
/// dataspace, where the NULL-class panic was) with all four values, the rest with one of them
/// (chosen by the seed). In full, everything.
#[test]
fn metadata_sweep_with_restamped_checksums() {
    let full = full();
    no_panics(|bytes, blocks, rng, run| {
        let pick = rng.below(12);
        let mut header = 0;
        for block in blocks {
            let is_header = bytes[block.start..].starts_with(b"OHDR");
            if is_header {
                header += 1;
                if !full && header % 12 != pick {
                    continue;
                }
            }
            for at in block.start + 4..block.end - 4 {
                let values = [0x00, 0xff, 0x02, bytes[at] ^ 1];
                let values = if full || !is_header || at < block.start + 44 {
                    &values[..]
                } else {
                    let k = rng.below(4);
                    &values[k..=k]
                };
                for &value in values {
                    if value == bytes[at] {
                        continue;
                    }
                    let mut mutated = bytes.to_vec();
                    mutated[at] = value;
                    restamp(&mut mutated, *block);
                    run(format!("byte {at} = {value:#04x}"), mutated);
                }
            }
        }
    });
}

/// Random bit flips (1 … 4 per file) anywhere, half of them re-stamped.
#[test]
fn bit_flips() {
    no_panics(|bytes, blocks, rng, run| {
        for k in 0..400 {
            let mut mutated = bytes.to_vec();
            let mut what = String::from("flipped");
            for _ in 0..=rng.below(4) {
                let (at, bit) = (rng.below(bytes.len()), rng.below(8));
                mutated[at] ^= 1 << bit;
                if k % 2 == 0 {
                    restamp_at(&mut mutated, blocks, at);
                }
                what += &format!(" {at}.{bit}");
            }
            run(what, mutated);
        }
    });
}

/// Cuts at every 97th length, and at the 64 lengths around each structure's end.
#[test]
fn truncations() {
    no_panics(|bytes, blocks, _, run| {
        let mut lengths: Vec<usize> = (0..bytes.len()).step_by(97).collect();
        for block in blocks.iter().take(24) {
            lengths.extend(block.end.saturating_sub(32)..(block.end + 32).min(bytes.len()));
        }
        for keep in lengths {
            run(format!("cut to {keep}"), bytes[..keep].to_vec());
        }
    });
}

#[test]
fn overwrites() {
    no_panics(|bytes, blocks, rng, run| {
        for _ in 0..600 {
            let (what, mutated) = overwrite(bytes, blocks, rng);
            run(what, mutated);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// The mutations that found bugs, kept as regression tests.

/// `name` with `bytes[at] = value` and the checksums over it re-stamped.
fn patched(name: &str, edits: &[(usize, u8)]) -> Vec<u8> {
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    let blocks = blocks(&bytes);
    for &(at, value) in edits {
        bytes[at] = value;
        restamp_at(&mut bytes, &blocks, at);
    }
    bytes
}

/// The committed regression file `tests/malformed/{name}`, checked to be `made` byte for byte (or
/// written from it under `GEOMATTN_BLESS=1`).
fn regression_file(name: &str, made: Vec<u8>) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("malformed")
        .join(name);
    if std::env::var_os("GEOMATTN_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &made).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (write it with GEOMATTN_BLESS=1)", path.display()));
    assert!(
        committed == made,
        "{}: not the documented patch",
        path.display()
    );
    committed
}

fn load_error<N: Schema<Scalar = f64>>(bytes: Vec<u8>) -> LoadError {
    let file = GmlFile::from_bytes(bytes).unwrap();
    let by_value = geomattn::gml::load::<N>(&file).map(drop).unwrap_err();
    let boxed = load_boxed::<N>(&file).map(drop).unwrap_err();
    assert_eq!(by_value.to_string(), boxed.to_string());
    by_value
}

/// The dataspace message (version 2) of a Float32 vector of length 3, as HDF5 writes it: version,
/// rank 1, flags (maximum dimensions present), class 1 (simple), dimension 3, maximum 3.
const VECTOR3_DATASPACE: [u8; 20] = [2, 1, 1, 1, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0];

/// Where the dataspace of a 3-vector starts in `name`, the `index`-th in file order.
fn vector3_dataspace(name: &str, index: usize) -> usize {
    let bytes = std::fs::read(fixture(name)).unwrap();
    (0..bytes.len() - VECTOR3_DATASPACE.len())
        .filter(|&i| bytes[i..].starts_with(&VECTOR3_DATASPACE))
        .nth(index)
        .unwrap()
}

/// The first panics the sweep found (121 in the full sweep, all this one): the class byte of a
/// bias's dataspace set to 2 (NULL), checksum re-stamped. The dataspace keeps its dimension, so the
/// shape `[3]` passes the check, but reading gives no value, and the matrix was built from a short
/// iterator (`SMatrix::from_iterator`: "iterator not long enough").
#[test]
fn regression_null_dataspace_that_keeps_its_dimensions() {
    fn check<N: Schema<Scalar = f64>>(name: &str, at: usize, path: &str) {
        let bytes = std::fs::read(fixture(name)).unwrap();
        assert_eq!(
            bytes[at - 3..at + 17],
            VECTOR3_DATASPACE,
            "{name}: not a dataspace"
        );
        let malformed = format!("null_dataspace_{name}");
        let err = load_error::<N>(regression_file(&malformed, patched(name, &[(at, 2)])));
        assert!(
            matches!(&err, LoadError::ValueCount { path: p, shape, expected: 3, found: 0 }
                if p == path && shape == &[3]),
            "{name}: {err}"
        );
        assert_eq!(
            err.to_string(),
            format!("`{path}` has shape [3] (3 values), but reading it gave 0 values")
        );
    }
    // The bytes the sweep reported (each a dataspace's class byte).
    check::<St>("transformer_rigid_body_nn_st.h5", 7849, "/L6/bias");
    check::<Vpff>("transformer_rigid_body_nn_vpff.h5", 6461, "/L4/bias");
    check::<Vpt>("transformer_rigid_body_nn_vpt.h5", 5694, "/L4/bias");
}

/// A packed vector `S` whose dataspace claims 2^60 elements (dimension and maximum): refused
/// before anything is read or allocated, with the path and the file's size.
#[test]
fn regression_a_shape_of_two_to_the_sixty_is_refused_before_reading() {
    let name = "transformer_rigid_body_nn_vpff.h5";
    let at = vector3_dataspace(name, 0);
    let huge = (1_u64 << 60).to_le_bytes();
    let edits: Vec<(usize, u8)> = (0..8)
        .flat_map(|k| [(at + 4 + k, huge[k]), (at + 12 + k, huge[k])])
        .collect();
    let err = load_error::<Vpff>(regression_file(
        "huge_shape_transformer_rigid_body_nn_vpff.h5",
        patched(name, &edits),
    ));
    assert!(
        matches!(&err, LoadError::TooLarge { path, shape, file_size: 32476 }
            if path == "/L1/weight/S" && shape == &[1 << 60]),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "`/L1/weight/S` has shape [1152921504606846976], which needs more bytes than the whole \
         file holds (32476 bytes)"
    );
}

/// The dataspace (version 2, rank 2, maximum dimensions present, simple) of a `[7, 49]` dataset in
/// HDF5's order: in `mnist_nn2.h5` (GML's `Stiefel = true` classifier) every head's Stiefel `A`.
const STIEFEL_DATASPACE: [u8; 36] = [
    2, 2, 1, 1, // version, rank, flags, class
    7, 0, 0, 0, 0, 0, 0, 0, 49, 0, 0, 0, 0, 0, 0, 0, // the dimensions
    7, 0, 0, 0, 0, 0, 0, 0, 49, 0, 0, 0, 0, 0, 0, 0, // their maxima
];

/// `mnist_nn2.h5` with the first head's Stiefel `A` declaring `[d0, 0]` (dimension and maximum;
/// Julia's shape `0 × d0`), checksums re-stamped.
fn empty_stiefel(d0: u64) -> Vec<u8> {
    let name = "mnist_nn2.h5";
    let bytes = std::fs::read(fixture(name)).unwrap();
    let at = (0..bytes.len() - STIEFEL_DATASPACE.len())
        .find(|&i| bytes[i..].starts_with(&STIEFEL_DATASPACE))
        .unwrap();
    let edits: Vec<(usize, u8)> = (0..8)
        .flat_map(|k| {
            let (d, zero) = (d0.to_le_bytes()[k], 0);
            [
                (at + 4 + k, d),
                (at + 12 + k, zero),
                (at + 20 + k, d),
                (at + 28 + k, zero),
            ]
        })
        .collect();
    patched(name, &edits)
}

fn inspect_error(bytes: Vec<u8>) -> LoadError {
    let file = GmlFile::from_bytes(bytes).unwrap();
    match geomattn_networks::Error::from(geomattn_networks::inspect::inspect(&file).unwrap_err()) {
        geomattn_networks::Error::Unreadable { source, .. } => *source,
        other => panic!("not a load error: {other}"),
    }
}

/// The memory fault of `geomattn inspect` (a SIGSEGV, about 139 KB written past an 8-byte
/// allocation): a Stiefel weight declared `[2^63 + 1, 0]` holds no value, so the product of its
/// dimensions fit the file, but `inspect` formed the `(2^63 + 1)²`-entry Gram matrix `WᵀW`, whose
/// size wrapped to 1 inside nalgebra. The reader now bounds every dimension by the file's size,
/// not only their product, and refuses it before anything is read or allocated.
#[test]
fn regression_a_stiefel_weight_of_two_to_the_sixty_three_columns_is_refused() {
    let huge = (1_u64 << 63) + 1;
    let err = inspect_error(regression_file(
        "huge_empty_stiefel_mnist_nn2.h5",
        empty_stiefel(huge),
    ));
    assert!(
        matches!(&err, LoadError::TooLarge { path, shape, file_size: 797_928 }
            if path == "/L1/PQ/head_1/A" && shape == &[huge, 0]),
        "{err}"
    );
}

/// Its neighbour within the file's size: `[700000, 0]`, Julia's `0 × 700000`, passes the reader
/// (every dimension is below the file's 797 928 bytes), and its Gram matrix would have been
/// 3.9 TB (an abort on allocation). A matrix with more columns than rows has no orthonormal
/// columns: `inspect` says so, and only forms `WᵀW` when `cols ≤ rows` (so `cols² ≤` the values
/// read).
#[test]
fn regression_a_wide_stiefel_weight_is_refused_by_inspect() {
    let err = inspect_error(regression_file(
        "wide_stiefel_mnist_nn2.h5",
        empty_stiefel(700_000),
    ));
    assert!(
        matches!(&err, LoadError::WideStiefel { path, rows: 0, cols: 700_000 }
            if path == "/L1/PQ/head_1/A"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "`/L1/PQ/head_1/A` is a 0×700000 Stiefel matrix: orthonormal columns need at least as \
         many rows as columns"
    );
}
