//! What can go wrong between a spec, a file and a run: one enum, one line each.

use geomattn::gml::LoadError;

/// Why a spec, a file or an input was refused. Every message is one line naming the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The spec text does not parse.
    #[error("malformed architecture `{spec}`: {reason}")]
    Spec {
        /// The text as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file cannot be read, or does not hold the architecture.
    #[error("`{file}` does not load as {arch}: {source}")]
    Load {
        /// The file.
        file: String,
        /// The architecture asked for.
        arch: String,
        /// What the loader reported.
        source: Box<LoadError>,
    },
    /// The file's layers are not the architecture's chain: the first difference.
    #[error("`{file}` does not load as {arch}: {mismatch}")]
    Mismatch {
        /// The file.
        file: String,
        /// The architecture asked for.
        arch: String,
        /// Where the file first differs from the architecture's chain.
        mismatch: Box<geomattn_arch::inspect::Mismatch>,
    },
    /// The file cannot be read at all.
    #[error("cannot read `{file}`: {source}")]
    Unreadable {
        /// The file.
        file: String,
        /// What the loader reported.
        source: Box<LoadError>,
    },
    /// A network that loaded cannot be written out.
    #[error("cannot export `{file}`: {reason}")]
    Export {
        /// The file.
        file: String,
        /// What went wrong.
        reason: String,
    },
    /// An input (window or initial state) has the wrong number of values.
    #[error("{what} has {found} values, {arch} needs {expected}")]
    Length {
        /// What the input is.
        what: &'static str,
        /// The architecture.
        arch: String,
        /// Values needed.
        expected: String,
        /// Values given.
        found: usize,
    },
    /// An input value is NaN or infinite.
    #[error("{what} has a non-finite value at position {index}")]
    NonFinite {
        /// What the input is.
        what: &'static str,
        /// Its position (from 0).
        index: usize,
    },
    /// The architecture cannot do what was asked (an integrator's rollout of a classifier, a
    /// classification with an integrator).
    #[error("{arch} {reason}")]
    Unsupported {
        /// The architecture.
        arch: String,
        /// Why, and what to use instead.
        reason: String,
    },
    /// A file of images or labels (IDX, the MNIST format) is malformed.
    #[error("`{file}` is not {expected}: {reason}")]
    Idx {
        /// The file.
        file: String,
        /// What it should hold.
        expected: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// Training cannot go on (options that draw no window, a loss no longer defined).
    #[error("training failed: {reason}")]
    Train {
        /// What went wrong.
        reason: String,
    },
    /// Training diverged: an epoch's loss grew past [`crate::train::DIVERGED`] times the
    /// smaller of epoch 1's loss and 1 (the loss of a network that outputs zeros).
    #[error(
        "training diverged at epoch {epoch}: loss {loss:e}, against {first:e} at epoch 1 \
         (a smaller learning rate may help)"
    )]
    TrainingDiverged {
        /// The epoch whose loss grew past the bound.
        epoch: u64,
        /// Its loss.
        loss: f64,
        /// Epoch 1's loss.
        first: f64,
    },
    /// A structure check asked for no random input, or for more than it measures.
    #[error(
        "a check measures from 1 to {max} random inputs, not {samples}",
        max = crate::structure::MAX_SAMPLES
    )]
    Samples {
        /// The number asked for.
        samples: usize,
    },
    /// The caller asked a long computation to stop ([`crate::check_until`]).
    #[error("stopped before the end")]
    Stopped,
    /// A file of training data is malformed.
    #[error("`{file}`, line {line}: {reason}")]
    Data {
        /// The file.
        file: String,
        /// The line (from 1).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The network's output stopped being finite.
    #[error("the network's output is not finite from state {state} on")]
    Diverged {
        /// The first non-finite state of the trajectory.
        state: usize,
    },
}

impl From<geomattn_arch::Error> for Error {
    fn from(error: geomattn_arch::Error) -> Self {
        match error {
            geomattn_arch::Error::Spec { spec, reason } => Self::Spec { spec, reason },
            geomattn_arch::Error::Unreadable { file, source } => Self::Unreadable { file, source },
        }
    }
}
