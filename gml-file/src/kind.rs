//! What a parameter of a GML network is: a dense matrix, a vector, a point of the Stiefel
//! manifold, or one of GML's packed special matrices.

/// The kind of matrix a parameter is, which fixes how many scalars it has and in which order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A dense `rows×cols` matrix, column-major (Julia's and nalgebra's order).
    Dense,
    /// A dense `rows×cols` matrix with orthonormal columns (GML's `StiefelManifold`),
    /// column-major.
    Stiefel,
    /// A skew-symmetric `n×n` matrix, GML's packed `n(n−1)/2` entries
    /// (GML's `SkewSymMatrix`).
    Skew,
    /// A symmetric `n×n` matrix, GML's packed `n(n+1)/2` entries
    /// (GML's `SymmetricMatrix`).
    Symmetric,
    /// A strictly lower triangular `n×n` matrix, GML's packed `n(n−1)/2` entries
    /// (GML's `LowerTriangular`).
    StrictlyLower,
    /// A strictly upper triangular `n×n` matrix, GML's packed `n(n−1)/2` entries
    /// (GML's `UpperTriangular`).
    StrictlyUpper,
    /// A vector of `rows` entries (`cols = 1`).
    Vector,
}

impl Kind {
    /// The number of scalars of a `rows×cols` parameter of this kind, saturating rather than
    /// overflowing (sizes read from a file are not trusted).
    pub const fn len(self, rows: usize, cols: usize) -> usize {
        match self {
            Self::Dense | Self::Stiefel => rows.saturating_mul(cols),
            Self::Skew | Self::StrictlyLower | Self::StrictlyUpper => {
                rows.saturating_mul(rows.saturating_sub(1)) / 2
            }
            Self::Symmetric => rows.saturating_mul(rows.saturating_add(1)) / 2,
            Self::Vector => rows,
        }
    }

    /// The variant's name (`"Skew"`): what generated code writes as `Kind::Skew`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Dense => "Dense",
            Self::Stiefel => "Stiefel",
            Self::Skew => "Skew",
            Self::Symmetric => "Symmetric",
            Self::StrictlyLower => "StrictlyLower",
            Self::StrictlyUpper => "StrictlyUpper",
            Self::Vector => "Vector",
        }
    }

    /// A one-byte code, stable across versions (a blob's type description records it).
    pub const fn code(self) -> u8 {
        match self {
            Self::Dense => 1,
            Self::Stiefel => 2,
            Self::Skew => 3,
            Self::Symmetric => 4,
            Self::StrictlyLower => 5,
            Self::StrictlyUpper => 6,
            Self::Vector => 7,
        }
    }

    /// The kind of a [`code`](Self::code), if it is one.
    pub const fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Dense,
            2 => Self::Stiefel,
            3 => Self::Skew,
            4 => Self::Symmetric,
            5 => Self::StrictlyLower,
            6 => Self::StrictlyUpper,
            7 => Self::Vector,
            _ => return None,
        })
    }

    /// Whether GML stores it packed: a group holding the size `n` and the `len(n, n)` values `S`
    /// (the four special matrices).
    pub const fn is_packed(self) -> bool {
        matches!(
            self,
            Self::Skew | Self::Symmetric | Self::StrictlyLower | Self::StrictlyUpper
        )
    }

    /// The `gml_type` attribute of the group GML writes for a parameter of this kind; `None` for
    /// a dense matrix or a vector, which are plain datasets.
    pub const fn gml_type(self) -> Option<&'static str> {
        match self {
            Self::Stiefel => Some("StiefelManifold"),
            Self::Skew => Some("SkewSymMatrix"),
            Self::Symmetric => Some("SymmetricMatrix"),
            Self::StrictlyLower => Some("LowerTriangular"),
            Self::StrictlyUpper => Some("UpperTriangular"),
            Self::Dense | Self::Vector => None,
        }
    }

    /// The kind a group's `gml_type` attribute names, `None` for any other attribute.
    pub fn of_gml_type(gml_type: &str) -> Option<Self> {
        [
            Self::Stiefel,
            Self::Skew,
            Self::Symmetric,
            Self::StrictlyLower,
            Self::StrictlyUpper,
        ]
        .into_iter()
        .find(|kind| kind.gml_type() == Some(gml_type))
    }
}
