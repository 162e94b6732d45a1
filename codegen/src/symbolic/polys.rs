//! `det(I + C)` and the adjugate of `I + C` as exact integer polynomials in the upper entries of `C`.
//!
//! `I + C` has `1` on the diagonal, `c_k` above it and `−c_k` below it, so every entry is `±1`
//! times a monomial. Its minors are expanded along their first row (Laplace), memoised on the
//! pair (row set, column set): `det(I + C)` and all its cofactors share their smaller minors, and
//! each expansion step is a multiplication by a monomial.

use std::collections::HashMap;
use std::sync::Arc;

use symbolica::atom::{Atom, Symbol};
use symbolica::domains::integer::{Integer, IntegerRing, Z};
use symbolica::poly::PolyVariable;
use symbolica::poly::polynomial::MultivariatePolynomial;
use symbolica::symbol;

use crate::program::Program;

/// A polynomial with integer coefficients in the `T(T−1)/2` upper entries of `C`.
pub(super) type Poly = MultivariatePolynomial<IntegerRing, u16>;

/// The variables `c0, c1, …`: input `k` of a [`Program`] is `c{k}`.
pub(super) fn variables(t: usize) -> Vec<Symbol> {
    (0..t * (t - 1) / 2)
        .map(|k| symbol!(format!("geomattn_cayley::c{k}").as_str()))
        .collect()
}

/// The variables as atoms, the parameters of an evaluator.
pub(super) fn atoms(variables: &[Symbol]) -> Vec<Atom> {
    variables.iter().map(|&v| Atom::var(v)).collect()
}

/// `det(I + C)` and the even and odd parts of `adj(I + C)[i, j]` for `i ≤ j`, column by column
/// over the upper triangle (`(0,0), (0,1), (1,1), (0,2), …`).
pub(super) struct Derived {
    /// `det(I + C)`.
    pub det: Poly,
    /// Even-degree parts of the upper adjugate entries.
    pub even: Vec<Poly>,
    /// Odd-degree parts of the upper adjugate entries (zero on the diagonal).
    pub odd: Vec<Poly>,
}

/// Minors of `I + C`, memoised.
struct Minors {
    t: usize,
    one: Poly,
    memo: HashMap<(u32, u32), Poly>,
}

impl Minors {
    /// The entry `(I + C)[i, j]` as `(sign, variable)`, `None` for the diagonal `1`.
    fn entry(i: usize, j: usize) -> (i64, Option<usize>) {
        match i.cmp(&j) {
            core::cmp::Ordering::Equal => (1, None),
            core::cmp::Ordering::Less => (1, Some(Program::input_index(i, j))),
            core::cmp::Ordering::Greater => (-1, Some(Program::input_index(j, i))),
        }
    }

    /// The determinant of the submatrix on the rows and columns set in the two bit masks.
    fn det(&mut self, rows: u32, cols: u32) -> Poly {
        if rows == 0 {
            return self.one.clone();
        }
        if let Some(known) = self.memo.get(&(rows, cols)) {
            return known.clone();
        }
        let r = rows.trailing_zeros() as usize;
        let mut sum = self.one.zero();
        let columns = (0..self.t).filter(|s| cols & (1 << s) != 0);
        for (position, s) in columns.enumerate() {
            let minor = self.det(rows & !(1 << r), cols & !(1 << s));
            let (sign, variable) = Self::entry(r, s);
            let sign = if position % 2 == 0 { sign } else { -sign };
            let mut exponents = vec![0u16; self.one.nvars()];
            if let Some(v) = variable {
                exponents[v] = 1;
            }
            sum = sum + minor.mul_monomial(&Integer::from(sign), &exponents);
        }
        self.memo.insert((rows, cols), sum.clone());
        sum
    }
}

/// The part of `p` whose terms have even (`parity = 0`) or odd (`parity = 1`) total degree.
fn degree_part(p: &Poly, parity: u32) -> Poly {
    let mut part = p.zero();
    for term in p {
        let degree: u32 = term.exponents.iter().map(|&e| u32::from(e)).sum();
        if degree % 2 == parity {
            part.append_monomial(term.coefficient.clone(), term.exponents);
        }
    }
    part
}

/// Derives `det(I + C)` and the upper adjugate entries of `I + C` for a `T×T` skew `C`.
pub(super) fn derive(t: usize, variables: &[Symbol]) -> Derived {
    let map: Arc<Vec<PolyVariable>> = Arc::new(variables.iter().map(|&v| v.into()).collect());
    let one = Poly::new(&Z, None, map).one();
    let mut minors = Minors {
        t,
        one,
        memo: HashMap::new(),
    };
    let all = (1u32 << t) - 1;
    let det = minors.det(all, all);
    let (mut even, mut odd) = (Vec::new(), Vec::new());
    for j in 0..t {
        for i in 0..=j {
            // adj[i, j] = (−1)^(i+j) · det of I + C without row j and column i.
            let mut entry = minors.det(all & !(1 << j), all & !(1 << i));
            if (i + j) % 2 == 1 {
                entry = -entry;
            }
            even.push(degree_part(&entry, 0));
            odd.push(degree_part(&entry, 1));
        }
    }
    Derived { det, even, odd }
}
