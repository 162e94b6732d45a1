//! What can go wrong when loading a network from a GML file.

use core::fmt;
use std::boxed::Box;
use std::string::String;
use std::vec::Vec;

/// Why a GML file could not be turned into a network. Every malformed input ends here; the loader
/// never panics. Each variant names the object in the file (its path) and says what the
/// architecture expected there and what the file has instead.
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
    /// The path names a FIFO, a device or a socket: an HDF5 file is read by seeking, and a FIFO
    /// without a writer would block the reader forever.
    #[error("cannot read `{path}`: {source}")]
    NotAFile {
        /// The path.
        path: String,
        /// What [`crate::regular_file`] reported.
        source: std::io::Error,
    },
    /// A group or dataset the architecture needs is not in the file.
    #[error("`{path}` is missing: the architecture expects {expected} there")]
    Missing {
        /// Its path inside the file.
        path: String,
        /// What the architecture expects there.
        expected: Object,
    },
    /// The file has a dataset where the architecture expects a group, or a group where it
    /// expects a dataset (a dense `A` where a skew-symmetric one is expected, or vice versa).
    #[error("`{path}`: found {found} where {expected} is expected")]
    Kind {
        /// The object.
        path: String,
        /// What the architecture expects there.
        expected: Object,
        /// What the file has there.
        found: Object,
    },
    /// The file has a parameter the architecture does not have at that place (e.g. a bias).
    #[error("`{path}` is not part of the architecture (found {found} there)")]
    Unexpected {
        /// Its path inside the file.
        path: String,
        /// What the file has there.
        found: Object,
    },
    /// The file has a different number of layers than the architecture the caller named.
    #[error("the file has {found} layers (`/L1 … /L{found}`), the architecture has {expected}")]
    LayerCount {
        /// Layers of the architecture.
        expected: usize,
        /// Groups `L1 … Ln` in the file.
        found: usize,
    },
    /// The layer group records (geomattn writes it, GML does not) that it was written from
    /// another layer than the one read there: a linear symplectic attention read as symplectic
    /// attention with `symmetric = true`, whose parameters have the same names and shapes, or a
    /// `tanh` layer read as a `sigmoid` one.
    #[error("`{path}` was written as {recorded}, but is read as {expected}")]
    LayerType {
        /// The layer group.
        path: String,
        /// The layer's type as the file records it.
        recorded: String,
        /// The layer's type in the network read.
        expected: String,
    },
    /// A child named like a numbered one (`L0`, `L01`, `head_0`) that is not in the numbering
    /// `1 … n`.
    #[error(
        "the file has an unexpected group `{path}`: the groups `{prefix}…` are numbered `{prefix}1 … {prefix}n` from 1, without leading zeros"
    )]
    Misnumbered {
        /// The offending group.
        path: String,
        /// The prefix of the numbering (`L`, `head_`).
        prefix: String,
    },
    /// The numbering `1 … n` of the groups `L…` (or `head_…`) has a gap.
    #[error(
        "`{path}` is missing: the numbering of the groups `{prefix}…` has a gap (the highest is `{prefix}{highest}`, there are {count})"
    )]
    NumberingGap {
        /// The first missing group.
        path: String,
        /// The prefix of the numbering (`L`, `head_`).
        prefix: String,
        /// The highest number in the file.
        highest: usize,
        /// How many numbered groups there are.
        count: usize,
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
    /// A dataset's shape claims more data than the whole file holds (or more elements than can be
    /// counted, or a dimension larger than the file even where another is zero): nothing is
    /// allocated for it.
    #[error(
        "`{path}` has shape {shape:?}, which needs more bytes than the whole file holds ({file_size} bytes)"
    )]
    TooLarge {
        /// The dataset.
        path: String,
        /// The shape in the file.
        shape: Vec<u64>,
        /// The size of the file in bytes.
        file_size: u64,
    },
    /// A Stiefel point (a matrix with orthonormal columns) that has more columns than rows, which
    /// no matrix with orthonormal columns has.
    #[error(
        "`{path}` is a {rows}×{cols} Stiefel matrix: orthonormal columns need at least as many rows as columns"
    )]
    WideStiefel {
        /// The dataset.
        path: String,
        /// Its rows (Julia's shape).
        rows: usize,
        /// Its columns.
        cols: usize,
    },
    /// Reading a dataset gave another number of values than its shape says (e.g. a dataspace of
    /// HDF5's NULL class that still lists dimensions).
    #[error("`{path}` has shape {shape:?} ({expected} values), but reading it gave {found} values")]
    ValueCount {
        /// The dataset.
        path: String,
        /// Its shape in the file.
        shape: Vec<u64>,
        /// The number of values the shape says.
        expected: u64,
        /// The number of values read.
        found: usize,
    },
    /// A dataset holds another element type than the ones GML writes (`Float32` or `Float64`
    /// for a weight, `Int64` for the size `n` of a special matrix).
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
    /// A special matrix's size `n` is negative.
    #[error("`{path}` is {found}: a matrix's size is at least 0")]
    NegativeSize {
        /// The dataset `n`.
        path: String,
        /// Its value.
        found: i64,
    },
    /// A special matrix's packed values `S` are not as many as its size `n` needs.
    #[error("`{path}/S` has {found} values, a {n}×{n} `{gml_type}` has {expected}")]
    PackedLength {
        /// The special matrix's group.
        path: String,
        /// Its `gml_type`.
        gml_type: &'static str,
        /// Its size `n`.
        n: usize,
        /// `n(n−1)/2`, or `n(n+1)/2` for a symmetric matrix.
        expected: usize,
        /// The values in the file.
        found: usize,
    },
    /// The layer rejects its weights: a Stiefel weight without orthonormal columns, or any rule
    /// of the layer the file's shapes alone do not show. `source` is the layer's own error
    /// (`geomattn::Error` for geomattn's layers).
    #[error("`{path}`: {source}")]
    Invalid {
        /// The layer group.
        path: String,
        /// What the layer reported.
        source: Box<dyn core::error::Error + Send + Sync>,
    },
    /// A weight is NaN or infinite.
    #[error("`{path}` has a non-finite entry at flat index {index}")]
    NonFinite {
        /// The dataset.
        path: String,
        /// Index of the first bad entry in the file's (row-major) order.
        index: usize,
    },
    /// A finite Float64 weight is beyond the range of the scalar it is read into (an `f32`
    /// network), where it would become an infinity.
    #[error(
        "`{path}` has {value:e} at flat index {index}, beyond the range of the network's scalar"
    )]
    OutOfRange {
        /// The dataset.
        path: String,
        /// Index of the first such entry in the file's (row-major) order.
        index: usize,
        /// The value in the file.
        value: f64,
    },
}

/// An object of a GML file, as the architecture expects it or as the file has it, for
/// [`LoadError`]'s messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Object {
    /// A dataset with elements of type `dtype` (Julia's name: `Float32`, `Int64`, …) and this
    /// shape (HDF5's order, the reverse of Julia's).
    Dataset {
        /// The element type.
        dtype: String,
        /// The shape; empty for a scalar.
        shape: Vec<u64>,
    },
    /// A group with this `gml_type` attribute; `None`: a group without one (a layer, or `PQ`).
    Group {
        /// The attribute's value.
        gml_type: Option<String>,
    },
}

impl Object {
    /// A group tagged `gml_type`.
    pub(crate) fn tagged(gml_type: &str) -> Self {
        Self::Group {
            gml_type: Some(gml_type.into()),
        }
    }

    /// A floating-point (Float32 or Float64) dataset of this shape.
    pub(crate) fn floats(shape: &[u64]) -> Self {
        Self::Dataset {
            dtype: crate::file::FLOATS.into(),
            shape: shape.to_vec(),
        }
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dataset { dtype, shape } => {
                let what = match shape.len() {
                    0 => "a scalar",
                    1 => "a vector",
                    2 => "a dense matrix",
                    _ => "an array",
                };
                write!(f, "{what} (a {dtype} dataset of shape {shape:?})")
            }
            Self::Group { gml_type: None } => write!(f, "a plain group (without gml_type)"),
            Self::Group {
                gml_type: Some(gml_type),
            } => {
                let what = match gml_type.as_str() {
                    "SkewSymMatrix" => "a skew-symmetric matrix",
                    "SymmetricMatrix" => "a symmetric matrix",
                    "LowerTriangular" => "a strictly lower triangular matrix",
                    "UpperTriangular" => "a strictly upper triangular matrix",
                    "StiefelManifold" => "a point of the Stiefel manifold",
                    _ => "an unknown special matrix",
                };
                write!(f, "{what} (a group with gml_type `{gml_type}`)")
            }
        }
    }
}
