//! `geomattn inspect FILE`: the layers in order with their parameters, the architectures with
//! that layer structure (geomattn's spec and GML's constructor call), and the options the file
//! cannot say. Exit code 2 if no architecture
//! has that structure (the layers are still listed), as for any file no command can run.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use geomattn::gml::GmlFile;
use geomattn_networks::inspect::inspect;

use crate::error::Failure;
use crate::output;
use crate::table::Table;

/// Prints the description of `path`.
pub fn run(path: &Path) -> Result<ExitCode, Failure> {
    let file = GmlFile::open(path).map_err(|source| geomattn_networks::Error::Unreadable {
        file: path.display().to_string(),
        source: Box::new(source),
    })?;
    let inspection = inspect(&file)?;
    let mut text = format!("# {}\n\n", path.display());
    let mut table = Table::new(
        &format!("Layers ({})", inspection.layers.len()),
        &[
            "layer",
            "parameter",
            "kind",
            "shape (Julia)",
            "storage",
            "Stiefel deviation",
        ],
    );
    for layer in &inspection.layers {
        for parameter in &layer.parameters {
            table.row(vec![
                layer.name.clone(),
                parameter.name.clone(),
                parameter.kind.clone(),
                parameter.shape.clone(),
                parameter.storage.clone(),
                parameter
                    .stiefel_deviation
                    .map_or_else(|| "—".into(), |d| format!("{d:.1e}")),
            ]);
        }
    }
    // Writing to a `String` cannot fail.
    let _ = writeln!(text, "{table}");
    text.push_str("## Matching architectures\n\n");
    if inspection.matches.is_empty() {
        text.push_str("None of this library's architectures has this layer structure.\n");
    }
    for found in &inspection.matches {
        let _ = writeln!(text, "- `{}`", found.spec);
        let _ = writeln!(text, "  - GML: `{}`", found.gml);
        for unknown in &found.unknown {
            let _ = writeln!(text, "  - give {unknown}");
        }
    }
    output::print(text)?;
    if inspection.matches.is_empty() {
        // The layers are listed above; no command of this build can run the file.
        eprintln!(
            "error: `{}`: none of this library's architectures has this layer structure",
            path.display()
        );
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}
