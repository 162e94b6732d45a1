//! nalgebra's generic inversion and LU solve: the baselines the specialised kernels are measured
//! against. They need `RealField` (pivoting compares magnitudes).

use nalgebra::{Const, DimMin, RealField, SMatrix};

use crate::{Field, OrthogonalMap};

/// `(I − C)·(I + C).try_inverse()`: nalgebra's generic inverse (closed forms up to `T = 4`, LU
/// with partial pivoting above). Kept by name as the baseline of the benchmarks.
#[derive(Debug, Clone, Copy, Default)]
pub struct NalgebraInverse;

/// `(I + C).lu().solve(I − C)`: LU with partial pivoting and a solve.
#[derive(Debug, Clone, Copy, Default)]
pub struct LuSolve;

/// `I + C` and `I − C` from the strict upper triangle of `C`.
fn plus_minus<S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
) -> (SMatrix<S, T, T>, SMatrix<S, T, T>) {
    let skew = SMatrix::<S, T, T>::from_fn(|i, j| match i.cmp(&j) {
        core::cmp::Ordering::Less => c[(i, j)],
        core::cmp::Ordering::Greater => -c[(j, i)],
        core::cmp::Ordering::Equal => S::zero(),
    });
    let identity = SMatrix::<S, T, T>::identity();
    (identity + skew, identity - skew)
}

/// A matrix of NaN: what a failed inversion returns (impossible for finite skew `C`, since
/// `det(I + C) ≥ 1`; it happens only for non-finite input, which then propagates).
fn not_a_number<S: RealField + Copy, const T: usize>() -> SMatrix<S, T, T> {
    SMatrix::from_element(S::zero() / S::zero())
}

impl<S: Field + RealField, const T: usize> OrthogonalMap<S, T> for NalgebraInverse {
    const NAME: &'static str = "Cayley (nalgebra inverse)";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
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

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        let (plus, minus) = plus_minus(c);
        plus.lu().solve(&minus).unwrap_or_else(not_a_number)
    }
}
