//! The `geomattn` binary as a user runs it, on the bundled GML networks: every subcommand, the
//! CSV numbers against the library called directly, the SVG parsed as XML, and every kind of bad
//! input (one line on stderr, exit code 2, no output file).

mod common;

use common::geomattn_in;
use std::path::{Path, PathBuf};
use std::process::Output;

use geomattn::gml::load_file;
use geomattn::nalgebra::{SMatrix, SVector, Vector3};
use geomattn::{
    MultiHeadAttention, NoConnection, StandardTransformerIntegrator, Tanh,
    VolumePreservingFeedForward, VolumePreservingTransformer, iterate,
};
use geomattn_networks::rigid_body;

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
const VPFF: &str = "VolumePreservingFeedForward(3, 6, 1, tanh)";
const ST: &str =
    "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)";
/// z₀ = (0, sin 1.1, cos 1.1).
const Z0: &str = "0,0.8912073600614354,0.4535961214255773";

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/gml")
        .join(name);
    path.display().to_string()
}

fn geomattn(args: &[&str]) -> Output {
    geomattn_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// The CSV's header and rows of numbers.
fn csv(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|line| line.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

fn truth(states: usize) -> Vec<Vector3<f64>> {
    let mut out = vec![Vector3::zeros(); states];
    rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut out);
    out
}

/// The library's own rollout, states as rows.
fn library_rollout<S: geomattn::Field + Copy + Into<f64>, const T: usize>(
    net: &impl geomattn::SequenceLayer<S, 3, T>,
    window: SMatrix<S, 3, T>,
    states: usize,
) -> Vec<Vec<f64>> {
    let mut out = vec![SVector::<S, 3>::zeros(); states];
    iterate::<S, 3, T, T, _>(net, &window, &mut out);
    out.iter()
        .map(|z| z.iter().map(|&x| x.into()).collect())
        .collect()
}

#[test]
fn help_lists_the_subcommands_and_gmls_defaults() {
    let out = geomattn(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for word in [
        "inspect",
        "rollout",
        "check",
        "Sizes: any that GML allows",
        // GML's defaults for its constructor calls.
        "VolumePreservingTransformer(sys_dim, seq_length; n_blocks = 1, n_linear = 1, L = 1,",
        "symmetric = true) + seq, kick = gml",
    ] {
        assert!(help.contains(word), "{word}: {help}");
    }
}

#[test]
fn version_is_the_workspace_version() {
    let out = geomattn(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).trim(),
        format!("geomattn {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn inspect_finds_the_architecture_of_every_bundled_network() {
    for (file, spec, layers) in [
        (
            "transformer_rigid_body_nn_vpt.h5",
            "vpt(dim=3, seq=?, n_blocks=2, n_linear=1, L=3, activation=?, skew_sym=false)",
            33,
        ),
        (
            "transformer_rigid_body_nn_vpff.h5",
            "vpff(dim=3, n_blocks=6, n_linear=1, activation=?)",
            26,
        ),
        (
            "transformer_rigid_body_nn_st.h5",
            "st(dim=3, seq=?, n_heads=1, n_blocks=2, L=3, activation=?, add_connection=?, \
             attention_activation=?)",
            12,
        ),
        (
            "integrator_parameters.h5",
            "st(dim=2, seq=?, n_heads=5, n_blocks=3, L=3, activation=?, add_connection=?, \
             transformer_dim=20, upscaling_activation=?, attention_activation=?)",
            17,
        ),
    ] {
        let out = geomattn(&["inspect", &fixture(file)]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains(&format!("`{spec}`")), "{text}");
        assert!(text.contains(&format!("## Layers ({layers})")), "{text}");
        assert!(text.contains("give activation"), "{text}");
    }
}

/// GML's constructor call beside the spec, with `?` where the file cannot say: for the standard
/// transformer of GML's symplectic-autoencoder tutorial, outside the compiled sizes.
#[test]
fn inspect_prints_gmls_constructor_call() {
    let text = stdout(&geomattn(&[
        "inspect",
        &fixture("integrator_parameters_psd.h5"),
    ]));
    assert!(
        text.contains(
            "  - GML: `StandardTransformerIntegrator(8; transformer_dim = 20, n_heads = 5, \
             n_blocks = 3, L = 3, upscaling_activation = ?, resnet_activation = ?, \
             attention_activation = ?, add_connection = ?)`"
        ),
        "{text}"
    );
    assert!(
        text.contains("  - give upscaling_activation (not in the file)"),
        "{text}"
    );
}

#[test]
fn inspect_shows_parameters_with_their_kind_and_shape() {
    let text = stdout(&geomattn(&[
        "inspect",
        &fixture("transformer_rigid_body_nn_vpff.h5"),
    ]));
    // L1 is a lower layer without bias, its packed weight of a 3×3 matrix has 3 values.
    assert!(
        text.contains(
            "|    L1 |    weight | strictly lower triangular (packed, 3 values) |           3×3 |"
        ),
        "{text}"
    );
    assert!(text.contains("|-"), "Markdown separator row: {text}");
}

#[test]
fn rollout_of_the_transformer_is_the_librarys_iterate_with_the_truth_beside_it() {
    let out = geomattn(&[
        "rollout",
        &fixture("transformer_rigid_body_nn_vpt.h5"),
        "--arch",
        VPT,
        "--init",
        Z0,
        "--states",
        "21",
        "--reference",
        "rigid-body",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (header, rows) = csv(&stdout(&out));
    assert_eq!(
        header,
        ["step", "z1", "z2", "z3", "ref1", "ref2", "ref3", "error"]
    );
    assert_eq!(rows.len(), 21);
    type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
    let net: Vpt = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    let truth = truth(21);
    let expected = library_rollout(&net, SMatrix::from_columns(&truth[..3]), 21);
    for (step, row) in rows.iter().enumerate() {
        assert_eq!(row[0], step as f64);
        assert_eq!(&row[1..4], expected[step].as_slice(), "step {step}");
        assert_eq!(&row[4..7], truth[step].as_slice(), "step {step}");
        let error = (0..3)
            .map(|i| (row[1 + i] - row[4 + i]).abs())
            .fold(0.0, f64::max);
        assert_eq!(row[7], error);
    }
    // The first window is the truth's; the network then stays within GML's documented accuracy.
    assert_eq!(rows[2][7], 0.0);
    assert!(rows.iter().all(|row| row[7] < 3e-2));
}

#[test]
fn rollout_of_the_feed_forward_network_in_f32_is_the_librarys() {
    let out = geomattn(&[
        "rollout",
        &fixture("transformer_rigid_body_nn_vpff.h5"),
        "--arch",
        VPFF,
        "--init",
        Z0,
        "--states",
        "11",
        "--f32",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().next(), Some("step,z1,z2,z3"));
    type Vpff = VolumePreservingFeedForward<f32, 3, 6, 1, Tanh>;
    let net: Vpff = load_file(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    let z0 = truth(1)[0].map(|x| x as f32);
    let expected = library_rollout(&net, SMatrix::from(z0), 11);
    assert_eq!(text.lines().count(), 1 + 11);
    for (step, line) in text.lines().skip(1).enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], step.to_string());
        for (cell, &value) in cells[1..].iter().zip(&expected[step]) {
            // The f32 itself, in its shortest form: it reads back as the same f32 and prints
            // the same (the widened f64's digits would not).
            let x: f32 = cell.parse().unwrap();
            assert_eq!(f64::from(x), value, "step {step}: {cell}");
            assert_eq!(x.to_string(), *cell, "step {step}");
        }
    }
}

#[test]
fn rollout_of_the_standard_transformer_takes_a_whole_window_without_add_connection() {
    let truth = truth(3);
    let window: Vec<String> = truth
        .iter()
        .flat_map(|z| z.iter().map(ToString::to_string))
        .collect();
    let out = geomattn(&[
        "rollout",
        &fixture("transformer_rigid_body_nn_st.h5"),
        "--arch",
        ST,
        "--init",
        &window.join(","),
        "--states",
        "9",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (_, rows) = csv(&stdout(&out));
    type Attention = MultiHeadAttention<f64, 3, 1, 3, NoConnection>;
    type St = StandardTransformerIntegrator<f64, 3, Attention, 2, 3, Tanh>;
    let net: St = load_file(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    let expected = library_rollout::<f64, 3>(&net, SMatrix::from_columns(&truth), 9);
    for (step, row) in rows.iter().enumerate() {
        assert_eq!(&row[1..], expected[step].as_slice(), "step {step}");
    }
}

/// The polylines of an SVG (plotters draws each solid line series as one, a dashed one as one a
/// dash), as point lists.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "polyline")
        .map(|n| {
            n.attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

#[test]
fn rollout_plot_is_well_formed_svg_with_prediction_reference_and_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = geomattn_in(
        dir.path(),
        &[
            "rollout",
            &fixture("transformer_rigid_body_nn_vpt.h5"),
            "--arch",
            VPT,
            "--init",
            Z0,
            "--states",
            "31",
            "--reference",
            "rigid-body",
            "--plot",
            "out.svg",
            "--out",
            "out.csv",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "the CSV went to --out");
    let (_, rows) = csv(&std::fs::read_to_string(dir.path().join("out.csv")).unwrap());
    assert_eq!(rows.len(), 31);
    let svg = std::fs::read_to_string(dir.path().join("out.svg")).unwrap();
    let lines = polylines(&svg);
    // The network's three components (the reference is dashed), and the error on a log axis,
    // without the initial window's errors of 0.
    assert_eq!(lines.iter().filter(|l| l.len() == 31).count(), 3, "{svg}");
    assert_eq!(lines.iter().filter(|l| l.len() == 28).count(), 1, "{svg}");
    for label in [
        "network",
        "reference",
        "error (max norm)",
        "z1",
        "z3",
        "time t (h = 0.2 per step)",
    ] {
        assert!(
            svg.contains(&format!(">{label}<")) || svg.contains(label),
            "{label}"
        );
    }
}

#[test]
fn check_passes_on_the_volume_preserving_networks() {
    for (file, spec, rows) in [
        ("transformer_rigid_body_nn_vpt.h5", VPT, 2),
        ("transformer_rigid_body_nn_vpff.h5", VPFF, 1),
    ] {
        let out = geomattn(&["check", &fixture(file), "--arch", spec, "--samples", "10"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        let passes = text.lines().filter(|l| l.ends_with("pass |")).count();
        assert_eq!(passes, rows, "{text}");
        assert!(!text.contains("FAIL"), "{text}");
    }
    let out = geomattn(&[
        "check",
        &fixture("transformer_rigid_body_nn_st.h5"),
        "--arch",
        ST,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("promises no structure"));
}

#[test]
fn no_arguments_runs_the_main_job_and_writes_its_plot() {
    let dir = tempfile::tempdir().unwrap();
    let out = geomattn_in(dir.path(), &[] as &[&str]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("|    60 |"), "{text}");
    assert!(
        text.lines().filter(|l| l.ends_with("pass |")).count() == 2,
        "{text}"
    );
    let svg = std::fs::read_to_string(dir.path().join("geomattn-rollout.svg")).unwrap();
    // The network's three components; the reference is dashed.
    assert_eq!(
        polylines(&svg)
            .into_iter()
            .filter(|l| l.len() == 61)
            .count(),
        3
    );
}

/// Runs a bad command in a fresh directory: exit code 2, one line on stderr containing `needle`,
/// nothing on stdout, and no file left behind.
fn refused(args: &[&str], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--plot", "out.svg", "--out", "out.csv"]);
    let out = geomattn_in(dir.path(), &args);
    let error = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {error}");
    assert_eq!(error.lines().count(), 1, "{args:?}: {error}");
    assert!(
        error.starts_with("error: ") && error.contains(needle),
        "{args:?}: {error}"
    );
    assert!(!error.contains("panicked"), "{error}");
    assert!(out.stdout.is_empty());
    let left: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
}

#[test]
fn bad_input_is_one_line_exit_code_2_and_no_output_file() {
    let vpt = fixture("transformer_rigid_body_nn_vpt.h5");
    let rollout = |file: &str, arch: &str, init: &str| {
        vec![
            "rollout".to_string(),
            file.into(),
            "--arch".into(),
            arch.into(),
            "--init".into(),
            init.into(),
        ]
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            rollout(&vpt, "vpt(dim=3, seq=3", Z0),
            "expected a closing `)`",
        ),
        (
            rollout(&vpt, "vpt(dim=3, seq=3)", Z0),
            "missing n_blocks, n_linear, L, activation, skew_sym",
        ),
        (
            rollout(&vpt, "transformer(dim=3)", Z0),
            "unknown architecture `transformer`",
        ),
        (
            rollout(&vpt, &VPT.replace("L=3", "L=x"), Z0),
            "`L = x` is not a positive integer",
        ),
        // Sizes no compiled network has run on the run-time engine, which reads the file as
        // the spec's chain and names the first difference.
        (
            rollout(&vpt, &VPT.replace("dim=3", "dim=5"), Z0),
            "`/L1/A` is 3×3 in the file, where the architecture's VolumePreservingAttention(5, 3; \
             skew_sym = false) has 5×5",
        ),
        (
            rollout(&vpt, &VPT.replace("n_blocks=2", "n_blocks=3"), Z0),
            "`/L12/weight` is not in the file (its layer has A 3×3), where the architecture's \
             VolumePreservingLowerLayer(3, tanh; use_bias = true) has LowerTriangular 3×3",
        ),
        (rollout(&vpt, VPFF, Z0), "does not load as vpff"),
        (
            rollout(&vpt, &VPT.replace("L=3", "L=2"), Z0),
            "the file has 33 layers, the architecture 22: every layer both have agrees, the next \
             is the file's `/L23`: A 3×3",
        ),
        // The first difference: the parameter, and both shapes.
        (
            rollout(&vpt, &VPT.replace("skew_sym=false", "skew_sym=true"), Z0),
            "`/L1/A` is 3×3 in the file, where the architecture's VolumePreservingAttention(3, 3; \
             skew_sym = true) has SkewSymMatrix 3×3",
        ),
        // GML's rule.
        (
            rollout(
                &fixture("integrator_parameters.h5"),
                "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 3, seq = 4)",
                "0,1",
            ),
            "`n_heads = 3` does not divide `transformer_dim = 20`",
        ),
        (
            rollout("no-such-file.h5", VPT, Z0),
            "cannot read `no-such-file.h5`",
        ),
        (rollout(&vpt, VPT, "0,1"), "the initial state has 2 values"),
        (
            rollout(&vpt, VPT, "0,NaN,1"),
            "non-finite value at position 1",
        ),
        (rollout(&vpt, VPT, "0,x,1"), "`x` is not a number"),
    ];
    for (args, needle) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, needle);
    }
}

#[test]
fn a_corrupt_file_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.h5");
    let mut bytes = std::fs::read(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    bytes.truncate(bytes.len() / 3);
    std::fs::write(&corrupt, &bytes).unwrap();
    let corrupt = corrupt.display().to_string();
    for args in [
        vec!["inspect", corrupt.as_str()],
        vec!["check", corrupt.as_str(), "--arch", VPT],
        vec!["rollout", corrupt.as_str(), "--arch", VPT, "--init", Z0],
    ] {
        let out = geomattn(&args);
        let error = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {error}");
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains("corrupt.h5"), "{error}");
    }
}

#[test]
fn usage_errors_are_one_line_and_exit_code_2() {
    let vpt = fixture("transformer_rigid_body_nn_vpt.h5");
    let rollout = ["rollout", &vpt, "--arch", VPT, "--init", Z0];
    for (args, needle) in [
        (&["no-such-command"][..], "unrecognized subcommand"),
        (&["rollout", "--no-such-option"], "--no-such-option"),
        (&["check"], "not provided: --arch <SPEC>; <FILE>"),
        (&[&rollout[..], &["--steps", "20"]].concat(), "'--states'"),
        (
            &[&rollout[..], &["--f32", "--f64"]].concat(),
            "cannot be used",
        ),
    ] {
        let out = geomattn(args);
        let error = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.starts_with("error: "), "{error}");
        assert!(error.contains(needle), "{needle}: {error}");
    }
}

#[test]
fn rollout_help_is_whole_and_says_what_a_state_and_each_exit_code_is() {
    let out = geomattn(&["rollout", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    assert!(help.lines().count() > 20, "{help}");
    // Wherever clap wraps the lines.
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "n_points",
        "1 to 10⁹",
        "⌈(N − seq)/seq⌉",
        "3 the network's output",
    ] {
        assert!(words.contains(needle), "{needle}: {help}");
    }
}

#[test]
fn absurd_counts_are_one_line_and_exit_code_2() {
    let vpt = fixture("transformer_rigid_body_nn_vpt.h5");
    for count in [
        "18446744073709551615",
        "18446744073709551614",
        "1e12",
        "1000000000000",
        "1000000001",
        "-1",
        "0",
        "ten",
        "2.5",
    ] {
        refused(
            &[
                "rollout", &vpt, "--arch", VPT, "--init", Z0, "--states", count,
            ],
            "expected a whole number from 1 to 1000000000",
        );
    }
    for count in ["18446744073709551615", "1e12", "1000001", "-1", "0", "x"] {
        let out = geomattn(&["check", &vpt, "--arch", VPT, "--samples", count]);
        let error = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{count}: {error}");
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains("from 1 to 1000000"), "{error}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn fewer_states_than_the_window_are_its_first_states() {
    type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
    let net: Vpt = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    let truth = truth(3);
    let expected = library_rollout(&net, SMatrix::from_columns(&truth), 4);
    for states in 1..=4 {
        let out = geomattn(&[
            "rollout",
            &fixture("transformer_rigid_body_nn_vpt.h5"),
            "--arch",
            VPT,
            "--init",
            Z0,
            "--reference",
            "rigid-body",
            "--states",
            &states.to_string(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let (_, rows) = csv(&stdout(&out));
        assert_eq!(rows.len(), states);
        for (step, row) in rows.iter().enumerate() {
            assert_eq!(&row[1..4], expected[step].as_slice(), "{states}: {step}");
        }
    }
}

/// A symplectic transformer (phase space R⁴, n_sympnet = 2, L = 1) with symmetric `A`, written
/// in GML's layout to `dir`.
fn symmetric_symplectic_file(dir: &Path) -> String {
    use geomattn_testkit::gml_layout::{Layer, chain, to_bytes, uniform};
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
    let layers = chain(&mut rng, (1, 2, 2, 4), |rng| {
        Layer::Symmetric(uniform(rng, 3), 2)
    });
    let path = dir.join("symplectic.h5");
    std::fs::write(&path, to_bytes(&layers)).unwrap();
    path.display().to_string()
}

#[test]
fn check_of_a_symplectic_transformer_fails_only_with_gmls_symmetric_kick_and_vector_softmax() {
    let dir = tempfile::tempdir().unwrap();
    let file = symmetric_symplectic_file(dir.path());
    let spec = |softmax: &str, kick: &str| {
        format!(
            "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
             sympnet_activation=tanh, attention_activation={softmax}, init_upper=true, \
             symmetric=true, kick={kick})"
        )
    };
    for (softmax, kick, code, result) in [
        ("VectorSoftmax", "gml", 1, "FAIL |"),
        ("VectorSoftmax", "exact", 0, "pass |"),
        ("MatrixSoftmax", "gml", 0, "pass |"),
    ] {
        let arch = spec(softmax, kick);
        let out = geomattn(&["check", &file, "--arch", &arch, "--samples", "5"]);
        assert_eq!(out.status.code(), Some(code), "{arch}: {}", stderr(&out));
        let text = stdout(&out);
        let row = text.lines().find(|l| l.contains("Jᵀ𝕁J")).unwrap();
        assert!(row.ends_with(result), "{text}");
    }
}

/// `geomattn rollout` of the file at `path` as `spec` from `window`, `states` states: the CSV
/// holds the library's rollout, number for number.
fn rolls_out_as_the_library(path: &str, spec: &str, window: &[f64], states: usize) {
    let init: Vec<String> = window.iter().map(ToString::to_string).collect();
    let count = states.to_string();
    let out = geomattn(&[
        "rollout",
        path,
        "--arch",
        spec,
        "--init",
        &init.join(","),
        "--states",
        &count,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (header, rows) = csv(&stdout(&out));
    let arch: geomattn_networks::Arch = spec.parse().unwrap();
    let net = geomattn_networks::open_file(path, &arch, geomattn_networks::Precision::F64).unwrap();
    let expected = net.rollout(window, states - 1, &mut |_| {}).unwrap();
    assert_eq!(header.len() - 1, expected.len() / states, "{header:?}");
    let found: Vec<f64> = rows.iter().flat_map(|row| row[1..].to_vec()).collect();
    assert_eq!(found, expected);
}

#[test]
fn a_network_no_compiled_type_has_rolls_out_on_the_run_time_engine() {
    // GML's sizes outside the grid: dim 5, seq 6, n_linear 2, sigmoid (a seeded network).
    let spec = "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)";
    let arch: geomattn_networks::Arch = spec.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vpt5.h5");
    let layers = geomattn_networks::layout::layers(&arch);
    std::fs::write(&path, geomattn_testkit::gml_chain::bytes_of(&layers, 3)).unwrap();
    let window: Vec<f64> = (0..30).map(|k| (f64::from(k) * 0.37).sin() / 2.0).collect();
    rolls_out_as_the_library(&path.display().to_string(), spec, &window, 20);
}

#[test]
fn gmls_tutorial_integrator_rolls_out_on_the_run_time_engine() {
    // `transformer_dim = 20` with Dense maps up and down, 5 heads: no compiled type has it.
    let spec = "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
                L = 3, upscaling_activation = tanh, seq = 4)";
    let window = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
    rolls_out_as_the_library(&fixture("integrator_parameters.h5"), spec, &window, 12);
}

#[test]
fn a_symplectic_transformer_no_compiled_type_has_rolls_out_and_is_checked_on_the_engine() {
    // transformer_dim ≠ dim (PSDLayers up and down), n_sympnet 3, sigmoid: a seeded network.
    let spec = "SymplecticTransformer(4; seq = 5, transformer_dim = 8, n_sympnet = 3, L = 1, \
                sympnet_activation = sigmoid, symmetric = false)";
    let arch: geomattn_networks::Arch = spec.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sympt.h5");
    let layers = geomattn_networks::layout::layers(&arch);
    std::fs::write(&path, geomattn_testkit::gml_chain::bytes_of(&layers, 5)).unwrap();
    let path = path.display().to_string();
    let window: Vec<f64> = (0..20).map(|k| (f64::from(k) * 0.29).cos() / 2.0).collect();
    rolls_out_as_the_library(&path, spec, &window, 15);
    // What it promises passes; the whole map through both PSDLayers is reported, not promised.
    let out = geomattn(&["check", &path, "--arch", spec, "--samples", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for property in ["ΦᵀΦ", "the blocks' map", "(not promised)"] {
        assert!(text.contains(property), "{property}: {text}");
    }
}
