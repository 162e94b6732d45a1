//! `geomattn check FILE --arch SPEC`: the structure the architecture promises, measured over
//! random inputs with exact Jacobians, as a table with pass/fail.

use std::path::PathBuf;
use std::process::ExitCode;

use geomattn::gml::GmlFile;
use geomattn_networks::{Arch, Measurement};

use crate::count;
use crate::error::Failure;
use crate::output;
use crate::table::Table;

/// The arguments of `geomattn check`.
#[derive(clap::Args)]
pub struct Args {
    /// The `.h5` file GML saved.
    file: PathBuf,
    /// The architecture (see SPEC below).
    #[arg(long, value_name = "SPEC")]
    arch: String,
    /// Random inputs (entries uniform in (−1, 1)), from 1 to 10⁶.
    #[arg(
        long,
        value_name = "N",
        default_value = "100",
        value_parser = count::samples,
        allow_hyphen_values = true
    )]
    samples: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs the check; exit code 1 if a promised property fails.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let arch: Arch = args.arch.parse()?;
    let measurements = geomattn_networks::check_file(&args.file, &arch, args.samples, args.seed)?;
    print(&arch, &measurements, args.samples)
}

/// Runs the check on an opened file (the main job's bundled network).
pub fn run_on(file: &GmlFile, arch: &Arch, samples: usize) -> Result<ExitCode, Failure> {
    let measurements = geomattn_networks::check(file, arch, samples, 0)?;
    print(arch, &measurements, samples)
}

fn print(arch: &Arch, measurements: &[Measurement], samples: usize) -> Result<ExitCode, Failure> {
    if measurements.is_empty() {
        output::print(format_args!(
            "`{arch}` promises no structure: nothing to check (the file loads as it).\n"
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(
        &format!("Structure of `{arch}` ({samples} random inputs, f64, exact Jacobians)"),
        &["property", "worst", "tolerance", "result"],
    );
    for m in measurements {
        let result = match (m.promised, m.passes()) {
            (false, _) => "reported",
            (true, true) => "pass",
            (true, false) => "FAIL",
        };
        table.row(vec![
            m.property.clone(),
            format!("{:.1e}", m.worst),
            format!("{:.0e}", m.tolerance),
            result.into(),
        ]);
    }
    output::print(format_args!("{table}\n"))?;
    Ok(if measurements.iter().all(Measurement::passes) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
