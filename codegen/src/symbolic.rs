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
//!    steps (see `translate`) by the crate's one [`Builder`], which shares repeated steps,
//!    folds constants and carries signs for free.
//! 4. **One division.** `s = 2·(1/det)`, then `Cay[i, j] = (E + O)·s`, `Cay[j, i] = (E − O)·s`
//!    and `Cay[i, i] = E·s − 1`.
//!
//! The result is checked against numbers only (exact rationals, in the crate's tests), never
//! against another symbolic computation.

mod polys;
mod translate;

use symbolica::atom::Atom;
use symbolica::atom::AtomCore;

use crate::builder::{Builder, Expr};
use crate::program::Program;

/// The Symbolica version the committed programs were derived with (pinned in `Cargo.toml`).
pub const SYMBOLICA_VERSION: &str = "3.0.0";

/// A derivation that failed: a size out of range, or Symbolica produced something this
/// translation does not handle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeriveError {
    /// `T` is not in `2..=32` (the minors are indexed by 32-bit masks).
    #[error("T = {size} is out of range 2..=32")]
    SizeOutOfRange {
        /// The `T` asked for.
        size: usize,
    },
    /// Symbolica could not build the evaluator.
    #[error("building the evaluator: {message}")]
    Evaluator {
        /// Symbolica's message.
        message: String,
    },
    /// The evaluator has sub-evaluators, which the translation does not inline.
    #[error("unexpected sub-evaluators ({count})")]
    SubEvaluators {
        /// How many.
        count: usize,
    },
    /// A constant that is not a real rational number.
    #[error("constant {constant} is not a real rational")]
    NonRealConstant {
        /// The constant, as Symbolica prints it.
        constant: String,
    },
    /// An instruction reads a slot no earlier instruction wrote.
    #[error("slot {slot} read before it is written")]
    UnwrittenSlot {
        /// The slot, as Symbolica prints it.
        slot: String,
    },
    /// An instruction other than `Add`, `Mul`, `Pow` and `Assign`.
    #[error("unsupported instruction {instruction}")]
    UnsupportedInstruction {
        /// The instruction, as Symbolica prints it.
        instruction: String,
    },
    /// A power other than a positive integer or `−1`.
    #[error("unsupported exponent {exponent}")]
    UnsupportedExponent {
        /// The exponent.
        exponent: i64,
    },
    /// The program does not have exactly one division.
    #[error("{count} divisions instead of one")]
    Divisions {
        /// How many it has.
        count: usize,
    },
}

/// Derives the straight-line program for `Cay(C)`, `C` skew of size `t ≥ 2` (see the module docs).
///
/// Runs Symbolica single-threaded. Deterministic: the same `t` gives the same program.
///
/// # Errors
/// [`DeriveError`] if `t < 2`, or if Symbolica's evaluator cannot be translated.
pub fn derive(t: usize) -> Result<Program, DeriveError> {
    if !(2..=32).contains(&t) {
        return Err(DeriveError::SizeOutOfRange { size: t });
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
        .map_err(|e| DeriveError::Evaluator {
            message: e.to_string(),
        })?;
    let mut b = Builder::new();
    let values = translate::translate(&evaluator.export_instructions(), &mut b)?;
    let (det, rest) = values.split_first().expect("det is the first output");
    let (even, odd) = rest.split_at(derived.even.len());

    let recip = b.div(&Expr::int(1), det);
    let scale = b.mul(&Expr::int(2), &recip);
    let mut outputs = vec![Expr::int(0); t * t];
    let mut k = 0;
    for j in 0..t {
        for i in 0..=j {
            let e = &even[k];
            if i == j {
                let scaled = b.mul(e, &scale);
                outputs[j * t + j] = b.sub(&scaled, &Expr::int(1));
            } else {
                let o = &odd[k];
                let upper = b.add(e, o);
                let lower = b.sub(e, o);
                outputs[j * t + i] = b.mul(&upper, &scale);
                outputs[i * t + j] = b.mul(&lower, &scale);
            }
            k += 1;
        }
    }
    let program = b.finish(t, &outputs);
    match program.counts().div {
        1 => Ok(program),
        count => Err(DeriveError::Divisions { count }),
    }
}
