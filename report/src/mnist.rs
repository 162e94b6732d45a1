//! GML's four MNIST classifiers on the 300 MNIST images shipped in `fixtures/mnist/` (training
//! split, 30 per digit), beside the accuracies GML reports on the 10,000 test images. The networks
//! ship in `fixtures/gml/`; a row says so when one cannot be read.

use std::path::Path;
use std::time::Instant;

use geomattn_networks::Arch;
use geomattn_networks::Precision;
use geomattn_networks::classify::{self, Images, read_labels};
use geomattn_testkit::fixture;

use super::Table;

/// GML's test-set accuracies of `mnist_nn1.h5` … `mnist_nn4.h5`, from its MNIST tutorial.
const GML_ACCURACY: [f64; 4] = [0.0974, 0.8613, 0.5518, 0.6351];

/// The table, one row per network (f32).
pub fn table() -> Table {
    let mut table = Table::new(
        "GML's MNIST classifiers on 300 shipped MNIST training images (f32)",
        &[
            "network",
            "accuracy here",
            "GML (10,000 test images)",
            "ms/image",
        ],
    );
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let data = |name: &str| repository.join("fixtures/mnist").join(name);
    let images = Images::read(data("mnist-train-300-images.idx3-ubyte"));
    let labels = read_labels(data("mnist-train-300-labels.idx1-ubyte"));
    for (k, gml) in (1..=4).zip(GML_ACCURACY) {
        let name = format!("mnist_nn{k}.h5");
        let path = fixture(&name);
        let measured = match (&images, &labels) {
            (Ok(images), Ok(labels)) => accuracy(&path, k, images, labels),
            (Err(e), _) | (_, Err(e)) => Err(format!("no images: {e}")),
        };
        let (accuracy, ms) = match measured {
            Ok((accuracy, ms)) => (format!("{accuracy:.4}"), format!("{ms:.2}")),
            Err(why) => (why, "–".to_string()),
        };
        table.row(vec![name, accuracy, format!("{gml:.4}"), ms]);
    }
    table
}

/// The accuracy of network `k` and its milliseconds per image, loading included (nn1 was trained
/// without Stiefel projections), or why not.
fn accuracy(path: &Path, k: usize, images: &Images, labels: &[u8]) -> Result<(f64, f64), String> {
    let arch: Arch = match format!(
        "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
         Stiefel={}, add_connection=false)",
        k != 1
    )
    .parse()
    {
        Ok(arch) => arch,
        Err(e) => return Err(format!("bad spec: {e}")),
    };
    let start = Instant::now();
    let evaluated = classify::open_file(path, &arch, Precision::F32)
        .and_then(|net| classify::evaluate(net.as_ref(), images, labels));
    let evaluation = evaluated.map_err(|e| format!("error: {e}"))?;
    let ms = start.elapsed().as_secs_f64() * 1e3 / evaluation.total().max(1) as f64;
    Ok((evaluation.accuracy(), ms))
}
