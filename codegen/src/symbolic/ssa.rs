//! Building a [`Program`]'s steps one binary operation at a time, with local clean-ups.
//!
//! Every step is hash-consed (an identical step is never emitted twice), constants are folded,
//! `x·1`, `x·(−1)`, `x + 0` and double negations are simplified, and a negation feeding an
//! addition or subtraction is folded into it (`a + (−b)` becomes `a − b`). Negations made useless
//! by that folding, and any other step no output needs, are dropped by [`Ssa::finish`].

use std::collections::HashMap;

use num_rational::BigRational;
use num_traits::{One, Zero};

use crate::{Op, ParseError, Program, Value};

/// Steps under construction.
#[derive(Default)]
pub(super) struct Ssa {
    steps: Vec<Op>,
    seen: HashMap<Op, usize>,
}

impl Ssa {
    fn push(&mut self, op: Op) -> Value {
        let swapped = match &op {
            Op::Add(a, b) => Some(Op::Add(b.clone(), a.clone())),
            Op::Mul(a, b) => Some(Op::Mul(b.clone(), a.clone())),
            _ => None,
        };
        let known = [Some(&op), swapped.as_ref()].into_iter().flatten();
        if let Some(&k) = known.filter_map(|op| self.seen.get(op)).next() {
            return Value::Step(k);
        }
        let k = self.steps.len();
        self.seen.insert(op.clone(), k);
        self.steps.push(op);
        Value::Step(k)
    }

    /// `Some(x)` if `v` is a step `−x`.
    fn negated(&self, v: &Value) -> Option<Value> {
        match v {
            Value::Step(k) => match &self.steps[*k] {
                Op::Neg(x) => Some(x.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `a + b`.
    pub(super) fn add(&mut self, a: Value, b: Value) -> Value {
        match (a, b) {
            (Value::Const(x), Value::Const(y)) => Value::Const(x + y),
            (Value::Const(z), v) | (v, Value::Const(z)) if z.is_zero() => v,
            (a, b) => match (self.negated(&a), self.negated(&b)) {
                (_, Some(y)) => self.sub(a, y),
                (Some(x), None) => self.sub(b, x),
                (None, None) => self.push(Op::Add(a, b)),
            },
        }
    }

    /// `a − b`.
    pub(super) fn sub(&mut self, a: Value, b: Value) -> Value {
        match (a, b) {
            (Value::Const(x), Value::Const(y)) => Value::Const(x - y),
            (v, Value::Const(z)) if z.is_zero() => v,
            (Value::Const(z), v) if z.is_zero() => self.neg(v),
            (a, b) => match self.negated(&b) {
                Some(y) => self.add(a, y),
                None => self.push(Op::Sub(a, b)),
            },
        }
    }

    /// `a · b`.
    pub(super) fn mul(&mut self, a: Value, b: Value) -> Value {
        match (a, b) {
            (Value::Const(x), Value::Const(y)) => Value::Const(x * y),
            (Value::Const(z), _) | (_, Value::Const(z)) if z.is_zero() => {
                Value::Const(BigRational::zero())
            }
            (Value::Const(z), v) | (v, Value::Const(z)) if z.is_one() => v,
            (Value::Const(z), v) | (v, Value::Const(z)) if (-z.clone()).is_one() => self.neg(v),
            (Value::Const(z), v) | (v, Value::Const(z)) => self.push(Op::Mul(Value::Const(z), v)),
            (a, b) => self.push(Op::Mul(a, b)),
        }
    }

    /// `−a`.
    pub(super) fn neg(&mut self, a: Value) -> Value {
        match a {
            Value::Const(x) => Value::Const(-x),
            a => match self.negated(&a) {
                Some(x) => x,
                None => self.push(Op::Neg(a)),
            },
        }
    }

    /// `1 / a`.
    pub(super) fn recip(&mut self, a: Value) -> Value {
        match a {
            Value::Const(x) => Value::Const(x.recip()),
            a => self.push(Op::Recip(a)),
        }
    }

    /// The program computing `outputs`, with every step they do not need removed.
    pub(super) fn finish(self, size: usize, outputs: Vec<Value>) -> Result<Program, ParseError> {
        let mut live = vec![false; self.steps.len()];
        let mark = |v: &Value, live: &mut Vec<bool>| {
            if let Value::Step(k) = v {
                live[*k] = true;
            }
        };
        for v in &outputs {
            mark(v, &mut live);
        }
        for k in (0..self.steps.len()).rev() {
            if live[k] {
                for v in self.steps[k].operands() {
                    mark(v, &mut live);
                }
            }
        }
        let mut renumber = vec![usize::MAX; self.steps.len()];
        let mut steps = Vec::new();
        let rename = |v: &Value, renumber: &[usize]| match v {
            Value::Step(k) => Value::Step(renumber[*k]),
            other => other.clone(),
        };
        for (k, op) in self.steps.into_iter().enumerate() {
            if !live[k] {
                continue;
            }
            renumber[k] = steps.len();
            let r = |v: &Value| rename(v, &renumber);
            steps.push(match &op {
                Op::Add(a, b) => Op::Add(r(a), r(b)),
                Op::Sub(a, b) => Op::Sub(r(a), r(b)),
                Op::Mul(a, b) => Op::Mul(r(a), r(b)),
                Op::Div(a, b) => Op::Div(r(a), r(b)),
                Op::Neg(a) => Op::Neg(r(a)),
                Op::Recip(a) => Op::Recip(r(a)),
            });
        }
        let outputs = outputs.iter().map(|v| rename(v, &renumber)).collect();
        Program::new(size, steps, outputs)
    }
}
