//! Test matrices for the engine's comparisons with the compile-time layers.

use nalgebra::{DMatrix, SMatrix};

/// Entries of order 1 that differ entry by entry (`seed` picks the pattern).
pub(crate) fn values<const R: usize, const C: usize>(seed: f64) -> SMatrix<f64, R, C> {
    SMatrix::from_fn(|i, j| ((i * C + j) as f64 * 0.731 + seed).sin() * 1.5)
}

/// `m` at run-time sizes.
pub(crate) fn dynamic<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>) -> DMatrix<f64> {
    DMatrix::from_column_slice(R, C, m.as_slice())
}
