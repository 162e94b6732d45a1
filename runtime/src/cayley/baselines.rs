//! nalgebra's generic inversion and LU solve: the baselines the specialised kernels are measured
//! against. They need `RealField` (pivoting compares magnitudes).

use nalgebra::{Const, DimMin, RealField, SMatrix};

use crate::orthogonal::OrthogonalMap;
use crate::orthogonal::{in_range, not_a_number, skew_from_upper};
use crate::scalar::Field;

/// `(I − C)·(I + C).try_inverse()`: nalgebra's generic inverse (closed forms up to `T = 4`, LU
/// with partial pivoting above). Kept by name as the baseline of the benchmarks.
///
/// In exact arithmetic `I + C` is never singular (`det(I + C) ≥ 1`); in floating point the `1`s
/// are lost against a large `C`, and for odd `T` (where `C` itself is singular) the inversion then
/// fails or returns garbage; at `T = 4` the cofactor formulas lose `ε‖C‖²` on rank-deficient `C`.
/// So, like every `RealField` map, it answers in its measured range and returns NaN beyond (see
/// [`crate::orthogonal`]): `ε‖C‖_F ≤ 1/4`, and `ε‖C‖_F² ≤ 1` at `T = 4`. Within it the test
/// suite finds it finite and orthogonal to within a few dozen times LU's error up to
/// `‖C‖_F = 10⁴` (`f32`) and `10⁸` (`f64`) (`T ≠ 4`), and to within 1/4 just inside every edge.
#[derive(Debug, Clone, Copy, Default)]
pub struct NalgebraInverse;

/// `(I + C).lu().solve(I − C)`: LU with partial pivoting and a solve; NaN beyond its measured
/// range `ε‖C‖_F ≤ 1/4` (any `C` with `‖C‖_F²` finite at `T ≤ 2`), where its orthogonality
/// error reaches 0.1–0.2 (see [`crate::orthogonal`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct LuSolve;

/// The range of LU with partial pivoting, `ε‖C‖_F ≤ 1/4`, where its orthogonality error reaches
/// 0.1–0.2 (it grows like `0.7 ε‖C‖_F` at worst, random and rank-deficient `C`, `T = 3 … 12`,
/// both precisions); for `T ≤ 2` every `C` with `‖C‖_F` finite (`[1 c; −c 1]` is solved to
/// rounding at any `c`).
fn lu_limit<S: RealField + Copy, const T: usize>() -> S {
    nalgebra::convert(if T <= 2 { f64::INFINITY } else { 0.25 })
}

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
        // nalgebra inverts a 4×4 matrix by cofactors, whose determinant loses ε‖C‖² to
        // cancellation on the rank-deficient C of attention (measured: ‖ΛᵀΛ − I‖ ≈ 0.15 ε‖C‖²).
        let limit = if T == 4 {
            S::default_epsilon().sqrt()
        } else {
            lu_limit::<S, T>()
        };
        if !in_range(c, limit) {
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
        if !in_range(c, lu_limit::<S, T>()) {
            return not_a_number();
        }
        let (plus, minus) = plus_minus(c);
        plus.lu().solve(&minus).unwrap_or_else(not_a_number)
    }
}
