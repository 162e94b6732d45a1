//! What every test of the command shares.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// The `geomattn` binary under test, run in `dir` with `args`, its output captured.
pub fn geomattn_in(dir: &Path, args: &[impl AsRef<OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the geomattn binary runs")
}
