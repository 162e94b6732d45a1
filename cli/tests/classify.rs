//! `geomattn classify` on the shipped MNIST images with GML's nn3 (shipped in `fixtures/gml/`): its
//! tables are the library's evaluation, and bad input is one line and exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use geomattn_networks::classify::{self, Images};
use geomattn_networks::{Arch, Precision};

const CT: &str = "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
                  Stiefel=true, add_connection=false)";

fn repository(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn paths() -> [String; 3] {
    [
        "fixtures/gml/mnist_nn3.h5",
        "fixtures/mnist/mnist-train-300-images.idx3-ubyte",
        "fixtures/mnist/mnist-train-300-labels.idx1-ubyte",
    ]
    .map(|p| repository(p).display().to_string())
}

fn geomattn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .output()
        .expect("the geomattn binary runs")
}

#[test]
fn classify_prints_the_librarys_accuracy_and_confusion_matrix() {
    let [net, images, labels] = paths();
    let out = geomattn(&[
        "classify", &net, "--arch", CT, "--images", &images, "--labels", &labels, "--f32",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let arch: Arch = CT.parse().unwrap();
    let library = classify::evaluate(
        classify::open_file(&net, &arch, Precision::F32)
            .unwrap()
            .as_ref(),
        &Images::read(&images).unwrap(),
        &classify::read_labels(&labels).unwrap(),
    )
    .unwrap();
    assert!(text.contains(&format!(
        "accuracy {:.4} ({} of 300 images",
        library.accuracy(),
        library.correct()
    )));
    // The confusion matrix: ten rows `| label | counts… |`, each the library's.
    let rows: Vec<Vec<usize>> = text
        .lines()
        .skip_while(|l| !l.starts_with("## Confusion"))
        .filter_map(|l| {
            let cells: Vec<usize> = l.split('|').filter_map(|c| c.trim().parse().ok()).collect();
            (cells.len() == 11).then(|| cells[1..].to_vec())
        })
        .collect();
    assert_eq!(rows, library.confusion);
}

#[test]
fn classify_refuses_bad_input_in_one_line() {
    let [net, images, labels] = paths();
    let vpt = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                &net, "--arch", vpt, "--images", &images, "--labels", &labels,
            ],
            "not a classifier",
        ),
        (
            &[&net, "--arch", CT, "--images", &labels, "--labels", &labels],
            "idx3-ubyte",
        ),
        (
            &[&net, "--arch", CT, "--images", &images, "--labels", &images],
            "idx1-ubyte",
        ),
        (
            &[
                &net,
                "--arch",
                &CT.replace("L=16", "L=15"),
                "--images",
                &images,
                "--labels",
                &labels,
            ],
            "does not load",
        ),
    ];
    for (args, message) in cases {
        let out = geomattn(&[&["classify"], args].concat());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn a_classifier_no_compiled_type_has_is_classified_on_the_engine() {
    // GML's MNIST shape with one head and L = 2 (the grid has seven heads): a seeded network.
    let spec = "classification_transformer(dim=49, seq=16, classes=10, n_heads=1, L=2, \
                Stiefel=false, add_connection=true)";
    let arch: Arch = spec.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("one_head.h5");
    let layers = geomattn_networks::layout::layers(&arch);
    std::fs::write(&net, geomattn_testkit::gml_chain::bytes_of(&layers, 9)).unwrap();
    let net = net.display().to_string();
    let [_, images, labels] = paths();
    let out = geomattn(&[
        "classify", &net, "--arch", spec, "--images", &images, "--labels", &labels,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let library = classify::evaluate(
        classify::open_file(&net, &arch, Precision::F64)
            .unwrap()
            .as_ref(),
        &Images::read(&images).unwrap(),
        &classify::read_labels(&labels).unwrap(),
    )
    .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "accuracy {:.4} ({} of 300 images",
            library.accuracy(),
            library.correct()
        )),
        "{text}"
    );
}
