//! The structure an architecture promises, measured on a loaded network with exact Jacobians
//! (forward-mode dual numbers from `num-dual`: no finite-difference step to tune).
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
//!   `geomattn::symplectic::attention`).
//! - Standard transformer integrator: promises nothing.

use geomattn::nalgebra::{DMatrix, SMatrix};
use geomattn::{
    DefaultCayley, OrthogonalMap, SequenceLayer, SkewCorrelation, VolumePreservingAttention,
};
use num_dual::Dual64;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::network::Units;

/// Bound on `|det J − 1|`: the Jacobians are exact, so only the rounding of a few dozen layers in
/// `f64` is left.
pub const DETERMINANT_TOLERANCE: f64 = 1e-10;
/// Bound on `‖ΛᵀΛ − I‖_max` of the attention matrices (`f64`).
pub const ORTHOGONALITY_TOLERANCE: f64 = 1e-12;

/// Bound on `‖Jᵀ𝕁J − 𝕁‖_max` of a symplectic transformer (`f64`, exact Jacobians, entries of
/// `J` of order one to ten for the small grid networks).
pub const SYMPLECTICITY_TOLERANCE: f64 = 1e-9;

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
    /// Whether it holds: a promised property within its tolerance, or one not promised.
    pub fn passes(&self) -> bool {
        !self.promised || self.worst <= self.tolerance
    }
}

/// The Jacobian of `f: R^{R×C} → R^{R2×C2}` at `z`, with inputs and outputs flattened
/// column-major (Julia's and nalgebra's order), by forward-mode AD, one pass per input.
///
/// ```
/// use geomattn::nalgebra::{Matrix2, Vector2};
/// // f(x, y) = (x·y, x + y): J = [[y, x], [1, 1]].
/// let jac = geomattn_spec::jacobian(|z: &Vector2<_>| Vector2::new(z[0] * z[1], z[0] + z[1]),
///                                   &Vector2::new(2.0, 3.0));
/// assert_eq!(jac, geomattn::nalgebra::DMatrix::from_row_slice(2, 2, &[3.0, 2.0, 1.0, 1.0]));
/// ```
pub fn jacobian<const R: usize, const C: usize, const R2: usize, const C2: usize>(
    f: impl Fn(&SMatrix<Dual64, R, C>) -> SMatrix<Dual64, R2, C2>,
    z: &SMatrix<f64, R, C>,
) -> DMatrix<f64> {
    let mut jac = DMatrix::zeros(R2 * C2, R * C);
    for input in 0..R * C {
        let seeded = SMatrix::<Dual64, R, C>::from_fn(|i, j| {
            let x = Dual64::from_re(z[(i, j)]);
            if i + R * j == input {
                x.derivative()
            } else {
                x
            }
        });
        let out = f(&seeded);
        for (row, value) in out.iter().enumerate() {
            jac[(row, input)] = value.eps;
        }
    }
    jac
}

/// `samples` matrices with entries uniform in `(−1, 1)`, from `seed`, drawn one by one as they
/// are measured (memory does not grow with `samples`).
fn samples<const R: usize, const C: usize>(
    samples: usize,
    seed: u64,
) -> impl Iterator<Item = SMatrix<f64, R, C>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut unit = move || {
        #[allow(clippy::cast_precision_loss)]
        let x = (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        2.0 * x - 1.0
    };
    (0..samples).map(move |_| SMatrix::from_fn(|_, _| unit()))
}

fn real<const R: usize, const C: usize>(z: &SMatrix<Dual64, R, C>) -> SMatrix<f64, R, C> {
    z.map(|x| x.re)
}

fn dual<const R: usize, const C: usize>(z: &SMatrix<f64, R, C>) -> SMatrix<Dual64, R, C> {
    z.map(Dual64::from_re)
}

/// `|det J − 1|` of `f` at `z`.
fn determinant_error<const R: usize, const C: usize>(
    f: impl Fn(&SMatrix<Dual64, R, C>) -> SMatrix<Dual64, R, C>,
    z: &SMatrix<f64, R, C>,
) -> f64 {
    (jacobian(f, z).determinant() - 1.0).abs()
}

/// The measurements of a volume-preserving feed-forward network (one state in, one out).
pub(crate) fn feed_forward<const D: usize, Net>(
    net: &Net,
    count: usize,
    seed: u64,
) -> Vec<Measurement>
where
    Net: SequenceLayer<Dual64, D, 1>,
{
    let worst = samples::<D, 1>(count, seed)
        .map(|z| determinant_error(|x| net.forward(x), &z))
        .fold(0.0, f64::max);
    vec![Measurement {
        property: "|det J − 1| of the map of one state".into(),
        worst,
        tolerance: DETERMINANT_TOLERANCE,
        promised: true,
    }]
}

/// The measurements of a volume-preserving transformer, unit by unit.
pub(crate) fn transformer<const D: usize, const T: usize, Corr, Ff>(
    units: &Units<VolumePreservingAttention<Dual64, D, T, Corr>, Ff>,
    skew_sym: bool,
    count: usize,
    seed: u64,
) -> Vec<Measurement>
where
    Corr: SkewCorrelation<Dual64, D>,
    DefaultCayley: OrthogonalMap<Dual64, T>,
    Ff: SequenceLayer<Dual64, D, T> + SequenceLayer<Dual64, D, 1>,
{
    let (mut orthogonality, mut feed_forward, mut whole) = (0.0_f64, 0.0_f64, 0.0_f64);
    for z in samples::<D, T>(count, seed) {
        let mut x = dual(&z);
        for (attention, ff) in &units.0 {
            let lambda = real(&DefaultCayley::map(&attention.correlation(&x)));
            let error = (lambda.transpose() * lambda - SMatrix::<f64, T, T>::identity()).amax();
            orthogonality = orthogonality.max(error);
            let y = attention.forward(&x);
            for column in real(&y).column_iter() {
                let state = column.into_owned();
                let f = |s: &SMatrix<Dual64, D, 1>| SequenceLayer::<Dual64, D, 1>::forward(ff, s);
                feed_forward = feed_forward.max(determinant_error(f, &state));
            }
            x = SequenceLayer::<Dual64, D, T>::forward(ff, &y);
        }
        whole = whole.max(determinant_error(|x| units.forward(x), &z));
    }
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
                "|det J − 1| of the whole map of R^{{{D}×{T}}}{}",
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

/// `𝕁` of `R^{D×T}` flattened column-major: on every state (column), `[[0, I], [−I, 0]]` with `q`
/// the first `D/2` rows.
fn structure_matrix<const D: usize, const T: usize>() -> DMatrix<f64> {
    let n = D / 2;
    let mut j = DMatrix::zeros(D * T, D * T);
    for state in 0..T {
        for i in 0..n {
            let (q, p) = (D * state + i, D * state + n + i);
            j[(q, p)] = 1.0;
            j[(p, q)] = -1.0;
        }
    }
    j
}

/// The measurement of a symplectic transformer: `‖Jᵀ𝕁J − 𝕁‖_max` of the whole map.
pub(crate) fn symplectic<const D: usize, const T: usize, Net>(
    net: &Net,
    count: usize,
    seed: u64,
) -> Vec<Measurement>
where
    Net: SequenceLayer<Dual64, D, T>,
{
    let j = structure_matrix::<D, T>();
    let worst = samples::<D, T>(count, seed)
        .map(|z| {
            let jac = jacobian(|x| net.forward(x), &z);
            (jac.transpose() * &j * jac - &j).amax()
        })
        .fold(0.0, f64::max);
    vec![Measurement {
        property: format!("‖Jᵀ𝕁J − 𝕁‖_max of the whole map of R^{{{D}×{T}}} (𝕁 on every state)"),
        worst,
        tolerance: SYMPLECTICITY_TOLERANCE,
        promised: true,
    }]
}
