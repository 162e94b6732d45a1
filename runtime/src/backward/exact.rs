//! Exact directional derivatives in rationals, for the pullbacks' tests: a kernel that is a
//! polynomial of degree at most 3 along a line is differentiated exactly from four points.

use nalgebra::SMatrix;
use num_rational::Ratio;

/// The exact scalar of the tests.
pub(crate) type Q = Ratio<i128>;

/// Small rationals that differ entry by entry (`seed` picks the pattern).
pub(crate) fn rational<const R: usize, const C: usize>(seed: i128) -> SMatrix<Q, R, C> {
    SMatrix::from_fn(|i, j| {
        let k = (i * C + j) as i128;
        Q::new((k * 7 + seed) % 11 - 5, 1 + (k + seed) % 3)
    })
}

/// `f'(0)` of a matrix polynomial `f` of degree at most 3 in `h`, from `f(0), …, f(3)`: exact
/// (the interpolating cubic is `f` itself).
pub(crate) fn derivative<const R: usize, const C: usize>(
    f: impl Fn(Q) -> SMatrix<Q, R, C>,
) -> SMatrix<Q, R, C> {
    let at = |h: i128| f(Q::from_integer(h));
    (at(1) * Q::from_integer(18) - at(0) * Q::from_integer(11) - at(2) * Q::from_integer(9)
        + at(3) * Q::from_integer(2))
        / Q::from_integer(6)
}

/// `⟨a, b⟩`, entry by entry.
pub(crate) fn inner<const R: usize, const C: usize>(
    a: &SMatrix<Q, R, C>,
    b: &SMatrix<Q, R, C>,
) -> Q {
    a.component_mul(b).sum()
}
