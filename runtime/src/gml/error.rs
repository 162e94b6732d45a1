//! What can go wrong when loading a network from a GML file.

use std::string::String;
use std::vec::Vec;

/// Why a GML file could not be turned into a network. Every malformed input ends here; the loader
/// never panics.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read or parsed as HDF5 (missing, truncated, not HDF5, corrupt).
    #[error("cannot read `{path}` as HDF5: {source}")]
    Hdf5 {
        /// The file or the object inside it that failed.
        path: String,
        /// What the HDF5 reader reported.
        source: hdf5_pure::Error,
    },
    /// A group or dataset the architecture needs is not in the file.
    #[error("`{path}` is missing")]
    Missing {
        /// Its path inside the file.
        path: String,
    },
    /// The file has a parameter the architecture does not have at that place (e.g. a bias).
    #[error("`{path}` is not part of the architecture")]
    Unexpected {
        /// Its path inside the file.
        path: String,
    },
    /// The file has a different number of layers than the architecture the caller named.
    #[error("the file has {found} layers, the architecture has {expected}")]
    LayerCount {
        /// Layers of the architecture.
        expected: usize,
        /// Groups `L1 … Ln` in the file.
        found: usize,
    },
    /// A dataset's shape does not fit the architecture (both in HDF5's order, the reverse of
    /// Julia's).
    #[error("`{path}` has shape {found:?}, the architecture needs {expected:?}")]
    Shape {
        /// The dataset.
        path: String,
        /// The shape the architecture needs.
        expected: Vec<u64>,
        /// The shape in the file.
        found: Vec<u64>,
    },
    /// A dataset holds another element type than the one GML writes (`Float32`, or `Int64` for
    /// the size `n` of a special matrix).
    #[error("`{path}` holds {found}, expected {expected}")]
    DataType {
        /// The dataset.
        path: String,
        /// The type GML writes there.
        expected: &'static str,
        /// The type in the file.
        found: String,
    },
    /// A special-matrix group has the wrong or no `gml_type` attribute.
    #[error("`{path}` has gml_type {found:?}, expected `{expected}`")]
    GmlType {
        /// The group.
        path: String,
        /// The type the architecture needs.
        expected: &'static str,
        /// The attribute's value, `None` if it is absent or not a string.
        found: Option<String>,
    },
    /// A special matrix's size `n` differs from the architecture's.
    #[error("`{path}` is {found}, the architecture needs {expected}")]
    Size {
        /// The dataset `n`.
        path: String,
        /// The size the architecture needs.
        expected: usize,
        /// The size in the file.
        found: i64,
    },
    /// The layer rejects a weight: a packed vector `S` of the wrong length, or a Stiefel weight
    /// without orthonormal columns.
    #[error("`{path}`: {source}")]
    Invalid {
        /// The group.
        path: String,
        /// What the layer reported.
        source: crate::Error,
    },
    /// A weight is NaN or infinite.
    #[error("`{path}` has a non-finite entry at flat index {index}")]
    NonFinite {
        /// The dataset.
        path: String,
        /// Index of the first bad entry in the file's (row-major) order.
        index: usize,
    },
}
