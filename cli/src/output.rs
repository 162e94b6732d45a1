//! Where the commands write, with every write's error a value.
//!
//! An output file ([`OutputFile`]) goes where the user named it, whatever that name is:
//! - **A regular file, or a name not yet taken**: written whole or not at all. The command writes
//!   a temporary file beside it (`.NAME.XXXXXX.tmp`, as it goes: a rollout streams its rows),
//!   then renames it over the file; a failure before that leaves nothing. The temporary file is
//!   created with the mode a plain new file gets (`0o666` less the umask), not `tempfile`'s
//!   private `0o600`, since it becomes the output.
//! - **A symbolic link**: followed (also when it dangles), so that the file it points to is
//!   written and the link stays a link.
//! - **Anything else** (a device such as `/dev/null`, a FIFO, a terminal, and every name under
//!   `/dev` and `/proc`, among them `/dev/stdout`): written in place, as `>` in a shell writes
//!   it. Renaming over it would replace a device node with a regular file (as root) or fail to
//!   create the temporary file beside it (as anyone else).
//!
//! A command with several outputs (`rollout --out … --plot …`, `train -o … --plot …`) opens them
//! all before its work starts, so that an output that cannot be written is reported before a long
//! run rather than after it, and puts them in place together at the end ([`commit_all`]): all
//! or none. A temporary file is removed on every exit: a failure, a panic (unwinding drops it),
//! and `SIGINT`, `SIGTERM` or `SIGHUP` ([`remove_on_signals`]); only `SIGKILL`, which no process
//! can catch, leaves one behind, named after its target.
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
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tempfile::NamedTempFile;

use crate::error::Failure;

/// Standard output or an output file, written incrementally; `write!` on it returns a
/// [`Failure`] naming where the write failed.
pub enum Output {
    /// Standard output, locked and buffered.
    Stdout(BufWriter<StdoutLock<'static>>),
    /// A file, in place at the latest on [`Output::finish`].
    File(OutputFile),
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

    fn write_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        match self {
            Self::Stdout(out) => write(out).map_err(Failure::Stdout),
            Self::File(file) => file.write_with(write),
        }
    }

    /// Flushes standard output, or puts the file in place.
    ///
    /// # Errors
    /// [`Failure::Stdout`] or [`Failure::Write`].
    pub fn finish(self) -> Result<(), Failure> {
        match self {
            Self::Stdout(mut out) => out.flush().map_err(Failure::Stdout),
            Self::File(file) => commit_all([file]),
        }
    }
}

/// An output file being written (see the [module docs](self) for where it goes).
pub struct OutputFile {
    /// The path as the user named it, for messages.
    named: PathBuf,
    sink: Sink,
}

enum Sink {
    /// A temporary file beside `target` (the named path with its links followed), renamed over
    /// it by [`commit_all`]; dropped before, it is removed.
    Replace {
        target: PathBuf,
        file: BufWriter<Registered>,
    },
    /// The target itself, written as the command goes.
    InPlace(BufWriter<File>),
}

/// Symbolic links followed before giving up, as Linux's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// Where an output named `named` goes: `Some(file)` to replace `file` whole (the named path with
/// its links followed), `None` to write the named path in place.
fn replaced_file(named: &Path) -> io::Result<Option<PathBuf>> {
    let mut path = named.to_owned();
    for _ in 0..MAX_LINKS {
        if path.starts_with("/dev") || path.starts_with("/proc") {
            return Ok(None);
        }
        let kind = match fs::symlink_metadata(&path) {
            Ok(metadata) => metadata.file_type(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(path)),
            Err(e) => return Err(e),
        };
        if kind.is_file() {
            return Ok(Some(path));
        }
        if !kind.is_symlink() {
            return Ok(None);
        }
        // A relative link's target is relative to the link's folder.
        let target = fs::read_link(&path)?;
        path = path.parent().unwrap_or(Path::new("")).join(target);
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

impl OutputFile {
    /// Starts writing `path`: creates its temporary file, or opens it in place.
    ///
    /// # Errors
    /// [`Failure::Write`] if neither can be done.
    pub fn create(path: &Path) -> Result<Self, Failure> {
        let failure = |source| Failure::Write {
            path: path.to_owned(),
            source,
        };
        let sink = match replaced_file(path).map_err(failure)? {
            Some(target) => Sink::Replace {
                file: BufWriter::new(temporary_beside(&target).map_err(failure)?),
                target,
            },
            None => Sink::InPlace(BufWriter::new(
                OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(path)
                    .map_err(failure)?,
            )),
        };
        Ok(Self {
            named: path.to_owned(),
            sink,
        })
    }

    fn failure(&self, source: io::Error) -> Failure {
        Failure::Write {
            path: self.named.clone(),
            source,
        }
    }

    fn write_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let written = match &mut self.sink {
            Sink::Replace { file, .. } => write(file),
            Sink::InPlace(file) => write(file),
        };
        written.map_err(|e| self.failure(e))
    }

    /// Writes bytes.
    ///
    /// # Errors
    /// [`Failure::Write`].
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.write_with(|out| out.write_all(bytes))
    }

    /// The file this output replaces when put in place (`None`: written in place), with its
    /// folder's links resolved, to compare two outputs.
    fn replaced(&self) -> Option<PathBuf> {
        let Sink::Replace { target, .. } = &self.sink else {
            return None;
        };
        let folder = target.parent().filter(|p| !p.as_os_str().is_empty());
        let folder = fs::canonicalize(folder.unwrap_or(Path::new("."))).ok()?;
        Some(folder.join(target.file_name()?))
    }

    /// Refuses two outputs of one command that name the same file (the second would replace the
    /// first: `train --plot` onto `-o`'s network).
    ///
    /// # Errors
    /// [`Failure::SameOutput`].
    pub fn distinct(&self, other: &Self) -> Result<(), Failure> {
        match (self.replaced(), other.replaced()) {
            (Some(a), Some(b)) if a == b => Err(Failure::SameOutput {
                first: self.named.clone(),
                second: other.named.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// Puts every output in place: first each is flushed (a failure leaves none of them), then the
/// temporary files are renamed over their targets, one after the other.
///
/// # Errors
/// [`Failure::Write`], naming the output that failed.
pub fn commit_all(files: impl IntoIterator<Item = OutputFile>) -> Result<(), Failure> {
    let mut flushed = Vec::new();
    for file in files {
        let OutputFile { named, sink } = file;
        let failure = |source| Failure::Write {
            path: named.clone(),
            source,
        };
        match sink {
            Sink::Replace { target, file } => {
                let temporary = file.into_inner().map_err(|e| failure(e.into_error()))?;
                flushed.push((named, target, temporary));
            }
            Sink::InPlace(mut file) => file.flush().map_err(failure)?,
        }
    }
    // Under the lock: a signal's cleanup cannot remove a file that is being put in place. (The
    // files left after a failure are dropped after it, since dropping one takes the lock.)
    let mut pending = pending();
    let mut flushed = flushed.into_iter();
    for (named, target, temporary) in flushed.by_ref() {
        if let Err(source) = temporary.persist(&target, &mut pending) {
            drop(pending);
            return Err(Failure::Write {
                path: named,
                source,
            });
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` (see [`OutputFile`]): a failure leaves no half-written file.
///
/// # Errors
/// [`Failure::Write`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut file = OutputFile::create(path)?;
    file.write_all(bytes)?;
    commit_all([file])
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

/// The temporary files not yet put in place, for the signal handler to remove.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves the list as valid as before it.
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A temporary file beside `target` (`.NAME.XXXXXX.tmp`), listed for [`remove_on_signals`].
fn temporary_beside(target: &Path) -> io::Result<Registered> {
    let folder = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let prefix = format!(
        ".{}.",
        target.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut pending = pending();
    let file = builder.tempfile_in(folder)?;
    pending.push(file.path().to_owned());
    Ok(Registered(Some(file)))
}

/// A temporary file listed for [`remove_on_signals`] until it is put in place or dropped
/// (`NamedTempFile` then removes it).
struct Registered(Option<NamedTempFile>);

impl Registered {
    /// Renames the file over `target`, and takes it off the list (`pending`, held by the caller).
    fn persist(mut self, target: &Path, pending: &mut Vec<PathBuf>) -> io::Result<()> {
        let Some(file) = self.0.take() else {
            return Ok(());
        };
        let path = file.path().to_owned();
        // Renamed, or removed as the error drops it: off the list either way.
        let persisted = file.persist(target);
        pending.retain(|pending| *pending != path);
        persisted.map(drop).map_err(|e| e.error)
    }
}

impl Write for Registered {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.as_mut().map_or(Ok(0), |file| file.write(bytes))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(file) = &self.0 {
            let path = file.path();
            pending().retain(|pending| pending != path);
        }
    }
}

/// On `SIGINT`, `SIGTERM` and `SIGHUP`, removes the temporary files of the outputs not yet in
/// place, then ends the process as the signal would have (the shell sees it: status 130 for
/// Ctrl-C). A thread of `signal-hook` waits for the signals, so the cleanup runs outside the
/// signal handler, where removing files is allowed.
///
/// # Errors
/// If the handlers cannot be installed.
pub fn remove_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("cleanup on signal".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held to the end: no output is put in place after its file was removed.
                let pending = pending();
                for path in pending.iter() {
                    let _ = fs::remove_file(path);
                }
                // Ends the process with the signal (its default action), or exits as the shell
                // would report it if that fails.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
