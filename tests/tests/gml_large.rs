//! A network larger than a thread's stack loads and runs: GML's MNIST `ClassificationTransformer`
//! (`mnist_nn2.h5`, dim 49, 16 blocks of multi-head attention with 7 Stiefel heads and a ResNet
//! layer, then a 10×49 classification weight) is 1.2 MB in `f64`. Built by value it overflows a
//! 2 MiB stack; [`geomattn::read_boxed`] builds it in place on the heap. Run in debug and in
//! release (`cargo test --release -p geomattn-tests --test integration gml_large::`): the by-value path is the
//! one that overflows in debug, and release must not rely on copies being elided either.

use geomattn::gml::{GmlFile, Layers, LoadError, ReadWeights, load_file_boxed};
use geomattn::nalgebra::{SMatrix, SVector};
use geomattn::{
    MultiHeadAttention, NoConnection, ResNetLayer, Schema, SequenceLayer, Stiefel, Tanh,
    Transformer, read_boxed,
};
use geomattn_testkit::fixture;
use std::sync::OnceLock;

/// The 32 layers of attention and ResNet of the MNIST classifier (`L1 … L32`).
type Body = Transformer<
    MultiHeadAttention<f64, 49, 7, 7, NoConnection, Stiefel>,
    ResNetLayer<f64, 49, Tanh>,
    16,
>;
/// The classification weight `W_c` (`L33/weight`).
type Classifier = SMatrix<f64, 10, 49>;
/// An image cut into 16 patches of 7×7.
type Patches = SMatrix<f64, 49, 16>;

/// The body, onto the heap, and the classification weight, from the file's 33 layers.
fn load_classifier() -> Result<(Box<Body>, Classifier), LoadError> {
    let file = GmlFile::open(fixture("mnist_nn2.h5"))?;
    let mut layers = Layers::new(&file)?;
    let body: Box<Body> = read_boxed(&mut layers)?;
    let classifier = layers.next_layer()?.matrix("weight")?;
    layers.finish()?;
    Ok((body, classifier))
}

/// A deterministic "image": pixel values in [0, 1], patch t = 4·rb + cb, feature 7·ri + ci.
fn image() -> Patches {
    Patches::from_fn(|f, t| {
        let (row, col) = (7 * (t / 4) + f / 7, 7 * (t % 4) + f % 7);
        (((row * 28 + col) * 37) % 256) as f64 / 255.0
    })
}

/// softmax(W_c · last column).
fn classify(body: &Body, classifier: &Classifier, z: &Patches) -> SVector<f64, 10> {
    let out = body.forward(z);
    let logits = classifier * out.column(15);
    let exp = logits.map(|x| (x - logits.max()).exp());
    exp / exp.sum()
}

/// Runs `job` on a thread with a stack of `bytes`.
fn on_stack<R: Send + 'static>(bytes: usize, job: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(job)
        .unwrap()
        .join()
        .unwrap()
}

const TWO_MIB: usize = 2 << 20;

#[test]
fn the_mnist_classifier_loads_and_runs_on_a_2_mib_stack() {
    let probabilities = on_stack(TWO_MIB, || {
        assert!(size_of::<Body>() > 1_000_000, "{}", size_of::<Body>());
        let (body, classifier) = load_classifier().unwrap();
        classify(&body, &classifier, &image())
    });
    assert!(probabilities.iter().all(|p| p.is_finite() && *p >= 0.0));
    assert!((probabilities.sum() - 1.0).abs() < 1e-12);
}

/// In place and by value give the same network (by value on a thread with room for it).
#[test]
fn in_place_and_by_value_agree() {
    let boxed = on_stack(TWO_MIB, || load_classifier().unwrap().0);
    let equal = on_stack(256 << 20, move || {
        let file = GmlFile::open(fixture("mnist_nn2.h5")).unwrap();
        let mut layers = Layers::new(&file).unwrap();
        let by_value = Body::read(&mut layers).unwrap();
        *boxed == by_value
    });
    assert!(equal);
}

/// The file has one layer more than the body: loading the body alone says so.
#[test]
fn the_body_alone_is_one_layer_short_of_the_file() {
    let err = on_stack(TWO_MIB, || {
        load_file_boxed::<Body>(fixture("mnist_nn2.h5")).map(|_| ())
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            LoadError::LayerCount {
                expected: 32,
                found: 33
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the file has 33 layers (`/L1 … /L33`), the architecture has 32"
    );
}

/// Holding a large network for the whole program: leak the box into a `&'static`, here kept in a
/// `static`, read from any thread, with nothing of it ever on a stack.
#[test]
fn a_static_holds_the_network() {
    static NETWORK: OnceLock<(&'static Body, Classifier)> = OnceLock::new();
    let first = on_stack(TWO_MIB, || {
        let (net, classifier) = NETWORK.get_or_init(|| {
            let (body, classifier) = load_classifier().unwrap();
            (Box::leak(body), classifier)
        });
        classify(net, classifier, &image())
    });
    let (net, classifier) = NETWORK.get().unwrap();
    assert_eq!(classify(net, classifier, &image()), first);
}

/// In lanes the body's twin (every weight splatted across the lanes: 8 × 1.2 MB in f64 on
/// AVX-512) is built on the stack once per call, so a network this large runs in lanes on a thread
/// with a large stack; it gives the scalar path's bits on every instruction set.
#[test]
fn the_mnist_body_runs_in_lanes_on_a_large_stack() {
    on_stack(256 << 20, || {
        let (body, _) = load_classifier().unwrap();
        let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(108);
        let images = geomattn_testkit::lanes::batch::<f64>(&mut rng, 9, 49 * 16, 1.0);
        geomattn_testkit::lanes::assert_lanes_equal_scalar::<Body, 49, 16>(&body, &images);
    });
}
