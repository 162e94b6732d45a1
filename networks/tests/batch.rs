//! The batch kernels (exact arithmetic) agree with the one-window methods of `Network`, in both
//! layouts and both buffer scalars, and refuse what does not fit with the library's errors.

use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::{Arch, Network, Precision, open_file};

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
const VPFF: &str = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";

fn network(spec: &str, file: &str, precision: Precision) -> Box<dyn Network> {
    let arch: Arch = spec.parse().unwrap();
    let path = format!("{}/../fixtures/gml/{file}", env!("CARGO_MANIFEST_DIR"));
    open_file(path, &arch, precision).unwrap()
}

fn vpt(precision: Precision) -> Box<dyn Network> {
    network(VPT, "transformer_rigid_body_nn_vpt.h5", precision)
}

/// `count` windows of 3×3 values in (−1, 1), column-major, from a fixed formula.
fn windows(count: usize) -> Vec<f64> {
    (0..count * 9)
        .map(|k| ((k * 7919 % 1000) as f64 / 500.0) - 1.0)
        .collect()
}

/// Column-major 3×3 windows to row-major.
fn rows(columns: &[f64]) -> Vec<f64> {
    columns
        .chunks_exact(9)
        .flat_map(|w| (0..3).flat_map(move |i| (0..3).map(move |j| w[i + 3 * j])))
        .collect()
}

#[test]
fn forward_equals_one_window_at_a_time_in_both_layouts() {
    let net = vpt(Precision::F64);
    let columns = windows(5);
    let expected: Vec<f64> = columns
        .chunks_exact(9)
        .flat_map(|w| rows(&net.forward(w).unwrap()))
        .collect();
    let mut out = vec![0.0; 45];
    net.forward_f64(&columns, Layout::Columns, &mut out, true, Arithmetic::Exact)
        .unwrap();
    assert_eq!(out, expected);
    out.fill(0.0);
    net.forward_f64(
        &rows(&columns),
        Layout::Rows,
        &mut out,
        false,
        Arithmetic::Exact,
    )
    .unwrap();
    assert_eq!(out, expected);
}

#[test]
fn f32_buffers_on_an_f32_network_round_once() {
    let net = vpt(Precision::F32);
    let columns = windows(3);
    let expected: Vec<f32> = columns
        .chunks_exact(9)
        .flat_map(|w| rows(&net.forward(w).unwrap()))
        .map(|x| x as f32)
        .collect();
    let input: Vec<f32> = columns.iter().map(|&x| x as f32).collect();
    let mut out = vec![0.0_f32; 27];
    net.forward_f32(&input, Layout::Columns, &mut out, false, Arithmetic::Exact)
        .unwrap();
    // `forward` computes in f32 from the f64 window rounded to f32: the same inputs.
    assert_eq!(out, expected);
}

#[test]
fn rollout_equals_the_one_window_rollout() {
    for (spec, file, seq) in [
        (VPT, "transformer_rigid_body_nn_vpt.h5", 3),
        (VPFF, "transformer_rigid_body_nn_vpff.h5", 1),
    ] {
        let net = network(spec, file, Precision::F64);
        let initial: Vec<f64> = windows(2)[..2 * 3 * seq].iter().map(|x| x * 0.5).collect();
        let steps = 10;
        let mut out = vec![0.0; 2 * 3 * (steps + 1)];
        net.rollout_f64(&initial, Layout::Columns, &mut out, true, Arithmetic::Exact)
            .unwrap();
        for (k, window) in initial.chunks_exact(3 * seq).enumerate() {
            let states = net.rollout(window, steps, &mut |_| {}).unwrap();
            // `rollout` is state after state; the batch writes each trajectory as a 3×11 row-major.
            let trajectory = &out[k * 33..(k + 1) * 33];
            for (n, state) in states.chunks_exact(3).enumerate() {
                for i in 0..3 {
                    assert_eq!(trajectory[i * 11 + n], state[i], "{spec}: {k}, {n}, {i}");
                }
            }
        }
    }
}

#[test]
fn short_rollouts_keep_the_first_states_of_the_window() {
    let net = vpt(Precision::F64);
    let initial = windows(1);
    let mut out = vec![0.0; 3 * 2];
    net.rollout_f64(
        &initial,
        Layout::Columns,
        &mut out,
        false,
        Arithmetic::Exact,
    )
    .unwrap();
    assert_eq!(
        out,
        [
            initial[0], initial[3], initial[1], initial[4], initial[2], initial[5]
        ]
    );
}

#[test]
fn shapes_that_do_not_fit_are_errors() {
    let net = vpt(Precision::F64);
    let input = windows(2);
    let mut out = vec![0.0; 17];
    let message = net
        .forward_f64(&input, Layout::Rows, &mut out, false, Arithmetic::Exact)
        .unwrap_err()
        .to_string();
    assert!(message.contains("one result per input window"), "{message}");
    let message = net
        .forward_f64(
            &input[..10],
            Layout::Rows,
            &mut out[..10],
            false,
            Arithmetic::Exact,
        )
        .unwrap_err()
        .to_string();
    assert!(message.contains("not a multiple of d·T"), "{message}");
    let message = net
        .rollout_f64(&input, Layout::Rows, &mut [], false, Arithmetic::Exact)
        .unwrap_err()
        .to_string();
    assert!(message.contains("at least one state"), "{message}");
    assert!(
        net.rollout_f64(&[], Layout::Rows, &mut [], false, Arithmetic::Exact)
            .is_ok()
    );
}

#[test]
fn checked_batches_name_the_window_and_the_step() {
    let net = vpt(Precision::F64);
    let mut input = windows(4);
    input[2 * 9 + 3 * 2 + 1] = f64::NAN; // window 2, state 2
    let mut out = vec![0.0; 36];
    let message = net
        .forward_f64(&input, Layout::Columns, &mut out, true, Arithmetic::Exact)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "non-finite value at time step 2 of sequence 2 in the input"
    );
    // Unchecked, the NaN stays in its window.
    net.forward_f64(&input, Layout::Columns, &mut out, false, Arithmetic::Exact)
        .unwrap();
    assert!(out[18..27].iter().any(|x| x.is_nan()));
    assert!(out[..18].iter().chain(&out[27..]).all(|x| x.is_finite()));
    let mut trajectories = vec![0.0; 4 * 3 * 7];
    let message = net
        .rollout_f64(
            &input,
            Layout::Columns,
            &mut trajectories,
            true,
            Arithmetic::Exact,
        )
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "non-finite value at time step 2 of sequence 2 in the input"
    );
}

#[test]
fn diverging_output_is_named_by_the_network() {
    let net = network(VPFF, "transformer_rigid_body_nn_vpff.h5", Precision::F32);
    let mut out = [0.0_f32; 3];
    let message = net
        .forward_f32(&[3e38; 3], Layout::Rows, &mut out, true, Arithmetic::Exact)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "non-finite value at time step 0 of sequence 0 in the output of VolumePreservingFeedForward"
    );
}
