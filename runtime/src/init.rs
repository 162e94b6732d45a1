//! GML's Glorot-uniform initialisation, driven by a generator the caller passes in.
//!
//! A packed vector of length `L` gets U(−√(6/L), √(6/L)); a dense `m×n` matrix gets
//! U(−√(6/(m+n)), √(6/(m+n))). The caller owns the generator, so a seed reproduces a network.
//! Any [`rand::Rng`] works (`rand` is used with no default features, so this stays `no_std`).
//!
//! ```
//! use rand::SeedableRng;
//! let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
//! let w = geomattn::init::glorot_dense::<f64, 3, 5, _>(&mut rng);
//! let bound = (6.0_f64 / 8.0).sqrt();
//! assert!(w.iter().all(|x| x.abs() <= bound));
//! ```

use nalgebra::{RealField, SMatrix};
use rand::Rng;

/// Half-width `√(6/fan)` of the Glorot interval; zero for `fan = 0` (nothing to draw).
pub fn glorot_bound<S: RealField + Copy>(fan: usize) -> S {
    if fan == 0 {
        return S::zero();
    }
    (nalgebra::convert::<f64, S>(6.0) / nalgebra::convert::<f64, S>(fan as f64)).sqrt()
}

/// One draw from U(−bound, bound), from 53 random bits.
pub fn uniform<S: RealField + Copy, R: Rng + ?Sized>(rng: &mut R, bound: S) -> S {
    let unit = (rng.next_u64() >> 11) as f64 * (1.0 / (1_u64 << 53) as f64);
    bound * nalgebra::convert::<f64, S>(2.0 * unit - 1.0)
}

/// A dense `ROWS×COLS` matrix with GML's Glorot-uniform entries, bound `√(6/(ROWS+COLS))`.
pub fn glorot_dense<S: RealField + Copy, const ROWS: usize, const COLS: usize, R: Rng + ?Sized>(
    rng: &mut R,
) -> SMatrix<S, ROWS, COLS> {
    let bound = glorot_bound::<S>(ROWS + COLS);
    SMatrix::from_fn(|_, _| uniform(rng, bound))
}
