//! nalgebra's generic inversion and LU solve: the baselines the specialised kernels are measured
//! against. They need `RealField` (pivoting compares magnitudes).

use nalgebra::{Const, DimMin, RealField, SMatrix};

use crate::orthogonal::{in_meaningful_range, not_a_number, skew_from_upper};
use crate::{Field, OrthogonalMap};

/// `(I − C)·(I + C).try_inverse()`: nalgebra's generic inverse (closed forms up to `T = 4`, LU
/// with partial pivoting above). Kept by name as the baseline of the benchmarks.
///
/// In exact arithmetic `I + C` is never singular (`det(I + C) ≥ 1`); in floating point the `1`s
/// are lost against a large `C`, and for odd `T` (where `C` itself is singular) the inversion then
/// fails or returns garbage. So, like every `RealField` map, it answers in the meaningful range
/// `ε‖C‖_F ≤ 1/64` and returns NaN beyond (see [`crate::orthogonal`]); the test suite checks it
/// finite and orthogonal to within a few dozen times LU's error up to `‖C‖_F = 10⁴` (`f32`) and
/// `10⁸` (`f64`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NalgebraInverse;

/// `(I + C).lu().solve(I − C)`: LU with partial pivoting and a solve; the same range as
/// [`NalgebraInverse`] (NaN beyond `ε‖C‖_F ≤ 1/64`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LuSolve;

/// `I + C` and `I − C` from the strict upper triangle of `C`.
fn plus_minus<S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
) -> (SMatrix<S, T, T>, SMatrix<S, T, T>) {
    let skew = skew_from_upper(c);
    let identity = SMatrix::<S, T, T>::identity();
    (identity + skew, identity - skew)
}

impl<S: Field + RealField, const T: usize> OrthogonalMap<S, T> for NalgebraInverse {
    const NAME: &'static str = "Cayley (nalgebra inverse)";
    const FUNCTION: &'static str = "cayley";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        if !in_meaningful_range(c) {
            return not_a_number();
        }
        let (plus, minus) = plus_minus(c);
        plus.try_inverse()
            .map_or_else(not_a_number, |inverse| minus * inverse)
    }
}

impl<S: Field + RealField, const T: usize> OrthogonalMap<S, T> for LuSolve
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    const NAME: &'static str = "Cayley (LU)";
    const FUNCTION: &'static str = "cayley";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        if !in_meaningful_range(c) {
            return not_a_number();
        }
        let (plus, minus) = plus_minus(c);
        plus.lu().solve(&minus).unwrap_or_else(not_a_number)
    }
}
