//! Throughput of a flat batch of B = 10⁵ sequences (d = T ∈ {3, 4, 5, 8}, f32 and f64) through
//! volume-preserving attention, skew and arbitrary weighting, side by side in one run:
//!
//! - `scalar`: [`SequenceLayer::forward_flat`], one sequence at a time;
//! - `lanes`: [`Lanewise::forward_flat`], 16 sequences of f32 (8 of f64) per evaluation;
//! - `parallel`: [`Lanewise::forward_flat_parallel`] on every thread of rayon's pool.
//!
//! `cargo bench -p geomattn-benches --bench throughput`; `cargo test --benches` runs each once.
//! divan reports sequences per second (`item/s`); the README's throughput table turns them into
//! GFLOP/s with the flop count stated there.

use divan::Bencher;
use divan::counter::ItemsCount;
use geomattn::{ArbitraryVpa, LaneScalar, Lanes, Lanewise, MapScalar, SequenceLayer, SkewVpa};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn main() {
    divan::main();
}

/// Sequences per batch: 10⁵, or 10³ in the unoptimised smoke run (`cargo test --benches`).
const B: usize = if cfg!(debug_assertions) {
    1_000
} else {
    100_000
};

/// A batch of `B` sequences of `d·T` entries, of order 1.
fn batch<S: From<f32>>(per_item: usize) -> Vec<S> {
    (0..B * per_item)
        .map(|i| S::from((i as f32 * 0.618).sin()))
        .collect()
}

/// Glorot weights from a fixed seed, over the scalar `S`.
fn skew<S: geomattn::Field + From<f32>, const D: usize>() -> SkewVpa<S, D, D> {
    SkewVpa::<f64, D, D>::glorot(&mut SmallRng::seed_from_u64(1)).map_scalar(|w| S::from(w as f32))
}

fn arbitrary<S: geomattn::Field + From<f32>, const D: usize>() -> ArbitraryVpa<S, D, D> {
    ArbitraryVpa::<f64, D, D>::glorot(&mut SmallRng::seed_from_u64(2))
        .map_scalar(|w| S::from(w as f32))
}

fn scalar<S, L, const D: usize>(bencher: Bencher, layer: L)
where
    S: geomattn::Field + From<f32>,
    L: SequenceLayer<S, D, D>,
{
    let input = batch::<S>(D * D);
    let mut output = input.clone();
    bencher
        .counter(ItemsCount::new(B))
        .bench_local(|| layer.forward_flat(&input, &mut output).unwrap());
}

fn lanes<S, L, const D: usize, const N: usize>(bencher: Bencher, layer: L, parallel: bool)
where
    S: LaneScalar<N> + From<f32> + Send + Sync,
    L: MapScalar<Scalar = S>,
    L::Over<Lanes<S, N>>: SequenceLayer<Lanes<S, N>, D, D> + Sync,
{
    let fast = Lanewise::<_, N>::new(&layer);
    let input = batch::<S>(D * D);
    let mut output = input.clone();
    bencher.counter(ItemsCount::new(B)).bench_local(|| {
        if parallel {
            fast.forward_flat_parallel(&input, &mut output).unwrap();
        } else {
            fast.forward_flat(&input, &mut output).unwrap();
        }
    });
}

macro_rules! paths {
    ($module:ident, $make:ident) => {
        mod $module {
            use super::*;

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn scalar_f32<const D: usize>(b: Bencher) {
                scalar::<f32, _, D>(b, $make::<f32, D>());
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn lanes_f32<const D: usize>(b: Bencher) {
                lanes::<f32, _, D, 16>(b, $make::<f32, D>(), false);
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn parallel_f32<const D: usize>(b: Bencher) {
                lanes::<f32, _, D, 16>(b, $make::<f32, D>(), true);
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn scalar_f64<const D: usize>(b: Bencher) {
                scalar::<f64, _, D>(b, $make::<f64, D>());
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn lanes_f64<const D: usize>(b: Bencher) {
                lanes::<f64, _, D, 8>(b, $make::<f64, D>(), false);
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn parallel_f64<const D: usize>(b: Bencher) {
                lanes::<f64, _, D, 8>(b, $make::<f64, D>(), true);
            }
        }
    };
}

paths!(skew_vpa, skew);
paths!(arbitrary_vpa, arbitrary);
