//! Throughput of a flat batch of B = 10⁵ sequences (d = T ∈ {3, 4, 5, 8}, f32 and f64) through
//! volume-preserving attention, skew and arbitrary weighting, and through GML's trained rigid-body
//! transformer (d = T = 3, three blocks), side by side in one run:
//!
//! - `scalar`: [`SequenceLayer::forward_flat`], one sequence at a time;
//! - `portable`, `avx2`, `avx512`: [`Lanewise::forward_flat`] on each instruction set
//!   ([`Isa`]; 4, 8, 16 sequences of f32 per evaluation, half as many of f64), skipped where the
//!   machine lacks it;
//! - `parallel`: [`Lanewise::forward_flat_parallel`] on the best instruction set, on every thread
//!   of rayon's pool.
//!
//! `cargo bench -p geomattn-benches --bench throughput`; `cargo test --benches` runs each once.
//! divan reports sequences per second (`item/s`); the README's throughput table turns them into
//! GFLOP/s with the flop count stated there.

use divan::Bencher;
use divan::counter::ItemsCount;
use geomattn::{
    ArbitraryVpa, BatchScalar, Isa, LaneTwin, Lanewise, MapScalar, SequenceLayer, SkewVpa,
};
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

fn lanes<L, const D: usize>(bencher: Bencher, layer: L, isa: Isa, parallel: bool)
where
    L: LaneTwin<D, D> + Sync,
    L::Scalar: BatchScalar + From<f32> + Send + Sync,
{
    let Some(fast) = Lanewise::on(isa, layer) else {
        eprintln!("{isa:?}: not on this machine, skipped");
        return;
    };
    let input = batch::<L::Scalar>(D * D);
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

            paths!(@lanes f32, $make, portable_f32, Isa::Portable, false);
            paths!(@lanes f32, $make, avx2_f32, Isa::Avx2, false);
            paths!(@lanes f32, $make, avx512_f32, Isa::Avx512, false);
            paths!(@lanes f32, $make, parallel_f32, Isa::best(), true);

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn scalar_f64<const D: usize>(b: Bencher) {
                scalar::<f64, _, D>(b, $make::<f64, D>());
            }

            paths!(@lanes f64, $make, portable_f64, Isa::Portable, false);
            paths!(@lanes f64, $make, avx2_f64, Isa::Avx2, false);
            paths!(@lanes f64, $make, avx512_f64, Isa::Avx512, false);
            paths!(@lanes f64, $make, parallel_f64, Isa::best(), true);
        }
    };
    (@lanes $scalar:ty, $make:ident, $name:ident, $isa:expr, $parallel:expr) => {
        #[divan::bench(consts = [3, 4, 5, 8])]
        fn $name<const D: usize>(b: Bencher) {
            lanes::<_, D>(b, $make::<$scalar, D>(), $isa, $parallel);
        }
    };
}

paths!(skew_vpa, skew);
paths!(arbitrary_vpa, arbitrary);

/// GML's rigid-body volume-preserving transformer (the bundled fixture), d = T = 3.
mod rigid_body_vpt {
    use super::*;

    type Vpt<S> = geomattn::VolumePreservingTransformer<S, 3, 3, 2, 1, 3, geomattn::Tanh>;

    fn vpt<S: geomattn::nalgebra::RealField>() -> Vpt<S>
    where
        Vpt<S>: geomattn::Schema<Scalar = S>,
    {
        let path = geomattn_testkit::fixture("transformer_rigid_body_nn_vpt.h5");
        geomattn::gml::load_file(path).expect("the bundled fixture loads")
    }

    #[divan::bench]
    fn scalar_f32(b: Bencher) {
        scalar::<f32, _, 3>(b, vpt::<f32>());
    }

    #[divan::bench(args = [Isa::Portable, Isa::Avx2, Isa::Avx512])]
    fn lanes_f32(b: Bencher, isa: Isa) {
        lanes::<_, 3>(b, vpt::<f32>(), isa, false);
    }

    #[divan::bench]
    fn parallel_f32(b: Bencher) {
        lanes::<_, 3>(b, vpt::<f32>(), Isa::best(), true);
    }

    #[divan::bench]
    fn scalar_f64(b: Bencher) {
        scalar::<f64, _, 3>(b, vpt::<f64>());
    }

    #[divan::bench(args = [Isa::Portable, Isa::Avx2, Isa::Avx512])]
    fn lanes_f64(b: Bencher, isa: Isa) {
        lanes::<_, 3>(b, vpt::<f64>(), isa, false);
    }

    #[divan::bench]
    fn parallel_f64(b: Bencher) {
        lanes::<_, 3>(b, vpt::<f64>(), Isa::best(), true);
    }
}
