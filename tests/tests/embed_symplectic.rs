//! `embed_gml!` of the phase-space networks: symplectic transformers (symmetric and dense `A`), a
//! linear symplectic transformer and a classifier, each written in GML's layout by the generator
//! below (GML 0.4.8's fixtures have none), embedded at compile time, are the networks the loader
//! reads at run time: equal weights, bit-equal outputs. One file is stored in Float64 (a network
//! GML trained in Float64): embedded as `f64` it keeps every bit, as `f32` it is rounded once,
//! as the loader rounds it.
//! `GEOMATTN_BLESS=1 cargo test -p geomattn-tests --test integration embed_symplectic::` rewrites the files.

use std::path::PathBuf;

use geomattn::gml::load_file;
use geomattn::nalgebra::SMatrix;
use geomattn::{
    ClassificationLayer, Classifier, DenseA, GmlCompatible, LinearSymplecticTransformer,
    ResNetLayer, SequenceLayer, SymmetricA, SymplecticTransformer, Tanh, UpdateP, VectorSoftmax,
};
use geomattn_testkit::gml_layout::{Layer, chain, to_bytes, uniform, uniform64};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Phase space R⁴, 4 hidden units, n_sympnet = 2, L = 1; GML's `symmetric = true` kick.
type Symmetric =
    SymplecticTransformer<f64, 2, 4, 2, 1, Tanh, VectorSoftmax, SymmetricA<f64, 2, GmlCompatible>>;
/// [`Symmetric`] in `f32`.
type Symmetric32 =
    SymplecticTransformer<f32, 2, 4, 2, 1, Tanh, VectorSoftmax, SymmetricA<f32, 2, GmlCompatible>>;
/// Phase space R², 2 hidden units, n_sympnet = 1, L = 2, `init_upper = false`.
type Dense = SymplecticTransformer<f32, 1, 2, 1, 2, Tanh, VectorSoftmax, DenseA<f32, 1>, UpdateP>;
/// Phase space R², windows of 3, 2 hidden units, n_sympnet = 1, L = 1.
type Linear = LinearSymplecticTransformer<f32, 1, 3, 2, 1, 1, Tanh, UpdateP>;
/// A ResNet layer of R² and a classification layer of 3 classes.
type Small = Classifier<ResNetLayer<f64, 2, Tanh>, ClassificationLayer<f64, 2, 3>>;

geomattn::embed_gml!(static SYMMETRIC: Symmetric = "fixtures/symplectic_transformer.h5");
geomattn::embed_gml!(static DENSE: Dense = "fixtures/dense_symplectic_transformer.h5");
geomattn::embed_gml!(static LINEAR: Linear = "fixtures/linear_symplectic_transformer.h5");
geomattn::embed_gml!(static CLASSIFIER: Small = "fixtures/classifier.h5");
geomattn::embed_gml!(static DOUBLE: Symmetric = "fixtures/float64_symplectic_transformer.h5");
geomattn::embed_gml!(static DOUBLE32: Symmetric32 = "fixtures/float64_symplectic_transformer.h5");

/// The bytes of the file `name` (seeded by the name's length): for the transformers, the chain of
/// `(L, n_sympnet, n, hidden)` with the attention layers' `A`.
fn generated(name: &str) -> Vec<u8> {
    let mut rng = SmallRng::seed_from_u64(name.len() as u64);
    let layers = match name {
        "symplectic_transformer.h5" => chain(&mut rng, (1, 2, 2, 4), |rng| {
            Layer::Symmetric(uniform(rng, 3), 2)
        }),
        "dense_symplectic_transformer.h5" => chain(&mut rng, (2, 1, 1, 2), |rng| {
            Layer::Dense(uniform(rng, 1), 1)
        }),
        "linear_symplectic_transformer.h5" => chain(&mut rng, (1, 1, 1, 2), |rng| {
            Layer::Symmetric(uniform(rng, 6), 3)
        }),
        "float64_symplectic_transformer.h5" => {
            return to_bytes(&chain(&mut rng, (1, 2, 2, 4), |rng| {
                Layer::Symmetric(uniform64(rng, 3), 2)
            }));
        }
        _ => vec![
            Layer::ResNet(uniform(&mut rng, 4), uniform(&mut rng, 2)),
            Layer::Classification(uniform(&mut rng, 6), 3),
        ],
    };
    to_bytes(&layers)
}

const FILES: [&str; 5] = [
    "symplectic_transformer.h5",
    "dense_symplectic_transformer.h5",
    "linear_symplectic_transformer.h5",
    "classifier.h5",
    "float64_symplectic_transformer.h5",
];

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

#[test]
fn the_committed_files_are_the_generated_ones() {
    for name in FILES {
        let bytes = generated(name);
        if std::env::var_os("GEOMATTN_BLESS").is_some() {
            std::fs::write(path(name), &bytes).unwrap();
        }
        assert!(std::fs::read(path(name)).unwrap() == bytes, "{name}");
    }
}

/// The embedded network equals the loaded one, and so do their outputs on random windows.
/// `scalar` rounds the random `f64` entries to the network's scalar.
fn same<S, Net, const D: usize, const T: usize>(embedded: &Net, name: &str, scalar: fn(f64) -> S)
where
    S: geomattn::Field + Copy + core::fmt::Debug + 'static,
    Net: geomattn::Schema<Scalar: geomattn::nalgebra::RealField>
        + SequenceLayer<S, D, T>
        + PartialEq
        + core::fmt::Debug,
{
    let loaded: Net = load_file(path(name)).unwrap();
    assert_eq!(*embedded, loaded, "{name}");
    let mut rng = SmallRng::seed_from_u64(9);
    for _ in 0..5 {
        let z: SMatrix<S, D, T> = random_matrix::<D, T>(&mut rng).map(scalar);
        assert_eq!(embedded.forward(&z), loaded.forward(&z), "{name}");
    }
}

#[test]
fn embedded_symplectic_transformers_are_the_loaded_ones() {
    #[allow(clippy::cast_possible_truncation)]
    let single = |x: f64| x as f32;
    same::<f64, _, 4, 3>(&SYMMETRIC, FILES[0], |x| x);
    same::<f32, _, 2, 2>(&DENSE, FILES[1], single);
    same::<f32, _, 2, 3>(&LINEAR, FILES[2], single);
}

#[test]
fn an_embedded_float64_file_keeps_every_bit_in_f64_and_rounds_once_in_f32() {
    #[allow(clippy::cast_possible_truncation)]
    let single = |x: f64| x as f32;
    same::<f64, _, 4, 3>(&DOUBLE, FILES[4], |x| x);
    same::<f32, _, 4, 3>(&DOUBLE32, FILES[4], single);
}

#[test]
fn embedded_classifier_is_the_loaded_one() {
    let loaded: Small = load_file(path(FILES[3])).unwrap();
    assert_eq!(CLASSIFIER, loaded);
    let z = SMatrix::<f64, 2, 3>::new(0.5, -1.0, 0.25, 1.0, 0.0, -0.5);
    assert_eq!(CLASSIFIER.probabilities(&z), loaded.probabilities(&z));
    // The file's classification weight, Julia's 3×2 in column-major order.
    let weight =
        SMatrix::<f64, 3, 2>::from_iterator(uniform_after_resnet().into_iter().map(f64::from));
    assert_eq!(*CLASSIFIER.head().weight(), weight);
}

/// The classification weight [`generated`] draws: after the ResNet layer's 4 + 2 values.
fn uniform_after_resnet() -> Vec<f32> {
    let mut rng = SmallRng::seed_from_u64(FILES[3].len() as u64);
    uniform(&mut rng, 6);
    uniform(&mut rng, 6)
}
