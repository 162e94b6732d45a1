//! The kernel [`Generated`]: straight-line code emitted by `geomattn-macros` for `T = 1 … 8`,
//! the [`Elimination`] loops for other `T`.

use geomattn_macros::cayley;
use nalgebra::SMatrix;

use super::Elimination;
use crate::{Field, OrthogonalMap};

/// Unrolled, branch-free Cayley transforms for `T ≤ 8` (each from the strategy the macro
/// `geomattn_macros::cayley!` chooses for that size: the symbolic closed forms for `T = 2 … 4`,
/// unrolled elimination for `T = 5 … 8`; its docs give the measurements), the [`Elimination`]
/// loops beyond.
///
/// Against nalgebra's generic inverse (f64, one call; callgrind instructions and divan time):
/// see `benches/benches/cayley*.rs` and the report; at `T ≥ 4` about 3× fewer instructions.
///
/// One blanket implementation covers every `T`: `T` is a constant, so the dispatch below is
/// resolved at compile time and the copies between `SMatrix<S, T, T>` and the `SMatrix<S, N, N>`
/// of the function for `N = T` compile away. Works for every [`Field`], exact rationals included.
///
/// ```
/// use geomattn::{Generated, OrthogonalMap, nalgebra::Matrix2};
/// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
/// let q = <Generated as OrthogonalMap<f64, 2>>::map(&c);
/// assert!((q - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Generated;

impl<S: Field, const T: usize> OrthogonalMap<S, T> for Generated {
    const NAME: &'static str = "Cayley (generated)";

    #[inline]
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        match T {
            1 => via::<S, T, 1>(c, cayley!(1)),
            2 => via::<S, T, 2>(c, cayley!(2)),
            3 => via::<S, T, 3>(c, cayley!(3)),
            4 => via::<S, T, 4>(c, cayley!(4)),
            5 => via::<S, T, 5>(c, cayley!(5)),
            6 => via::<S, T, 6>(c, cayley!(6)),
            7 => via::<S, T, 7>(c, cayley!(7)),
            8 => via::<S, T, 8>(c, cayley!(8)),
            _ => <Elimination as OrthogonalMap<S, T>>::map(c),
        }
    }
}

/// `f(c)` for `f` written for `N×N`, called only when `N = T`: the copies are then moves of
/// identical layouts, which the optimiser removes.
#[inline(always)]
fn via<S: Field, const T: usize, const N: usize>(
    c: &SMatrix<S, T, T>,
    f: impl FnOnce(&SMatrix<S, N, N>) -> SMatrix<S, N, N>,
) -> SMatrix<S, T, T> {
    let q = f(&SMatrix::from_fn(|i, j| c[(i, j)]));
    SMatrix::from_fn(|i, j| q[(i, j)])
}
