//! Throughput of a flat batch of B = 10⁵ sequences (d = T ∈ {3, 4, 5, 8}, f32 and f64) through
//! volume-preserving attention (skew and arbitrary weighting), multi-head attention (one head),
//! symplectic attention (d = T ∈ {4, 8}: phase space has an even dimension), and GML's trained
//! rigid-body transformers (d = T = 3, three blocks: the volume-preserving one and the standard
//! one with multi-head attention), side by side in one run:
//!
//! - `scalar`: [`SequenceLayer::forward_flat`], one sequence at a time;
//! - `portable`, `avx2`, `avx512`: [`Lanewise::forward_flat`] on each instruction set
//!   ([`Isa`]; 4, 8, 16 sequences of f32 per evaluation, half as many of f64), skipped where the
//!   machine lacks it;
//! - `parallel`: [`Lanewise::forward_flat_parallel`] on the best instruction set, on every thread
//!   of rayon's pool;
//! - `vector`: [`Lanewise::forward_flat`] on the best instruction set with
//!   [`geomattn::VectorFunctions`] (the polynomial `exp` and `tanh`, and fused multiply-adds in
//!   the products).
//!
//! `cargo bench -p geomattn-benches --bench throughput`; `cargo test --benches` runs each once.
//! divan reports sequences per second (`item/s`); the README's throughput table turns them into
//! GFLOP/s with the flop count stated there.

use divan::Bencher;
use divan::counter::ItemsCount;
use geomattn::{
    ArbitraryVpa, BatchScalar, Isa, LaneTwin, Lanewise, MapScalar, MultiHeadAttention,
    NoConnection, SequenceLayer, SkewVpa,
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

/// `layer` on the best instruction set with the polynomial `exp` and `tanh` and fused products.
fn vector<L, const D: usize>(bencher: Bencher, layer: L)
where
    L: LaneTwin<D, D>,
    L::Scalar: BatchScalar + From<f32>,
{
    let fast = Lanewise::new(layer).vector_functions();
    let input = batch::<L::Scalar>(D * D);
    let mut output = input.clone();
    bencher
        .counter(ItemsCount::new(B))
        .bench_local(|| fast.forward_flat(&input, &mut output).unwrap());
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
            fn vector_f32<const D: usize>(b: Bencher) {
                vector::<_, D>(b, $make::<f32, D>());
            }

            #[divan::bench(consts = [3, 4, 5, 8])]
            fn vector_f64<const D: usize>(b: Bencher) {
                vector::<_, D>(b, $make::<f64, D>());
            }

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
paths!(multi_head_attention, one_head);

/// Skew VPA with each Cayley kernel on the best instruction set in f32, bit-identical lanes and
/// with [`geomattn::VectorFunctions`]' fused products: which kernel suits lanes (`default` is
/// `Generated`, the rows of `skew_vpa` above).
mod skew_vpa_kernels {
    use geomattn::{Elimination, GramSchmidt};

    use super::*;

    #[divan::bench(consts = [3, 4, 5, 8])]
    fn elimination<const D: usize>(b: Bencher) {
        lanes::<_, D>(
            b,
            skew::<f32, D>().with_map::<Elimination>(),
            Isa::best(),
            false,
        );
    }

    #[divan::bench(consts = [3, 4, 5, 8])]
    fn gram_schmidt<const D: usize>(b: Bencher) {
        lanes::<_, D>(
            b,
            skew::<f32, D>().with_map::<GramSchmidt>(),
            Isa::best(),
            false,
        );
    }

    #[divan::bench(consts = [3, 4, 5, 8])]
    fn elimination_vector<const D: usize>(b: Bencher) {
        vector::<_, D>(b, skew::<f32, D>().with_map::<Elimination>());
    }

    #[divan::bench(consts = [3, 4, 5, 8])]
    fn gram_schmidt_vector<const D: usize>(b: Bencher) {
        vector::<_, D>(b, skew::<f32, D>().with_map::<GramSchmidt>());
    }
}

/// Multi-head attention as GML's rigid-body integrator has it: one head of width d, the column
/// softmax, no connection.
fn one_head<S: geomattn::Field + From<f32>, const D: usize>()
-> MultiHeadAttention<S, D, 1, D, NoConnection> {
    MultiHeadAttention::<f64, D, 1, D, NoConnection>::glorot(&mut SmallRng::seed_from_u64(3))
        .map_scalar(|w| S::from(w as f32))
}

/// Symplectic attention (GML's defaults: dense `A`, the matrix softmax) on phase space
/// `R^d = R^{2n}` at d = T ∈ {4, 8}, the even sizes of the grid.
mod symplectic_attention {
    use super::*;

    /// The layer on phase space `R^D`, `N` = D/2 (named per size: `D/2` is not a type-level
    /// expression).
    trait PhaseSpace<const D: usize> {
        type Layer<S: BatchScalar + From<f32> + Sync>: SequenceLayer<S, D, D>
            + LaneTwin<D, D, Scalar = S>
            + Sync;

        fn layer<S: BatchScalar + From<f32> + Sync>() -> Self::Layer<S>;
    }

    enum Sizes {}

    macro_rules! phase_space {
        ($($d:literal => $n:literal),*) => {$(
            impl PhaseSpace<$d> for Sizes {
                type Layer<S: BatchScalar + From<f32> + Sync> = geomattn::SymplecticAttentionQ<S, $n>;

                fn layer<S: BatchScalar + From<f32> + Sync>() -> Self::Layer<S> {
                    geomattn::SymplecticAttentionQ::<f64, $n>::glorot(&mut SmallRng::seed_from_u64(4))
                        .map_scalar(|w| S::from(w as f32))
                }
            }
        )*};
    }

    phase_space!(4 => 2, 8 => 4);

    macro_rules! symplectic_paths {
        ($($scalar:ty: $scalar_name:ident, $($name:ident = $isa:expr, $parallel:expr);*),*) => {$(
            #[divan::bench(consts = [4, 8])]
            fn $scalar_name<const D: usize>(b: Bencher)
            where
                Sizes: PhaseSpace<D>,
            {
                scalar::<$scalar, _, D>(b, Sizes::layer::<$scalar>());
            }

            $(
                #[divan::bench(consts = [4, 8])]
                fn $name<const D: usize>(b: Bencher)
                where
                    Sizes: PhaseSpace<D>,
                {
                    lanes::<_, D>(b, Sizes::layer::<$scalar>(), $isa, $parallel);
                }
            )*
        )*};
    }

    symplectic_paths!(
        f32: scalar_f32,
            portable_f32 = Isa::Portable, false;
            avx2_f32 = Isa::Avx2, false;
            avx512_f32 = Isa::Avx512, false;
            parallel_f32 = Isa::best(), true,
        f64: scalar_f64,
            portable_f64 = Isa::Portable, false;
            avx2_f64 = Isa::Avx2, false;
            avx512_f64 = Isa::Avx512, false;
            parallel_f64 = Isa::best(), true
    );

    #[divan::bench(consts = [4, 8])]
    fn vector_f32<const D: usize>(b: Bencher)
    where
        Sizes: PhaseSpace<D>,
    {
        vector::<_, D>(b, Sizes::layer::<f32>());
    }

    #[divan::bench(consts = [4, 8])]
    fn vector_f64<const D: usize>(b: Bencher)
    where
        Sizes: PhaseSpace<D>,
    {
        vector::<_, D>(b, Sizes::layer::<f64>());
    }
}

/// One of GML's trained rigid-body networks (a bundled fixture), d = T = 3.
macro_rules! rigid_body {
    ($(#[$doc:meta])* $module:ident, $file:literal, $net:ident<S> = $ty:ty) => {
        $(#[$doc])*
        mod $module {
            use super::*;

            type $net<S> = $ty;

            fn network<S: geomattn::nalgebra::RealField>() -> $net<S>
            where
                $net<S>: geomattn::Schema<Scalar = S>,
            {
                let path = geomattn_testkit::fixture($file);
                geomattn::gml::load_file(path).expect("the bundled fixture loads")
            }

            #[divan::bench]
            fn scalar_f32(b: Bencher) {
                scalar::<f32, _, 3>(b, network::<f32>());
            }

            #[divan::bench(args = [Isa::Portable, Isa::Avx2, Isa::Avx512])]
            fn lanes_f32(b: Bencher, isa: Isa) {
                lanes::<_, 3>(b, network::<f32>(), isa, false);
            }

            #[divan::bench]
            fn parallel_f32(b: Bencher) {
                lanes::<_, 3>(b, network::<f32>(), Isa::best(), true);
            }

            #[divan::bench]
            fn vector_f32(b: Bencher) {
                vector::<_, 3>(b, network::<f32>());
            }

            #[divan::bench]
            fn scalar_f64(b: Bencher) {
                scalar::<f64, _, 3>(b, network::<f64>());
            }

            #[divan::bench(args = [Isa::Portable, Isa::Avx2, Isa::Avx512])]
            fn lanes_f64(b: Bencher, isa: Isa) {
                lanes::<_, 3>(b, network::<f64>(), isa, false);
            }

            #[divan::bench]
            fn parallel_f64(b: Bencher) {
                lanes::<_, 3>(b, network::<f64>(), Isa::best(), true);
            }

            #[divan::bench]
            fn vector_f64(b: Bencher) {
                vector::<_, 3>(b, network::<f64>());
            }
        }
    };
}

rigid_body!(
    /// The volume-preserving transformer: three blocks of arbitrary VPA and the volume-preserving
    /// feed-forward network with `tanh`.
    rigid_body_vpt,
    "transformer_rigid_body_nn_vpt.h5",
    Vpt<S> = geomattn::VolumePreservingTransformer<S, 3, 3, 2, 1, 3, geomattn::Tanh>
);

rigid_body!(
    /// The standard transformer integrator: three blocks of one-head attention and a ResNet stack
    /// with `tanh`.
    rigid_body_st,
    "transformer_rigid_body_nn_st.h5",
    St<S> = geomattn::StandardTransformerIntegrator<
        S,
        3,
        MultiHeadAttention<S, 3, 1, 3, NoConnection>,
        2,
        3,
        geomattn::Tanh,
    >
);
