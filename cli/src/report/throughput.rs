//! Throughput of a flat batch: the scalar path (`SequenceLayer::forward_flat`) against the lane
//! path (`Lanewise::forward_flat`) on the best instruction set of this processor, with the check
//! that both give the same bits. `benches/benches/throughput.rs` and `benches/compare_peers.py`
//! measure the same at B = 10⁵, side by side with JAX and NumPy (the README's table).

use geomattn::{Isa, Lanewise, MapScalar, SequenceLayer, SkewVpa};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

use super::{BATCH, Table, time_per_call};

/// The table, one row per size (skew VPA, f32, seeded Glorot weights, entries in `(−1, 1)`).
pub fn table() -> Table {
    let isa = Isa::best();
    let mut table = Table::new(
        &format!(
            "Throughput: skew VPA over a flat batch of {BATCH} sequences, f32, one thread \
             (lanes: {isa:?}, {} sequences at a time)",
            isa.lanes::<f32>()
        ),
        &[
            "d = T",
            "lanes = scalar, bit for bit",
            "ns/seq scalar",
            "ns/seq lanes",
            "speed-up",
            "GFLOP/s lanes (7n³ − n²)",
        ],
    );
    row::<3>(&mut table);
    row::<4>(&mut table);
    row::<5>(&mut table);
    row::<8>(&mut table);
    table
}

fn row<const N: usize>(table: &mut Table) {
    let mut rng = SmallRng::seed_from_u64(N as u64);
    let layer = SkewVpa::<f64, N, N>::glorot(&mut rng).map_scalar(|w| w as f32);
    let input: Vec<f32> = (0..BATCH * N * N)
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

    // Seconds per sequence (a `Duration` divided by the batch would round to whole ns).
    let per_sequence = |batch: Duration| batch.as_secs_f64() / BATCH as f64;
    let scalar_time = per_sequence(time_per_call(3, 7, || {
        layer
            .forward_flat(black_box(&input), &mut scalar)
            .expect("whole sequences");
    }));
    let lanes_time = per_sequence(time_per_call(3, 7, || {
        fast.forward_flat(black_box(&input), &mut lanes)
            .expect("whole sequences");
    }));
    let n = N as f64;
    let flops = 7.0 * n * n * n - n * n;
    table.row(vec![
        N.to_string(),
        if same { "yes" } else { "NO" }.to_string(),
        format!("{:.1}", scalar_time * 1e9),
        format!("{:.1}", lanes_time * 1e9),
        format!("{:.1}×", scalar_time / lanes_time),
        format!("{:.1}", flops / lanes_time / 1e9),
    ]);
}
