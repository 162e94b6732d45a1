//! `geomattn train` as a user runs it: one line per epoch with its loss, a file GML's layout that
//! every other subcommand (and the library's loader) reads, the loss plot as SVG, the same
//! network as the library's training, and every bad input as one line with exit code 2 and no
//! output file.

mod common;

use common::geomattn_in;
use std::path::Path;

use geomattn::gml::{GmlFile, load_file};
use geomattn::{Tanh, VolumePreservingTransformer};
use geomattn_networks::train::{Data, Options, train};

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=1, n_linear=1, L=2, activation=tanh, skew_sym=false)";

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Two trajectories of the rigid body as a CSV file with a `trajectory` column.
fn csv_file(dir: &Path) -> (String, Data) {
    let data = Data::rigid_body(2, 12);
    let mut csv = String::from("trajectory,z1,z2,z3\n");
    for (k, trajectory) in data.iter().enumerate() {
        for state in trajectory.chunks(3) {
            csv += &format!("{k},{},{},{}\n", state[0], state[1], state[2]);
        }
    }
    std::fs::write(dir.join("data.csv"), csv).unwrap();
    ("data.csv".into(), data)
}

#[test]
fn train_writes_gml_s_layout_a_line_per_epoch_and_the_loss_plot() {
    let dir = tempfile::tempdir().unwrap();
    let (file, data) = csv_file(dir.path());
    let out = geomattn_in(
        dir.path(),
        &[
            "train",
            "--arch",
            VPT,
            "--data",
            &file,
            "--epochs",
            "3",
            "--batch",
            "5",
            "--seed",
            "4",
            "--float64",
            "-o",
            "net.h5",
            "--plot",
            "loss.svg",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    // The library, with the same options, reports the same losses and writes the same file.
    let options = Options {
        epochs: 3,
        batch: 5,
        seed: 4,
        storage: geomattn::gml::Storage::Float64,
        ..Options::default()
    };
    let expected = train(&VPT.parse().unwrap(), &data, &options, &mut |_| {}).unwrap();
    for (k, (line, loss)) in lines.iter().zip(&expected.losses).enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            &words[..4],
            ["epoch", &(k + 1).to_string(), "loss", &format!("{loss:e}")]
        );
        // 7 windows per trajectory (12 − 2·3 + 1), two trajectories.
        assert_eq!(&words[4..6], ["windows", "14"]);
    }
    assert_eq!(
        std::fs::read(dir.path().join("net.h5")).unwrap(),
        expected.file
    );
    // The file loads as the architecture's type, and the command reads it.
    type Vpt = VolumePreservingTransformer<f64, 3, 3, 1, 1, 2, Tanh>;
    let _: Vpt = load_file(dir.path().join("net.h5")).unwrap();
    let check = geomattn_in(dir.path(), &["check", "net.h5", "--arch", VPT]);
    assert!(check.status.success(), "{}", text(&check.stdout));
    let svg = text(&std::fs::read(dir.path().join("loss.svg")).unwrap());
    let document = roxmltree::Document::parse(&svg).unwrap();
    assert!(
        document
            .descendants()
            .any(|n| n.text().map(str::trim) == Some("epoch"))
    );
    // One line in the network's colour, a point per epoch, left to right.
    let lines: Vec<Vec<f64>> = document
        .descendants()
        .filter(|n| n.tag_name().name() == "polyline" && n.attribute("stroke") == Some("#1F77B4"))
        .map(|n| {
            let points = n.attribute("points").unwrap().split_whitespace();
            points
                .map(|p| p.split_once(',').unwrap().0.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].len(), 3);
    assert!(lines[0].is_sorted());
    assert!(GmlFile::open(dir.path().join("net.h5")).is_ok());
}

/// Off the grid (dim 3 at seq 4, `n_linear = 2`, sigmoid), on the run-time engine: the same
/// losses and file as the library's training, which `check` and `inspect` then read.
#[test]
fn a_network_off_the_grid_trains_and_every_subcommand_reads_it() {
    const OFF_GRID: &str = "vpt(dim=3, seq=4, n_blocks=1, n_linear=2, L=2, activation=sigmoid, \
                            skew_sym=true)";
    let dir = tempfile::tempdir().unwrap();
    let (file, data) = csv_file(dir.path());
    let args = [
        "train", "--arch", OFF_GRID, "--data", &file, "--epochs", "2",
    ];
    let out = geomattn_in(
        dir.path(),
        &[&args[..], &["--batch", "4", "-o", "net.h5"]].concat(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let options = Options {
        epochs: 2,
        batch: 4,
        ..Options::default()
    };
    let expected = train(&OFF_GRID.parse().unwrap(), &data, &options, &mut |_| {}).unwrap();
    let losses: Vec<String> = text(&out.stdout)
        .lines()
        .map(|line| line.split(' ').nth(3).unwrap().to_string())
        .collect();
    let expected_losses: Vec<String> = expected.losses.iter().map(|l| format!("{l:e}")).collect();
    assert_eq!(losses, expected_losses);
    assert_eq!(
        std::fs::read(dir.path().join("net.h5")).unwrap(),
        expected.file
    );
    let check = geomattn_in(dir.path(), &["check", "net.h5", "--arch", OFF_GRID]);
    assert!(check.status.success(), "{}", text(&check.stdout));
    let inspect = geomattn_in(dir.path(), &["inspect", "net.h5"]);
    assert!(inspect.status.success(), "{}", text(&inspect.stderr));
    assert!(
        text(&inspect.stdout).contains("n_linear = 2"),
        "{}",
        text(&inspect.stdout)
    );
}

#[test]
fn bad_training_input_is_one_line_and_exit_code_two_with_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = csv_file(dir.path());
    let ct = "classification_transformer(dim=3, seq=3, classes=10, n_heads=1, L=1, \
              Stiefel=true, add_connection=false)";
    let cases: [(&[&str], &str); 11] = [
        (
            &["--arch", VPT, "--data", &file, "--epochs", "0"],
            "--epochs",
        ),
        (
            &["--arch", VPT, "--data", &file, "--epochs", "1e3"],
            "--epochs",
        ),
        (
            &[
                "--arch", VPT, "--data", &file, "--epochs", "1", "--batch", "0",
            ],
            "--batch",
        ),
        (
            &[
                "--arch",
                VPT,
                "--data",
                &file,
                "--epochs",
                "1",
                "--checkpoint-every",
                "0",
            ],
            "--checkpoint-every",
        ),
        (
            &[
                "--arch",
                VPT,
                "--data",
                &file,
                "--epochs",
                "1",
                "--init",
                "missing.h5",
            ],
            "missing.h5",
        ),
        (
            &[
                "--arch", VPT, "--data", &file, "--epochs", "1", "--lr", "-1",
            ],
            "--lr",
        ),
        (
            &[
                "--arch", VPT, "--data", &file, "--epochs", "1", "--lr", "nan",
            ],
            "--lr",
        ),
        (
            &["--arch", VPT, "--data", "missing.csv", "--epochs", "1"],
            "missing.csv",
        ),
        (
            &["--arch", ct, "--data", &file, "--epochs", "1"],
            "not an integrator",
        ),
        (
            &[
                "--arch",
                VPT,
                "--data",
                &file,
                "--epochs",
                "1",
                "--optimizer",
                "sgd",
            ],
            "sgd",
        ),
        (
            &[
                "--arch",
                "vpt(dim=2, seq=3, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=true)",
                "--data",
                &file,
                "--epochs",
                "1",
            ],
            "3",
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["train"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", "net.h5"]);
        let out = geomattn_in(dir.path(), &all);
        let message = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
        assert_eq!(message.trim_end().lines().count(), 1, "{args:?}: {message}");
        assert!(message.contains(says), "{args:?}: {message}");
        assert!(!dir.path().join("net.h5").exists(), "{args:?}");
    }
}
