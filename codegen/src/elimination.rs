//! Strategy **elimination**: an unrolled, pivot-free LU solve of `(I + C) X = 2I`, for any `T`.
//!
//! `Cay(C) = 2(I + C)⁻¹ − I`, and every pivot of `I + C` is at least 1 in exact arithmetic (see
//! the runtime's `cayley` module), so the elimination never branches. What the unrolling saves
//! over the loop kernel, beyond loop overhead:
//!
//! - The first pivot is the constant 1 (no reciprocal, no row scaling), and the first Schur
//!   update is symmetric: `C` has a zero symmetric part, so `(I + C)[i,0]·(I + C)[0,j] =
//!   −c₀ᵢc₀ⱼ` is the same product for `(i, j)` and `(j, i)` and is computed once.
//! - `I + C` is written `L′U` with `U` unit upper triangular (rows scaled by the reciprocal
//!   pivots) and `L′` lower triangular holding the pivots, so the factor 2 costs one product
//!   per pivot (`Z = L′⁻¹·2I` has diagonal `2/pᵢ`), and `X = U⁻¹Z` needs no scaling at all.
//! - Entries known to be 0 or 1 (the identity, the upper triangle of `Z`, the unit diagonal of
//!   `U`) fold away, and signs are free (a negation feeds the next `+`/`−`, see
//!   [`crate::builder`]).
//!
//! The program has `T − 1` reciprocals and `O(T³)` products:
//!
//! | T | mul | add/sub | recip | neg | total | GML (closed-form inverse, no product) |
//! |---|---|---|---|---|---|---|
//! | 2 | 6 | 3 | 1 | 1 | 11 | 22 (8 mul, 4 add, 4 div, 6 neg) |
//! | 3 | 23 | 15 | 2 | 3 | 43 | 225 (126 mul, 54 add, 9 div, 36 neg) |
//! | 4 | 57 | 40 | 3 | 4 | 104 | 1 608 (784 mul, 448 add, 16 div, 360 neg) |
//! | 5 | 114 | 85 | 4 | 5 | 208 | 19 175 (13800 mul, 3550 add, 25 div, 1800 neg) |
//! | 6 | 200 | 156 | 5 | 6 | 367 | generic inverse |
//! | 7 | 321 | 259 | 6 | 7 | 593 | generic inverse |
//! | 8 | 483 | 400 | 7 | 8 | 898 | generic inverse |
//!
//! (GML's counts are from CONVENTIONS.md; GML then also multiplies by `I − C`, `T³` products.)

use crate::builder::{Builder, Expr, finish_cayley, identity_plus_skew};
use crate::program::Program;

/// The elimination program for `Cay(C)` at size `t` (any `t`; `t = 0` gives the empty program).
///
/// ```
/// use geomattn_codegen::elimination;
/// use num_rational::BigRational;
///
/// // C = [0 −½; ½ 0] → Cay(C) = [3/5 4/5; −4/5 3/5], column-major.
/// let program = elimination::program(2);
/// let q = |n: i64, d: i64| BigRational::new(n.into(), d.into());
/// assert_eq!(program.eval(&[q(-1, 2)]), vec![q(3, 5), q(-4, 5), q(4, 5), q(3, 5)]);
/// ```
pub fn program(t: usize) -> Program {
    let mut b = Builder::new();
    // m = I + C, row-major; overwritten by L′ (on and below the diagonal) and U (above it).
    let mut m: Vec<Vec<Expr>> = identity_plus_skew(t);
    let mut recip = Vec::with_capacity(t);
    for k in 0..t {
        let r = b.div(&Expr::int(1), &m[k][k]);
        for entry in &mut m[k][k + 1..] {
            *entry = b.mul(entry, &r);
        }
        for i in k + 1..t {
            for j in k + 1..t {
                let update = b.mul(&m[i][k], &m[k][j]);
                m[i][j] = b.sub(&m[i][j], &update);
            }
        }
        recip.push(r);
    }
    // Z = L′⁻¹·2I, lower triangular: Z[j][j] = 2/pⱼ, Z[i][j] = −(Σₖ L′[i][k]·Z[k][j]) / pᵢ.
    let mut z = vec![vec![Expr::int(0); t]; t];
    for j in 0..t {
        z[j][j] = b.mul(&Expr::int(2), &recip[j]);
        for i in j + 1..t {
            let mut sum = Expr::int(0);
            for k in j..i {
                let term = b.mul(&m[i][k], &z[k][j]);
                sum = b.add(&sum, &term);
            }
            z[i][j] = b.mul(&sum, &recip[i]).neg();
        }
    }
    // X = U⁻¹Z from the last row up: X[i][j] = Z[i][j] − Σₖ₍ₖ₎ U[i][k]·X[k][j].
    let mut x = z;
    for i in (0..t).rev() {
        let (above, below) = x.split_at_mut(i + 1);
        for (j, entry) in above[i].iter_mut().enumerate() {
            for (u, row) in m[i][i + 1..].iter().zip(below.iter()) {
                let term = b.mul(u, &row[j]);
                *entry = b.sub(entry, &term);
            }
        }
    }
    // Cay = X − I, column-major.
    finish_cayley(b, &x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::OpCounts;

    /// The table in the module docs.
    #[test]
    fn operation_counts_match_the_docs() {
        let table = [
            (2, 6, 3, 1, 1),
            (3, 23, 15, 2, 3),
            (4, 57, 40, 3, 4),
            (5, 114, 85, 4, 5),
            (6, 200, 156, 5, 6),
            (7, 321, 259, 6, 7),
            (8, 483, 400, 7, 8),
        ];
        for (t, mul, add, div, neg) in table {
            let expected = OpCounts { add, mul, neg, div };
            assert_eq!(program(t).counts(), expected, "T = {t}");
        }
    }
}
