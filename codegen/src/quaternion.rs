//! Strategy **quaternion**, `T = 4` only: the closed form of the Cayley transform through the
//! two quaternions of a `4×4` skew matrix. Orthogonal to rounding at every `‖C‖`, finite while
//! `‖C‖²` is, and about half the operations of Gram–Schmidt.
//!
//! Every skew `4×4` matrix is `C = L_p + R_q`, left multiplication by a pure quaternion `p` plus
//! right multiplication by a pure quaternion `q` (its self-dual and anti-self-dual parts). The
//! two commute, `L_p² = −s` and `R_q² = −t` with `s = |p|²`, `t = |q|²`, so `(I + C)⁻¹(I − C)`
//! lies in the algebra spanned by `I, L_p, R_q, L_pR_q`; solving `(I + C)X = I − C` there gives
//!
//! `Cay(C) = a I + b L_p + c R_q + d L_pR_q`, `Δ = 1 + 2(s + t) + (s − t)²`,
//! `a = (1 − (s − t)²)/Δ`, `b = −2(1 + s − t)/Δ`, `c = −2(1 − s + t)/Δ`, `d = 4/Δ`.
//!
//! Why it is accurate where LU is not: `a d = b c` and the other identities that make the result
//! orthogonal hold in terms of the computed `s` and `t` themselves (and `s − t` is exact when the
//! two are close, as on the rank-2 `C` of attention, where `|p| = |q|`): the result is the
//! Cayley transform of the skew matrix of the computed `p` and `q`, orthogonal to a few rounding
//! errors at any `‖C‖`, as the closed form at `T = 3` is. LU and Gram–Schmidt lose `ε‖C‖`.
//!
//! Why it stays finite: `Δ` is of size `‖C‖⁴` (it would overflow at `‖C‖ ≈ 10⁹` in `f32`), so
//! everything is scaled by `g = 1/(1 + s + t)`: with `u = g(1 + s − t)`, `v = g(1 − s + t)`
//! (both in `[−1, 1]`) and `Δ̂ = g²Δ = g(2 − g) + ((s − t)g)²` (a sum of non-negative terms, no
//! cancellation), `a = u·(v/Δ̂)`, `b = −2u·h`, `c = −2v·h`, `d = 4g·h` with `h = g/Δ̂ ≤ 1`.
//! No intermediate is larger than `1 + s + t = 1 + ‖C‖_F²/4`, none underflows before `g` does.
//!
//! ```
//! use geomattn_codegen::quaternion;
//! use num_rational::BigRational;
//!
//! // C = SkewSym(1..6, 4)/3 (CONVENTIONS.md) → first column (1/482)·(229, −405, −123, −27).
//! let q = |n: i64, d: i64| BigRational::new(n.into(), d.into());
//! let program = quaternion::program();
//! let c: Vec<_> = [-1, -2, -3, -4, -5, -6].iter().map(|&n| q(n, 3)).collect();
//! let cay = program.eval(&c);
//! assert_eq!(cay[..4], [q(229, 482), q(-405, 482), q(-123, 482), q(-27, 482)]);
//! ```

use num_rational::BigRational;

use crate::builder::{Builder, Expr};
use crate::program::Program;

/// `L_p` as signs and indices into `p`: entry `(i, j)` is `sign·p[index]`, or 0 on the diagonal.
const LEFT: [[(i64, usize); 4]; 4] = [
    [(0, 0), (-1, 0), (-1, 1), (-1, 2)],
    [(1, 0), (0, 0), (-1, 2), (1, 1)],
    [(1, 1), (1, 2), (0, 0), (-1, 0)],
    [(1, 2), (-1, 1), (1, 0), (0, 0)],
];

/// `R_q` as [`LEFT`].
const RIGHT: [[(i64, usize); 4]; 4] = [
    [(0, 0), (-1, 0), (-1, 1), (-1, 2)],
    [(1, 0), (0, 0), (1, 2), (-1, 1)],
    [(1, 1), (-1, 2), (0, 0), (1, 0)],
    [(1, 2), (1, 1), (-1, 0), (0, 0)],
];

/// A signed product `sign·p[k]·q[l]`: `(sign, k, l)`.
type Term = (i64, usize, usize);

/// `L_pR_q` (symmetric) as sums of signed products.
const PRODUCT: [[&[Term]; 4]; 4] = {
    const D0: &[Term] = &[(-1, 0, 0), (-1, 1, 1), (-1, 2, 2)];
    const D1: &[Term] = &[(-1, 0, 0), (1, 1, 1), (1, 2, 2)];
    const D2: &[Term] = &[(1, 0, 0), (-1, 1, 1), (1, 2, 2)];
    const D3: &[Term] = &[(1, 0, 0), (1, 1, 1), (-1, 2, 2)];
    const E01: &[Term] = &[(1, 1, 2), (-1, 2, 1)];
    const E02: &[Term] = &[(1, 2, 0), (-1, 0, 2)];
    const E03: &[Term] = &[(1, 0, 1), (-1, 1, 0)];
    const E12: &[Term] = &[(-1, 0, 1), (-1, 1, 0)];
    const E13: &[Term] = &[(-1, 0, 2), (-1, 2, 0)];
    const E23: &[Term] = &[(-1, 1, 2), (-1, 2, 1)];
    [
        [D0, E01, E02, E03],
        [E01, D1, E12, E13],
        [E02, E12, D2, E23],
        [E03, E13, E23, D3],
    ]
};

/// The quaternion program for `Cay(C)`, `T = 4`.
pub fn program() -> Program {
    let mut b = Builder::new();
    let c = |i: usize, j: usize| Expr::input(Program::input_index(i, j));
    let half = Expr::constant(BigRational::new(1.into(), 2.into()));
    // C = L_p + R_q: C₀₁ = −(p₁ + q₁), C₂₃ = q₁ − p₁, C₀₂ = −(p₂ + q₂), C₁₃ = p₂ − q₂,
    // C₀₃ = −(p₃ + q₃), C₁₂ = q₃ − p₃.
    let sums = [
        b.add(&c(0, 1), &c(2, 3)),
        b.sub(&c(1, 3), &c(0, 2)),
        b.add(&c(0, 3), &c(1, 2)),
    ];
    let differences = [
        b.sub(&c(2, 3), &c(0, 1)),
        b.add(&c(0, 2), &c(1, 3)),
        b.sub(&c(1, 2), &c(0, 3)),
    ];
    let p = [sums[0].neg(), sums[1].clone(), sums[2].neg()].map(|x| b.mul(&half, &x));
    let q = [
        differences[0].clone(),
        differences[1].neg(),
        differences[2].clone(),
    ]
    .map(|x| b.mul(&half, &x));
    let s = squared_norm(&mut b, &p);
    let t = squared_norm(&mut b, &q);
    let one = Expr::int(1);
    let scale = b.sum([one.clone(), s.clone(), t.clone()]);
    let g = b.div(&one, &scale);
    let difference = b.sub(&s, &t);
    let dg = b.mul(&difference, &g);
    let u = b.add(&g, &dg);
    let v = b.sub(&g, &dg);
    let two_minus_g = b.sub(&Expr::int(2), &g);
    let first = b.mul(&g, &two_minus_g);
    let second = b.mul(&dg, &dg);
    let delta = b.add(&first, &second);
    let e = b.div(&one, &delta);
    let h = b.mul(&g, &e);
    let ve = b.mul(&v, &e);
    let a = b.mul(&u, &ve);
    let uh = b.mul(&u, &h);
    let coefficient_b = b.mul(&Expr::int(-2), &uh);
    let vh = b.mul(&v, &h);
    let coefficient_c = b.mul(&Expr::int(-2), &vh);
    let gh = b.mul(&g, &h);
    let coefficient_d = b.mul(&Expr::int(4), &gh);
    let bp: Vec<Expr> = p.iter().map(|x| b.mul(&coefficient_b, x)).collect();
    let cq: Vec<Expr> = q.iter().map(|x| b.mul(&coefficient_c, x)).collect();
    let dp: Vec<Expr> = p.iter().map(|x| b.mul(&coefficient_d, x)).collect();
    let signed = |sign: i64, x: &Expr| if sign < 0 { x.neg() } else { x.clone() };
    let mut outputs = Vec::with_capacity(16);
    for j in 0..4 {
        for i in 0..4 {
            let mut terms = Vec::new();
            if i == j {
                terms.push(a.clone());
            } else {
                let (sign, k) = LEFT[i][j];
                terms.push(signed(sign, &bp[k]));
                let (sign, k) = RIGHT[i][j];
                terms.push(signed(sign, &cq[k]));
            }
            for &(sign, k, l) in PRODUCT[i][j] {
                let product = b.mul(&dp[k], &q[l]);
                terms.push(signed(sign, &product));
            }
            outputs.push(b.sum(terms));
        }
    }
    b.finish(4, &outputs)
}

/// `x₁² + x₂² + x₃²`.
fn squared_norm(b: &mut Builder, x: &[Expr; 3]) -> Expr {
    let squares: Vec<Expr> = x.iter().map(|x| b.mul(x, x)).collect();
    b.sum(squares)
}

#[cfg(test)]
mod tests {
    use num_rational::BigRational;
    use num_traits::{One, Zero};

    use super::*;
    use crate::program::OpCounts;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    /// `(I + C)·Cay = I − C` exactly, for inputs of every sign pattern and rank.
    #[test]
    fn exact_in_rationals() {
        let program = program();
        let inputs: [[i64; 6]; 5] = [
            [1, 2, 3, 4, 5, 6],
            [0, 0, 0, 0, 0, 0],
            [3, 0, 0, 0, 0, 0],
            [-7, 2, 9, 1, -4, 5],
            // Rank 2 (the Pfaffian C₀₁C₂₃ − C₀₂C₁₃ + C₀₃C₁₂ is 0): |p| = |q|.
            [1, 1, 0, 1, 0, 0],
        ];
        for input in inputs {
            // Inputs in the order (0,1), (0,2), (1,2), (0,3), (1,3), (2,3).
            let values: Vec<_> = input.iter().map(|&n| q(n, 5)).collect();
            let cay = program.eval(&values);
            let entry = |i: usize, j: usize| match i.cmp(&j) {
                core::cmp::Ordering::Less => values[Program::input_index(i, j)].clone(),
                core::cmp::Ordering::Greater => -values[Program::input_index(j, i)].clone(),
                core::cmp::Ordering::Equal => BigRational::zero(),
            };
            for i in 0..4 {
                for j in 0..4 {
                    // ((I + C)·Cay)[i][j] against (I − C)[i][j]; Cay column-major.
                    let mut left = cay[j * 4 + i].clone();
                    for k in 0..4 {
                        left += entry(i, k) * cay[j * 4 + k].clone();
                    }
                    let right = if i == j {
                        BigRational::one()
                    } else {
                        -entry(i, j)
                    };
                    assert_eq!(left, right, "input {input:?}, entry ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn operation_count() {
        assert_eq!(
            program().counts(),
            OpCounts {
                add: 60,
                mul: 42,
                neg: 2,
                div: 2
            }
        );
    }
}
