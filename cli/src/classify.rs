//! `geomattn classify FILE --arch SPEC --images IMAGES --labels LABELS`: a classifier on labelled
//! images (IDX files, the MNIST format): accuracy, per-class accuracy and the confusion matrix,
//! computed by the batched path on every core the process may use (`classify::evaluate`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use geomattn_networks::classify::{self, Evaluation, Images};
use geomattn_networks::{Arch, Precision};

use crate::error::Failure;
use crate::output;
use crate::table::Table;

/// The arguments of `geomattn classify`.
#[derive(clap::Args)]
pub struct Args {
    /// The `.h5` file GML saved.
    file: PathBuf,
    /// The architecture, e.g. "classification_transformer(dim=49, seq=16, classes=10, n_heads=7,
    /// L=16, Stiefel=true, add_connection=false)".
    #[arg(long, value_name = "SPEC")]
    arch: String,
    /// 28×28 images, IDX (`idx3-ubyte`, as MNIST's files).
    #[arg(long)]
    images: PathBuf,
    /// Their labels, IDX (`idx1-ubyte`).
    #[arg(long)]
    labels: PathBuf,
    /// Compute in f32 (as the weights were trained) instead of f64.
    #[arg(long)]
    f32: bool,
}

/// Classifies the images and prints the tables.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let arch: Arch = args.arch.parse()?;
    let precision = if args.f32 {
        Precision::F32
    } else {
        Precision::F64
    };
    let net = classify::open_file(&args.file, &arch, precision)?;
    let images = Images::read(&args.images)?;
    if images.images().is_empty() {
        // An accuracy of no image is no measurement (it printed 0.0000, and exit code 0).
        return Err(geomattn_networks::Error::Idx {
            file: args.images.display().to_string(),
            expected: "a file of images to classify",
            reason: "it holds no image".into(),
        }
        .into());
    }
    let labels = classify::read_labels(&args.labels)?;
    let start = Instant::now();
    let evaluation = classify::evaluate(net.as_ref(), &images, &labels)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut text = format!(
        "# `{}` as `{arch}` ({precision:?})\n\n",
        args.file.display()
    );
    #[allow(clippy::cast_precision_loss)]
    let per_image = 1e6 * seconds / evaluation.total().max(1) as f64;
    let _ = writeln!(
        text,
        "accuracy {:.4} ({} of {} images; {per_image:.1} µs per image on {} threads)\n",
        evaluation.accuracy(),
        evaluation.correct(),
        evaluation.total(),
        classify::all_threads()
    );
    let _ = writeln!(text, "{}", per_class(&evaluation));
    let _ = writeln!(text, "{}", confusion(&evaluation));
    output::print(text)?;
    Ok(ExitCode::SUCCESS)
}

fn per_class(evaluation: &Evaluation) -> Table {
    let mut table = Table::new("Per class", &["class", "images", "correct", "accuracy"]);
    for (class, (images, correct)) in evaluation.per_class().into_iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let accuracy = if images == 0 {
            "—".into()
        } else {
            format!("{:.4}", correct as f64 / images as f64)
        };
        table.row(vec![
            class.to_string(),
            images.to_string(),
            correct.to_string(),
            accuracy,
        ]);
    }
    table
}

fn confusion(evaluation: &Evaluation) -> Table {
    let classes = evaluation.confusion.len();
    let mut header = vec!["label \\ predicted".to_owned()];
    header.extend((0..classes).map(|k| k.to_string()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(
        "Confusion matrix (rows: label, columns: prediction)",
        &header,
    );
    for (label, row) in evaluation.confusion.iter().enumerate() {
        let mut cells = vec![label.to_string()];
        cells.extend(row.iter().map(ToString::to_string));
        table.row(cells);
    }
    table
}
