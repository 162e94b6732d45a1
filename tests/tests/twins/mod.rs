//! What the run-time engine's tests share (`engine*.rs`; each uses a part, hence
//! `allow(dead_code)`): seeded networks and windows, the relative error, and two networks that
//! must be the same network, the run-time engine's and the compiled one of the same file,
//! compared bit for bit through every entry point of [`Network`] (forward passes, rollouts,
//! checked batches in both layouts, on the scalar path).
#![allow(dead_code)]

use geomattn::gml::GmlFile;
use geomattn::nalgebra::DMatrix;
use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::{Arch, Network, Precision, engine, layout, open};
use geomattn_testkit::gml_chain::{Values64, file_of, values_of};

/// `arch`'s file written by the test kit from `seed`, and its values widened to `f64`
/// (exactly), for the reference.
pub fn network(arch: &Arch, seed: u64) -> (GmlFile, Vec<Vec<Vec<f64>>>) {
    let layers = layout::layers(arch);
    let wide = values_of(&layers, seed)
        .iter()
        .map(|layer| {
            layer
                .iter()
                .map(|p| p.iter().map(|&x| f64::from(x)).collect())
                .collect()
        })
        .collect();
    (file_of(&layers, seed), wide)
}

/// `count` windows (inputs) of `arch`'s shape, values in `(−scale, scale)` from `seed`, one after
/// another, column-major.
pub fn windows(arch: &Arch, seed: u64, scale: f64, count: usize) -> Vec<f64> {
    Values64(seed)
        .take(arch.dim() * arch.seq() * count)
        .iter()
        .map(|&x| f64::from(x) * scale)
        .collect()
}

/// One window of [`windows`].
pub fn window(arch: &Arch, seed: u64, scale: f64) -> Vec<f64> {
    windows(arch, seed, scale, 1)
}

/// `‖found − expected‖_max / max(1, ‖expected‖_max)`.
pub fn relative(found: &DMatrix<f64>, expected: &DMatrix<f64>) -> f64 {
    (found - expected).amax() / expected.amax().max(1.0)
}

/// For each of `networks` (a spec on the grid and its file), the engine's network and the
/// compiled one are the same bits in both precisions ([`assert_same_bits`]) on `count` windows.
pub fn assert_engine_is_compiled(networks: impl IntoIterator<Item = (Arch, GmlFile)>, count: u64) {
    for (arch, file) in networks {
        for precision in [Precision::F32, Precision::F64] {
            let compiled = open(&file, &arch, precision).unwrap();
            let run_time = engine::open(&file, &arch, precision).unwrap();
            let windows: Vec<Vec<f64>> = (0..count).map(|s| window(&arch, 300 + s, 1.5)).collect();
            assert_same_bits(
                run_time.as_ref(),
                compiled.as_ref(),
                &windows,
                &arch.to_string(),
            );
        }
    }
}

/// Asserts that `a` and `b` give the same bits: [`Network::forward`] on each of `windows`
/// (flat, column-major, `dim × seq` each), 30 states of [`Network::states`] from the first
/// window scaled by `1/4` (untrained weights may diverge: the states are compared as computed),
/// and the checked `f64` batches of all `windows`, forward and rolled out, in both layouts.
///
/// # Panics
/// At the first difference, naming `what`; if a network refuses a window.
pub fn assert_same_bits(a: &dyn Network, b: &dyn Network, windows: &[Vec<f64>], what: &str) {
    for z in windows {
        assert_eq!(a.forward(z).unwrap(), b.forward(z).unwrap(), "{what}");
    }
    let first: Vec<f64> = windows[0].iter().map(|x| x / 4.0).collect();
    let bits = |net: &dyn Network| -> Vec<u64> {
        let states = net.states(&first).unwrap().take(30);
        states.flatten().map(f64::to_bits).collect()
    };
    assert_eq!(bits(a), bits(b), "{what}");
    let batch: Vec<f64> = windows.concat();
    let (count, len) = (windows.len(), windows[0].len());
    let dim = a.states(&windows[0]).unwrap().next().unwrap().len();
    let states = 2 * len / dim + 1;
    for layout in [Layout::Rows, Layout::Columns] {
        let mut outputs = [vec![0.0; batch.len()], vec![0.0; batch.len()]];
        for (net, out) in [a, b].into_iter().zip(&mut outputs) {
            net.forward_f64(&batch, layout, out, true, Arithmetic::Exact)
                .unwrap();
        }
        assert_eq!(outputs[0], outputs[1], "{what}: {layout:?}");
        let mut outputs = [
            vec![0.0; count * dim * states],
            vec![0.0; count * dim * states],
        ];
        for (net, out) in [a, b].into_iter().zip(&mut outputs) {
            net.rollout_f64(&batch, layout, out, true, Arithmetic::Exact)
                .unwrap();
        }
        assert_eq!(outputs[0], outputs[1], "{what}: {layout:?} rollout");
    }
}
