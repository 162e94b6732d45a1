//! The `geomattn` binary at its edges: a rollout that diverges (the finite states written, exit
//! code 3), a long rollout streamed, and every command writing to stdout whose reader goes away
//! (`| head`): exit code 0, nothing on stderr.

mod common;

use common::{geomattn_in, repository};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use geomattn_networks::{Arch, Error, Precision, open_file};

const VPFF: &str = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";
const Z0: &str = "0,0.8912073600614354,0.4535961214255773";
/// Phase space R², windows of 2 states, one gradient layer per attention layer.
const LSYMPT: &str = "linear_symplectic_transformer(dim=2, seq=2, n_sympnet=1, \
                      upscaling_dimension=4, L=1, activation=tanh, init_upper=true)";
/// The initial window of [`LSYMPT`]: (q, p) = (0.5, 0.25), then (0.25, 0.5).
const WINDOW: [f64; 4] = [0.5, 0.25, 0.25, 0.5];

/// A linear symplectic transformer whose attention `A` is the identity: each unit maps
/// `(q, p) ↦ (q + p, q + 2p)` (up to bounded gradient kicks), growing by 2.6 per application
/// until the states overflow to ∞ or NaN.
fn diverging_file(dir: &Path) -> String {
    use geomattn_testkit::gml_layout::{Layer, chain, to_bytes};
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let layers = chain(&mut rng, (1, 1, 1, 2), |_| {
        Layer::Symmetric(vec![1.0, 0.0, 1.0], 2)
    });
    let path = dir.join("diverging.h5");
    std::fs::write(&path, to_bytes(&layers)).unwrap();
    path.display().to_string()
}

/// The library's states of [`diverging_file`] up to (without) the first non-finite one.
fn finite_prefix(file: &str, precision: Precision, count: usize) -> Vec<Vec<f64>> {
    let arch: Arch = LSYMPT.parse().unwrap();
    let net = open_file(file, &arch, precision).unwrap();
    let prefix: Vec<Vec<f64>> = net
        .states(&WINDOW)
        .unwrap()
        .take(count)
        .take_while(|z| z.iter().all(|x| x.is_finite()))
        .collect();
    // The library's own rollout stops at the same state.
    let Err(Error::Diverged { state }) = net.rollout(&WINDOW, count - 1, &mut |_| {}) else {
        panic!("the library's rollout diverges");
    };
    assert_eq!(state, prefix.len());
    prefix
}

#[test]
fn a_diverging_rollout_writes_its_finite_states_and_exits_with_code_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = diverging_file(dir.path());
    let window = WINDOW.map(|x| x.to_string()).join(",");
    for (precision, flag) in [(Precision::F64, "--f64"), (Precision::F32, "--f32")] {
        let expected = finite_prefix(&file, precision, 100_000);
        let first = expected.len();
        // Several forward passes were finite before the overflow.
        assert!(first > 50, "{flag}: {first}");
        let args = [
            "rollout", &file, "--arch", LSYMPT, "--init", &window, "--states", "100000", flag,
        ];
        for to_file in [false, true] {
            let mut args = args.to_vec();
            if to_file {
                args.extend(["--out", "out.csv", "--plot", "out.svg"]);
            }
            let out = geomattn_in(dir.path(), &args);
            let error = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(3), "{flag}: {error}");
            assert_eq!(
                error,
                format!(
                    "diverged: state {first} (of 100000 asked for) is not finite; the {first} \
                     states before it are written\n"
                )
            );
            let csv = if to_file {
                // The plot of the finite states: a line per component (plotters merges
                // the points that fall on one pixel, so their number is not checked).
                let svg = std::fs::read_to_string(dir.path().join("out.svg")).unwrap();
                let doc = roxmltree::Document::parse(&svg).unwrap();
                let lines = doc
                    .descendants()
                    .filter(|n| n.has_tag_name("polyline"))
                    .count();
                assert!(lines >= 2, "{flag}: {svg}");
                std::fs::read_to_string(dir.path().join("out.csv")).unwrap()
            } else {
                String::from_utf8(out.stdout).unwrap()
            };
            let mut lines = csv.lines();
            assert_eq!(lines.next(), Some("step,z1,z2"));
            // With --f32 each cell is the f32 in its shortest form: read as an f32, it is the
            // library's value.
            let read = |cell: &str| match precision {
                Precision::F32 => f64::from(cell.parse::<f32>().unwrap()),
                Precision::F64 => cell.parse().unwrap(),
            };
            let rows: Vec<Vec<f64>> = lines
                .map(|line| line.split(',').skip(1).map(read).collect())
                .collect();
            assert_eq!(rows, expected, "{flag}");
        }
    }
}

#[test]
fn a_million_states_stream_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = repository("fixtures/gml/transformer_rigid_body_nn_vpff.h5");
    let args = [
        "rollout", &file, "--arch", VPFF, "--init", Z0, "--states", "1000000", "--out", "out.csv",
    ];
    // The command runs while the test computes the last state itself.
    let child = Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the geomattn binary runs");
    let arch: Arch = VPFF.parse().unwrap();
    let net = open_file(&file, &arch, Precision::F64).unwrap();
    let z0: Vec<f64> = Z0.split(',').map(|x| x.parse().unwrap()).collect();
    let last = net.states(&z0).unwrap().nth(999_999).unwrap();
    let expected: Vec<String> = last.iter().map(ToString::to_string).collect();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let csv = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 1_000_000);
    assert_eq!(
        csv.lines().last(),
        Some(format!("999999,{}", expected.join(",")).as_str())
    );
}

/// Runs `args` with stdout a pipe the test closes after reading `lines` lines (0: closed before
/// the command starts, so its first write fails); returns the exit code and stderr.
fn with_stdout_closed_after(args: &[&str], lines: usize) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    let mut reader = (lines > 0).then(|| BufReader::new(reader));
    let child = Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .current_dir(dir.path())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the geomattn binary runs");
    if let Some(reader) = &mut reader {
        for _ in 0..lines {
            let mut line = String::new();
            assert!(reader.read_line(&mut line).unwrap() > 0, "{args:?}");
        }
    }
    drop(reader);
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn every_command_ends_quietly_when_its_reader_goes_away() {
    let vpff = repository("fixtures/gml/transformer_rigid_body_nn_vpff.h5");
    let [mnist, images, labels] = [
        "fixtures/gml/mnist_nn3.h5",
        "fixtures/mnist/mnist-train-300-images.idx3-ubyte",
        "fixtures/mnist/mnist-train-300-labels.idx1-ubyte",
    ]
    .map(repository);
    let ct = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
              Stiefel=true, add_connection=false)";
    // The most states there are: only streaming gets to the first line.
    let rollout = [
        "rollout",
        &vpff,
        "--arch",
        VPFF,
        "--init",
        Z0,
        "--states",
        "1000000000",
    ];
    let classify = [
        "classify", &mnist, "--arch", ct, "--images", &images, "--labels", &labels, "--f32",
    ];
    let cases: [(&[&str], &[usize]); 6] = [
        (&rollout, &[0, 2]),
        (&classify, &[0]),
        (&["inspect", &vpff], &[0, 2]),
        (&["check", &vpff, "--arch", VPFF, "--samples", "3"], &[0, 2]),
        (&[], &[0, 2]),
        (&["--help"], &[0, 2]),
    ];
    for (args, line_counts) in cases {
        for &lines in line_counts {
            let (code, error) = with_stdout_closed_after(args, lines);
            assert_eq!(code, Some(0), "{args:?} after {lines} lines: {error}");
            assert_eq!(error, "", "{args:?} after {lines} lines");
        }
    }
}

/// `inspect` of the crafted classifiers in `tests/malformed/` (a Stiefel weight of `[2^63 + 1, 0]`
/// made it write out of bounds and die of SIGSEGV; `[700000, 0]`, abort on a 3.9 TB allocation):
/// exit code 2, the weight named, nothing on stdout.
#[test]
fn inspect_refuses_a_stiefel_weight_of_impossible_shape_with_exit_code_2() {
    for (file, says) in [
        (
            "huge_empty_stiefel_mnist_nn2.h5",
            "`/L1/PQ/head_1/A` has shape [9223372036854775809, 0]",
        ),
        (
            "wide_stiefel_mnist_nn2.h5",
            "`/L1/PQ/head_1/A` is a 0×700000 Stiefel matrix",
        ),
    ] {
        let path = repository(&format!("tests/malformed/{file}"));
        let out = geomattn_in(Path::new("."), &["inspect", &path]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(says), "{file}: {stderr}");
        assert!(out.stdout.is_empty(), "{file}");
    }
}

/// `check` of a network whose output is not finite (its attention weights 10¹⁶⁰): every promise
/// it could not measure fails, exit code 1 (it printed "worst 0.0e0 … pass", exit code 0).
#[test]
fn check_fails_a_network_whose_output_is_not_finite() {
    use geomattn_testkit::gml_layout::{Layer, chain, to_bytes};
    use rand::SeedableRng;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let layers = chain(&mut rng, (1, 1, 1, 2), |_| {
        Layer::<f64>::Symmetric(vec![1e160, 1e160, 1e160], 2)
    });
    let path = dir.path().join("huge.h5");
    std::fs::write(&path, to_bytes(&layers)).unwrap();
    let path = path.display().to_string();
    let out = geomattn_in(
        dir.path(),
        &["check", &path, "--arch", LSYMPT, "--samples", "5"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("NaN") && stdout.contains("FAIL"),
        "{stdout}"
    );
    assert!(!stdout.contains("pass"), "{stdout}");
}

/// `inspect` of a file whose layers no architecture of the library has: the layers are listed,
/// and exit code 2 says that no command can run it (it exited 0).
#[test]
fn inspect_of_a_file_no_architecture_matches_exits_with_code_2() {
    use geomattn_testkit::gml_layout::{Layer, to_bytes};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lonely.h5");
    std::fs::write(&path, to_bytes(&[Layer::<f32>::Dense(vec![1.0; 4], 2)])).unwrap();
    let out = geomattn_in(dir.path(), &["inspect", "lonely.h5"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Layers (1)"));
    assert!(
        stderr.contains("none of this library's architectures"),
        "{stderr}"
    );
}

/// `classify` of an IDX file of no image: refused, exit code 2 (it printed "accuracy 0.0000 …
/// 1688.6 µs per image", exit code 0).
#[test]
fn classify_of_no_image_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("none.idx3-ubyte"),
        [0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 28, 0, 0, 0, 28],
    )
    .unwrap();
    std::fs::write(dir.path().join("none.idx1-ubyte"), [0, 0, 8, 1, 0, 0, 0, 0]).unwrap();
    let mnist = repository("fixtures/gml/mnist_nn3.h5");
    let ct = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
              Stiefel=true, add_connection=false)";
    let out = geomattn_in(
        dir.path(),
        &[
            "classify",
            &mnist,
            "--arch",
            ct,
            "--images",
            "none.idx3-ubyte",
            "--labels",
            "none.idx1-ubyte",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds no image"), "{stderr}");
    assert!(out.stdout.is_empty());
}
