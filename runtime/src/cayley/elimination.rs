//! Pivot-free Gauss–Jordan elimination specialised to `I + C`.

use nalgebra::SMatrix;

use crate::orthogonal::skew_from_upper_plus;
use crate::{Field, OrthogonalMap, product, scalar::two};

/// Solves `(I + C) X = 2I` by elimination without pivoting, then returns `X − I`
/// (`Cay(C) = 2(I + C)⁻¹ − I`, since `I − C` and `(I + C)⁻¹` commute).
///
/// Works for every `T` and every [`Field`], exact rationals included; `T` divisions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elimination;

impl<S: Field, const T: usize> OrthogonalMap<S, T> for Elimination {
    const NAME: &'static str = "Cayley (elimination)";
    const FUNCTION: &'static str = "cayley";

    #[inline(always)]
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        // m = I + C from the strict upper triangle of C; the right-hand side 2I.
        let m = skew_from_upper_plus(c, S::one());
        let twice_identity = product::matrix(
            #[inline(always)]
            |i, j| if i == j { two::<S>() } else { S::zero() },
        );
        let mut x = solve_without_pivoting(m, twice_identity);
        for k in 0..T {
            x[(k, k)] -= S::one();
        }
        x
    }
}

/// `m⁻¹ rhs` by Gauss–Jordan elimination without pivoting, one reciprocal per pivot.
///
/// Stable for the matrices it is used on, whose pivots stay away from zero: `I + C` with `C`
/// skew (every pivot is at least 1) and column diagonally dominant matrices (the Padé
/// denominator of the matrix exponential).
#[inline(always)]
pub(crate) fn solve_without_pivoting<S: Field, const T: usize>(
    mut m: SMatrix<S, T, T>,
    mut rhs: SMatrix<S, T, T>,
) -> SMatrix<S, T, T> {
    for k in 0..T {
        let pivot_inv = S::one() / m[(k, k)];
        for j in k + 1..T {
            m[(k, j)] *= pivot_inv;
        }
        for j in 0..T {
            rhs[(k, j)] *= pivot_inv;
        }
        for i in (0..T).filter(|&i| i != k) {
            // m_ij − f·m_kj as m_ij + (−f)·m_kj: the same number, fused where products fuse.
            let minus_factor = -m[(i, k)];
            for j in k + 1..T {
                m[(i, j)] = product::accumulate(m[(i, j)], minus_factor, m[(k, j)]);
            }
            for j in 0..T {
                rhs[(i, j)] = product::accumulate(rhs[(i, j)], minus_factor, rhs[(k, j)]);
            }
        }
    }
    rhs
}
