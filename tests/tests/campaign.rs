//! The campaign of issue 39: mutated GML files through every reader of the command, counted.
//!
//! Each file is a [`mutation`] of one of the shipped networks: the three rigid-body networks as
//! GML saved them (Float32) and as geomattn writes them in Float64, and the four MNIST
//! classifiers. Each is read by what every subcommand reads it with, under `catch_unwind`:
//! - `inspect`: [`geomattn_networks::inspect::inspect`];
//! - `rollout`, `check`, `export` and `train --init`: [`geomattn_networks::open`] as the network's
//!   architecture, in f64 and f32 (the file's readers are the same for all four);
//! - `classify`: [`geomattn_networks::classify::open`], in f64 and f32.
//!
//! Every outcome must be `Ok` or an error: no panic, no abort, no hang (a watchdog ends the run
//! if no file finishes for 60 s, naming the last one started), no fault (which would end the
//! process: the progress lines name the files done). File `k` depends only on `k` (its seed), so
//! any one is made again with `GEOMATTN_CAMPAIGN_FROM=k GEOMATTN_CAMPAIGN=1`.
//!
//! Not run by `cargo test` (ignored): a million files take about 95 minutes of two cores in
//! release (6 ms a file; the classifiers' files are 800 KB), `GEOMATTN_CAMPAIGN=1000000 cargo test --release -p geomattn-tests --test campaign --
//! --ignored --nocapture`. The guide's reliability section has the last campaign's figures. The
//! seeded mutation test of the loader (`gml_mutation.rs`) runs in every `cargo test`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use geomattn::gml::{GmlFile, Storage, load_file, to_bytes};
use geomattn::{
    MultiHeadAttention, NoConnection, StandardTransformerIntegrator, Tanh,
    VolumePreservingFeedForward, VolumePreservingTransformer,
};
use geomattn_networks::{Arch, Precision};
use geomattn_testkit::fixture;
use geomattn_testkit::hdf5_mutation::{Block, blocks, mutation, panic_message};
use geomattn_testkit::seeded::XorShift;
use rayon::prelude::*;

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
const VPFF: &str = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";
const ST: &str =
    "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)";
const CT: &str = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
                  Stiefel=true, add_connection=false)";
const CT_DENSE: &str = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, \
                        L=16, Stiefel=false, add_connection=false)";

/// A network the campaign mutates: its bytes, their checksummed structures, its architecture, and
/// whether it is a classifier.
struct Subject {
    name: String,
    bytes: Vec<u8>,
    blocks: Vec<Block>,
    arch: Arch,
    classifier: bool,
}

fn subject(name: impl Into<String>, bytes: Vec<u8>, arch: &str, classifier: bool) -> Subject {
    let blocks = blocks(&bytes);
    assert!(!blocks.is_empty());
    Subject {
        name: name.into(),
        bytes,
        blocks,
        arch: arch.parse().unwrap(),
        classifier,
    }
}

/// The three rigid-body networks, as GML saved them and in Float64.
fn rigid_body() -> Vec<Subject> {
    let read = |name: &str| std::fs::read(fixture(name)).unwrap();
    let float64 = |name: &str| -> Vec<u8> {
        let path = fixture(name);
        match name {
            "transformer_rigid_body_nn_vpt.h5" => to_bytes(
                &load_file::<VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>>(path).unwrap(),
                Storage::Float64,
            ),
            "transformer_rigid_body_nn_vpff.h5" => to_bytes(
                &load_file::<VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>>(path).unwrap(),
                Storage::Float64,
            ),
            _ => to_bytes(
                &load_file::<
                    StandardTransformerIntegrator<
                        f64,
                        3,
                        MultiHeadAttention<f64, 3, 1, 3, NoConnection>,
                        2,
                        3,
                        Tanh,
                    >,
                >(path)
                .unwrap(),
                Storage::Float64,
            ),
        }
        .unwrap()
    };
    let mut subjects = Vec::new();
    for (name, arch) in [
        ("transformer_rigid_body_nn_vpt.h5", VPT),
        ("transformer_rigid_body_nn_vpff.h5", VPFF),
        ("transformer_rigid_body_nn_st.h5", ST),
    ] {
        subjects.push(subject(name, read(name), arch, false));
        subjects.push(subject(
            format!("{name} (Float64)"),
            float64(name),
            arch,
            false,
        ));
    }
    subjects
}

/// The four MNIST classifiers (finding their structures takes seconds: they are 800 KB each).
fn classifiers() -> Vec<Subject> {
    let read = |name: &str| std::fs::read(fixture(name)).unwrap();
    let mut subjects = vec![subject(
        "mnist_nn1.h5",
        read("mnist_nn1.h5"),
        CT_DENSE,
        true,
    )];
    for name in ["mnist_nn2.h5", "mnist_nn3.h5", "mnist_nn4.h5"] {
        subjects.push(subject(name, read(name), CT, true));
    }
    subjects
}

/// Reads `bytes` with every reader of the command: `Ok` whatever each concluded, `Err` with the
/// message of a panic.
fn read_everywhere(subject: &Subject, bytes: Vec<u8>) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        let Ok(file) = GmlFile::from_bytes(bytes) else {
            return;
        };
        let _ = geomattn_networks::inspect::inspect(&file);
        for precision in [Precision::F64, Precision::F32] {
            if subject.classifier {
                let _ = geomattn_networks::classify::open(&file, &subject.arch, precision);
            } else {
                let _ = geomattn_networks::open(&file, &subject.arch, precision);
            }
        }
    }))
    .map_err(|payload| panic_message(payload.as_ref()))
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| v.parse().expect(name))
}

/// The mutation of file `k`: which subject, and its bytes.
fn file(subjects: &[Subject], k: usize) -> (usize, String, Vec<u8>) {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ (k as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9));
    let s = k % subjects.len();
    let (what, bytes) = mutation(&subjects[s].bytes, &subjects[s].blocks, &mut rng);
    (s, what, bytes)
}

#[test]
#[ignore = "minutes of two cores: GEOMATTN_CAMPAIGN=N cargo test --release --test campaign -- --ignored"]
fn a_million_mutated_files_through_every_reader() {
    let mut subjects = rigid_body();
    subjects.extend(classifiers());
    let (from, count) = (
        env("GEOMATTN_CAMPAIGN_FROM", 0),
        env("GEOMATTN_CAMPAIGN", 1_000_000),
    );
    // Each file's panic is counted, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let done = AtomicUsize::new(0);
    let started = AtomicU64::new(0);
    let panics = Mutex::new(Vec::new());
    let start = Instant::now();
    let watchdog = {
        let (done, started) = (&done, &started);
        move || {
            let mut last = (usize::MAX, Instant::now());
            loop {
                std::thread::sleep(Duration::from_secs(1));
                let now = done.load(Ordering::Relaxed);
                if now >= count {
                    return;
                }
                if now != last.0 {
                    last = (now, Instant::now());
                } else if last.1.elapsed() > Duration::from_secs(60) {
                    eprintln!(
                        "hang: no file finished for 60 s; file {} was the last started",
                        started.load(Ordering::Relaxed)
                    );
                    std::process::abort();
                }
            }
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(watchdog);
        (from..from + count).into_par_iter().for_each(|k| {
            started.store(k as u64, Ordering::Relaxed);
            let (s, what, bytes) = file(&subjects, k);
            if let Err(message) = read_everywhere(&subjects[s], bytes) {
                panics
                    .lock()
                    .unwrap()
                    .push(format!("file {k}, {}, {what}: {message}", subjects[s].name));
            }
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if finished.is_multiple_of(10_000) {
                let panicked = panics.lock().unwrap().len();
                eprintln!(
                    "{finished} files in {:.0?}, {panicked} panics",
                    start.elapsed()
                );
            }
        });
    });
    let _ = std::panic::take_hook();
    let panics = panics.into_inner().unwrap();
    eprintln!(
        "{count} mutated files ({} networks) through inspect, open (f64, f32) and classify's \
         open: {} panics, 0 aborts, 0 hangs, 0 faults, in {:.0?}",
        subjects.len(),
        panics.len(),
        start.elapsed()
    );
    assert!(
        panics.is_empty(),
        "{} panics, e.g.:\n{}",
        panics.len(),
        panics[..panics.len().min(10)].join("\n")
    );
}

/// The campaign's machinery on a few files, in every `cargo test`: every rigid-body subject is
/// read intact, and a mutation depends on its index only.
#[test]
fn the_campaigns_subjects_load_and_its_files_are_reproducible() {
    let subjects = rigid_body();
    assert_eq!(subjects.len(), 6);
    for subject in &subjects {
        let file = GmlFile::from_bytes(subject.bytes.clone()).unwrap();
        assert!(
            !geomattn_networks::inspect::inspect(&file)
                .unwrap()
                .matches
                .is_empty()
        );
        if subject.classifier {
            geomattn_networks::classify::open(&file, &subject.arch, Precision::F64).unwrap();
        } else {
            geomattn_networks::open(&file, &subject.arch, Precision::F64).unwrap();
        }
    }
    for k in [0, 7, 123_456] {
        let (s, what, bytes) = file(&subjects, k);
        assert_eq!(file(&subjects, k), (s, what, bytes.clone()));
        assert_eq!(read_everywhere(&subjects[s], bytes), Ok(()));
    }
}
