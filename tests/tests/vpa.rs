//! VolumePreservingAttention: the exact vectors of CONVENTIONS.md, the batch entry points, and
//! the volume preservation that holds for the skew weighting only.

use geomattn::MapScalar;
use geomattn::nalgebra::{Matrix2, Matrix3, Matrix3x2, Matrix4x3, SMatrix};
use geomattn::tensor_mat_skew_sym_assign;
use geomattn::{ArbitraryVpa, Error, SequenceLayer, SkewSymmetric, SkewVpa};
use geomattn_testkit::{Q, jacobian, q, q_matrix, random_matrix};
use num_dual::Dual64;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn skew_example() -> SkewVpa<Q, 3, 3> {
    let a = SkewSymmetric::<Q, 3>::from_packed(&[q(1, 1), q(2, 1), q(3, 1)]).unwrap();
    SkewVpa::skew_sym(a)
}

fn arbitrary_weight() -> [[i128; 4]; 4] {
    [[1, 2, 0, -1], [0, 1, 3, 1], [2, -1, 1, 0], [1, 0, -2, 1]]
}

fn arbitrary_input() -> [[i128; 3]; 4] {
    [[1, 0, 2], [0, 1, -1], [1, 1, 0], [0, 2, 1]]
}

#[test]
fn skew_weighting_vector_is_exact() {
    let layer = skew_example();
    let z = q_matrix([[1, 0, 1], [0, 1, 1], [1, 1, 0]], 1);
    assert_eq!(
        layer.correlation(&z),
        q_matrix([[0, 0, 4], [0, 0, 6], [-4, -6, 0]], 1)
    );
    let expected = q_matrix([[29, -36, -59], [-40, -7, -63], [-27, -67, -20]], 53);
    assert_eq!(layer.forward(&z), expected);
}

#[test]
fn arbitrary_weighting_vector_is_exact_with_rationals() {
    // 1/√4 = 1/2 is rational, so the whole layer runs exactly.
    let layer =
        ArbitraryVpa::<Q, 4, 3>::arbitrary_with_scale(q_matrix(arbitrary_weight(), 1), q(1, 2));
    let z = q_matrix(arbitrary_input(), 1);
    assert_eq!(
        layer.correlation(&z),
        q_matrix([[0, -2, 1], [2, 0, 3], [-1, -3, 0]], 1)
    );
    let expected = SMatrix::<Q, 4, 3>::from_row_slice(&[
        q(-1, 1),
        q(6, 5),
        q(-8, 5),
        q(0, 1),
        q(-7, 5),
        q(1, 5),
        q(-1, 3),
        q(-13, 15),
        q(-16, 15),
        q(-2, 1),
        q(-4, 5),
        q(-3, 5),
    ]);
    assert_eq!(layer.forward(&z), expected);
}

#[test]
fn arbitrary_weighting_vector_in_f64_with_gml_scaling() {
    let to_f64 = |x: Q| *x.numer() as f64 / *x.denom() as f64;
    let a = q_matrix(arbitrary_weight(), 1).map(to_f64);
    let z: Matrix4x3<f64> = q_matrix(arbitrary_input(), 1).map(to_f64);
    let layer = ArbitraryVpa::<f64, 4, 3>::arbitrary(a);
    assert_eq!(layer.weight().scale(), 0.5);
    let expected = Matrix4x3::new(
        -1.0,
        1.2,
        -1.6,
        0.0,
        -1.4,
        0.2,
        -1.0 / 3.0,
        -13.0 / 15.0,
        -16.0 / 15.0,
        -2.0,
        -0.8,
        -0.6,
    );
    assert!((layer.forward(&z) - expected).amax() < 1e-12);
}

/// GML's orientation: using Aᵀ instead of A gives different numbers.
#[test]
fn transposed_weight_gives_different_numbers() {
    let a = q_matrix(arbitrary_weight(), 1);
    let z = q_matrix(arbitrary_input(), 1);
    let layer = ArbitraryVpa::<Q, 4, 3>::arbitrary_with_scale(a, q(1, 2));
    let transposed = ArbitraryVpa::<Q, 4, 3>::arbitrary_with_scale(a.transpose(), q(1, 2));
    assert_ne!(layer.forward(&z), transposed.forward(&z));
}

#[test]
fn batched_correlation_documented_example() {
    let a = Matrix3::from_diagonal(&[1.0, 2.0, 3.0].into());
    let z = [
        Matrix3x2::new(1.0, 1.0, 0.0, 1.0, 0.0, 1.0),
        Matrix3x2::new(0.0, 1.0, 1.0, 1.0, 0.0, 1.0),
        Matrix3x2::new(0.0, 1.0, 0.0, 1.0, 1.0, 1.0),
    ];
    let mut out = [Matrix2::zeros(); 3];
    tensor_mat_skew_sym_assign(&z, &a, &mut out).unwrap();
    let lower = |k| Matrix2::new(0.0, 0.0, k, 0.0);
    assert_eq!(out, [lower(1.0), lower(2.0), lower(3.0)]);
    assert!(matches!(
        tensor_mat_skew_sym_assign(&z, &a, &mut out[..2]),
        Err(Error::BatchShape {
            input: 3,
            output: 2,
            ..
        })
    ));
}

/// The three batch entry points agree with one-sequence forward, and the flat buffer is read in
/// Julia's (d, T, B) column-major order.
#[test]
fn batch_entry_points_agree() {
    let mut rng = SmallRng::seed_from_u64(5);
    let layer = ArbitraryVpa::<f64, 3, 4>::glorot(&mut rng);
    let batch: Vec<SMatrix<f64, 3, 4>> = (0..6).map(|_| random_matrix(&mut rng)).collect();
    let single: Vec<_> = batch.iter().map(|z| layer.forward(z)).collect();

    let mut outputs = vec![SMatrix::<f64, 3, 4>::zeros(); 6];
    layer.forward_batch(&batch, &mut outputs).unwrap();
    assert_eq!(outputs, single);

    // Julia's array A[i, t, b] sits at i + 3t + 12b.
    let flat: Vec<f64> = (0..72)
        .map(|k| batch[k / 12][(k % 3, (k % 12) / 3)])
        .collect();
    let mut flat_out = vec![0.0; 72];
    layer.forward_flat(&flat, &mut flat_out).unwrap();
    for (k, value) in flat_out.iter().enumerate() {
        assert_eq!(*value, single[k / 12][(k % 3, (k % 12) / 3)]);
    }

    let mut in_place = batch[2];
    layer.forward_in_place(&mut in_place);
    assert_eq!(in_place, single[2]);
}

#[test]
fn batch_shape_errors_are_typed() {
    let layer = SkewVpa::<f64, 2, 3>::glorot(&mut SmallRng::seed_from_u64(1));
    let mut out = [0.0; 12];
    assert_eq!(
        layer.forward_flat(&[0.0; 12], &mut out[..6]),
        Err(Error::BatchShape {
            detail: "input and output buffers differ in length",
            input: 12,
            output: 6,
            per_item: 6
        })
    );
    assert!(matches!(
        layer.forward_flat(&[0.0; 10], &mut out[..10]),
        Err(Error::BatchShape { per_item: 6, .. })
    ));
    let inputs = [SMatrix::<f64, 2, 3>::zeros(); 2];
    let mut outputs = [SMatrix::<f64, 2, 3>::zeros(); 3];
    assert!(layer.forward_batch(&inputs, &mut outputs).is_err());
    assert_eq!(layer.forward_flat(&[], &mut []), Ok(()));
}

fn skew_determinant<const D: usize, const T: usize>(seed: u64, input_scale: f64) -> f64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let layer = SkewVpa::<f64, D, T>::glorot(&mut rng).map_scalar(Dual64::from);
    let z = random_matrix::<D, T>(&mut rng) * input_scale;
    jacobian(|z| layer.forward(z), &z).determinant()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn skew_weighting_preserves_volume(seed in any::<u64>(), input_scale in 0.1..2.0_f64) {
        for det in [
            skew_determinant::<2, 2>(seed, input_scale),
            skew_determinant::<3, 3>(seed, input_scale),
            skew_determinant::<2, 5>(seed, input_scale),
            skew_determinant::<4, 3>(seed, input_scale),
            skew_determinant::<5, 4>(seed, input_scale),
            skew_determinant::<5, 5>(seed, input_scale),
        ] {
            prop_assert!((det - 1.0).abs() < 1e-8, "det J = {det}");
        }
    }
}

/// The arbitrary weighting is orthogonal per sequence but not volume-preserving: on this input
/// det J is far from ±1 (GML documents the same; CONVENTIONS.md measured 0.61, −0.13, 9.8).
#[test]
fn arbitrary_weighting_does_not_preserve_volume() {
    let to_f64 = |x: Q| *x.numer() as f64 / *x.denom() as f64;
    let layer = ArbitraryVpa::<f64, 4, 3>::arbitrary(q_matrix(arbitrary_weight(), 1).map(to_f64))
        .map_scalar(Dual64::from);
    let z: Matrix4x3<f64> = q_matrix(arbitrary_input(), 1).map(to_f64);
    let det = jacobian(|z| layer.forward(z), &z).determinant();
    assert!((det.abs() - 1.0).abs() > 0.1, "det J = {det}");
}

/// Orthogonal reweighting: every forward keeps the Frobenius norm of the sequence.
#[test]
fn forward_keeps_the_norm() {
    let mut rng = SmallRng::seed_from_u64(9);
    let layer = ArbitraryVpa::<f64, 4, 4>::glorot(&mut rng);
    for _ in 0..50 {
        let z = random_matrix::<4, 4>(&mut rng) * 3.0;
        assert!((layer.forward(&z).norm() - z.norm()).abs() < 1e-12);
    }
}
