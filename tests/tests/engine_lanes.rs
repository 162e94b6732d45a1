//! The run-time engine's batches run several windows at a time, one per lane
//! (`geomattn::engine::forward_in_lanes`): in `Exact`, every window's output is bit for bit its
//! own forward pass, for every architecture, in `f32` and `f64`, whatever its neighbours in the
//! group hold (a NaN, a last group filled up with copies), and every rollout the network's own
//! states; in `Fast`, within `Arithmetic::Fast`'s documented bound of the exact result (`f32`:
//! the polynomial `exp` and `tanh`; `f64`: bit for bit `Exact`).

use crate::twins::{network, windows};
use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::{Arch, Network, Precision, engine};

/// A network of every architecture the engine runs, at sizes no compiled type has; among them
/// sequences past the compiled Cayley kernels (LU, lane by lane), every activation, and a
/// transformer whose residual layers and Cayley products run fused in `Fast`
/// (`Isa::residual_in_place`, `Isa::cayley_product_in_place`: dimension up to 8, seq up to 4).
const NETWORKS: [&str; 10] = [
    "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)",
    "vpt(dim=4, seq=17, n_blocks=1, n_linear=1, L=1, activation=softplus, skew_sym=true)",
    "vpff(dim=6, n_blocks=3, n_linear=2, activation=relu, init_upper=true)",
    "st(dim=2, seq=4, n_heads=5, n_blocks=3, L=3, activation=tanh, add_connection=true, \
     transformer_dim=20, upscaling_activation=tanh)",
    "st(dim=6, seq=5, n_heads=3, n_blocks=1, L=2, activation=identity, add_connection=false, \
     attention_activation=MatrixSoftmax)",
    "SymplecticTransformer(4; seq = 5, transformer_dim = 8, n_sympnet = 2, L = 2, \
     symmetric = true)",
    "SymplecticTransformer(4; seq = 10, n_sympnet = 6, L = 1)",
    "LinearSymplecticTransformer(4, 4; n_sympnet = 2, upscaling_dimension = 20, L = 1)",
    "LinearSymplecticTransformer(2, 10; n_sympnet = 3, L = 2, activation = identity)",
    "vpt(dim=7, seq=4, n_blocks=2, n_linear=1, L=2, activation=tanh, skew_sym=true)",
];

/// Windows per batch: whole groups of lanes and a partial one for every width (8 `f32` exact,
/// 16 `f32` fast, 4 `f64`).
const COUNT: usize = 21;

#[test]
fn every_window_of_a_batch_is_its_own_forward_pass_bit_for_bit() {
    for (k, spec) in NETWORKS.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let (file, _) = network(&arch, 70 + k as u64);
        let mut input = windows(&arch, 400 + k as u64, 1.5, COUNT);
        // A NaN in window 9 stays in window 9 (of the second group of `f32`, the third of `f64`).
        input[9 * arch.dim() * arch.seq() + 1] = f64::NAN;
        for precision in [Precision::F64, Precision::F32] {
            let net = engine::open(&file, &arch, precision).unwrap();
            let found = batch(net.as_ref(), &input, precision, Arithmetic::Exact);
            for (w, (z, y)) in windows_of(&arch, &input)
                .zip(windows_of(&arch, &found))
                .enumerate()
            {
                if w == 9 {
                    // (`forward` refuses a NaN.)
                    assert!(y.iter().any(|x| x.is_nan()), "{spec} {precision:?}");
                    continue;
                }
                let expected = rounded(&net.forward(z).unwrap(), precision);
                assert_eq!(bits(y), bits(&expected), "{spec} {precision:?}: window {w}");
            }
        }
    }
}

#[test]
fn a_batch_rollout_is_the_networks_own_states() {
    for (k, spec) in NETWORKS.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let (file, _) = network(&arch, 90 + k as u64);
        // Small inputs: the untrained networks stay finite over three passes.
        let input = windows(&arch, 500 + k as u64, 0.25, 5);
        let states = 3 * arch.seq();
        for precision in [Precision::F64, Precision::F32] {
            let net = engine::open(&file, &arch, precision).unwrap();
            let mut out = vec![0.0; 5 * arch.dim() * states];
            net.rollout_f64(&input, Layout::Columns, &mut out, false, Arithmetic::Exact)
                .unwrap();
            for (z, trajectory) in windows_of(&arch, &input).zip(out.chunks(arch.dim() * states)) {
                // `rollout_f64` writes each trajectory row-major, `dim × states`.
                let expected: Vec<f64> = net.states(z).unwrap().take(states).flatten().collect();
                let found: Vec<f64> = (0..states)
                    .flat_map(|t| (0..arch.dim()).map(move |i| trajectory[i * states + t]))
                    .collect();
                assert_eq!(bits(&found), bits(&expected), "{spec} {precision:?}");
            }
        }
    }
}

#[test]
fn fast_batches_are_within_the_documented_bound() {
    for (k, spec) in NETWORKS.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let (file, _) = network(&arch, 110 + k as u64);
        let double = engine::open(&file, &arch, Precision::F64).unwrap();
        let single = engine::open(&file, &arch, Precision::F32).unwrap();
        for scale in [1e-2, 1.0, 10.0] {
            // Windows in f32 already: the network in f64 on them is the exact result.
            let input: Vec<f64> = windows(&arch, 600 + k as u64, scale, COUNT)
                .into_iter()
                .map(|x| f64::from(x as f32))
                .collect();
            let exact = batch(double.as_ref(), &input, Precision::F64, Arithmetic::Exact);
            let epsilon = f64::from(f32::EPSILON);
            let rounding = largest_difference(
                &batch(single.as_ref(), &input, Precision::F32, Arithmetic::Exact),
                &exact,
                epsilon,
            );
            let fast = batch(single.as_ref(), &input, Precision::F32, Arithmetic::Fast);
            let error = largest_difference(&fast, &exact, epsilon);
            println!("{spec} scale {scale}: scalar {rounding:.1} ε, fast {error:.1} ε");
            assert!(
                error <= 4.0 * rounding.max(4.0),
                "{spec} scale {scale}: {error} ε"
            );
            // Each lane its own: a NaN in window 9 changes window 9 only.
            let mut poisoned = input.clone();
            poisoned[9 * arch.dim() * arch.seq()] = f64::NAN;
            let found = batch(single.as_ref(), &poisoned, Precision::F32, Arithmetic::Fast);
            for (w, (y, f)) in windows_of(&arch, &found)
                .zip(windows_of(&arch, &fast))
                .enumerate()
            {
                if w == 9 {
                    assert!(y.iter().any(|x| x.is_nan()), "{spec} scale {scale}");
                } else {
                    assert_eq!(bits(y), bits(f), "{spec} scale {scale}: window {w}");
                }
            }
            // In f64, `Fast` is `Exact`.
            let fast = batch(double.as_ref(), &input, Precision::F64, Arithmetic::Fast);
            assert_eq!(bits(&fast), bits(&exact), "{spec} scale {scale}");
        }
    }
}

/// `|found − exact|` at its largest, in units of `ε · max(|exact|, 1)`.
fn largest_difference(found: &[f64], exact: &[f64], epsilon: f64) -> f64 {
    found
        .iter()
        .zip(exact)
        .map(|(f, e)| (f - e).abs() / (epsilon * e.abs().max(1.0)))
        .fold(0.0, f64::max)
}

/// The batch forward pass of `input` in `precision`'s own buffer scalar, as `f64`, each window
/// column-major.
fn batch(
    net: &dyn Network,
    input: &[f64],
    precision: Precision,
    arithmetic: Arithmetic,
) -> Vec<f64> {
    let columns = |rows: Vec<f64>| -> Vec<f64> {
        let (dim, seq) = (net.arch().dim(), net.arch().seq());
        rows.chunks(dim * seq)
            .flat_map(|w| (0..seq).flat_map(move |t| (0..dim).map(move |i| w[i * seq + t])))
            .collect()
    };
    match precision {
        Precision::F64 => {
            let mut out = vec![0.0; input.len()];
            net.forward_f64(input, Layout::Columns, &mut out, false, arithmetic)
                .unwrap();
            columns(out)
        }
        Precision::F32 => {
            let single: Vec<f32> = input.iter().map(|&x| x as f32).collect();
            let mut out = vec![0.0_f32; input.len()];
            net.forward_f32(&single, Layout::Columns, &mut out, false, arithmetic)
                .unwrap();
            columns(out.into_iter().map(f64::from).collect())
        }
    }
}

/// `values` as the network's scalar holds them.
fn rounded(values: &[f64], precision: Precision) -> Vec<f64> {
    match precision {
        Precision::F64 => values.to_vec(),
        Precision::F32 => values.iter().map(|&x| f64::from(x as f32)).collect(),
    }
}

fn windows_of<'a>(arch: &Arch, values: &'a [f64]) -> impl Iterator<Item = &'a [f64]> {
    values.chunks(arch.dim() * arch.seq())
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}
