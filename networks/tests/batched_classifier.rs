//! The batched classifier (`Classifier::batch_*`, `classify::image_probabilities`) against the
//! image-by-image path, on GML's four MNIST networks and the 300 shipped images: the same labels,
//! probabilities within a bound derived from the measured difference (`classify::batched`'s
//! docs), every batch size and thread split, and bad input refused.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use geomattn_networks::classify::{self, CHUNK, Classifier, Images};
use geomattn_networks::{Arch, Error, Precision};

fn repository(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn images() -> Vec<[u8; 784]> {
    Images::read(repository(
        "fixtures/mnist/mnist-train-300-images.idx3-ubyte",
    ))
    .unwrap()
    .images()
    .to_vec()
}

fn open(k: usize, precision: Precision, add_connection: bool) -> Box<dyn Classifier> {
    let arch: Arch = format!(
        "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
         Stiefel={}, add_connection={add_connection})",
        k != 1
    )
    .parse()
    .unwrap();
    classify::open_file(
        repository(&format!("fixtures/gml/mnist_nn{k}.h5")),
        &arch,
        precision,
    )
    .unwrap()
}

/// The bound on a probability's difference between the two paths: measured at most `4.5e-6` in
/// f32 and `1.4e-14` in f64 (printed by the first test), with a margin of about twenty and
/// seventy.
fn bound(precision: Precision) -> f64 {
    match precision {
        Precision::F32 => 1e-4,
        Precision::F64 => 1e-12,
    }
}

/// `(largest difference of a probability, images whose label differs)` between the batched path
/// and the image-by-image one.
fn compare(net: &dyn Classifier, images: &[[u8; 784]]) -> (f64, usize) {
    let batched = net.batch_image_probabilities(images).unwrap();
    assert_eq!(batched.len(), 10 * images.len());
    let mut worst = 0.0_f64;
    let mut relabelled = 0;
    for (image, fast) in images.iter().zip(batched.chunks_exact(10)) {
        let slow = net.image_probabilities(image).unwrap();
        for (a, b) in fast.iter().zip(&slow) {
            worst = worst.max((a - b).abs());
        }
        relabelled += usize::from(classify::predicted(fast) != classify::predicted(&slow));
    }
    (worst, relabelled)
}

/// GML's four classifiers in `precision`, batched against image by image.
fn batched_probabilities_match_image_by_image(precision: Precision) {
    let images = images();
    for k in 1..=4 {
        let net = open(k, precision, false);
        let (worst, relabelled) = compare(net.as_ref(), &images);
        println!("nn{k} {precision:?}: largest difference {worst:.3e}");
        assert!(worst <= bound(precision), "nn{k} {precision:?}: {worst:e}");
        assert_eq!(relabelled, 0, "nn{k} {precision:?}");
    }
}

// One test per precision, so that the test harness runs them on two threads.
#[test]
fn batched_probabilities_are_the_image_by_image_ones_within_rounding_in_f32() {
    batched_probabilities_match_image_by_image(Precision::F32);
}

#[test]
fn batched_probabilities_are_the_image_by_image_ones_within_rounding_in_f64() {
    batched_probabilities_match_image_by_image(Precision::F64);
}

#[test]
fn add_connection_runs_the_same_on_both_paths() {
    // nn2's weights read as `add_connection = true`: another network, valid all the same.
    let images = images();
    for precision in [Precision::F32, Precision::F64] {
        let net = open(2, precision, true);
        let (worst, relabelled) = compare(net.as_ref(), &images[..40]);
        assert!(worst <= bound(precision), "{precision:?}: {worst:e}");
        assert_eq!(relabelled, 0);
    }
}

#[test]
fn an_images_result_does_not_depend_on_its_batch_or_the_threads() {
    let images = images();
    let net = open(2, Precision::F32, false);
    let alone: Vec<Vec<f64>> = images[..2 * CHUNK + 5]
        .iter()
        .map(|image| {
            net.batch_image_probabilities(std::slice::from_ref(image))
                .unwrap()
        })
        .collect();
    // Batch sizes 0, 1, odd, one lane group and one more, over one chunk, over two.
    for count in [0, 1, 7, 17, CHUNK + 3, 2 * CHUNK + 5] {
        let batch = net.batch_image_probabilities(&images[..count]).unwrap();
        assert_eq!(batch, alone[..count].concat(), "{count} images");
    }
    // More chunks than threads, more threads than chunks.
    for (count, threads) in [(2 * CHUNK + 5, 2), (2 * CHUNK + 5, 3), (3, 4), (0, 2)] {
        let threads = NonZeroUsize::new(threads).unwrap();
        let parallel = classify::image_probabilities(net.as_ref(), &images[..count], threads);
        assert_eq!(
            parallel.unwrap(),
            alone[..count].concat(),
            "{count} on {threads}"
        );
    }
}

/// Sequences, not images, with and without the connection. (Without it, attention averages the
/// values, and after a few blocks of GML's MNIST networks every time step holds the same state:
/// the last block's output no longer depends on its keys. With it, and with sequences whose
/// first and last steps differ, unlike an image's blank corner patches, it does: the last
/// block, which computes the last step alone, is checked there.)
#[test]
fn batched_sequences_match_one_by_one_and_refuse_bad_input() {
    let sequences: Vec<f64> = (0..5 * 784).map(|i| (f64::from(i) * 0.37).sin()).collect();
    for add_connection in [false, true] {
        let net = open(3, Precision::F64, add_connection);
        let batch = net.batch_probabilities(&sequences).unwrap();
        for (sequence, fast) in sequences.chunks_exact(784).zip(batch.chunks_exact(10)) {
            let slow = net.probabilities(sequence).unwrap();
            let worst = fast
                .iter()
                .zip(&slow)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                worst <= bound(Precision::F64),
                "{add_connection}: {worst:e}"
            );
        }
    }
    let net = open(3, Precision::F64, false);
    assert_eq!(net.batch_probabilities(&[]).unwrap(), Vec::<f64>::new());
    match net.batch_probabilities(&sequences[..784 + 1]) {
        Err(Error::Length {
            expected, found, ..
        }) => assert_eq!(
            (expected.as_str(), found),
            ("a multiple of dim·seq = 784", 785)
        ),
        other => panic!("{other:?}"),
    }
    for bad in [f64::NAN, f64::INFINITY] {
        let mut hostile = sequences.clone();
        hostile[784 + 9] = bad;
        let message = net.batch_probabilities(&hostile).unwrap_err().to_string();
        assert!(message.contains("793"), "{message}");
        assert!(matches!(
            net.batch_probabilities(&hostile),
            Err(Error::NonFinite { index: 793, .. })
        ));
    }
}
