//! GML files stored in Float64 (a network trained with `Float64` weights): every reader takes
//! them, into either scalar. Float32 values are widened exactly; Float64 values go into an `f64`
//! network as they are and into an `f32` network rounded once to nearest.
//!
//! - GML's fixtures rewritten in Float64 (the same numbers) load as the same networks.
//! - Symplectic and linear symplectic transformers with genuine Float64 weights match
//!   `geomattn_testkit::gml_reference` (CONVENTIONS.md's formulas on `DMatrix`, nothing of the
//!   runtime's layers) to 1e-12.
//! - The edges: a Float64 value beyond `f32`'s range is an error for an `f32` network and a
//!   number for an `f64` one; NaN, and integer weights, are refused naming the dataset.

use geomattn::gml::{GmlFile, LoadError, load, load_boxed};
use geomattn::nalgebra::{DMatrix, RealField, SMatrix};
use geomattn::{BlobScalar, Euclidean};
use geomattn::{
    ClassificationTransformer, GmlCompatible, LinearSymplecticTransformer, MatrixSoftmax,
    NoConnection, Schema, SequenceLayer, Stiefel, SymmetricA, SymplecticTransformer, Tanh,
    VectorSoftmax, to_blob,
};
use geomattn::{MultiHeadAttention, StandardTransformerIntegrator};
use geomattn::{VolumePreservingFeedForward, VolumePreservingTransformer};
use geomattn_networks::inspect::inspect;
use geomattn_testkit::fixture;
use geomattn_testkit::gml_layout::{Layer, Stored, chain, to_bytes, uniform64, widened};
use geomattn_testkit::gml_reference::{self, Softmax};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, NoConnection>, 2, 3, Tanh>;
type Mnist<S, Proj> = ClassificationTransformer<S, 49, 7, 7, 16, 10, NoConnection, Proj, Tanh>;

/// Phase space R⁴ (n = 2), 4 hidden units (GML's `upscaling_dimension = 8`), n_sympnet = 2,
/// L = 2, windows of 3.
const N: usize = 2;
const T: usize = 3;
const HIDDEN: usize = 4;
type Sympt<S, Softmax> =
    SymplecticTransformer<S, N, HIDDEN, 2, 2, Tanh, Softmax, SymmetricA<S, N, GmlCompatible>>;
type LinSympt<S> = LinearSymplecticTransformer<S, N, T, HIDDEN, 2, 2, Tanh>;

fn open(bytes: Vec<u8>) -> GmlFile {
    GmlFile::from_bytes(bytes).unwrap()
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// `name` loaded as `Net` from GML's Float32 file and from its Float64 rewrite: the same weights,
/// bit for bit (compared as the networks' blobs, which hold every weight).
fn same_from_both<Net>(name: &str)
where
    Net: Schema<Scalar: RealField + BlobScalar>,
{
    let single: Box<Net> = load_boxed(&open(fixture_bytes(name))).unwrap();
    let double: Box<Net> = load_boxed(&open(widened(fixture_bytes(name)))).unwrap();
    assert!(
        to_blob(&*single).unwrap() == to_blob(&*double).unwrap(),
        "{name}"
    );
}

#[test]
fn gmls_fixtures_rewritten_in_float64_load_as_the_same_networks() {
    // Every kind of parameter GML writes: dense, skew-symmetric, lower and upper triangular,
    // vectors (the VPT and VPFF), multi-head projections (the ST), Stiefel heads (MNIST).
    same_from_both::<Vpt<f64>>("transformer_rigid_body_nn_vpt.h5");
    same_from_both::<Vpt<f32>>("transformer_rigid_body_nn_vpt.h5");
    same_from_both::<Vpff<f64>>("transformer_rigid_body_nn_vpff.h5");
    same_from_both::<St<f32>>("transformer_rigid_body_nn_st.h5");
    same_from_both::<Mnist<f32, Stiefel>>("mnist_nn2.h5");
    same_from_both::<Mnist<f64, Euclidean>>("mnist_nn1.h5");
}

#[test]
fn inspect_names_each_parameters_storage() {
    for (bytes, storage) in [
        (fixture_bytes("transformer_rigid_body_nn_vpt.h5"), "Float32"),
        (
            widened(fixture_bytes("transformer_rigid_body_nn_vpt.h5")),
            "Float64",
        ),
    ] {
        let inspection = inspect(&open(bytes)).unwrap();
        let parameters: Vec<_> = inspection
            .layers
            .iter()
            .flat_map(|layer| &layer.parameters)
            .collect();
        // Dense `A`, packed triangular `weight`s and `bias` vectors.
        assert!(parameters.len() > 33);
        assert!(
            parameters.iter().all(|p| p.storage == storage),
            "{parameters:?}"
        );
        assert_eq!(
            inspection.matches[0].spec,
            "vpt(dim=3, seq=?, n_blocks=2, n_linear=1, L=3, activation=?, skew_sym=false)"
        );
    }
}

fn symmetric_layers(seed: u64) -> Vec<Layer<f64>> {
    chain(
        &mut SmallRng::seed_from_u64(seed),
        (2, 2, N, HIDDEN),
        |rng| Layer::Symmetric(uniform64(rng, N * (N + 1) / 2), N),
    )
}

fn linear_layers(seed: u64) -> Vec<Layer<f64>> {
    chain(
        &mut SmallRng::seed_from_u64(seed),
        (2, 2, N, HIDDEN),
        |rng| Layer::Symmetric(uniform64(rng, T * (T + 1) / 2), T),
    )
}

/// The layers with every value rounded to Float32, as GML would have written them in Float32.
fn rounded(layers: &[Layer<f64>]) -> Vec<Layer<f32>> {
    let round = |v: &Vec<f64>| {
        v.iter()
            .map(|&x| <f32 as Stored>::from_f64(x))
            .collect::<Vec<f32>>()
    };
    layers
        .iter()
        .map(|layer| match layer {
            Layer::Symmetric(s, n) => Layer::Symmetric(round(s), *n),
            Layer::Gradient(k, b, a) => Layer::Gradient(round(k), round(b), round(a)),
            other => unreachable!("{other:?}"),
        })
        .collect()
}

/// `‖a − b‖_max ≤ 1e-12 · max(1, ‖b‖_max)`.
fn close(a: &DMatrix<f64>, b: &DMatrix<f64>) -> bool {
    (a - b).amax() <= 1e-12 * b.amax().max(1.0)
}

#[test]
fn float64_symplectic_transformers_match_the_reference_to_1e_12() {
    let mut rng = SmallRng::seed_from_u64(7);
    for seed in 1..=4 {
        let layers = symmetric_layers(seed);
        let file = open(to_bytes(&layers));
        let matrix: Sympt<f64, MatrixSoftmax> = load(&file).unwrap();
        let vector: Sympt<f64, VectorSoftmax> = load(&file).unwrap();
        let linear_layers = linear_layers(seed);
        let linear: LinSympt<f64> = load(&open(to_bytes(&linear_layers))).unwrap();
        for amplitude in [0.1, 1.0, 10.0] {
            let z: SMatrix<f64, 4, T> = random_matrix::<4, T>(&mut rng) * amplitude;
            let window = DMatrix::from_column_slice(4, T, z.as_slice());
            let cases = [
                (
                    matrix.forward(&z),
                    gml_reference::chain(&layers, &window, Softmax::Matrix),
                ),
                (
                    vector.forward(&z),
                    gml_reference::chain(&layers, &window, Softmax::Vector),
                ),
                (
                    linear.forward(&z),
                    gml_reference::chain(&linear_layers, &window, Softmax::Matrix),
                ),
            ];
            for (k, (ours, expected)) in cases.into_iter().enumerate() {
                let ours = DMatrix::from_column_slice(4, T, ours.as_slice());
                assert!(
                    close(&ours, &expected),
                    "case {k}, seed {seed}, amplitude {amplitude}:\n{ours}{expected}"
                );
            }
        }
    }
}

/// The reference is sharp: one weight moved by one unit in the last place of its Float64 value
/// is seen (the Float32 value nearest to it is not the file's value).
#[test]
fn the_reference_tells_a_float64_weight_from_its_float32_rounding() {
    let layers = symmetric_layers(1);
    let double: Sympt<f64, MatrixSoftmax> = load(&open(to_bytes(&layers))).unwrap();
    let single_values: Sympt<f64, MatrixSoftmax> =
        load(&open(to_bytes(&rounded(&layers)))).unwrap();
    let z = random_matrix::<4, T>(&mut SmallRng::seed_from_u64(3));
    let expected = gml_reference::chain(
        &layers,
        &DMatrix::from_column_slice(4, T, z.as_slice()),
        Softmax::Matrix,
    );
    let as_matrix = |m: SMatrix<f64, 4, T>| DMatrix::from_column_slice(4, T, m.as_slice());
    assert!(close(&as_matrix(double.forward(&z)), &expected));
    let gap = (as_matrix(single_values.forward(&z)) - &expected).amax();
    assert!(
        gap > 1e-9,
        "Float32 weights are {gap} from the Float64 reference"
    );
}

#[test]
fn a_float64_file_into_f32_rounds_each_value_once() {
    let layers = symmetric_layers(2);
    let from_double: Sympt<f32, MatrixSoftmax> = load(&open(to_bytes(&layers))).unwrap();
    let from_single: Sympt<f32, MatrixSoftmax> = load(&open(to_bytes(&rounded(&layers)))).unwrap();
    assert!(from_double == from_single);
    let linear = linear_layers(2);
    let from_double: LinSympt<f32> = load(&open(to_bytes(&linear))).unwrap();
    let from_single: LinSympt<f32> = load(&open(to_bytes(&rounded(&linear)))).unwrap();
    assert!(from_double == from_single);
}

// --- The edges --------------------------------------------------------------------------------

/// The linear transformer's layers with `value` as the first packed value of the first attention.
fn with_first_value(value: f64) -> Vec<u8> {
    let mut layers = linear_layers(5);
    let Layer::Symmetric(packed, _) = &mut layers[0] else {
        unreachable!()
    };
    packed[0] = value;
    to_bytes(&layers)
}

#[test]
fn a_float64_value_beyond_f32_is_an_error_for_f32_and_a_number_for_f64() {
    // The largest Float32, and what rounds to it (within half its unit in the last place, 2¹⁰³).
    let largest = f64::from(f32::MAX);
    for value in [largest, -largest, largest + 2.0_f64.powi(102)] {
        assert!(
            load::<LinSympt<f32>>(&open(with_first_value(value))).is_ok(),
            "{value:e}"
        );
    }
    for value in [1e39, -1e39, 3.5e38, f64::MAX] {
        let bytes = with_first_value(value);
        match load::<LinSympt<f32>>(&open(bytes.clone())) {
            Err(LoadError::OutOfRange {
                path,
                index,
                value: found,
            }) => {
                assert_eq!((path.as_str(), index, found), ("/L1/A/S", 0, value));
            }
            other => panic!("{value:e}: {other:?}"),
        }
        let message = load::<LinSympt<f32>>(&open(bytes.clone()))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("/L1/A/S") && message.contains("beyond the range"),
            "{message}"
        );
        assert!(load::<LinSympt<f64>>(&open(bytes)).is_ok());
    }
}

#[test]
fn non_finite_and_integer_weights_are_refused_naming_the_dataset() {
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = load::<LinSympt<f64>>(&open(with_first_value(value))).unwrap_err();
        assert!(
            matches!(&err, LoadError::NonFinite { path, index: 0 } if path == "/L1/A/S"),
            "{err:?}"
        );
    }
    // A weight of integers: the message names both types GML writes.
    let mut file = hdf5_pure::FileBuilder::new();
    let mut group = file.create_group("L1");
    let mut a = group.create_group("A");
    a.set_attr(
        "gml_type",
        hdf5_pure::AttrValue::AsciiString("SymmetricMatrix".into()),
    );
    a.create_dataset("S").with_i64_data(&[1, 2, 3, 4, 5, 6]);
    a.create_dataset("n").with_i64_data(&[3]).with_shape(&[]);
    group.add_group(a.finish());
    file.add_group(group.finish());
    let err =
        load::<geomattn::LinearSymplecticAttentionQ<f64, 1, 3>>(&open(file.finish().unwrap()))
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`/L1/A/S` holds Int64, expected Float32 or Float64"
    );
}
