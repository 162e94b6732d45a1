//! `geomattn` with no arguments, the main job: the bundled rigid-body volume-preserving
//! transformer (embedded in the binary), 60 steps from z₀ = (0, sin 1.1, cos 1.1) against the
//! ground truth; a short table of the error, the structure check, and the plot.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use geomattn::gml::GmlFile;
use geomattn_networks::{Arch, Precision, rigid_body};

use crate::error::Failure;
use crate::output::{print, write_atomically};
use crate::rollout::{End, Rollout};
use crate::table::Table;
use crate::{Reference, check, plot};

/// GML's `transformer_rigid_body_nn_vpt.h5` (MIT, see `fixtures/gml/`).
const BUNDLED: &[u8] = include_bytes!("../../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
/// Its architecture.
const SPEC: &str =
    "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
/// Where the plot goes.
pub const PLOT: &str = "geomattn-rollout.svg";
const STEPS: usize = 60;

/// Runs the main job.
pub fn run() -> Result<ExitCode, Failure> {
    let file = GmlFile::from_bytes(BUNDLED.to_vec()).map_err(|source| {
        geomattn_networks::Error::Unreadable {
            file: "the bundled network".into(),
            source: Box::new(source),
        }
    })?;
    let arch: Arch = SPEC.parse()?;
    let net = geomattn_networks::open(&file, &arch, Precision::F64)?;
    let z0 = rigid_body::initial_state(1.1);
    let rollout = Rollout::new(
        net.as_ref(),
        z0.as_slice(),
        STEPS + 1,
        Some(Reference::RigidBody),
    )?;
    let mut rows = Vec::new();
    let end = rollout.run(|row| {
        rows.push(row);
        Ok(())
    })?;
    if end != End::Complete {
        return Ok(end.exit_code());
    }
    let mut text = String::from("# geomattn: GML's rigid-body volume-preserving transformer\n\n");
    // Writing to a `String` cannot fail.
    let _ = writeln!(
        text,
        "`{arch}` from z₀ = (0, sin 1.1, cos 1.1), {STEPS} steps of h = 0.2, f64,\n\
         against the implicit-midpoint ground truth (the first window is the truth's).\n"
    );
    let mut table = Table::new("Rollout error (max norm)", &["step", "error"]);
    let errors: Vec<(usize, f64)> = rows
        .iter()
        .filter_map(|row| Some((row.step, row.error()?)))
        .collect();
    for (step, error) in errors.iter().step_by(6) {
        table.row(vec![step.to_string(), format!("{error:.2e}")]);
    }
    let worst = errors.iter().map(|e| e.1).fold(0.0, f64::max);
    table.row(vec!["worst".into(), format!("{worst:.2e}")]);
    let _ = writeln!(text, "{table}");
    print(text)?;
    let code = check::run_on(&file, &arch, 100)?;
    write_atomically(
        Path::new(PLOT),
        plot::svg(&rows, SPEC, Some(rigid_body::H)).as_bytes(),
    )?;
    print(format_args!(
        "Plot: {PLOT} (each component against the truth, and the error).\n"
    ))?;
    Ok(code)
}
