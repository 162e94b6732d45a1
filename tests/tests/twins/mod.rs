//! What the run-time engine's tests share (`engine*.rs`; each uses a part, hence
//! `allow(dead_code)`): seeded networks and windows, the relative error, and two networks that
//! must be the same network, the run-time engine's and the compile-time one of the same file
//! ([`compiled!`]), compared bit for bit through the entry points of [`Network`] (forward
//! passes, states, exact batches and batch rollouts).
#![allow(dead_code)]

use core::marker::PhantomData;

use geomattn::SequenceLayer;
use geomattn::gml::GmlFile;
use geomattn::nalgebra::{DMatrix, SMatrix};
use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::{Arch, Network, Precision, Scalar, engine, layout};
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

/// A compile-time network (its sizes types), loaded from a file: the one-window forward pass and
/// the states of GML's `iterate`, on `f64` windows computed in the network's scalar, as
/// [`Network`] has them.
pub trait Compiled {
    /// The forward pass on one window, column-major.
    fn forward(&self, window: &[f64]) -> Vec<f64>;
    /// The first `count` states from the window `initial` (its own states first, in the network's
    /// scalar), flattened.
    fn states(&self, initial: &[f64], count: usize) -> Vec<f64>;
}

/// `Net` on windows of `T` states in `R^D`, computing in `S`.
pub struct Typed<S, Net, const D: usize, const T: usize>(pub Net, pub PhantomData<S>);

impl<S, Net, const D: usize, const T: usize> Compiled for Typed<S, Net, D, T>
where
    S: Scalar,
    Net: SequenceLayer<S, D, T>,
{
    fn forward(&self, window: &[f64]) -> Vec<f64> {
        let z = SMatrix::<S, D, T>::from_iterator(window.iter().map(|&x| S::from_double(x)));
        self.0.forward(&z).iter().map(|x| x.to_double()).collect()
    }

    fn states(&self, initial: &[f64], count: usize) -> Vec<f64> {
        // The window as the network holds it, in `S`.
        let mut states: Vec<f64> = initial
            .iter()
            .map(|&x| S::from_double(x).to_double())
            .collect();
        while states.len() < count * D {
            let last = states[states.len() - D * T..].to_vec();
            states.extend(self.forward(&last));
        }
        states.truncate(count * D);
        states
    }
}

/// `$file` loaded as the compile-time network `$net` (written once with the scalar `S`) on
/// windows of `$t` states in `R^$d`, in `f32` and in `f64`.
#[macro_export]
macro_rules! compiled {
    ($file:expr, $d:literal, $t:literal, $($net:tt)+) => {{
        let single = {
            type S = f32;
            let net = geomattn::gml::load::<$($net)+>($file).unwrap();
            Box::new($crate::twins::Typed::<S, _, $d, $t>(net, core::marker::PhantomData))
                as Box<dyn $crate::twins::Compiled>
        };
        let double = {
            type S = f64;
            let net = geomattn::gml::load::<$($net)+>($file).unwrap();
            Box::new($crate::twins::Typed::<S, _, $d, $t>(net, core::marker::PhantomData))
                as Box<dyn $crate::twins::Compiled>
        };
        [single, double]
    }};
}

/// Pushes onto `$networks` the spec `$spec`, its file of seeded weights ([`network`], seeded by
/// its place in the list) and that file as its compile-time network `$net` ([`compiled!`]), for
/// [`assert_engine_is_compiled`].
#[macro_export]
macro_rules! twin {
    ($networks:ident, $spec:literal, $d:literal, $t:literal, $($net:tt)+) => {{
        let arch: geomattn_networks::Arch = $spec.parse().unwrap();
        let (file, _) = $crate::twins::network(&arch, $networks.len() as u64 + 1);
        let compiled = compiled!(&file, $d, $t, $($net)+);
        $networks.push((arch, file, compiled));
    }};
}

/// For each of `networks` (a spec, its file, and the file loaded as its compile-time network in
/// `f32` and `f64`), the engine's network and the compile-time one give the same bits on `count`
/// windows ([`assert_same_bits`]).
pub fn assert_engine_is_compiled(
    networks: impl IntoIterator<Item = (Arch, GmlFile, [Box<dyn Compiled>; 2])>,
    count: u64,
) {
    for (arch, file, compiled) in networks {
        for (precision, compiled) in [Precision::F32, Precision::F64].into_iter().zip(compiled) {
            let run_time = engine::open(&file, &arch, precision).unwrap();
            let windows: Vec<Vec<f64>> = (0..count).map(|s| window(&arch, 300 + s, 1.5)).collect();
            assert_same_bits(
                run_time.as_ref(),
                compiled.as_ref(),
                &windows,
                &format!("{arch} {precision:?}"),
            );
        }
    }
}

/// Asserts that the engine's `net` and the compile-time `compiled` give the same bits:
/// [`Network::forward`] on each of `windows` (flat, column-major, `dim × seq` each), 30 states
/// of [`Network::states`] from the first window scaled by `1/4` (untrained weights may diverge:
/// the states are compared as computed), and the engine's exact `f64` batches of all `windows`,
/// forward and rolled out, in both layouts, against the one-window passes.
///
/// # Panics
/// At the first difference, naming `what`; if a network refuses a window.
pub fn assert_same_bits(
    net: &dyn Network,
    compiled: &dyn Compiled,
    windows: &[Vec<f64>],
    what: &str,
) {
    let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for z in windows {
        assert_eq!(
            bits(&net.forward(z).unwrap()),
            bits(&compiled.forward(z)),
            "{what}"
        );
    }
    let first: Vec<f64> = windows[0].iter().map(|x| x / 4.0).collect();
    let states: Vec<f64> = net.states(&first).unwrap().take(30).flatten().collect();
    assert_eq!(bits(&states), bits(&compiled.states(&first, 30)), "{what}");
    let (dim, seq) = (net.arch().dim(), net.arch().seq());
    let batch: Vec<f64> = windows.concat();
    // Outputs are row-major `dim × n` each (numpy's C order).
    let rows = |columns: Vec<f64>| -> Vec<f64> {
        let n = columns.len() / dim;
        (0..dim)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|(i, j)| columns[i + dim * j])
            .collect()
    };
    let one_by_one: Vec<f64> = windows
        .iter()
        .flat_map(|z| rows(compiled.forward(z)))
        .collect();
    let mut out = vec![0.0; batch.len()];
    net.forward_f64(&batch, Layout::Columns, &mut out, true, Arithmetic::Exact)
        .unwrap();
    assert_eq!(bits(&out), bits(&one_by_one), "{what}: batch");
    // Rolled out: each window's first `2·seq + 1` states, state after state.
    let count = 2 * seq + 1;
    let mut out = vec![0.0; windows.len() * dim * count];
    net.rollout_f64(&batch, Layout::Columns, &mut out, true, Arithmetic::Exact)
        .unwrap();
    let expected: Vec<f64> = windows
        .iter()
        .flat_map(|z| rows(compiled.states(z, count)))
        .collect();
    assert_eq!(bits(&out), bits(&expected), "{what}: batch rollout");
}
