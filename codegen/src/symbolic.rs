//! Derivation of the Cayley programs with Symbolica (feature `symbolica`).
//!
//! `Cay(C) = (I − C)(I + C)⁻¹ = 2(I + C)⁻¹ − I = 2·adj(I + C)/det(I + C) − I`. The derivation:
//!
//! 1. **Exact polynomials.** Only the `T(T−1)/2` entries of `C` above the diagonal are symbols
//!    `c_k` (numbered as the [`Program`] inputs); the entries below are their negatives.
//!    `det(I + C)` and the adjugate are integer polynomials in the `c_k`, computed with
//!    Symbolica's multivariate polynomials by a Laplace expansion whose minors are shared
//!    between the determinant and all cofactors (see `polys`). No generic matrix inversion over
//!    `Q(c)` is involved.
//! 2. **Skew structure.** `adj(I + C)ᵀ = adj((I + C)ᵀ) = adj(I − C)`: entry `(j, i)` is entry
//!    `(i, j)` at `−c`, i.e. `E − O` where `E + O` is entry `(i, j)` split into its even- and
//!    odd-degree parts. Only `E` and `O` for `i ≤ j` are derived (`O = 0` on the diagonal, and
//!    `det(I + C)` is even too); two additions per pair give both entries.
//! 3. **Optimised evaluation.** Symbolica's evaluator (`evaluator_multiple`, with its default
//!    Horner schemes and common-subexpression elimination, on one core) is built over
//!    `det`, the `E` and the `O`, and its exported instruction list is rewritten as binary SSA
//!    steps (see `translate`, `ssa`).
//! 4. **One division.** `s = 2·(1/det)`, then `Cay[i, j] = (E + O)·s`, `Cay[j, i] = (E − O)·s`
//!    and `Cay[i, i] = E·s − 1`.
//!
//! The result is checked against numbers only (exact rationals, in the crate's tests), never
//! against another symbolic computation.

mod polys;
mod ssa;
mod translate;

use core::fmt;

use num_rational::BigRational;
use symbolica::atom::Atom;
use symbolica::atom::AtomCore;

use crate::{Program, Value};
use ssa::Ssa;

/// The Symbolica version the committed programs were derived with (pinned in `Cargo.toml`).
pub const SYMBOLICA_VERSION: &str = "3.0.0";

/// A derivation that failed: Symbolica produced something this translation does not handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeriveError(pub String);

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeriveError {}

/// Derives the straight-line program for `Cay(C)`, `C` skew of size `t ≥ 2` (see the module docs).
///
/// Runs Symbolica single-threaded. Deterministic: the same `t` gives the same program.
///
/// # Errors
/// [`DeriveError`] if `t < 2`, or if Symbolica's evaluator cannot be translated.
pub fn derive(t: usize) -> Result<Program, DeriveError> {
    if !(2..=32).contains(&t) {
        return Err(DeriveError(format!("T = {t} is out of range 2..=32")));
    }
    let variables = polys::variables(t);
    let derived = polys::derive(t, &variables);
    let expressions: Vec<Atom> = core::iter::once(&derived.det)
        .chain(&derived.even)
        .chain(&derived.odd)
        .map(|p| p.to_expression())
        .collect();
    let evaluator = Atom::evaluator_multiple(&expressions, &polys::atoms(&variables))
        .cores(1)
        .build()
        .map_err(|e| DeriveError(format!("building the evaluator: {e}")))?;
    let mut ssa = Ssa::default();
    let values = translate::translate(&evaluator.export_instructions(), &mut ssa)?;
    let (det, rest) = values.split_first().expect("det is the first output");
    let (even, odd) = rest.split_at(derived.even.len());

    let two = Value::Const(BigRational::from_integer(2.into()));
    let recip = ssa.recip(det.clone());
    let scale = ssa.mul(two, recip);
    let mut outputs = vec![Value::Const(BigRational::from_integer(0.into())); t * t];
    let mut k = 0;
    for j in 0..t {
        for i in 0..=j {
            let e = even[k].clone();
            if i == j {
                let scaled = ssa.mul(e, scale.clone());
                let one = Value::Const(BigRational::from_integer(1.into()));
                outputs[j * t + j] = ssa.sub(scaled, one);
            } else {
                let o = odd[k].clone();
                let upper = ssa.add(e.clone(), o.clone());
                let lower = ssa.sub(e, o);
                outputs[j * t + i] = ssa.mul(upper, scale.clone());
                outputs[i * t + j] = ssa.mul(lower, scale.clone());
            }
            k += 1;
        }
    }
    let program = ssa
        .finish(t, outputs)
        .map_err(|e| DeriveError(format!("inconsistent program: {e}")))?;
    match program.counts().div {
        1 => Ok(program),
        n => Err(DeriveError(format!("{n} divisions instead of one"))),
    }
}
