//! Symbolica's exported evaluator instructions, rewritten as binary SSA steps.
//!
//! The instruction list assigns to storage slots (parameters, constants, temporaries and outputs,
//! the output slots doubling as scratch space); n-ary `Add` and `Mul` are split into binary steps,
//! `Pow` with a positive exponent into multiplications, and `Assign` only renames. Each slot is
//! tracked to the [`Value`] it holds last, so the SSA form follows from the instruction order.

use std::collections::HashMap;

use num_rational::BigRational;
use num_traits::{One, Zero};
use symbolica::domains::float::Complex;
use symbolica::domains::rational::Rational;
use symbolica::evaluate::{ExportedInstructions, Instruction, Slot};

use super::DeriveError;
use super::ssa::Ssa;
use crate::Value;

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
        _ => Err(DeriveError(format!("constant {c} is not a real rational"))),
    }
}

/// Appends the instructions to `ssa` and returns the values of the outputs.
pub(super) fn translate(
    exported: &ExportedInstructions<Complex<Rational>>,
    ssa: &mut Ssa,
) -> Result<Vec<Value>, DeriveError> {
    if !exported.sub_evaluators.is_empty() {
        return Err(DeriveError("unexpected sub-evaluators".into()));
    }
    let constants = exported
        .constants
        .iter()
        .map(constant)
        .collect::<Result<Vec<_>, _>>()?;
    let mut slots: HashMap<Slot, Value> = HashMap::new();
    let read = |slots: &HashMap<Slot, Value>, slot: &Slot| match slot {
        Slot::Param(k) => Ok(Value::Input(*k)),
        Slot::Const(k) => Ok(Value::Const(constants[*k].clone())),
        other => slots
            .get(other)
            .cloned()
            .ok_or_else(|| DeriveError(format!("slot {other} read before it is written"))),
    };
    for instruction in &exported.instructions {
        let (target, value) = match instruction {
            Instruction::Add(target, args, _) | Instruction::Mul(target, args, _) => {
                let args = args
                    .iter()
                    .map(|a| read(&slots, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let is_add = matches!(instruction, Instruction::Add(..));
                (target, fold(ssa, args, is_add))
            }
            Instruction::Pow(target, base, exponent, _) => {
                let base = read(&slots, base)?;
                (target, power(ssa, base, *exponent)?)
            }
            Instruction::Assign(target, source) => (target, read(&slots, source)?),
            other => return Err(DeriveError(format!("unsupported instruction {other}"))),
        };
        slots.insert(*target, value);
    }
    (0..exported.output_count)
        .map(|k| read(&slots, &Slot::Out(k)))
        .collect()
}

/// The sum (`is_add`) or product of `args`: the constants combined first, then a chain of binary
/// steps over the other operands, in order.
fn fold(ssa: &mut Ssa, args: Vec<Value>, is_add: bool) -> Value {
    let (constants, others): (Vec<_>, Vec<_>) =
        args.into_iter().partition(|v| matches!(v, Value::Const(_)));
    let combine = |ssa: &mut Ssa, a: Value, b: Value| {
        if is_add { ssa.add(a, b) } else { ssa.mul(a, b) }
    };
    let neutral = if is_add {
        BigRational::zero()
    } else {
        BigRational::one()
    };
    let constant = constants
        .into_iter()
        .fold(Value::Const(neutral), |acc, c| combine(ssa, acc, c));
    let mut others = others.into_iter();
    match others.next() {
        None => constant,
        Some(first) => {
            let chain = others.fold(first, |acc, v| combine(ssa, acc, v));
            combine(ssa, chain, constant)
        }
    }
}

/// `base^exponent` by repeated squaring; `−1` is the reciprocal.
fn power(ssa: &mut Ssa, base: Value, exponent: i64) -> Result<Value, DeriveError> {
    if exponent == -1 {
        return Ok(ssa.recip(base));
    }
    if exponent < 1 {
        return Err(DeriveError(format!("unsupported exponent {exponent}")));
    }
    let (mut result, mut square, mut e) = (None, base, exponent);
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => square.clone(),
                Some(r) => ssa.mul(r, square.clone()),
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        square = ssa.mul(square.clone(), square);
    }
    Ok(result.expect("exponent ≥ 1"))
}
