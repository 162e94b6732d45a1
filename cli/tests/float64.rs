//! Networks GML saved in Float64, through the command in GML's own constructor syntax: a
//! `SymplecticTransformer` and a `LinearSymplecticTransformer` with genuine Float64 weights roll
//! out as `geomattn_testkit::gml_reference` computes them from CONVENTIONS.md (to 1e-12), and
//! `inspect` names the storage.

use std::path::Path;
use std::process::{Command, Output};

use geomattn::nalgebra::DMatrix;
use geomattn_testkit::gml_layout::{Layer, chain, to_bytes, uniform64};
use geomattn_testkit::gml_reference::{self, Softmax};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn geomattn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .output()
        .expect("the geomattn binary runs")
}

/// Phase space R⁴ (n = 2), GML's `upscaling_dimension = 8`, n_sympnet = 2, L = 2, windows of 3;
/// the attention's `A` of size `size` (2: symplectic attention, 3: linear).
fn layers(seed: u64, size: usize) -> Vec<Layer<f64>> {
    chain(&mut SmallRng::seed_from_u64(seed), (2, 2, 2, 4), |rng| {
        Layer::Symmetric(uniform64(rng, size * (size + 1) / 2), size)
    })
}

/// GML's calls as a user pastes them, GML's defaults for the rest (n_sympnet = 2,
/// upscaling_dimension = 2·dim, tanh, MatrixSoftmax, init_upper = true, symmetric = true; and
/// geomattn's `kick = gml` in GML's syntax).
const SYMPLECTIC: &str = "SymplecticTransformer(4; seq = 3, L = 2)";
const LINEAR: &str = "LinearSymplecticTransformer(4, 3; L = 2)";

/// The states of the CSV `text` (`step,z1,…,z4`), in order.
fn states(text: &str) -> Vec<Vec<f64>> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("step,z1,z2,z3,z4"));
    lines
        .enumerate()
        .map(|(k, line)| {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells[0], k.to_string(), "{line}");
            cells[1..].iter().map(|c| c.parse().unwrap()).collect()
        })
        .collect()
}

fn rolls_out_as_the_reference(dir: &Path, name: &str, arch: &str, layers: &[Layer<f64>]) {
    let path = dir.join(name);
    std::fs::write(&path, to_bytes(layers)).unwrap();
    let window = [
        0.3, -0.2, 0.5, 0.1, -0.4, 0.25, 0.6, -0.1, 0.15, 0.35, -0.3, 0.45,
    ];
    let init: Vec<String> = window.iter().map(ToString::to_string).collect();
    let out = geomattn(&[
        "rollout",
        &path.display().to_string(),
        "--arch",
        arch,
        "--init",
        &init.join(","),
        "--states",
        "18",
    ]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{arch}: {stderr}");
    let ours = states(&String::from_utf8(out.stdout).unwrap());
    let window = DMatrix::from_column_slice(4, 3, &window);
    let expected = gml_reference::rollout(layers, &window, 5, Softmax::Matrix);
    // The initial window's 3 states, then 3 per application.
    assert_eq!(ours.len(), 18, "{arch}");
    for (k, (a, b)) in ours.iter().zip(&expected).enumerate() {
        let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        let gap = a
            .iter()
            .zip(b)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(
            gap <= 1e-12 * scale,
            "{arch}: state {k}: {a:?} against {b:?}"
        );
    }
}

#[test]
fn float64_symplectic_transformers_roll_out_as_the_reference_in_gmls_syntax() {
    let dir = tempfile::tempdir().unwrap();
    rolls_out_as_the_reference(dir.path(), "symplectic.h5", SYMPLECTIC, &layers(11, 2));
    rolls_out_as_the_reference(dir.path(), "linear.h5", LINEAR, &layers(12, 3));
}

#[test]
fn inspect_shows_float64_storage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("symplectic.h5");
    std::fs::write(&path, to_bytes(&layers(11, 2))).unwrap();
    let out = geomattn(&["inspect", &path.display().to_string()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.split('|')
                .nth(1)
                .is_some_and(|cell| cell.trim().starts_with('L'))
        })
        .collect();
    // Two attention layers (A) and four gradient layers (weight, bias, scale) per unit, L = 2.
    assert_eq!(rows.len(), 2 * (2 + 4 * 3), "{text}");
    assert!(rows.iter().all(|row| row.contains("| Float64 |")), "{text}");
    assert!(text.contains("symplectic_transformer(dim=4"), "{text}");
}
