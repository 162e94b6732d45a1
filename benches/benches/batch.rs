//! The batch Python's `Network.forward` and `rollout` hand their arrays to
//! (`geomattn_networks::batch`, through the object-safe `Network`, on the run-time engine),
//! against the compile-time network's lane path, on GML's trained rigid-body volume-preserving
//! transformer in f32, B = 10⁵ windows, one thread:
//!
//! - `spec_fast`, `spec_exact`: `Network::forward_f32` on numpy's layout (row-major windows),
//!   `Arithmetic::Fast` (the default) and `Arithmetic::Exact`: the engine's batches (windows in
//!   lanes, `engine::forward_in_lanes`);
//! - `compiled_fast`: the compile-time type through the same batch (`batch::forward`, `Fast`);
//! - `lanewise_vector`, `lanewise_exact`: `Lanewise::forward_flat` on Julia's layout, with
//!   `VectorFunctions` and without;
//! - `spec_rollout_fast`: `Network::rollout_f32` of 10⁴ windows to 61 states (20 passes each);
//! - `engine_vpt5`: the issue's `vpt(dim=5, seq=6, n_linear=2, sigmoid)` (`fixtures/synthetic`),
//!   `Network::forward_f32` on 10⁴ windows, in `Fast` (the polynomial `exp` and `tanh` on the
//!   processor's vectors) and `Exact`;
//! - `engine_sti`: GML's tutorial integrator `StandardTransformerIntegrator(2; transformer_dim =
//!   20, n_heads = 5, n_blocks = 3, L = 3, upscaling_activation = tanh)`
//!   (`fixtures/gml/integrator_parameters.h5`), windows of 4, 10³ windows.
//!
//! `cargo bench -p geomattn-benches --bench batch`; `benches/compare_network_peers.py` runs it
//! beside the Python call and JAX.

use divan::Bencher;
use divan::counter::ItemsCount;
use geomattn::{Lanewise, Tanh, VolumePreservingTransformer};
use geomattn_networks::batch::{self, Arithmetic, Layout};
use geomattn_networks::{Arch, Network, Precision};

fn main() {
    divan::main();
}

/// Windows per batch: 10⁵, or 10³ in the unoptimised smoke run (`cargo test --benches`).
const B: usize = if cfg!(debug_assertions) {
    1_000
} else {
    100_000
};

const SPEC: &str =
    "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
const FILE: &str = "transformer_rigid_body_nn_vpt.h5";

/// `count` windows of 3×3 values of order one.
fn windows(count: usize) -> Vec<f32> {
    (0..count * 9).map(|i| (i as f32 * 0.618).sin()).collect()
}

fn network() -> Box<dyn Network> {
    let arch: Arch = SPEC.parse().unwrap();
    geomattn_networks::open_file(geomattn_testkit::fixture(FILE), &arch, Precision::F32).unwrap()
}

fn spec(bencher: Bencher, arithmetic: Arithmetic) {
    let net = network();
    let input = windows(B);
    let mut output = input.clone();
    bencher.counter(ItemsCount::new(B)).bench_local(|| {
        net.forward_f32(&input, Layout::Rows, &mut output, false, arithmetic)
            .unwrap();
    });
}

#[divan::bench]
fn spec_fast(bencher: Bencher) {
    spec(bencher, Arithmetic::Fast);
}

#[divan::bench]
fn spec_exact(bencher: Bencher) {
    spec(bencher, Arithmetic::Exact);
}

type Vpt = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>;

fn vpt() -> Vpt {
    geomattn::gml::load_file(geomattn_testkit::fixture(FILE)).unwrap()
}

/// The compile-time network through the same batch (staging, layout) as `spec_fast`: what the
/// Python call cost on the compiled grid before the run-time engine replaced it.
#[divan::bench]
fn compiled_fast(bencher: Bencher) {
    let net = vpt();
    let input = windows(B);
    let mut output = input.clone();
    bencher.counter(ItemsCount::new(B)).bench_local(|| {
        batch::forward::<f32, f32, Vpt, 3, 3>(
            &net,
            &input,
            Layout::Rows,
            &mut output,
            false,
            Arithmetic::Fast,
        )
        .unwrap();
    });
}

#[divan::bench]
fn lanewise_vector(bencher: Bencher) {
    let fast = Lanewise::new(vpt()).vector_functions();
    let input = windows(B);
    let mut output = input.clone();
    bencher
        .counter(ItemsCount::new(B))
        .bench_local(|| fast.forward_flat::<3, 3>(&input, &mut output).unwrap());
}

#[divan::bench]
fn lanewise_exact(bencher: Bencher) {
    let exact = Lanewise::new(vpt());
    let input = windows(B);
    let mut output = input.clone();
    bencher
        .counter(ItemsCount::new(B))
        .bench_local(|| exact.forward_flat::<3, 3>(&input, &mut output).unwrap());
}

#[divan::bench]
fn spec_rollout_fast(bencher: Bencher) {
    let net = network();
    let count = B / 10;
    let input = windows(count);
    let mut output = vec![0.0_f32; count * 3 * 61];
    bencher.counter(ItemsCount::new(count)).bench_local(|| {
        net.rollout_f32(&input, Layout::Rows, &mut output, false, Arithmetic::Fast)
            .unwrap();
    });
}

/// `count` flat windows of `len` values of order one.
fn engine_windows(count: usize, len: usize) -> Vec<f32> {
    (0..count * len)
        .map(|i| (i as f32 * 0.618).sin() / 2.0)
        .collect()
}

/// `forward_f32` of `net` on `count` windows of `len` values.
fn engine_forward(
    bencher: Bencher,
    net: &dyn Network,
    (count, len): (usize, usize),
    arithmetic: Arithmetic,
) {
    let input = engine_windows(count, len);
    let mut output = input.clone();
    bencher.counter(ItemsCount::new(count)).bench_local(|| {
        net.forward_f32(&input, Layout::Rows, &mut output, false, arithmetic)
            .unwrap();
    });
}

/// Both arithmetics of the engine's batches: `Fast` (the polynomial `exp` and `tanh` on the
/// processor's vectors) and `Exact` (the scalar functions lane by lane).
const ARITHMETICS: [Arithmetic; 2] = [Arithmetic::Fast, Arithmetic::Exact];

#[divan::bench(args = ARITHMETICS)]
fn engine_vpt5(bencher: Bencher, arithmetic: Arithmetic) {
    let spec = "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)";
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/synthetic/vpt_dim5_seq6_sigmoid.h5"
    );
    let net = geomattn_networks::open_file(path, &spec.parse().unwrap(), Precision::F32).unwrap();
    engine_forward(bencher, net.as_ref(), (B / 10, 30), arithmetic);
}

#[divan::bench(args = ARITHMETICS)]
fn engine_sti(bencher: Bencher, arithmetic: Arithmetic) {
    let spec = "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
                L = 3, upscaling_activation = tanh, seq = 4)";
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/gml/integrator_parameters.h5"
    );
    let net = geomattn_networks::open_file(path, &spec.parse().unwrap(), Precision::F32).unwrap();
    engine_forward(bencher, net.as_ref(), (B / 100, 8), arithmetic);
}
