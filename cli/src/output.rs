//! Output files are written whole or not at all: into a temporary file beside the target, then
//! renamed over it. The temporary file is created with the mode a plain new file gets (`0o666`
//! less the umask), not `tempfile`'s private `0o600`, since it becomes the output.

use std::io::Write;
use std::path::Path;

use crate::error::Failure;

/// Writes `bytes` to `path` atomically: a failure leaves no half-written file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let failure = |source| Failure::Write {
        path: path.to_owned(),
        source,
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut file = builder.tempfile_in(directory).map_err(failure)?;
    file.write_all(bytes).map_err(failure)?;
    file.persist(path).map_err(|e| failure(e.error))?;
    Ok(())
}
