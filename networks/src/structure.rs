//! The structure an architecture promises, measured on a loaded network with exact Jacobians
//! (forward-mode dual numbers through the engine's layers, [`crate::engine::check`]), so no
//! finite-difference step to tune.
//!
//! - Volume-preserving feed-forward network: `|det J − 1|` of the map of one state.
//! - Volume-preserving transformer: the attention's `Λ = Cay(C(Z))` is orthogonal
//!   (`‖ΛᵀΛ − I‖_max` at every unit's input), every unit's feed-forward part has `|det J − 1| = 0`
//!   (per state), and with `skew_sym = true` the whole map of `R^{D×T}` has `det J = 1`. With
//!   GML's default `skew_sym = false` the whole map is **not** volume-preserving in general (see
//!   `geomattn::vpa`): its determinant is reported, not promised.
//! - Symplectic transformers (`symplectic_transformer`, `linear_symplectic_transformer`): the whole
//!   map of `R^{D×T}` is symplectic for `𝕁` acting on every state's `(q, p)`:
//!   `‖Jᵀ𝕁J − 𝕁‖_max` is promised to be rounding. GML's `symmetric = true` kick with
//!   `VectorSoftmax` (`kick=gml`) breaks that promise, and the check says so (see
//!   `geomattn::symplectic::attention`). With `transformer_dim ≠ dim` (run-time engine only) a
//!   `PSDLayer` maps up by `Φ` first and one down by `Φᵀ` last: promised are `‖ΦᵀΦ − I‖_max`
//!   of both and the symplecticity of the blocks between them; the whole map, symplectic only
//!   on the subspace the first `Φ` maps onto, is measured and reported, not promised.
//! - Standard transformer integrator: promises nothing.

use core::cell::Cell;
use geomattn::nalgebra::DMatrix;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::error::Error;

/// Bound on `|det J − 1|`: the Jacobians are exact, so only the rounding of a few dozen layers in
/// `f64` is left.
pub const DETERMINANT_TOLERANCE: f64 = 1e-10;
/// Bound on `‖ΛᵀΛ − I‖_max` of the attention matrices (`f64`).
pub const ORTHOGONALITY_TOLERANCE: f64 = 1e-12;

/// Bound on `‖Jᵀ𝕁J − 𝕁‖_max` of a symplectic transformer (`f64`, exact Jacobians, entries of
/// `J` of order one to ten for GML's tutorial networks).
pub const SYMPLECTICITY_TOLERANCE: f64 = 1e-9;

/// The most random inputs a check measures: each is an exact Jacobian (`dim·seq` passes over
/// dual numbers), so a million take minutes on GML's tutorial networks, while 100 already find
/// the worst case to the digit a table shows.
pub const MAX_SAMPLES: usize = 1_000_000;

/// The worse of two measured values: NaN (a measurement that failed, a non-finite output) is
/// worse than every number, where `f64::max` would drop it and let the check pass.
pub(crate) fn worse(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The largest absolute entry of `values`, NaN if one is NaN (nalgebra's `amax` skips NaN).
pub(crate) fn largest(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().map(f64::abs).fold(0.0, worse)
}

/// One measured property: its worst value over the samples, and the bound it must stay under if
/// the architecture promises it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// What is measured.
    pub property: String,
    /// The worst value over all samples.
    pub worst: f64,
    /// The bound.
    pub tolerance: f64,
    /// Whether the architecture promises it (otherwise it is reported only).
    pub promised: bool,
}

impl Measurement {
    /// Whether it holds: a promised property within its tolerance, or one not promised. A
    /// promised property measured as NaN fails: what could not be measured does not pass.
    pub fn passes(&self) -> bool {
        !self.promised || self.worst <= self.tolerance
    }
}

/// The random inputs a check measures: how many, from which seed, and a question asked before
/// each (`stop`: a caller's Ctrl-C) that ends the check early.
pub(crate) struct Sampling<'a> {
    count: usize,
    seed: u64,
    stop: &'a dyn Fn() -> bool,
    stopped: Cell<bool>,
}

impl<'a> Sampling<'a> {
    /// `count` inputs from `seed`, asking `stop` before each.
    ///
    /// # Errors
    /// [`Error::Samples`] unless `count` is from 1 to [`MAX_SAMPLES`] (no input measured would
    /// pass everything).
    pub(crate) fn new(count: usize, seed: u64, stop: &'a dyn Fn() -> bool) -> Result<Self, Error> {
        if !(1..=MAX_SAMPLES).contains(&count) {
            return Err(Error::Samples { samples: count });
        }
        Ok(Self {
            count,
            seed,
            stop,
            stopped: Cell::new(false),
        })
    }

    /// Whether `stop` ended the inputs early (what was measured then is not the check's result).
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// The inputs, `rows × cols` matrices with entries uniform in `(−1, 1)`, drawn one by one as
    /// they are measured (memory does not grow with their number), until `stop` says so.
    pub(crate) fn inputs_of(&self, rows: usize, cols: usize) -> impl Iterator<Item = DMatrix<f64>> {
        let mut rng = SmallRng::seed_from_u64(self.seed);
        let mut unit = move || {
            #[allow(clippy::cast_precision_loss)]
            let x = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
            2.0 * x - 1.0
        };
        (0..self.count).map_while(move |_| {
            if (self.stop)() {
                self.stopped.set(true);
                return None;
            }
            Some(DMatrix::from_fn(rows, cols, |_, _| unit()))
        })
    }
}

/// What a volume-preserving feed-forward network promises, with its worst measured value.
pub(crate) fn feed_forward_measurements(worst: f64) -> Vec<Measurement> {
    vec![Measurement {
        property: "|det J − 1| of the map of one state".into(),
        worst,
        tolerance: DETERMINANT_TOLERANCE,
        promised: true,
    }]
}

/// What a volume-preserving transformer of windows `(dim, seq)` promises, with the worst measured
/// values: `‖ΛᵀΛ − I‖_max`, `|det J − 1|` of the feed-forward parts and of the whole map.
pub(crate) fn transformer_measurements(
    (dim, seq): (usize, usize),
    skew_sym: bool,
    orthogonality: f64,
    feed_forward: f64,
    whole: f64,
) -> Vec<Measurement> {
    vec![
        Measurement {
            property: "‖ΛᵀΛ − I‖_max of every attention matrix Λ = Cay(C(Z))".into(),
            worst: orthogonality,
            tolerance: ORTHOGONALITY_TOLERANCE,
            promised: true,
        },
        Measurement {
            property: "|det J − 1| of every feed-forward part (one state)".into(),
            worst: feed_forward,
            tolerance: DETERMINANT_TOLERANCE,
            promised: true,
        },
        Measurement {
            property: format!(
                "|det J − 1| of the whole map of R^{{{dim}×{seq}}}{}",
                if skew_sym {
                    ""
                } else {
                    " (not promised: skew_sym = false)"
                }
            ),
            worst: whole,
            tolerance: DETERMINANT_TOLERANCE,
            promised: skew_sym,
        },
    ]
}

/// `𝕁` of `R^{dim×seq}` flattened column-major: on every state (column), `[[0, I], [−I, 0]]` with
/// `q` the first `dim/2` rows.
pub(crate) fn structure_matrix(dim: usize, seq: usize) -> DMatrix<f64> {
    let n = dim / 2;
    let mut j = DMatrix::zeros(dim * seq, dim * seq);
    for state in 0..seq {
        for i in 0..n {
            let (q, p) = (dim * state + i, dim * state + n + i);
            j[(q, p)] = 1.0;
            j[(p, q)] = -1.0;
        }
    }
    j
}

/// `‖Jᵀ𝕁J − 𝕁‖_max` of the Jacobian `jac` of a map of `R^{dim×seq}`; NaN unless `finite` (the
/// map's output was).
pub(crate) fn symplecticity(jac: &DMatrix<f64>, (dim, seq): (usize, usize), finite: bool) -> f64 {
    let j = structure_matrix(dim, seq);
    let error = largest((jac.transpose() * &j * jac - &j).iter().copied());
    if finite { error } else { f64::NAN }
}

/// The symplecticity measurement of a map of `R^{dim×seq}`, `what` naming it (`the whole map`).
pub(crate) fn symplectic_measurement(
    what: &str,
    (dim, seq): (usize, usize),
    worst: f64,
    promised: bool,
) -> Measurement {
    Measurement {
        property: format!(
            "‖Jᵀ𝕁J − 𝕁‖_max of {what} of R^{{{dim}×{seq}}} (𝕁 on every state){}",
            if promised { "" } else { " (not promised)" }
        ),
        worst,
        tolerance: SYMPLECTICITY_TOLERANCE,
        promised,
    }
}

#[cfg(test)]
mod tests {
    use super::{Measurement, largest, worse};

    /// NaN, a value that could not be measured, is the worst value and fails its promise:
    /// `f64::max` (and nalgebra's `amax`) dropped it, and `check` passed a network whose output
    /// was NaN with "worst 0.0e0".
    #[test]
    fn nan_is_the_worst_value_and_fails() {
        assert!(worse(0.0, f64::NAN).is_nan() && worse(f64::NAN, 1.0).is_nan());
        assert_eq!(worse(1.0, 2.0), 2.0);
        assert!(largest([1.0, f64::NAN, -3.0]).is_nan());
        assert_eq!(largest([1.0, -3.0]), 3.0);
        assert_eq!(
            [0.5, f64::NAN, 0.25].into_iter().fold(0.0, f64::max),
            0.5,
            "the fold the check used"
        );
        let measured = |worst| Measurement {
            property: String::new(),
            worst,
            tolerance: 1e-9,
            promised: true,
        };
        assert!(!measured(f64::NAN).passes() && !measured(f64::INFINITY).passes());
        assert!(measured(0.0).passes());
    }
}
