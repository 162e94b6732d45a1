//! GML's classification transformer on the run-time engine (`geomattn::engine`'s
//! `ClassificationTransformer`): on GML's MNIST networks the compile-time classifier
//! (`geomattn::ClassificationTransformer`) bit for bit; at every other size and option (`dim`, `seq`, `classes`, any
//! `n_heads` dividing `dim`, `L`, `Stiefel`, `add_connection`) CONVENTIONS.md's formulas computed
//! independently (`geomattn_testkit::gml_reference::standard_chain`) on files written by the test
//! kit's writer, through `classify::open`.

use geomattn::gml::GmlFile;
use geomattn::nalgebra::{DMatrix, SMatrix};
use geomattn::{ClassificationTransformer, Euclidean, NoConnection, Stiefel, Tanh, mnist_patches};
use geomattn_networks::classify;
use geomattn_networks::layout;
use geomattn_networks::{Arch, Error, Precision, Scalar};
use geomattn_testkit::gml_reference::standard_chain;

use crate::twins::{network, windows};

/// GML's MNIST network `file` as the compile-time `ClassificationTransformer` with projections
/// `Proj`, computing in `S`: the probabilities of an input (`49 × 16`, column-major) and of an
/// image, widened to `f64`.
fn compile_time<S, Proj>(file: &GmlFile) -> impl Fn(Either<'_>) -> Vec<f64>
where
    S: Scalar,
    Proj: geomattn::Projection + 'static,
    Mnist<S, Proj>: geomattn::Schema<Scalar = S>,
{
    let net: Box<Mnist<S, Proj>> = geomattn::gml::load_boxed(file).unwrap();
    move |input| {
        let z = match input {
            Either::Input(values) => {
                SMatrix::<S, 49, 16>::from_iterator(values.iter().map(|&x| S::from_double(x)))
            }
            Either::Image(image) => mnist_patches::<S>(image),
        };
        net.probabilities(&z)
            .iter()
            .map(|p| p.to_double())
            .collect()
    }
}

/// An input of a classifier: a sequence, or an image.
#[derive(Clone, Copy)]
enum Either<'a> {
    Input(&'a [f64]),
    Image(&'a [u8; 784]),
}

type Mnist<S, Proj> = ClassificationTransformer<S, 49, 7, 7, 16, 10, NoConnection, Proj, Tanh>;

#[test]
fn on_gmls_mnist_networks_the_engine_is_the_compile_time_classifier_bit_for_bit() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/");
    let images: Vec<[u8; 784]> = (0..3_u32)
        .map(|k| std::array::from_fn(|i| ((i as u32 * (7 + k)) % 256) as u8))
        .collect();
    for (name, stiefel) in [("mnist_nn1.h5", false), ("mnist_nn2.h5", true)] {
        let spec = format!(
            "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
             Stiefel={stiefel}, add_connection=false)"
        );
        let arch: Arch = spec.parse().unwrap();
        let file = GmlFile::open(format!("{dir}{name}")).unwrap();
        for precision in [Precision::F32, Precision::F64] {
            let compiled: Box<dyn Fn(Either<'_>) -> Vec<f64>> = match (precision, stiefel) {
                (Precision::F32, false) => Box::new(compile_time::<f32, Euclidean>(&file)),
                (Precision::F32, true) => Box::new(compile_time::<f32, Stiefel>(&file)),
                (Precision::F64, false) => Box::new(compile_time::<f64, Euclidean>(&file)),
                (Precision::F64, true) => Box::new(compile_time::<f64, Stiefel>(&file)),
            };
            let run_time = classify::open(&file, &arch, precision).unwrap();
            let z = windows(&arch, 3, 1.0, 2);
            for input in z.chunks(49 * 16) {
                assert_eq!(
                    compiled(Either::Input(input)),
                    run_time.probabilities(input).unwrap(),
                    "{name}"
                );
            }
            for image in &images {
                assert_eq!(
                    compiled(Either::Image(image)),
                    run_time.image_probabilities(image).unwrap(),
                    "{name}"
                );
            }
        }
    }
}

/// `max |a − b|` over the pairs of `a` and `b`.
fn largest_difference<'a>(
    a: impl IntoIterator<Item = &'a f64>,
    b: impl IntoIterator<Item = &'a f64>,
) -> f64 {
    a.into_iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// Classifiers of other sizes and options.
const SIZES: [&str; 4] = [
    "classification_transformer(dim=6, seq=5, classes=3, n_heads=2, L=2, Stiefel=false, \
     add_connection=false)",
    "classification_transformer(dim=8, seq=4, classes=5, n_heads=4, L=1, Stiefel=true, \
     add_connection=true)",
    "classification_transformer(dim=5, seq=1, classes=2, n_heads=1, L=3, Stiefel=true, \
     add_connection=false)",
    // GML's MNIST classifier with one head (its files have seven).
    "classification_transformer(dim=49, seq=16, classes=10, n_heads=1, L=1, Stiefel=false, \
     add_connection=true)",
];

#[test]
fn at_every_size_the_engine_is_conventions_formulas() {
    for (k, spec) in SIZES.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let (file, values) = network(&arch, 60 + k as u64);
        let layers = layout::layers(&arch);
        let (dim, seq) = (arch.dim(), arch.seq());
        let wide = classify::open(&file, &arch, Precision::F64).unwrap();
        let single = classify::open(&file, &arch, Precision::F32).unwrap();
        let z = windows(&arch, 70 + k as u64, 1.0, 3);
        let batch = wide.batch_probabilities(&z).unwrap();
        let narrow_batch = single.batch_probabilities(&z).unwrap();
        for (b, input) in z.chunks(dim * seq).enumerate() {
            let expected = standard_chain(
                &layers,
                &values,
                &DMatrix::from_column_slice(dim, seq, input),
            );
            let found = wide.probabilities(input).unwrap();
            assert_eq!(found.len(), expected.len(), "{spec}");
            let error = largest_difference(found.iter(), expected.iter());
            assert!(error < 1e-12, "{spec}: {error}");
            // The batched path: other sums, polynomial `exp` and `tanh`, within rounding.
            let batched = &batch[b * found.len()..(b + 1) * found.len()];
            let error = largest_difference(batched.iter(), &found);
            assert!(error < 1e-12, "{spec} batched: {error}");
            let narrow = single.probabilities(input).unwrap();
            let error = largest_difference(narrow.iter(), expected.iter());
            assert!(error < 1e-5, "{spec} f32: {error}");
            let narrow = &narrow_batch[b * found.len()..(b + 1) * found.len()];
            let error = largest_difference(narrow.iter(), expected.iter());
            assert!(error < 1e-5, "{spec} f32 batched: {error}");
        }
    }
}

#[test]
fn images_need_mnists_shape_and_inputs_their_size() {
    let arch: Arch = SIZES[0].parse().unwrap();
    let net = classify::open(&network(&arch, 1).0, &arch, Precision::F64).unwrap();
    assert!(matches!(
        net.image_probabilities(&[0; 784]),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        net.probabilities(&[0.0; 29]),
        Err(Error::Length { found: 29, .. })
    ));
    assert!(matches!(
        net.batch_probabilities(&[0.0; 31]),
        Err(Error::Length { found: 31, .. })
    ));
    let mut z = windows(&arch, 1, 1.0, 1);
    z[4] = f64::NAN;
    assert!(matches!(
        net.probabilities(&z),
        Err(Error::NonFinite { index: 4, .. })
    ));
    let mnist: Arch = SIZES[3].parse().unwrap();
    let net = classify::open(&network(&mnist, 2).0, &mnist, Precision::F32).unwrap();
    let p = net
        .batch_image_probabilities(&[[0; 784], [255; 784]])
        .unwrap();
    assert_eq!(p.len(), 20);
    assert!((p[..10].iter().sum::<f64>() - 1.0).abs() < 1e-6);
}

#[test]
fn stiefel_projections_off_the_manifold_are_refused() {
    // The writer's Euclidean projections are seeded values, far from orthonormal.
    let euclidean: Arch = SIZES[0].parse().unwrap();
    let (file, _) = network(&euclidean, 3);
    let stiefel: Arch = SIZES[0]
        .replace("Stiefel=false", "Stiefel=true")
        .parse()
        .unwrap();
    let error = classify::open(&file, &stiefel, Precision::F64)
        .err()
        .unwrap();
    assert!(
        matches!(error, Error::Load { .. } | Error::Mismatch { .. }),
        "{error}"
    );
    // Built by hand: the error names the projection and the head.
    use geomattn::engine::MultiHeadAttention;
    use geomattn::softmax::Function;
    let identity = [1.0, 0.0, 0.0, 1.0];
    let skewed = [1.0, 0.0, 0.5, 1.0];
    let layer = MultiHeadAttention::new(
        2,
        1,
        &[&identity[..]],
        &[&identity[..]],
        &[&skewed[..]],
        Function::Vector,
        false,
    )
    .unwrap();
    assert_eq!(
        layer.check_stiefel(1e-2),
        Err(geomattn::Error::NotOrthonormal {
            name: "PV",
            head: 0
        })
    );
    assert_eq!(layer.check_stiefel(0.6), Ok(()));
}
