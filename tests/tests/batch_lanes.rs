//! The batches of every network (`Network`, on the run-time engine): with `Arithmetic::Exact`
//! bit for bit the scalar path (one window at a time through `Network::forward` and GML's
//! `iterate`); with the default `Arithmetic::Fast` (the vectorised functions and fused products
//! for networks in f32) within its documented bound: no further from the exact result (the
//! network in f64) than four times the scalar path's own rounding, and at least 16 ε. For GML's
//! three rigid-body networks, both precisions, both layouts, and batch sizes around the lane
//! counts and the staging chunk. And the same bound for a network whose sizes are types
//! (`batch::forward`, the compile-time lane path).

use geomattn::Isa;
use geomattn_networks::batch::{Arithmetic, Layout, STAGED, lanes};
use geomattn_networks::{Arch, Network, Precision, open_file};

const NETWORKS: [(&str, &str); 3] = [
    (
        "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
        "transformer_rigid_body_nn_vpt.h5",
    ),
    (
        "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)",
        "transformer_rigid_body_nn_st.h5",
    ),
    (
        "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)",
        "transformer_rigid_body_nn_vpff.h5",
    ),
];

fn network(spec: &str, file: &str, precision: Precision) -> Box<dyn Network> {
    let arch: Arch = spec.parse().unwrap();
    let path = format!("{}/../fixtures/gml/{file}", env!("CARGO_MANIFEST_DIR"));
    open_file(path, &arch, precision).unwrap()
}

/// Batch sizes that are not multiples of any lane count: 0, 1, one below and one above the
/// lanes of every instruction set, and beyond one staging chunk.
fn counts() -> Vec<usize> {
    let mut counts = vec![0, 1, STAGED + 3, 2 * STAGED + 17];
    for isa in Isa::ALL {
        for lanes in [isa.lanes::<f32>(), isa.lanes::<f64>()] {
            counts.extend([lanes - 1, lanes + 1]);
        }
    }
    counts
}

/// `count·len` values in (−scale, scale), from a fixed formula.
fn values(count: usize, len: usize, scale: f64) -> Vec<f64> {
    (0..count * len)
        .map(|k| scale * (((k * 7919 + 13) % 2000) as f64 / 1000.0 - 1.0))
        .collect()
}

/// Column-major `d×t` windows to row-major.
fn rows(columns: &[f64], d: usize, t: usize) -> Vec<f64> {
    columns
        .chunks_exact(d * t)
        .flat_map(|w| (0..d).flat_map(move |i| (0..t).map(move |j| w[i + d * j])))
        .collect()
}

/// The one-window forward pass of every window, row-major, widened to f64.
fn one_at_a_time(net: &dyn Network, columns: &[f64]) -> Vec<f64> {
    let (d, t) = (net.arch().dim(), net.arch().seq());
    columns
        .chunks_exact(d * t)
        .flat_map(|w| rows(&net.forward(w).unwrap(), d, t))
        .collect()
}

/// The batch forward pass in `arithmetic`, from column-major windows given in `layout`.
fn batch(net: &dyn Network, columns: &[f64], layout: Layout, arithmetic: Arithmetic) -> Vec<f64> {
    let (d, t) = (net.arch().dim(), net.arch().seq());
    let input = match layout {
        Layout::Columns => columns.to_vec(),
        Layout::Rows => rows(columns, d, t),
    };
    match net.precision() {
        Precision::F64 => {
            let mut out = vec![0.0; input.len()];
            net.forward_f64(&input, layout, &mut out, false, arithmetic)
                .unwrap();
            out
        }
        Precision::F32 => {
            let input: Vec<f32> = input.iter().map(|&x| x as f32).collect();
            let mut out = vec![0.0_f32; input.len()];
            net.forward_f32(&input, layout, &mut out, false, arithmetic)
                .unwrap();
            out.into_iter().map(f64::from).collect()
        }
    }
}

#[test]
fn exact_batches_are_the_scalar_path_bit_for_bit() {
    for (spec, file) in NETWORKS {
        for precision in [Precision::F32, Precision::F64] {
            let net = network(spec, file, precision);
            let len = net.arch().dim() * net.arch().seq();
            for count in counts() {
                // Windows already in f32 where the network is: the batch rounds nothing else.
                let columns: Vec<f64> = values(count, len, 1.0)
                    .into_iter()
                    .map(|x| f64::from(x as f32))
                    .collect();
                let expected = one_at_a_time(net.as_ref(), &columns);
                for layout in [Layout::Columns, Layout::Rows] {
                    let got = batch(net.as_ref(), &columns, layout, Arithmetic::Exact);
                    assert!(
                        got.iter()
                            .zip(&expected)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{spec} {precision:?} {count} windows {layout:?}"
                    );
                    assert_eq!(got.len(), expected.len());
                }
            }
        }
    }
}

/// `|got − exact|` at its largest, in units of `ε · max(|exact|, 1)`.
fn largest_difference(got: &[f64], exact: &[f64], epsilon: f64) -> f64 {
    got.iter()
        .zip(exact)
        .map(|(g, e)| (g - e).abs() / (epsilon * e.abs().max(1.0)))
        .fold(0.0, f64::max)
}

#[test]
fn fast_batches_are_within_the_documented_bound() {
    for (spec, file) in NETWORKS {
        let double = network(spec, file, Precision::F64);
        let single = network(spec, file, Precision::F32);
        let len = double.arch().dim() * double.arch().seq();
        for scale in [1e-2, 1.0, 10.0] {
            let count = 2 * STAGED + 17;
            let columns: Vec<f64> = values(count, len, scale)
                .into_iter()
                .map(|x| f64::from(x as f32))
                .collect();
            let exact = one_at_a_time(double.as_ref(), &columns);
            for (net, epsilon) in [(&single, f64::from(f32::EPSILON)), (&double, f64::EPSILON)] {
                let rounding = largest_difference(
                    &batch(net.as_ref(), &columns, Layout::Rows, Arithmetic::Exact),
                    &exact,
                    epsilon,
                );
                let bound = 4.0 * rounding.max(4.0);
                for layout in [Layout::Columns, Layout::Rows] {
                    let fast = batch(net.as_ref(), &columns, layout, Arithmetic::Fast);
                    let error = largest_difference(&fast, &exact, epsilon);
                    println!(
                        "{spec} {:?} scale {scale}: scalar {rounding:.1} ε, fast {error:.1} ε",
                        net.precision()
                    );
                    assert!(error <= bound, "{spec} {:?}: {error} ε", net.precision());
                }
            }
        }
    }
}

/// The batch rollout of `initial` (column-major windows) to `states` states, widened to f64.
fn rollout(
    net: &dyn Network,
    initial: &[f64],
    states: usize,
    layout: Layout,
    arithmetic: Arithmetic,
) -> Vec<f64> {
    let (d, t) = (net.arch().dim(), net.arch().seq());
    let input = match layout {
        Layout::Columns => initial.to_vec(),
        Layout::Rows => rows(initial, d, t),
    };
    let len = input.len() / t * states;
    match net.precision() {
        Precision::F64 => {
            let mut out = vec![0.0; len];
            net.rollout_f64(&input, layout, &mut out, true, arithmetic)
                .unwrap();
            out
        }
        Precision::F32 => {
            let input: Vec<f32> = input.iter().map(|&x| x as f32).collect();
            let mut out = vec![0.0_f32; len];
            net.rollout_f32(&input, layout, &mut out, true, arithmetic)
                .unwrap();
            out.into_iter().map(f64::from).collect()
        }
    }
}

#[test]
fn exact_rollouts_are_gmls_iterate_bit_for_bit() {
    for (spec, file) in NETWORKS {
        for precision in [Precision::F32, Precision::F64] {
            let net = network(spec, file, precision);
            let (d, t) = (net.arch().dim(), net.arch().seq());
            for count in [0, 1, 7, 17, STAGED + 1] {
                let initial: Vec<f64> = values(count, d * t, 0.5)
                    .into_iter()
                    .map(|x| f64::from(x as f32))
                    .collect();
                // Fewer states than the window, a whole number of passes, and a partial last one.
                for states in [1, t + 3 * t, 2 + 5 * t] {
                    let expected: Vec<f64> = initial
                        .chunks_exact(d * t)
                        .flat_map(|w| {
                            let trajectory = net.rollout(w, states - 1, &mut |_| {}).unwrap();
                            // State after state to row-major `d×states`.
                            rows(&trajectory, d, states)
                        })
                        .collect();
                    for layout in [Layout::Columns, Layout::Rows] {
                        let got =
                            rollout(net.as_ref(), &initial, states, layout, Arithmetic::Exact);
                        assert_eq!(got.len(), expected.len());
                        assert!(
                            got.iter()
                                .zip(&expected)
                                .all(|(a, b)| a.to_bits() == b.to_bits()),
                            "{spec} {precision:?} {count} windows, {states} states, {layout:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn fast_rollouts_stay_close_to_the_exact_ones() {
    // The rigid-body VPT in f32, 61 states from 1 000 windows of order one: each step's
    // difference propagates through the following steps like the network's own rounding.
    let (spec, file) = NETWORKS[0];
    let single = network(spec, file, Precision::F32);
    let double = network(spec, file, Precision::F64);
    let initial: Vec<f64> = values(1000, 9, 0.5)
        .into_iter()
        .map(|x| f64::from(x as f32))
        .collect();
    let exact = rollout(
        double.as_ref(),
        &initial,
        61,
        Layout::Rows,
        Arithmetic::Exact,
    );
    let epsilon = f64::from(f32::EPSILON);
    let scalar = rollout(
        single.as_ref(),
        &initial,
        61,
        Layout::Rows,
        Arithmetic::Exact,
    );
    let fast = rollout(
        single.as_ref(),
        &initial,
        61,
        Layout::Rows,
        Arithmetic::Fast,
    );
    let (rounding, error) = (
        largest_difference(&scalar, &exact, epsilon),
        largest_difference(&fast, &exact, epsilon),
    );
    println!("61 states, f32: scalar {rounding:.1} ε, fast {error:.1} ε from the f64 rollout");
    // The vectorised functions run wherever the processor has AVX2 or AVX-512.
    assert_eq!(lanes(), Isa::best().is_compact());
    if lanes() {
        assert_ne!(fast, scalar, "the fast path computed the scalar bits");
    } else {
        assert_eq!(fast, scalar, "no lane path, yet not the scalar bits");
    }
    assert!(
        error <= 4.0 * rounding.max(4.0),
        "{error} ε vs {rounding} ε"
    );
}

#[test]
fn checked_fast_batches_name_the_window_in_the_whole_batch() {
    let (spec, file) = NETWORKS[0];
    let net = network(spec, file, Precision::F32);
    let count = STAGED + 40;
    let mut input: Vec<f32> = values(count, 9, 1.0).iter().map(|&x| x as f32).collect();
    input[(STAGED + 5) * 9 + 4] = f32::INFINITY; // window STAGED + 5, state 1 (row-major)
    let mut out = vec![0.0_f32; input.len()];
    let message = net
        .forward_f32(&input, Layout::Rows, &mut out, true, Arithmetic::Fast)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "non-finite value at time step 1 of sequence {} in the input",
            STAGED + 5
        )
    );
    // The windows before it are written, as the unchecked pass writes them; unchecked, the
    // infinity stays in its window (its lane group's other windows are finite).
    let mut unchecked = vec![0.0_f32; input.len()];
    net.forward_f32(
        &input,
        Layout::Rows,
        &mut unchecked,
        false,
        Arithmetic::Fast,
    )
    .unwrap();
    let bad = (STAGED + 5) * 9..(STAGED + 6) * 9;
    assert_eq!(out[..bad.start], unchecked[..bad.start]);
    assert!(unchecked[bad.clone()].iter().any(|x| !x.is_finite()));
    assert!(
        unchecked[..bad.start]
            .iter()
            .chain(&unchecked[bad.end..])
            .all(|x| x.is_finite())
    );
    let mut trajectories = vec![0.0_f32; count * 3 * 7];
    let message = net
        .rollout_f32(
            &input,
            Layout::Rows,
            &mut trajectories,
            true,
            Arithmetic::Fast,
        )
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "non-finite value at time step 1 of sequence {} in the input",
            STAGED + 5
        )
    );
}

/// The compile-time lane path (`batch::forward` of the rigid-body transformer's type, `Fast`):
/// within the same bound of the exact result as the engine's, and the scalar path bit for bit in
/// `Exact`.
#[test]
fn compile_time_networks_batch_within_the_bound() {
    use geomattn::{Tanh, VolumePreservingTransformer};
    use geomattn_networks::batch::forward;
    type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
    let path = format!(
        "{}/../fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        env!("CARGO_MANIFEST_DIR")
    );
    let single: Vpt<f32> = geomattn::gml::load_file(&path).unwrap();
    let (spec, file) = NETWORKS[0];
    let double = network(spec, file, Precision::F64);
    let count = 2 * STAGED + 17;
    let columns: Vec<f64> = values(count, 9, 1.0)
        .into_iter()
        .map(|x| f64::from(x as f32))
        .collect();
    let exact = one_at_a_time(double.as_ref(), &columns);
    let input: Vec<f32> = rows(&columns, 3, 3).iter().map(|&x| x as f32).collect();
    let run = |arithmetic| {
        let mut out = vec![0.0_f32; input.len()];
        forward::<f32, f32, Vpt<f32>, 3, 3>(
            &single,
            &input,
            Layout::Rows,
            &mut out,
            false,
            arithmetic,
        )
        .unwrap();
        out.into_iter().map(f64::from).collect::<Vec<f64>>()
    };
    let (scalar, fast) = (run(Arithmetic::Exact), run(Arithmetic::Fast));
    let engine = batch(
        network(spec, file, Precision::F32).as_ref(),
        &columns,
        Layout::Rows,
        Arithmetic::Exact,
    );
    assert_eq!(scalar, engine, "Exact is the scalar path");
    let epsilon = f64::from(f32::EPSILON);
    let rounding = largest_difference(&scalar, &exact, epsilon);
    let error = largest_difference(&fast, &exact, epsilon);
    println!("compile-time lanes: scalar {rounding:.1} ε, fast {error:.1} ε");
    assert!(
        error <= 4.0 * rounding.max(4.0),
        "{error} ε vs {rounding} ε"
    );
    if lanes() {
        assert_ne!(fast, scalar, "the fast path computed the scalar bits");
    }
}
