//! Pivot-free Gauss–Jordan elimination specialised to `I + C`.

use nalgebra::SMatrix;

use super::Cayley;
use crate::{Field, scalar::two};

/// Solves `(I + C) X = 2I` by elimination without pivoting, then returns `X − I`
/// (`Cay(C) = 2(I + C)⁻¹ − I`, since `I − C` and `(I + C)⁻¹` commute).
///
/// Works for every `T` and every [`Field`], exact rationals included; `T` divisions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elimination;

impl<S: Field, const T: usize> Cayley<S, T> for Elimination {
    fn cayley(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        // m = I + C from the strict upper triangle of C; x = 2I.
        let mut m = SMatrix::<S, T, T>::identity();
        for j in 0..T {
            for i in 0..j {
                m[(i, j)] = c[(i, j)];
                m[(j, i)] = -c[(i, j)];
            }
        }
        let mut x = SMatrix::<S, T, T>::identity() * two::<S>();
        for k in 0..T {
            let pivot_inv = S::one() / m[(k, k)];
            for j in k + 1..T {
                m[(k, j)] *= pivot_inv;
            }
            for j in 0..T {
                x[(k, j)] *= pivot_inv;
            }
            for i in (0..T).filter(|&i| i != k) {
                let factor = m[(i, k)];
                for j in k + 1..T {
                    let update = factor * m[(k, j)];
                    m[(i, j)] -= update;
                }
                for j in 0..T {
                    let update = factor * x[(k, j)];
                    x[(i, j)] -= update;
                }
            }
        }
        for k in 0..T {
            x[(k, k)] -= S::one();
        }
        x
    }
}
