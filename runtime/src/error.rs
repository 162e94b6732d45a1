//! The one error type of the crate: every constructor and batch entry point that can be handed
//! inconsistent data returns it instead of panicking.

/// What was wrong with the data handed to a constructor or a batch forward pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A packed special matrix was given a slice of the wrong length.
    #[error("packed {kind} matrix of size {n}×{n} needs {expected} entries, got {found}")]
    PackedLength {
        /// Which special matrix (`"skew-symmetric"`, `"symmetric"`, …).
        kind: &'static str,
        /// The matrix size.
        n: usize,
        /// `n(n−1)/2` or `n(n+1)/2`.
        expected: usize,
        /// The length of the slice that was passed.
        found: usize,
    },
    /// A batch input and output disagree, or a flat buffer is not a whole number of sequences.
    #[error(
        "batch shape mismatch: {detail} (input {input} elements, output {output} elements, sequence {per_item} elements)"
    )]
    BatchShape {
        /// What exactly does not fit.
        detail: &'static str,
        /// Length of the input (in sequences for slices of matrices, in scalars for flat buffers).
        input: usize,
        /// Length of the output, in the same unit.
        output: usize,
        /// Scalars per sequence (`d·T`); 1 when counting whole matrices.
        per_item: usize,
    },
    /// A weight given as a flat slice (a vector, or a matrix in Julia's column-major order) has
    /// the wrong number of entries.
    #[error("weight `{name}` needs {expected} entries, got {found}")]
    WeightLength {
        /// The parameter's name as GML calls it (`weight`, `bias`, `scale`, …).
        name: &'static str,
        /// Entries the layer needs.
        expected: usize,
        /// Entries that were given.
        found: usize,
    },
    /// A weight has a shape that does not fit the layer.
    #[error(
        "weight `{name}` has shape {found_rows}×{found_cols}, the layer needs {expected_rows}×{expected_cols}"
    )]
    WeightShape {
        /// The parameter's name as GML calls it (`A`, `weight`, …).
        name: &'static str,
        /// Rows the layer needs.
        expected_rows: usize,
        /// Columns the layer needs.
        expected_cols: usize,
        /// Rows that were given.
        found_rows: usize,
        /// Columns that were given.
        found_cols: usize,
    },
    /// A sequence handed to a layer of run-time size ([`crate::engine`]) has the wrong shape.
    #[error(
        "{layer} takes sequences of shape {expected_rows}×{expected_cols}, got {found_rows}×{found_cols}"
    )]
    SequenceShape {
        /// The layer (its GML name).
        layer: &'static str,
        /// Rows (the dimension) it takes.
        expected_rows: usize,
        /// Columns (time steps) it takes.
        expected_cols: usize,
        /// Rows of the sequence given.
        found_rows: usize,
        /// Columns of the sequence given.
        found_cols: usize,
    },
    /// A multi-head attention layer whose heads do not split its dimension (GML's
    /// `MultiHeadAttention` asserts `dim % n_heads == 0`), or given another number of
    /// projections than heads.
    #[error(
        "multi-head attention of dimension {dim} cannot have {n_heads} heads: n_heads must divide the dimension, with PQ, PK and PV given for every head"
    )]
    Heads {
        /// The dimension.
        dim: usize,
        /// The heads asked for.
        n_heads: usize,
    },
    /// A phase-space layer given an odd dimension: it reads `q` and `p` as the two halves of a
    /// state (GML's symplectic layers assert an even dimension).
    #[error("{layer} works on phase space (q, p) of even dimension, not {dim}")]
    PhaseSpace {
        /// GML's name of the layer.
        layer: &'static str,
        /// The dimension given.
        dim: usize,
    },
    /// A checked forward pass met a NaN or an infinity (see
    /// [`SequenceLayer::forward_checked`](crate::SequenceLayer::forward_checked)).
    #[error("{0}")]
    NonFinite(NonFinite),
    /// A weight that must lie on the Stiefel manifold (orthonormal columns, `WᵀW = I`) does not,
    /// within the tolerance the constructor documents.
    #[error("weight `{name}` of head {head} does not have orthonormal columns")]
    NotOrthonormal {
        /// The parameter's name as GML calls it (`PQ`, `PK`, `PV`).
        name: &'static str,
        /// The head (0-based) it belongs to.
        head: usize,
    },
    /// A layer has something its architecture's parameters (its [`Schema`](crate::Schema)) cannot
    /// hold: a bias where GML's architecture has none, or none where it has one, or a scale
    /// other than GML's.
    #[error("{layer} has {what}")]
    NotInSchema {
        /// The layer's type.
        layer: &'static str,
        /// What it has that the architecture does not.
        what: &'static str,
    },
    /// A training loss is not defined for the minibatch it was given (no windows, or targets of
    /// norm zero, by which GML's transformer loss divides).
    #[error("the loss is undefined: {0}")]
    UndefinedLoss(&'static str),
}

/// Where a checked forward pass first met a NaN or an infinity: in the input, or in the output of
/// a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonFinite {
    /// The sequence of a batch (0-based), for the batch and flat entry points.
    pub sequence: Option<usize>,
    /// The block of a network (0-based), for architectures made of blocks.
    pub block: Option<usize>,
    /// The fields of networks derived with [`Network`](crate::Network) that lead to the layer,
    /// outermost first; empty outside derived networks.
    pub field: FieldPath,
    /// The layer whose output is not finite (its type's name), or `"input"`.
    pub layer: &'static str,
    /// The first time step (column, 0-based) with a non-finite entry.
    pub step: usize,
}

impl core::fmt::Display for NonFinite {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "non-finite value at time step {}", self.step)?;
        if let Some(sequence) = self.sequence {
            write!(f, " of sequence {sequence}")?;
        }
        if self.layer == INPUT {
            return write!(f, " in the input");
        }
        write!(f, " in the output of {}", self.layer)?;
        match (self.field.is_empty(), self.block) {
            (true, None) => Ok(()),
            (true, Some(block)) => write!(f, " (block {block})"),
            (false, None) => write!(f, " (field `{}`)", self.field),
            (false, Some(block)) => write!(f, " (field `{}`, block {block})", self.field),
        }
    }
}

/// The fields of nested derived networks ([`Network`](crate::Network)) that lead to a layer,
/// outermost first: `encoder.attention` is the field `attention` of the network in the field
/// `encoder`. Fixed capacity ([`DEPTH`](Self::DEPTH) names, no allocation): deeper nesting keeps
/// the outermost names. Each name is held by a thin reference (to a `'static` string slice, which
/// `&"name"` is), so the path, and [`Error`], stay small.
///
/// ```
/// use geomattn::FieldPath;
/// let path = FieldPath::default().within(&"attention").within(&"encoder");
/// assert!(path.names().eq(["encoder", "attention"]));
/// assert_eq!(path.to_string(), "encoder.attention");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldPath {
    names: [Option<&'static &'static str>; FieldPath::DEPTH],
}

impl FieldPath {
    /// How many names a path holds.
    pub const DEPTH: usize = 3;

    /// The names, outermost first.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        self.names.into_iter().map_while(|name| name.copied())
    }

    /// Whether the path has no name (the layer is not inside a derived network).
    pub fn is_empty(&self) -> bool {
        self.names[0].is_none()
    }

    /// The path seen from a network one level up, whose field `outer` holds this one; when the
    /// path is full, its innermost name is dropped.
    #[must_use]
    pub fn within(self, outer: &'static &'static str) -> Self {
        let mut names = [None; Self::DEPTH];
        names[0] = Some(outer);
        names[1..].copy_from_slice(&self.names[..Self::DEPTH - 1]);
        Self { names }
    }
}

impl core::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (k, name) in self.names().enumerate() {
            if k > 0 {
                f.write_str(".")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// The `layer` of a [`NonFinite`] found in the input itself.
pub(crate) const INPUT: &str = "input";
