//! What can go wrong between a spec and a file: one enum, one line each.

use geomattn::gml::LoadError;

/// Why a spec or a file was refused. Every message is one line naming the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The spec text does not parse, or names sizes GML's constructor refuses.
    #[error("malformed architecture `{spec}`: {reason}")]
    Spec {
        /// The text as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file cannot be read at all.
    #[error("cannot read `{file}`: {source}")]
    Unreadable {
        /// The file.
        file: String,
        /// What the loader reported.
        source: Box<LoadError>,
    },
}
