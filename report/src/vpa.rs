//! Volume-preserving attention for a range of `(d, T)`: structure kept, agreement with the
//! generic Cayley transform, and time per sequence.

use geomattn::MapScalar;
use geomattn::nalgebra::SMatrix;
use geomattn::{ArbitraryVpa, NalgebraInverse, SequenceLayer, SkewVpa};
use geomattn_testkit::{jacobian, orthogonality_error, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use super::{Table, batch_len, nanos, sci, time_per_call};

/// The table, one row per weighting and `(d, T)`.
pub fn table() -> Table {
    let mut table = Table::new(
        "VolumePreservingAttention (seeded Glorot weights, f64)",
        &[
            "weighting",
            "d",
            "T",
            "max ‖ΛᵀΛ−I‖",
            "det J",
            "vs generic Cayley",
            "ns/seq",
            "ns/seq generic",
        ],
    );
    row::<2, 2>(&mut table);
    row::<3, 3>(&mut table);
    row::<3, 4>(&mut table);
    row::<4, 5>(&mut table);
    row::<5, 5>(&mut table);
    row::<3, 8>(&mut table);
    row::<8, 8>(&mut table);
    row::<6, 12>(&mut table);
    table
}

fn row<const D: usize, const T: usize>(table: &mut Table) {
    let mut rng = SmallRng::seed_from_u64((D * 100 + T) as u64);
    let batch: Vec<SMatrix<f64, D, T>> =
        (0..batch_len()).map(|_| random_matrix(&mut rng)).collect();
    let mut out = batch.clone();

    let skew = SkewVpa::<f64, D, T>::glorot(&mut rng);
    let skew_generic = skew.with_map::<NalgebraInverse>();
    let lifted = skew.map_scalar(Dual64::from);
    let det = jacobian(|z| lifted.forward(z), &batch[0]).determinant();
    let orthogonality = batch
        .iter()
        .map(|z| {
            let c = skew.correlation(z);
            orthogonality_error(&<geomattn::DefaultCayley as geomattn::OrthogonalMap<
                f64,
                T,
            >>::map(&c))
        })
        .fold(0.0, f64::max);
    let agreement = batch
        .iter()
        .map(|z| (skew.forward(z) - skew_generic.forward(z)).amax())
        .fold(0.0, f64::max);
    let fast = time_per_call(3, 5, || {
        skew.forward_batch(black_box(&batch), &mut out).unwrap()
    }) / batch_len() as u32;
    let generic = time_per_call(3, 5, || {
        skew_generic
            .forward_batch(black_box(&batch), &mut out)
            .unwrap()
    }) / batch_len() as u32;
    table.row(vec![
        "skew".into(),
        D.to_string(),
        T.to_string(),
        sci(orthogonality),
        format!("{det:.12}"),
        sci(agreement),
        nanos(fast),
        nanos(generic),
    ]);

    let arbitrary = ArbitraryVpa::<f64, D, T>::glorot(&mut rng);
    let arbitrary_generic = arbitrary.with_map::<NalgebraInverse>();
    let lifted = arbitrary.map_scalar(Dual64::from);
    let det = jacobian(|z| lifted.forward(z), &batch[0]).determinant();
    let agreement = batch
        .iter()
        .map(|z| (arbitrary.forward(z) - arbitrary_generic.forward(z)).amax())
        .fold(0.0, f64::max);
    let fast = time_per_call(3, 5, || {
        arbitrary
            .forward_batch(black_box(&batch), &mut out)
            .unwrap()
    }) / batch_len() as u32;
    let generic = time_per_call(3, 5, || {
        arbitrary_generic
            .forward_batch(black_box(&batch), &mut out)
            .unwrap()
    }) / batch_len() as u32;
    let orthogonality = batch
        .iter()
        .map(|z| {
            let c = arbitrary.correlation(z);
            orthogonality_error(&<geomattn::DefaultCayley as geomattn::OrthogonalMap<
                f64,
                T,
            >>::map(&c))
        })
        .fold(0.0, f64::max);
    table.row(vec![
        "arbitrary".into(),
        D.to_string(),
        T.to_string(),
        sci(orthogonality),
        format!("{det:.6}"),
        sci(agreement),
        nanos(fast),
        nanos(generic),
    ]);
}
