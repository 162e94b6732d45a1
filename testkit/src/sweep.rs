//! How orthogonal an [`OrthogonalMap`] stays across the norms of `C`: the sweep behind the
//! robustness tests and the report's accuracy table.
//!
//! For each norm, seeded skew matrices are drawn (entries uniform, then rescaled to the Frobenius
//! norm asked for), mapped in the scalar `S`, and the worst `‖ΛᵀΛ − I‖_max` is measured in `f64`
//! (infinite when an entry is NaN or infinite).

use geomattn::OrthogonalMap;
use geomattn::nalgebra::{RealField, SMatrix};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::{orthogonality_error, random_skew};

/// The Frobenius norms the sweep covers in a precision: `10⁻³ … 10⁴` for `f32`, `… 10⁸` for
/// `f64` (`ε‖C‖` up to about `10⁻³` and `10⁻⁸`, well inside the maps' meaningful range).
pub fn norms(epsilon: f64) -> Vec<f64> {
    let top = if epsilon > 1e-10 { 4 } else { 8 };
    (-3..=top).map(|e| 10f64.powi(e)).collect()
}

/// A skew `T×T` matrix of Frobenius norm `norm`, in `S`.
pub fn skew_of_norm<S: RealField + Copy, const T: usize>(
    rng: &mut SmallRng,
    norm: f64,
) -> SMatrix<S, T, T> {
    let c = random_skew::<T>(rng, 1.0);
    (c * (norm / c.norm())).map(geomattn::nalgebra::convert)
}

/// `‖ΛᵀΛ − I‖_max` in `f64`; infinite if an entry is not finite.
pub fn orthogonality<S: RealField + Copy, const T: usize>(q: &SMatrix<S, T, T>) -> f64 {
    let q = q.map(|x| geomattn::nalgebra::try_convert::<S, f64>(x).unwrap_or(f64::NAN));
    if q.iter().any(|x| !x.is_finite()) {
        f64::INFINITY
    } else {
        orthogonality_error(&q)
    }
}

/// The worst orthogonality error of `Map` over `samples` seeded matrices of norm `norm`.
pub fn worst<Map, S, const T: usize>(norm: f64, samples: usize) -> f64
where
    Map: OrthogonalMap<S, T>,
    S: RealField + Copy,
{
    let mut rng = SmallRng::seed_from_u64(T as u64 * 1000 + norm.log10().round() as u64);
    (0..samples)
        .map(|_| orthogonality(&Map::map(&skew_of_norm::<S, T>(&mut rng, norm))))
        .fold(0.0, f64::max)
}
