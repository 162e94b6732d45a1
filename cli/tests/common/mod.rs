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

/// The path of `path` in the repository, as text (for arguments).
#[allow(
    dead_code,
    reason = "not every test binary that shares this module names a file"
)]
pub fn repository(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}
