//! Strategy **gram_schmidt**: an unrolled, square-root-free modified Gram–Schmidt QR of `I + C`,
//! for any `T`: the default beyond the closed forms, because it is accurate wherever the Cayley
//! transform is defined.
//!
//! `I + C = Q̃R` with `Q̃` of orthogonal, unnormalised columns `q_k` and `R` unit upper triangular;
//! `Y = R⁻¹` is built alongside (`q_k = (I + C) y_k`), and `Cay(C) = 2(I + C)⁻¹ − I =
//! Y·(2D⁻¹Q̃ᵀ) − I` with `D = diag(d_k)`, `d_k = ‖y_k‖² + ‖q_k − y_k‖²` (`= ‖q_k‖²`, since
//! `q_k − y_k = C y_k ⊥ y_k`). Orthogonalisation needs no pivoting, and every divisor `d_k` is a
//! sum of squares with the term `y_k[k]² = 1`, at least 1 in floating point too: the program is
//! branch-free, exact in rational arithmetic, finite wherever `‖C‖²` is, and in floating point
//! within a few times the orthogonality error of LU with partial pivoting at every `‖C‖`
//! (pivot-free elimination loses `ε‖C‖²`). The runtime's `GramSchmidt` kernel runs the same
//! algorithm in loops; why each choice (the columns of `I + C`, the divisor) is made is in its
//! docs.
//!
//! `T` reciprocals and about `3.4T³` other operations; what is known folds away: the 0s and 1s of
//! the identity in `I + C` and of `Y`, and in the first projections `a₀ᵀaⱼ` the terms `C₀ⱼ·1`
//! and `1·Cⱼ₀`, which cancel for skew `C` wherever they stand in the sum (`Builder::sum`) (at
//! `T = 2` the two columns come out orthogonal and of equal norm, so one reciprocal serves both:
//! the program is the closed form):
//!
//! | T | mul | add/sub | recip | neg | total |
//! |---|---|---|---|---|---|
//! | 2 | 3 | 2 | 1 | 1 | 7 |
//! | 3 | 47 | 39 | 3 | 0 | 89 |
//! | 4 | 113 | 97 | 4 | 0 | 214 |
//! | 5 | 221 | 194 | 5 | 0 | 420 |
//! | 6 | 381 | 340 | 6 | 0 | 727 |
//! | 7 | 603 | 545 | 7 | 0 | 1 155 |
//! | 8 | 897 | 819 | 8 | 0 | 1 724 |
//!
//! (Pivot-free elimination needs 11 … 898 at `T = 2 … 8`: Gram–Schmidt pays about 1.9× the
//! operations for accuracy at every `‖C‖`; `Y` and the divisors that keep it finite cost 14–17%
//! of them.)

use crate::builder::{Builder, Expr, finish_cayley, identity_plus_skew};
use crate::program::Program;

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
    // q[i][j]: entry (i, j) of I + C, orthogonalised column by column; column k becomes
    // w_k = 2 q_k / d_k once done.
    let mut q: Vec<Vec<Expr>> = identity_plus_skew(t);
    // y[i][k]: entry (i, k) of Y = R⁻¹ (unit upper triangular), built alongside: q_k = (I + C) y_k.
    let mut y: Vec<Vec<Expr>> = (0..t)
        .map(|i| (0..t).map(|k| Expr::int(i64::from(i == k))).collect())
        .collect();
    for k in 0..t {
        let square = squared_norm(&mut b, &q, &y, k);
        let inverse = b.div(&Expr::int(1), &square);
        for j in k + 1..t {
            let projection = dot(&mut b, &q, k, j);
            let r = b.mul(&projection, &inverse);
            for row in q.iter_mut() {
                let update = b.mul(&r, &row[k]);
                row[j] = b.sub(&row[j], &update);
            }
            // y_j − r·y_k over the rows 0..=k (y_k is zero below).
            for row in y.iter_mut().take(k + 1) {
                let update = b.mul(&r, &row[k]);
                row[j] = b.sub(&row[j], &update);
            }
        }
        let scale = b.mul(&Expr::int(2), &inverse);
        for row in q.iter_mut() {
            row[k] = b.mul(&row[k], &scale);
        }
    }
    // X = 2(I + C)⁻¹ = Y·W: X[i][j] = Σ_{k ≥ i} Y[i][k] w_k[j], from k = i up.
    let x: Vec<Vec<Expr>> = (0..t)
        .map(|i| {
            (0..t)
                .map(|j| {
                    let terms: Vec<Expr> = (i..t).map(|k| b.mul(&y[i][k], &q[j][k])).collect();
                    b.sum(terms)
                })
                .collect()
        })
        .collect();
    // Cay = X − I, column-major.
    finish_cayley(b, &x)
}

/// `q_aᵀ q_b` over the columns `a` and `b` of `q`.
fn dot(b: &mut Builder, q: &[Vec<Expr>], a: usize, c: usize) -> Expr {
    let terms: Vec<Expr> = q.iter().map(|row| b.mul(&row[a], &row[c])).collect();
    b.sum(terms)
}

/// `d_k = ‖y_k‖² + ‖q_k − y_k‖²`, which is `‖q_k‖²` (`q_k − y_k = C y_k ⊥ y_k`) and, as a sum of
/// squares with the term `y_k[k]² = 1`, at least 1 in floating point too.
fn squared_norm(b: &mut Builder, q: &[Vec<Expr>], y: &[Vec<Expr>], k: usize) -> Expr {
    let mut terms = vec![Expr::int(1)];
    for row in &y[..k] {
        terms.push(b.mul(&row[k], &row[k]));
    }
    for (q_row, y_row) in q.iter().zip(y) {
        let image = b.sub(&q_row[k], &y_row[k]);
        terms.push(b.mul(&image, &image));
    }
    b.sum(terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::OpCounts;

    /// The table in the module docs.
    #[test]
    fn operation_counts_match_the_docs() {
        let table = [
            (2, 3, 2, 1, 1),
            (3, 47, 39, 3, 0),
            (4, 113, 97, 4, 0),
            (5, 221, 194, 5, 0),
            (6, 381, 340, 6, 0),
            (7, 603, 545, 7, 0),
            (8, 897, 819, 8, 0),
        ];
        for (t, mul, add, div, neg) in table {
            let expected = OpCounts { add, mul, neg, div };
            assert_eq!(program(t).counts(), expected, "T = {t}");
        }
    }
}
