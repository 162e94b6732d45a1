//! Softmaxes, multi-head attention, symplectic and linear symplectic attention: what each keeps
//! (normalisation, orthonormal weights, `Jᵀ𝕁J = 𝕁`) and time per sequence.

use geomattn::LinearSymplecticAttention;
use geomattn::nalgebra::SMatrix;
use geomattn::{AddConnection, MapScalar, MultiHeadAttention, Stiefel, stiefel_error};
use geomattn::{
    DenseA, GmlCompatible, GradientExact, SymmetricA, SymmetricMode, SymplecticAttention,
};
use geomattn::{
    MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, SequenceLayer, Softmax, VectorSoftmax,
};
use geomattn::{PhaseSide, UpdateP, UpdateQ};
use geomattn_testkit::symplectic::symplecticity_error;
use geomattn_testkit::{jacobian, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use super::{Table, batch_len, nanos, sci, time_per_call};

/// Sequences whose Jacobian is checked per row.
const CHECKED: usize = 8;

/// The table: one row per softmax and per layer family and mode.
pub fn table() -> Table {
    let mut table = Table::new(
        "Softmaxes, MultiHeadAttention, SymplecticAttention, LinearSymplecticAttention (seeded weights, f64 unless noted)",
        &["layer", "size", "structure measure", "error", "ns/seq"],
    );
    softmax_row::<VectorSoftmax>(&mut table, "column sums − 1");
    softmax_row::<MatrixSoftmax>(&mut table, "matrix sum − 1");
    softmax_row::<OneVectorSoftmax>(&mut table, "column sums − (1 − 1/(1+Σ))");
    softmax_row::<OneMatrixSoftmax>(&mut table, "matrix sum − (1 − 1/(1+Σ))");
    mha_row::<6, 3, 2, 8>(&mut table);
    mha_row::<8, 2, 4, 16>(&mut table);
    symplectic_rows::<UpdateQ, MatrixSoftmax, 4, 2, 5>(&mut table);
    symplectic_rows::<UpdateQ, VectorSoftmax, 4, 2, 5>(&mut table);
    symplectic_rows::<UpdateP, VectorSoftmax, 6, 3, 8>(&mut table);
    linear_row::<UpdateQ, 4, 2, 5>(&mut table);
    linear_row::<UpdateP, 6, 3, 8>(&mut table);
    table
}

/// `f32` scores up to ±10⁴ on 8×8 matrices: largest deviation of the sums from what they should
/// be (computed in `f64` for the one softmaxes), and time per matrix.
fn softmax_row<Sm: Softmax>(table: &mut Table, measure: &str) {
    let mut rng = SmallRng::seed_from_u64(31);
    let batch: Vec<SMatrix<f32, 8, 8>> = (0..batch_len())
        .map(|_| random_matrix::<8, 8>(&mut rng).map(|x| (x * 1e4) as f32))
        .collect();
    let plus_one = Sm::NAME.starts_with("One");
    let column_wise = Sm::NAME.contains("Vector");
    let mut error: f64 = 0.0;
    for c in &batch {
        let s = Sm::apply(c).map(f64::from);
        if s.iter().any(|x| !x.is_finite()) {
            error = f64::INFINITY;
        }
        let c = c.map(f64::from);
        let groups: Vec<(f64, f64)> = if column_wise {
            (0..8)
                .map(|j| (s.column(j).sum(), deficit(c.column(j).iter())))
                .collect()
        } else {
            vec![(s.sum(), deficit(c.iter()))]
        };
        for (sum, deficit) in groups {
            let target = if plus_one { 1.0 - deficit } else { 1.0 };
            error = error.max((sum - target).abs());
        }
    }
    let mut out = batch.clone();
    let time = time_per_call(3, 5, || {
        for (c, s) in black_box(&batch).iter().zip(out.iter_mut()) {
            *s = Sm::apply(c);
        }
    }) / batch_len() as u32;
    table.row(vec![
        format!("{} (f32, |c| ≤ 1e4)", Sm::NAME),
        "8×8".into(),
        measure.into(),
        sci(error),
        nanos(time),
    ]);
}

/// `1/(1 + Σ e^c)` in `f64`, written as `e^{−m}/(e^{−m} + Σ e^{c−m})` with `m = max(0, max c)` so
/// that it does not overflow.
fn deficit<'a>(scores: impl Iterator<Item = &'a f64> + Clone) -> f64 {
    let m = scores.clone().fold(0.0_f64, |m, &c| m.max(c));
    let one = (-m).exp();
    one / (one + scores.map(|c| (c - m).exp()).sum::<f64>())
}

/// Multi-head attention with Haar-random Stiefel weights: the weights' `‖WᵀW − I‖_max` after
/// construction, and time per sequence.
fn mha_row<const D: usize, const H: usize, const DH: usize, const T: usize>(table: &mut Table)
where
    geomattn::nalgebra::Const<D>: geomattn::nalgebra::DimMin<
            geomattn::nalgebra::Const<DH>,
            Output = geomattn::nalgebra::Const<DH>,
        >,
{
    let mut rng = SmallRng::seed_from_u64((100 * D + T) as u64);
    let layer =
        MultiHeadAttention::<f64, D, H, DH, AddConnection, Stiefel>::stiefel_random(&mut rng);
    let error = layer
        .heads()
        .iter()
        .flat_map(|h| [h.query, h.key, h.value])
        .map(|w| stiefel_error(&w))
        .fold(0.0, f64::max);
    let batch: Vec<SMatrix<f64, D, T>> =
        (0..batch_len()).map(|_| random_matrix(&mut rng)).collect();
    let mut out = batch.clone();
    let time = time_per_call(3, 5, || {
        layer.forward_batch(black_box(&batch), &mut out).unwrap()
    }) / batch_len() as u32;
    table.row(vec![
        format!("MultiHeadAttention (Stiefel, {H} heads)"),
        format!("D={D}, T={T}"),
        "max ‖WᵀW − I‖".into(),
        sci(error),
        nanos(time),
    ]);
}

/// `‖Jᵀ𝕁J − 𝕁‖_max` of `layer` (lifted to dual numbers) over [`CHECKED`] sequences of `batch`.
fn worst_symplecticity<L, const M: usize, const T: usize>(
    layer: &L,
    batch: &[SMatrix<f64, M, T>],
    n: usize,
) -> f64
where
    L: SequenceLayer<Dual64, M, T>,
{
    batch[..CHECKED]
        .iter()
        .map(|z| symplecticity_error(&jacobian(|z| layer.forward(z), z), n, T))
        .fold(0.0, f64::max)
}

/// One row per weight (dense, symmetric gradient-exact, symmetric GML) for the given side and
/// softmax.
fn symplectic_rows<Side: PhaseSide, Sm: Softmax, const M: usize, const N: usize, const T: usize>(
    table: &mut Table,
) {
    let mut rng = SmallRng::seed_from_u64((10 * M + T) as u64);
    let batch: Vec<SMatrix<f64, M, T>> = (0..batch_len())
        .map(|_| random_matrix::<M, T>(&mut rng) * 2.0)
        .collect();
    let side = if Side::UPDATES_Q { "Q" } else { "P" };
    let dense = SymplecticAttention::<f64, N, Side, Sm, DenseA<f64, N>>::glorot(&mut rng)
        .map_scalar(|x| 2.0 * x);
    let error = worst_symplecticity(&dense.map_scalar(Dual64::from), &batch, N);
    let time = batch_time(&dense, &batch);
    table.row(vec![
        format!("SymplecticAttention{side} dense A, {}", Sm::NAME),
        format!("M={M}, T={T}"),
        "max ‖Jᵀ𝕁J − 𝕁‖".into(),
        sci(error),
        nanos(time),
    ]);
    let exact = SymplecticAttention::<f64, N, Side, Sm, SymmetricA<f64, N>>::glorot(&mut rng)
        .map_scalar(|x| 2.0 * x);
    symmetric_row::<Side, Sm, GradientExact, M, N, T>(table, exact, &batch, "gradient-exact");
    symmetric_row::<Side, Sm, GmlCompatible, M, N, T>(table, exact.with_mode(), &batch, "GML 2ApS");
}

fn symmetric_row<
    Side: PhaseSide,
    Sm: Softmax,
    Mode: SymmetricMode,
    const M: usize,
    const N: usize,
    const T: usize,
>(
    table: &mut Table,
    layer: SymplecticAttention<f64, N, Side, Sm, SymmetricA<f64, N, Mode>>,
    batch: &[SMatrix<f64, M, T>],
    mode: &str,
) {
    let side = if Side::UPDATES_Q { "Q" } else { "P" };
    let error = worst_symplecticity(&layer.map_scalar(Dual64::from), batch, N);
    table.row(vec![
        format!("SymplecticAttention{side} symmetric A {mode}, {}", Sm::NAME),
        format!("M={M}, T={T}"),
        "max ‖Jᵀ𝕁J − 𝕁‖".into(),
        sci(error),
        nanos(batch_time(&layer, batch)),
    ]);
}

fn linear_row<Side: PhaseSide, const M: usize, const N: usize, const T: usize>(table: &mut Table) {
    let mut rng = SmallRng::seed_from_u64((1000 + M * 10 + T) as u64);
    let batch: Vec<SMatrix<f64, M, T>> =
        (0..batch_len()).map(|_| random_matrix(&mut rng)).collect();
    let layer = LinearSymplecticAttention::<f64, N, T, Side>::glorot(&mut rng);
    let error = worst_symplecticity(&layer.map_scalar(Dual64::from), &batch, N);
    let side = if Side::UPDATES_Q { "Q" } else { "P" };
    table.row(vec![
        format!("LinearSymplecticAttention{side}"),
        format!("M={M}, T={T}"),
        "max ‖Jᵀ𝕁J − 𝕁‖".into(),
        sci(error),
        nanos(batch_time(&layer, &batch)),
    ]);
}

/// Median time per sequence of `layer` over `batch`.
fn batch_time<L: SequenceLayer<f64, M, T>, const M: usize, const T: usize>(
    layer: &L,
    batch: &[SMatrix<f64, M, T>],
) -> std::time::Duration {
    let mut out = batch.to_vec();
    time_per_call(3, 5, || {
        layer.forward_batch(black_box(batch), &mut out).unwrap()
    }) / batch_len() as u32
}
