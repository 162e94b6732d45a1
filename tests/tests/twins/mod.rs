//! Two networks that must be the same network, the run-time engine's and the compiled one of
//! the same file, compared bit for bit through every entry point of [`Network`] (forward passes,
//! rollouts, checked batches in both layouts, on the scalar path). Shared by `engine.rs` and
//! `engine_standard.rs`.

use geomattn_spec::Network;
use geomattn_spec::batch::{Arithmetic, Layout};

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
