//! Strategy **gram_schmidt**: an unrolled, square-root-free modified Gram–Schmidt QR of `I + C`,
//! for any `T`: the default beyond the closed forms, because it is accurate wherever the Cayley
//! transform is defined.
//!
//! `I + C = Q̃R` with `Q̃` of orthogonal, unnormalised columns `q_k` and `R` unit upper triangular,
//! so `Cay(C) = 2(I + C)⁻¹ − I = R⁻¹·(2D⁻¹Q̃ᵀ) − I` with `D = diag(‖q_k‖²)`. Orthogonalisation
//! needs no pivoting, and every divisor `‖q_k‖²` is at least `σ_min(I + C)² ≥ 1` (the symmetric
//! part of `I + C` is `I`): the program is branch-free, exact in rational arithmetic, never divides
//! by zero for finite `C`, and in floating point stays within a few times the orthogonality error
//! of LU with partial pivoting at every `‖C‖` (pivot-free elimination loses `ε‖C‖²`). The
//! runtime's `GramSchmidt` kernel runs the same algorithm in loops.
//!
//! `T` reciprocals and about `3T³` other operations; what is known folds away: the 0s and 1s of
//! the identity in `I + C`, and in the first projections `a₀ᵀaⱼ` the terms `C₀ⱼ·1` and `1·Cⱼ₀`,
//! which cancel for skew `C` wherever they stand in the sum (`Builder::sum`) (at `T = 2` the two columns come out orthogonal and of equal norm, so one reciprocal
//! serves both: the program is the closed form):
//!
//! | T | mul | add/sub | recip | neg | total |
//! |---|---|---|---|---|---|
//! | 2 | 3 | 2 | 1 | 1 | 7 |
//! | 3 | 43 | 29 | 3 | 0 | 75 |
//! | 4 | 103 | 76 | 4 | 0 | 183 |
//! | 5 | 201 | 157 | 5 | 0 | 363 |
//! | 6 | 346 | 281 | 6 | 0 | 633 |
//! | 7 | 547 | 457 | 7 | 0 | 1 011 |
//! | 8 | 813 | 694 | 8 | 0 | 1 515 |
//!
//! (Pivot-free elimination needs 11 … 898 at `T = 2 … 8`: Gram–Schmidt pays about 1.7× the
//! operations for accuracy at every `‖C‖`.)

use crate::Program;
use crate::builder::{Builder, Expr, finish_cayley, identity_plus_skew};

/// The Gram–Schmidt program for `Cay(C)` at size `t` (any `t`).
///
/// ```
/// use geomattn_codegen::gram_schmidt;
/// use num_rational::BigRational;
///
/// // C = [0 −½; ½ 0] → Cay(C) = [3/5 4/5; −4/5 3/5], column-major.
/// let program = gram_schmidt::program(2);
/// let q = |n: i64, d: i64| BigRational::new(n.into(), d.into());
/// assert_eq!(program.eval(&[q(-1, 2)]), vec![q(3, 5), q(-4, 5), q(4, 5), q(3, 5)]);
/// ```
pub fn program(t: usize) -> Program {
    let mut b = Builder::new();
    // q[i][j]: entry (i, j) of I + C, orthogonalised column by column.
    let mut q: Vec<Vec<Expr>> = identity_plus_skew(t);
    // r[k][j], j > k: the strict upper part of R. x[k]: row k of X = 2(I + C)⁻¹.
    let mut r = vec![vec![Expr::int(0); t]; t];
    let mut x = vec![vec![Expr::int(0); t]; t];
    for k in 0..t {
        let square = dot(&mut b, &q, k, k);
        let inverse = b.div(&Expr::int(1), &square);
        for j in k + 1..t {
            let projection = dot(&mut b, &q, k, j);
            r[k][j] = b.mul(&projection, &inverse);
            for row in q.iter_mut() {
                let update = b.mul(&r[k][j], &row[k]);
                row[j] = b.sub(&row[j], &update);
            }
        }
        let scale = b.mul(&Expr::int(2), &inverse);
        for (entry, row) in x[k].iter_mut().zip(&q) {
            *entry = b.mul(&row[k], &scale);
        }
    }
    // X = R⁻¹·(2D⁻¹Q̃ᵀ), from the last row up.
    for k in (0..t).rev() {
        let (above, below) = x.split_at_mut(k + 1);
        for (j, row) in (k + 1..t).zip(below.iter()) {
            for (entry, x_ji) in above[k].iter_mut().zip(row) {
                let update = b.mul(&r[k][j], x_ji);
                *entry = b.sub(entry, &update);
            }
        }
    }
    // Cay = X − I, column-major.
    finish_cayley(b, &x)
}

/// `q_aᵀ q_b` over the columns `a` and `b` of `q`.
fn dot(b: &mut Builder, q: &[Vec<Expr>], a: usize, c: usize) -> Expr {
    let terms: Vec<Expr> = q.iter().map(|row| b.mul(&row[a], &row[c])).collect();
    b.sum(terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OpCounts;

    /// The table in the module docs.
    #[test]
    fn operation_counts_match_the_docs() {
        let table = [
            (2, 3, 2, 1, 1),
            (3, 43, 29, 3, 0),
            (4, 103, 76, 4, 0),
            (5, 201, 157, 5, 0),
            (6, 346, 281, 6, 0),
            (7, 547, 457, 7, 0),
            (8, 813, 694, 8, 0),
        ];
        for (t, mul, add, div, neg) in table {
            let expected = OpCounts { add, mul, neg, div };
            assert_eq!(program(t).counts(), expected, "T = {t}");
        }
    }
}
