//! The phase-space layers: GML's `SymplecticAttentionQ / P` ([`attention`]) and
//! `LinearSymplecticAttentionQ / P` ([`linear`]); the SympNet gradient layers
//! ([`crate::GradientLayerQ`], [`crate::GradientLayerP`]) use the same [`PhaseSide`].
//!
//! A sequence `Z ∈ R^{2n×T}` is read as `T` points of phase space: rows `0..n` (GML's `1..n`) are
//! `q`, rows `n..2n` are `p`. A `Q` layer changes only `q`, by an amount that depends only on `p`
//! (and is the gradient of a potential of `p`), a `P` layer the other way round. Such a shear
//! `(q, p) ↦ (q + ∇V(p), p)` is symplectic on each time step's phase space jointly, i.e. on
//! `R^{2n×T}` with the structure matrix `𝕁` acting on every time step's `(q, p)`.
//!
//! The layers carry the half-dimension `N` in their type and act on sequences of dimension
//! `D = 2N`; any other `D` fails to compile (a `const` assertion, checked when the forward pass is
//! instantiated).

pub mod attention;
pub mod linear;
#[cfg(feature = "std")]
pub(crate) mod psd;

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use crate::product;
use crate::scalar::Field;

/// Which half of phase space a layer updates: [`UpdateQ`] or [`UpdateP`].
///
/// The supertraits let layers that carry the marker derive `Copy`, `Debug` and `PartialEq`.
pub trait PhaseSide: Copy + core::fmt::Debug + PartialEq {
    /// `true` if the layer writes `q` (rows `0..n`) from `p`, `false` for the reverse.
    const UPDATES_Q: bool;

    /// The first row of the half that is updated and of the half that drives the update, in a
    /// `2n`-row vector or sequence.
    fn rows(n: usize) -> (usize, usize) {
        let side = if Self::UPDATES_Q { Side::Q } else { Side::P };
        side.rows(n)
    }
}

/// A `Q` layer: `q ← q + f(p)`, `p` unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateQ {}

/// A `P` layer: `p ← p + f(q)`, `q` unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateP {}

impl PhaseSide for UpdateQ {
    const UPDATES_Q: bool = true;
}

impl PhaseSide for UpdateP {
    const UPDATES_Q: bool = false;
}

/// Which half of phase space a layer updates, as a value: the run-time layers'
/// ([`crate::engine`]) counterpart of the [`PhaseSide`] markers, and GML's `Q` / `P` in a layer's
/// name (its `Display`).
///
/// ```
/// use geomattn::symplectic::Side;
/// // A P layer of R⁶ = (q, p) ∈ R³ × R³ writes rows 3..6 from rows 0..3.
/// assert_eq!(Side::P.rows(3), (3, 0));
/// assert_eq!(format!("GradientLayer{}", Side::P), "GradientLayerP");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `q ← q + f(p)`: GML's `…Q` layers.
    Q,
    /// `p ← p + f(q)`: GML's `…P` layers.
    P,
}

impl Side {
    /// The first row of the half that is updated and of the half that drives the update, in a
    /// `2n`-row vector or sequence.
    pub fn rows(self, n: usize) -> (usize, usize) {
        match self {
            Self::Q => (0, n),
            Self::P => (n, 0),
        }
    }
}

impl core::fmt::Display for Side {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Q => "Q",
            Self::P => "P",
        })
    }
}

/// The compile-time check every phase-space layer makes: a sequence of dimension `D` splits into
/// `q` and `p` of `N` rows each.
pub(crate) const fn assert_phase_space<const D: usize, const N: usize>() {
    assert!(
        D == 2 * N,
        "phase space has D = 2N rows: q (first N) and p (last N)"
    );
}

/// GML's name of a phase-space layer: `q` if it updates `q`, else `p`.
pub(crate) const fn sided(updates_q: bool, q: &'static str, p: &'static str) -> &'static str {
    if updates_q { q } else { p }
}

/// The rows `first..first + N` of `z`.
pub(crate) fn half<S: Field, const N: usize, const D: usize, const T: usize>(
    z: &SMatrixView<'_, S, D, T>,
    first: usize,
) -> SMatrix<S, N, T> {
    product::matrix(|i, j| z[(first + i, j)])
}

/// `Z̄ = Ō`, then `x_bar` added to the rows `driving..driving + N`.
pub(crate) fn write_input_bar<S: Field, const N: usize, const D: usize, const T: usize>(
    out_bar: &SMatrixView<'_, S, D, T>,
    driving: usize,
    x_bar: &SMatrix<S, N, T>,
    z_bar: &mut SMatrixViewMut<'_, S, D, T>,
) {
    z_bar.copy_from(out_bar);
    for j in 0..T {
        for i in 0..N {
            z_bar[(driving + i, j)] += x_bar[(i, j)];
        }
    }
}
