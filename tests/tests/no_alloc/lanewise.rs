//! The lane path allocates nothing (for attention of every kind), and the parallel lane path nothing per sequence: its worker
//! threads allocate as often for 100 000 sequences as for 1 000.

use std::cell::Cell;
use std::sync::atomic::Ordering;

use geomattn::{AddConnection, Lanewise, MultiHeadAttention, SkewVpa, SymplecticAttentionQ};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::{IS_POOL_WORKER, Probe, WORKER_ALLOCATIONS};

/// `sequences` sequences of `D = T = 4`, flat.
fn input(sequences: usize) -> Vec<f64> {
    (0..16 * sequences)
        .map(|i| (i as f64 * 0.1).sin())
        .collect()
}

/// The lane path on one thread: full groups of lanes and a last one in part (an allocation per
/// group or per pass would count whatever the number of groups).
pub fn check(probe: &mut Probe) {
    let mut rng = SmallRng::seed_from_u64(5);
    let fast = Lanewise::new(SkewVpa::<f64, 4, 4>::glorot(&mut rng));
    let input = input(4_003);
    let mut output = vec![0.0; input.len()];
    probe.run("Lanewise forward_flat", || {
        fast.forward_flat(&input, &mut output).unwrap();
    });
    // Layers with softmaxes (and the 1/√D scaling) in lanes.
    let mha = MultiHeadAttention::<f64, 4, 2, 2, AddConnection>::glorot(&mut rng);
    probe.run("Lanewise forward_flat, multi-head attention", || {
        Lanewise::new(mha)
            .forward_flat::<4, 4>(&input, &mut output)
            .unwrap();
    });
    let symplectic = SymplecticAttentionQ::<f64, 2>::glorot(&mut rng);
    probe.run("Lanewise forward_flat, symplectic attention", || {
        Lanewise::new(symplectic)
            .forward_flat::<4, 4>(&input, &mut output)
            .unwrap();
    });
}

/// The parallel lane path: nothing per sequence on its workers, nothing on the calling thread.
pub fn check_parallel(probe: &mut Probe) {
    let mut rng = SmallRng::seed_from_u64(5);
    let fast = Lanewise::new(SkewVpa::<f64, 4, 4>::glorot(&mut rng));
    let input = input(100_003);
    let mut output = vec![0.0; input.len()];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .start_handler(|_| IS_POOL_WORKER.with(|flag| flag.set(true)))
        .build()
        .unwrap();
    // The fewest worker allocations of five passes: rayon's own bookkeeping (its epoch-based
    // garbage collection) allocates now and then, whatever the batch; what is measured is growth
    // with the batch (100 times the tasks).
    let mut worker_allocations = |sequences: usize| {
        let (z, out) = (&input[..16 * sequences], &mut output[..16 * sequences]);
        pool.install(|| fast.forward_flat_parallel(z, out)).unwrap();
        (0..5)
            .map(|_| {
                let before = WORKER_ALLOCATIONS.load(Ordering::Relaxed);
                pool.install(|| fast.forward_flat_parallel(z, out)).unwrap();
                WORKER_ALLOCATIONS.load(Ordering::Relaxed) - before
            })
            .min()
            .unwrap_or(0)
    };
    let (few, many) = (worker_allocations(1_000), worker_allocations(100_003));
    assert!(
        many <= few,
        "worker allocations grow with the batch: {few} for 1 000 sequences, {many} for 100 003"
    );
    assert!(
        !IS_POOL_WORKER.with(Cell::get),
        "the caller is not a worker"
    );
    probe.run("Lanewise forward_flat_parallel (calling thread)", || {
        pool.install(|| fast.forward_flat_parallel(&input, &mut output))
            .unwrap();
    });
}
