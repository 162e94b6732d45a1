//! The symplectic transformers through `geomattn_networks`: a spec loads a file written in GML's
//! layout as the runtime type it names (same outputs, forward and rollout, as the type loaded
//! directly), and `check` measures `‖Jᵀ𝕁J − 𝕁‖_max`: every variant passes except GML's own
//! `symmetric = true` kick with `VectorSoftmax`, which fails its promise by orders of magnitude.

use geomattn::gml::{GmlFile, load};
use geomattn::nalgebra::SMatrix;
use geomattn::{
    DenseA, GmlCompatible, LinearSymplecticTransformer, SequenceLayer, SymmetricA,
    SymplecticTransformer, Tanh, UpdateP, VectorSoftmax, iterate,
};
use geomattn_networks::structure::SYMPLECTICITY_TOLERANCE;
use geomattn_networks::{Arch, Error, Precision, check, open};
use geomattn_testkit::gml_layout::{self, Layer, to_bytes, uniform};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Phase space R⁴ (n = 2), 4 hidden units (upscaling 8), n_sympnet = 2, L = 2; windows of 3.
fn spec(symmetric: &str, softmax: &str, init_upper: bool) -> Arch {
    format!(
        "SymplecticTransformer(4; seq = 3, n_sympnet = 2, upscaling_dimension = 8, L = 2, \
         activation = tanh, attention_activation = {softmax}, init_upper = {init_upper}, \
         {symmetric})"
    )
    .parse()
    .unwrap()
}

fn file(seed: u64, attention: impl Fn(&mut SmallRng) -> Layer) -> GmlFile {
    let mut rng = SmallRng::seed_from_u64(seed);
    GmlFile::from_bytes(to_bytes(&gml_layout::chain(
        &mut rng,
        (2, 2, 2, 4),
        attention,
    )))
    .unwrap()
}

fn symmetric_file() -> GmlFile {
    file(1, |rng| Layer::Symmetric(uniform(rng, 3), 2))
}

fn dense_file() -> GmlFile {
    file(2, |rng| Layer::Dense(uniform(rng, 4), 2))
}

fn linear_file() -> GmlFile {
    file(3, |rng| Layer::Symmetric(uniform(rng, 6), 3))
}

const LINEAR: &str = "LinearSymplecticTransformer(4, 3; n_sympnet = 2, upscaling_dimension = 8, \
                      L = 2, activation = tanh, init_upper = false)";

/// The one promised measurement of a symplectic transformer: its worst value.
fn worst(file: &GmlFile, arch: &Arch) -> f64 {
    let measurements = check(file, arch, 5, 7).unwrap();
    assert_eq!(measurements.len(), 1);
    let m = &measurements[0];
    assert!(m.promised && m.property.contains("Jᵀ𝕁J"), "{m:?}");
    assert_eq!(m.tolerance, SYMPLECTICITY_TOLERANCE);
    assert_eq!(m.passes(), m.worst <= m.tolerance);
    m.worst
}

#[test]
fn every_variant_passes_the_check_but_gmls_symmetric_kick_with_vector_softmax() {
    let symmetric = symmetric_file();
    for softmax in ["MatrixSoftmax", "VectorSoftmax"] {
        for init_upper in [true, false] {
            let exact = spec("symmetric = true, kick = exact", softmax, init_upper);
            assert!(
                worst(&symmetric, &exact) < SYMPLECTICITY_TOLERANCE,
                "{exact}"
            );
            let dense = spec("symmetric = false", softmax, init_upper);
            assert!(
                worst(&dense_file(), &dense) < SYMPLECTICITY_TOLERANCE,
                "{dense}"
            );
        }
    }
    let gml_matrix = spec("symmetric = true, kick = gml", "MatrixSoftmax", true);
    assert!(worst(&symmetric, &gml_matrix) < SYMPLECTICITY_TOLERANCE);
    // GML's kick 2 A p S is not a gradient when S's columns are normalised separately.
    let gml_vector = spec("symmetric = true, kick = gml", "VectorSoftmax", true);
    assert!(worst(&symmetric, &gml_vector) > 1e-3);
    assert!(worst(&linear_file(), &LINEAR.parse().unwrap()) < SYMPLECTICITY_TOLERANCE);
}

type Gml =
    SymplecticTransformer<f64, 2, 4, 2, 2, Tanh, VectorSoftmax, SymmetricA<f64, 2, GmlCompatible>>;
type Dense32 = SymplecticTransformer<f32, 2, 4, 2, 2, Tanh, VectorSoftmax, DenseA<f32, 2>, UpdateP>;
type Linear = LinearSymplecticTransformer<f64, 2, 3, 4, 2, 2, Tanh, UpdateP>;

/// `net`'s forward pass and `iterate` over 7 windows, from the spec's network and from the type.
fn same_as<Net: SequenceLayer<f64, 4, 3>>(file: &GmlFile, arch: &Arch, net: &Net) {
    let loaded = open(file, arch, Precision::F64).unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let window: SMatrix<f64, 4, 3> = random_matrix(&mut rng);
    let forward = loaded.forward(window.as_slice()).unwrap();
    assert_eq!(forward, net.forward(&window).as_slice());
    let states = loaded.rollout(window.as_slice(), 20, &mut |_| {}).unwrap();
    let mut expected = vec![SMatrix::<f64, 4, 1>::zeros(); 21];
    iterate::<f64, 4, 3, 3, Net>(net, &window, &mut expected);
    let expected: Vec<f64> = expected.iter().flat_map(|z| z.iter().copied()).collect();
    assert_eq!(states, expected);
}

#[test]
fn a_spec_loads_the_file_as_the_type_it_names() {
    let symmetric = symmetric_file();
    let gml = spec("symmetric = true, kick = gml", "VectorSoftmax", true);
    same_as(&symmetric, &gml, &load::<Gml>(&symmetric).unwrap());
    let linear = linear_file();
    same_as(
        &linear,
        &LINEAR.parse().unwrap(),
        &load::<Linear>(&linear).unwrap(),
    );
    // f32, dense, init_upper = false.
    let dense = dense_file();
    let arch = spec("symmetric = false", "VectorSoftmax", false);
    let loaded = open(&dense, &arch, Precision::F32).unwrap();
    let window = [
        0.5_f32, -0.25, 0.125, 1.0, 0.0, 0.75, -0.5, 0.25, 1.0, -1.0, 0.5, 0.0,
    ];
    let net: Dense32 = load(&dense).unwrap();
    let expected = net.forward(&SMatrix::<f32, 4, 3>::from_column_slice(&window));
    let wide: Vec<f64> = window.iter().map(|&x| f64::from(x)).collect();
    let expected: Vec<f64> = expected.iter().map(|&x| f64::from(x)).collect();
    assert_eq!(loaded.forward(&wide).unwrap(), expected);
}

#[test]
fn a_file_of_another_variant_or_size_is_refused() {
    // Dense A where the spec says symmetric, and the reverse; L = 1 for a file of L = 2.
    let refused = [
        (
            symmetric_file(),
            spec("symmetric = false", "MatrixSoftmax", true),
        ),
        (
            dense_file(),
            spec("symmetric = true, kick = exact", "MatrixSoftmax", true),
        ),
        (
            dense_file(),
            "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
             sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
             symmetric=false)"
                .parse()
                .unwrap(),
        ),
        (
            linear_file(),
            LINEAR.replace("(4, 3;", "(4, 2;").parse().unwrap(),
        ),
    ];
    for (file, arch) in &refused {
        let error = open(file, arch, Precision::F64).err().unwrap();
        assert!(
            matches!(error, Error::Load { .. } | Error::Mismatch { .. }),
            "{arch}: {error}"
        );
        let error = check(file, arch, 1, 0).err().unwrap();
        assert!(
            matches!(error, Error::Load { .. } | Error::Mismatch { .. }),
            "{arch}: {error}"
        );
    }
}

/// `spec` with every `?` filled in from `values` (key, value).
fn filled(spec: &str, values: &[(&str, &str)]) -> Arch {
    let mut spec = spec.to_owned();
    for (key, value) in values {
        spec = spec.replace(&format!(" {key}=?"), &format!(" {key}={value}"));
    }
    assert!(!spec.contains('?'), "{spec}");
    spec.parse().unwrap()
}

#[test]
fn inspect_finds_the_symplectic_transformers_a_file_can_be() {
    let values = [
        ("seq", "3"),
        ("sympnet_activation", "tanh"),
        ("activation", "tanh"),
        ("attention_activation", "VectorSoftmax"),
        ("init_upper", "true"),
        ("kick", "gml"),
    ];
    let cases = [
        (
            dense_file(),
            vec![
                "symplectic_transformer(dim=4, seq=?, n_sympnet=2, upscaling_dimension=8, L=2, \
                 sympnet_activation=?, attention_activation=?, init_upper=?, symmetric=false)",
            ],
        ),
        // A symmetric 2×2 A: symplectic attention of n = 2, or linear attention of seq = 2.
        (
            symmetric_file(),
            vec![
                "symplectic_transformer(dim=4, seq=?, n_sympnet=2, upscaling_dimension=8, L=2, \
                 sympnet_activation=?, attention_activation=?, init_upper=?, symmetric=true, \
                 kick=?)",
                "linear_symplectic_transformer(dim=4, seq=2, n_sympnet=2, upscaling_dimension=8, \
                 L=2, activation=?, init_upper=?)",
            ],
        ),
        (
            linear_file(),
            vec![
                "linear_symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, \
                 L=2, activation=?, init_upper=?)",
            ],
        ),
    ];
    for (file, expected) in cases {
        let found = geomattn_networks::inspect::inspect(&file).unwrap();
        let specs: Vec<&str> = found.matches.iter().map(|m| m.spec.as_str()).collect();
        assert_eq!(specs, expected);
        for m in &found.matches {
            let unknown = m.spec.matches('?').count();
            assert_eq!(m.unknown.len(), unknown, "{m:?}");
            // Filled in, the suggestion loads the file.
            open(&file, &filled(&m.spec, &values), Precision::F64).unwrap();
        }
    }
}
