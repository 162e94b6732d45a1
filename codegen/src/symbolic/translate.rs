//! Symbolica's exported evaluator instructions, rewritten as binary SSA steps.
//!
//! The instruction list assigns to storage slots (parameters, constants, temporaries and outputs,
//! the output slots doubling as scratch space); n-ary `Add` and `Mul` are split into binary steps,
//! `Pow` with a positive exponent into multiplications, and `Assign` only renames. Each slot is
//! tracked to the [`Expr`] it holds last, so the SSA form follows from the instruction order.

use std::collections::HashMap;

use num_rational::BigRational;
use num_traits::Zero;
use symbolica::domains::float::Complex;
use symbolica::domains::rational::Rational;
use symbolica::evaluate::{ExportedInstructions, Instruction, Slot};

use super::DeriveError;
use crate::builder::{Builder, Expr};

/// The exact rational value of a Symbolica constant, which must be real.
fn constant(c: &Complex<Rational>) -> Result<BigRational, DeriveError> {
    let exact = |r: &Rational| -> Option<BigRational> {
        Some(BigRational::new(
            r.numerator_ref().to_string().parse().ok()?,
            r.denominator_ref().to_string().parse().ok()?,
        ))
    };
    match (exact(&c.re), exact(&c.im)) {
        (Some(re), Some(im)) if im.is_zero() => Ok(re),
        _ => Err(DeriveError::NonRealConstant {
            constant: c.to_string(),
        }),
    }
}

/// Appends the instructions to `b` and returns the values of the outputs.
pub(super) fn translate(
    exported: &ExportedInstructions<Complex<Rational>>,
    b: &mut Builder,
) -> Result<Vec<Expr>, DeriveError> {
    if !exported.sub_evaluators.is_empty() {
        return Err(DeriveError::SubEvaluators {
            count: exported.sub_evaluators.len(),
        });
    }
    let constants = exported
        .constants
        .iter()
        .map(constant)
        .collect::<Result<Vec<_>, _>>()?;
    let mut slots: HashMap<Slot, Expr> = HashMap::new();
    let read = |slots: &HashMap<Slot, Expr>, slot: &Slot| match slot {
        Slot::Param(k) => Ok(Expr::input(*k)),
        Slot::Const(k) => Ok(Expr::constant(constants[*k].clone())),
        other => slots
            .get(other)
            .cloned()
            .ok_or_else(|| DeriveError::UnwrittenSlot {
                slot: other.to_string(),
            }),
    };
    for instruction in &exported.instructions {
        let (target, value) = match instruction {
            Instruction::Add(target, args, _) | Instruction::Mul(target, args, _) => {
                let args = args
                    .iter()
                    .map(|a| read(&slots, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let is_add = matches!(instruction, Instruction::Add(..));
                (target, fold(b, args, is_add))
            }
            Instruction::Pow(target, base, exponent, _) => {
                let base = read(&slots, base)?;
                (target, power(b, &base, *exponent)?)
            }
            Instruction::Assign(target, source) => (target, read(&slots, source)?),
            other => {
                return Err(DeriveError::UnsupportedInstruction {
                    instruction: other.to_string(),
                });
            }
        };
        slots.insert(*target, value);
    }
    (0..exported.output_count)
        .map(|k| read(&slots, &Slot::Out(k)))
        .collect()
}

/// The sum (`is_add`) or product of `args`: the constants combined first, then a chain of binary
/// steps over the other operands, in order.
fn fold(b: &mut Builder, args: Vec<Expr>, is_add: bool) -> Expr {
    let (constants, others): (Vec<_>, Vec<_>) =
        args.into_iter().partition(|e| e.as_const().is_some());
    let combine = |b: &mut Builder, x: &Expr, y: &Expr| {
        if is_add { b.add(x, y) } else { b.mul(x, y) }
    };
    let constant = constants
        .iter()
        .fold(Expr::int(i64::from(!is_add)), |acc, c| combine(b, &acc, c));
    let mut others = others.into_iter();
    match others.next() {
        None => constant,
        Some(first) => {
            let chain = others.fold(first, |acc, e| combine(b, &acc, &e));
            combine(b, &chain, &constant)
        }
    }
}

/// `base^exponent` by repeated squaring; `−1` is the reciprocal.
fn power(b: &mut Builder, base: &Expr, exponent: i64) -> Result<Expr, DeriveError> {
    if exponent == -1 {
        return Ok(b.div(&Expr::int(1), base));
    }
    if exponent < 1 {
        return Err(DeriveError::UnsupportedExponent { exponent });
    }
    let (mut result, mut square, mut e) = (None, base.clone(), exponent);
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => square.clone(),
                Some(r) => b.mul(&r, &square),
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        square = b.mul(&square, &square);
    }
    Ok(result.expect("exponent ≥ 1"))
}
