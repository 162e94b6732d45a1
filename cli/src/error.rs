//! Why a command could not do its job: bad input, always reported as one line.

use std::path::PathBuf;

/// A command's failure; `main` prints it as one line and exits with code 2 (except a closed
/// pipe on standard output: see [`Failure::is_closed_pipe`]).
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// From the spec, the loader, or an input the network refuses.
    #[error(transparent)]
    Spec(#[from] geomattn_networks::Error),
    /// A number that does not parse.
    #[error("--init: `{0}` is not a number (give the values separated by commas)")]
    Number(String),
    /// `--to` names no export format.
    #[error("--to: `{0}` is not an export format (`blob` or `rust`)")]
    Format(String),
    /// The reference does not apply.
    #[error("--reference rigid-body: {0}")]
    Reference(String),
    /// An input file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system reported.
        source: std::io::Error,
    },
    /// An output file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system reported.
        source: std::io::Error,
    },
    /// Two outputs of one command name the same file.
    #[error("`{first}` and `{second}` name the same file: give each output its own")]
    SameOutput {
        /// The first output, as named.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// Standard output could not be written.
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
}

/// A spec that does not parse, or a file `inspect` cannot read: the spec crate's error.
impl From<geomattn_arch::Error> for Failure {
    fn from(error: geomattn_arch::Error) -> Self {
        Self::Spec(error.into())
    }
}

impl Failure {
    /// The exit code: 3 for training that diverged (as for a rollout that diverged), 2 for
    /// everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Spec(geomattn_networks::Error::TrainingDiverged { .. }) => 3,
            _ => 2,
        }
    }

    /// Whether the reader of standard output went away (`geomattn rollout … | head`): the
    /// output is no longer wanted, which is no failure; `main` then exits quietly with code 0.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, Self::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
