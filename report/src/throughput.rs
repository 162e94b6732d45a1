//! Throughput of a flat batch: the scalar path (`SequenceLayer::forward_flat`) against the lane
//! path (`Lanewise::forward_flat`) on the best instruction set of this processor, with the check
//! that both give the same bits, and the lane path with the polynomial `exp` and `tanh`
//! (`Lanewise::vector_functions`) with its largest difference from the scalar path.
//! `benches/benches/throughput.rs` and `benches/compare_peers.py`
//! measure the same at B = 10⁵, side by side with JAX and NumPy (the README's table).

use geomattn::{
    Isa, LaneTwin, Lanewise, MapScalar, MultiHeadAttention, NoConnection, SequenceLayer, SkewVpa,
    SymplecticAttentionQ,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

use super::{Table, batch_len, time_per_call};

/// The table: skew VPA at every size, one-head multi-head attention and symplectic attention at
/// two (f32, seeded Glorot weights, entries in `(−1, 1)`).
pub fn table() -> Table {
    let isa = Isa::best();
    let mut table = Table::new(
        &format!(
            "Throughput: layers over a flat batch of {} sequences, f32, one thread \
             (lanes: {isa:?}, {} sequences at a time)",
            batch_len(),
            isa.lanes::<f32>()
        ),
        &[
            "layer",
            "d = T",
            "lanes = scalar, bit for bit",
            "ns/seq scalar",
            "ns/seq lanes",
            "speed-up",
            "GFLOP/s lanes",
            "ns/seq vector functions",
            "vector functions: largest difference (ε·max(|y|, 1))",
        ],
    );
    skew_vpa::<3>(&mut table);
    skew_vpa::<4>(&mut table);
    skew_vpa::<5>(&mut table);
    skew_vpa::<8>(&mut table);
    let mut rng = SmallRng::seed_from_u64(9);
    let mha4 = MultiHeadAttention::<f64, 4, 1, 4, NoConnection>::glorot(&mut rng);
    row::<_, 4, 4>(&mut table, "MHA, one head", &mha4, None);
    let mha8 = MultiHeadAttention::<f64, 8, 1, 8, NoConnection>::glorot(&mut rng);
    row::<_, 8, 8>(&mut table, "MHA, one head", &mha8, None);
    let symplectic4 = SymplecticAttentionQ::<f64, 2>::glorot(&mut rng);
    row::<_, 4, 4>(&mut table, "symplectic attention", &symplectic4, None);
    let symplectic8 = SymplecticAttentionQ::<f64, 4>::glorot(&mut rng);
    row::<_, 8, 8>(&mut table, "symplectic attention", &symplectic8, None);
    table
}

/// Skew VPA at d = T = `N`, with its flop count `7n³ − n²` (the README's).
fn skew_vpa<const N: usize>(table: &mut Table) {
    let layer = SkewVpa::<f64, N, N>::glorot(&mut SmallRng::seed_from_u64(N as u64));
    let n = N as f64;
    let flops = 7.0 * n * n * n - n * n;
    row::<_, N, N>(table, "skew VPA", &layer, Some(flops));
}

/// One row: `weights` (seeded in f64) rounded to f32, scalar against lanes.
fn row<W, const D: usize, const T: usize>(
    table: &mut Table,
    name: &str,
    weights: &W,
    flops: Option<f64>,
) where
    W: MapScalar<Scalar = f64>,
    W::Over<f32>: LaneTwin<D, T, Scalar = f32> + SequenceLayer<f32, D, T> + Copy,
{
    let layer = weights.map_scalar(|w| w as f32);
    let mut rng = SmallRng::seed_from_u64((D * T) as u64);
    let input: Vec<f32> = (0..batch_len() * D * T)
        .map(|_| rng.random::<f32>() * 2.0 - 1.0)
        .collect();
    let (mut scalar, mut lanes) = (vec![0.0; input.len()], vec![0.0; input.len()]);
    let fast = Lanewise::new(layer);
    layer
        .forward_flat(&input, &mut scalar)
        .expect("whole sequences");
    fast.forward_flat(&input, &mut lanes)
        .expect("whole sequences");
    let same = scalar
        .iter()
        .zip(&lanes)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    let vector = Lanewise::new(layer).vector_functions();
    let mut approximate = vec![0.0; input.len()];
    vector
        .forward_flat(&input, &mut approximate)
        .expect("whole sequences");
    let difference = scalar
        .iter()
        .zip(&approximate)
        .map(|(&a, &b)| f64::from((a - b).abs() / (f32::EPSILON * a.abs().max(1.0))))
        .fold(0.0, f64::max);

    // Seconds per sequence (a `Duration` divided by the batch would round to whole ns).
    let per_sequence = |time: Duration| time.as_secs_f64() / batch_len() as f64;
    let scalar_time = per_sequence(time_per_call(3, 7, || {
        layer
            .forward_flat(black_box(&input), &mut scalar)
            .expect("whole sequences");
    }));
    let lanes_time = per_sequence(time_per_call(3, 7, || {
        fast.forward_flat(black_box(&input), &mut lanes)
            .expect("whole sequences");
    }));
    let vector_time = per_sequence(time_per_call(3, 7, || {
        vector
            .forward_flat(black_box(&input), &mut approximate)
            .expect("whole sequences");
    }));
    table.row(vec![
        name.to_string(),
        D.to_string(),
        if same { "yes" } else { "NO" }.to_string(),
        format!("{:.1}", scalar_time * 1e9),
        format!("{:.1}", lanes_time * 1e9),
        format!("{:.1}×", scalar_time / lanes_time),
        flops.map_or("—".to_string(), |f| {
            format!("{:.1}", f / lanes_time / 1e9)
        }),
        format!("{:.1}", vector_time * 1e9),
        format!("{difference:.1}"),
    ]);
}
