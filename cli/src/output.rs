//! Where the commands write, with every write's error a value.
//!
//! Output files are written whole or not at all ([`AtomicFile`]): into a temporary file beside
//! the target, written as the command goes (a rollout streams its rows), then renamed over it;
//! a failure before the rename leaves nothing. The temporary file is created with the mode a
//! plain new file gets (`0o666` less the umask), not `tempfile`'s private `0o600`, since it
//! becomes the output.
//!
//! Standard output is written through [`Output::stdout`] (locked and buffered), never with
//! `print!`, which panics when a write fails. A write fails with `EPIPE` when the reader went
//! away: `geomattn rollout … | head -n 2` closes the pipe after two lines (Rust's runtime ignores
//! `SIGPIPE`, so the write returns the error instead of the signal ending the process). As an
//! error ([`Failure::Stdout`]) it stops the command at that write: nothing more is computed, and
//! `main` exits quietly with code 0, as `head`'s users expect
//! ([`Failure::is_closed_pipe`]). Restoring `SIGPIPE`'s default instead would need `unsafe`
//! libc calls, end with the signal (status 141 in the shell), and leave temporary files behind.

use std::fmt;
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::Failure;

/// Standard output or an output file, written incrementally; `write!` on it returns a
/// [`Failure`] naming where the write failed.
pub enum Output {
    /// Standard output, locked and buffered.
    Stdout(BufWriter<StdoutLock<'static>>),
    /// A file that appears only on [`Output::finish`].
    File(AtomicFile),
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Self {
        Self::Stdout(BufWriter::new(io::stdout().lock()))
    }

    /// Writes formatted text (what `write!` calls).
    ///
    /// # Errors
    /// [`Failure::Stdout`] or [`Failure::Write`].
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), Failure> {
        self.write_with(|out| out.write_fmt(args))
    }

    /// Writes bytes.
    ///
    /// # Errors
    /// [`Failure::Stdout`] or [`Failure::Write`].
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.write_with(|out| out.write_all(bytes))
    }

    fn write_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        match self {
            Self::Stdout(out) => write(out).map_err(Failure::Stdout),
            Self::File(file) => write(&mut file.file).map_err(|e| file.failure(e)),
        }
    }

    /// Flushes standard output, or puts the file in place.
    ///
    /// # Errors
    /// [`Failure::Stdout`] or [`Failure::Write`].
    pub fn finish(self) -> Result<(), Failure> {
        match self {
            Self::Stdout(mut out) => out.flush().map_err(Failure::Stdout),
            Self::File(file) => file.commit(),
        }
    }
}

/// An output file being written: a temporary file beside `path` until [`AtomicFile::commit`]
/// renames it over `path` (dropped before, it is removed).
pub struct AtomicFile {
    path: PathBuf,
    file: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path`.
    ///
    /// # Errors
    /// [`Failure::Write`] if the temporary file cannot be created.
    pub fn create(path: &Path) -> Result<Self, Failure> {
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder
            .tempfile_in(directory)
            .map_err(|source| Failure::Write {
                path: path.to_owned(),
                source,
            })?;
        Ok(Self {
            path: path.to_owned(),
            file: BufWriter::new(file),
        })
    }

    fn failure(&self, source: io::Error) -> Failure {
        Failure::Write {
            path: self.path.clone(),
            source,
        }
    }

    /// Flushes the file and renames it over the target.
    ///
    /// # Errors
    /// [`Failure::Write`].
    pub fn commit(self) -> Result<(), Failure> {
        let failure = |source| Failure::Write {
            path: self.path.clone(),
            source,
        };
        let file = self
            .file
            .into_inner()
            .map_err(|e| failure(e.into_error()))?;
        file.persist(&self.path).map_err(|e| failure(e.error))?;
        Ok(())
    }
}

/// Writes `bytes` to `path` atomically: a failure leaves no half-written file.
///
/// # Errors
/// [`Failure::Write`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut file = Output::File(AtomicFile::create(path)?);
    file.write_all(bytes)?;
    file.finish()
}

/// Prints `text` on standard output (and flushes it).
///
/// # Errors
/// [`Failure::Stdout`].
pub fn print(text: impl fmt::Display) -> Result<(), Failure> {
    let mut out = Output::stdout();
    write!(out, "{text}")?;
    out.finish()
}
