//! Building a [`Program`] from expressions with signs carried for free, constants folded and
//! common subexpressions shared: the one place where programs are simplified, used by the
//! elimination generator ([`crate::elimination`]) and by the translation of Symbolica's
//! evaluator (feature `symbolica`).
//!
//! An [`Expr`] is an operand with a sign: negating one costs nothing, and the sign is folded into
//! the next addition (`a + (−b)` is the step `a − b`) or multiplication (`(−a)·b = −(a·b)`).
//! Constants are folded (`x·1`, `x·0`, `x + 0`, `c₁ + c₂`, …); identical steps (up to the order of
//! the operands of `+` and `·`) are emitted once; steps no output needs are dropped by
//! [`Builder::finish`]. A sign that survives to an output costs one negation there.
//!
//! ```
//! use geomattn_codegen::builder::{Builder, Expr};
//!
//! // T = 2: with c = C[0,1], Cay(C) = [(1 − c²)/d, −2c/d; 2c/d, (1 − c²)/d], d = 1 + c².
//! let mut b = Builder::new();
//! let c = Expr::input(0);
//! let c2 = b.mul(&c, &c);
//! let d = b.add(&Expr::int(1), &c2);
//! let s = b.div(&Expr::int(1), &d);
//! let numerator = b.sub(&Expr::int(1), &c2);
//! let diagonal = b.mul(&numerator, &s);
//! let twice = b.mul(&Expr::int(2), &c);
//! let lower = b.mul(&twice, &s);
//! let program = b.finish(2, &[diagonal.clone(), lower.clone(), lower.neg(), diagonal]);
//! // c², 1 + c², 1/d, 1 − c², (1 − c²)/d, 2c, 2c/d and one negation for the output −2c/d.
//! assert_eq!(program.counts().total(), 8);
//! let q = |n: i64, d: i64| num_rational::BigRational::new(n.into(), d.into());
//! assert_eq!(program.eval(&[q(-1, 2)]), [q(3, 5), q(-4, 5), q(4, 5), q(3, 5)]);
//! ```

use std::collections::HashMap;

use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

use crate::program::Op;
use crate::program::Program;
use crate::program::Value;

/// An operand with a sign. Constants always carry their sign in the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    value: Value,
    negated: bool,
}

impl Expr {
    /// Input `k` of the program.
    pub fn input(k: usize) -> Self {
        Self {
            value: Value::Input(k),
            negated: false,
        }
    }

    fn of(value: Value) -> Self {
        Self {
            value,
            negated: false,
        }
    }

    /// The integer constant `n`.
    pub fn int(n: i64) -> Self {
        Self::constant(BigRational::from_integer(n.into()))
    }

    /// The constant `c`.
    pub fn constant(c: BigRational) -> Self {
        Self {
            value: Value::Const(c),
            negated: false,
        }
    }

    /// The value, if `self` is a constant.
    pub fn as_const(&self) -> Option<&BigRational> {
        match &self.value {
            Value::Const(c) => Some(c),
            _ => None,
        }
    }

    /// `−self`, free.
    #[must_use]
    pub fn neg(&self) -> Self {
        match self.as_const() {
            Some(c) => Self::constant(-c),
            None => Self {
                value: self.value.clone(),
                negated: !self.negated,
            },
        }
    }
}

/// Steps under construction, with a table of those already emitted.
#[derive(Debug, Default)]
pub struct Builder {
    steps: Vec<Op>,
    seen: HashMap<Op, usize>,
}

impl Builder {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, op: Op) -> Value {
        let op = match op {
            Op::Add(a, b) if key(&b) < key(&a) => Op::Add(b, a),
            Op::Mul(a, b) if key(&b) < key(&a) => Op::Mul(b, a),
            op => op,
        };
        let next = self.steps.len();
        let k = *self.seen.entry(op.clone()).or_insert(next);
        if k == next {
            self.steps.push(op);
        }
        Value::Step(k)
    }

    /// `a + b`.
    pub fn add(&mut self, a: &Expr, b: &Expr) -> Expr {
        match (a.as_const(), b.as_const()) {
            (Some(x), Some(y)) => return Expr::constant(x + y),
            (Some(x), _) if x.is_zero() => return b.clone(),
            (_, Some(y)) if y.is_zero() => return a.clone(),
            (Some(x), None) => return self.add_constant(b, x.clone()),
            (None, Some(y)) => return self.add_constant(a, y.clone()),
            _ => {}
        }
        if a.value == b.value && a.negated != b.negated {
            // x − x: e.g. (C₀ⱼ + Cⱼ₀) for skew C, which Gram–Schmidt's first products meet.
            return Expr::int(0);
        }
        self.signed_add(unsigned(a), unsigned(b))
    }

    /// `a + b` with the signs chosen into `+` or `−` (constants are made positive first).
    fn signed_add(&mut self, a: Expr, b: Expr) -> Expr {
        let (value, negated) = match (a.negated, b.negated) {
            (false, false) => (self.push(Op::Add(a.value, b.value)), false),
            (false, true) => (self.push(Op::Sub(a.value, b.value)), false),
            (true, false) => (self.push(Op::Sub(b.value, a.value)), false),
            (true, true) => (self.push(Op::Add(a.value, b.value)), true),
        };
        Expr { value, negated }
    }

    /// `e + k`, folding `k` into a constant term of `e` (`(2 − x) − 1` is `1 − x`).
    fn add_constant(&mut self, e: &Expr, k: BigRational) -> Expr {
        let split = match (&e.value, self.step(&e.value)) {
            (_, Some(Op::Add(x, Value::Const(c)) | Op::Add(Value::Const(c), x))) => {
                Some((Expr::of(x.clone()), c.clone()))
            }
            (_, Some(Op::Sub(Value::Const(c), x))) => Some((Expr::of(x.clone()).neg(), c.clone())),
            (_, Some(Op::Sub(x, Value::Const(c)))) => Some((Expr::of(x.clone()), -c.clone())),
            _ => None,
        };
        match split {
            Some((rest, c)) => {
                let (rest, c) = if e.negated {
                    (rest.neg(), -c)
                } else {
                    (rest, c)
                };
                self.add(&rest, &Expr::constant(c + k))
            }
            None => {
                let (a, b) = (unsigned(e), unsigned(&Expr::constant(k)));
                self.signed_add(a, b)
            }
        }
    }

    fn step(&self, v: &Value) -> Option<&Op> {
        match v {
            Value::Step(k) => self.steps.get(*k),
            _ => None,
        }
    }

    /// `Σ terms`, left to right, without the pairs `x` and `−x` wherever they stand in the list
    /// (`add` folds `x − x` only when the two meet): the first Gram–Schmidt products of `I + C`
    /// hold `C₀ⱼ·1` and `Cⱼ₀·1` apart.
    pub fn sum(&mut self, terms: impl IntoIterator<Item = Expr>) -> Expr {
        let mut kept: Vec<Expr> = Vec::new();
        for term in terms {
            let opposite = term.neg();
            match kept.iter().position(|k| *k == opposite) {
                Some(at) => {
                    kept.remove(at);
                }
                None => kept.push(term),
            }
        }
        kept.iter()
            .fold(Expr::int(0), |sum, term| self.add(&sum, term))
    }

    /// `a − b`.
    pub fn sub(&mut self, a: &Expr, b: &Expr) -> Expr {
        self.add(a, &b.neg())
    }

    /// `a · b`.
    pub fn mul(&mut self, a: &Expr, b: &Expr) -> Expr {
        match (a.as_const(), b.as_const()) {
            (Some(x), Some(y)) => return Expr::constant(x * y),
            (Some(x), _) if x.is_zero() => return Expr::int(0),
            (_, Some(y)) if y.is_zero() => return Expr::int(0),
            (Some(x), _) if x.abs().is_one() => return sign_of(x, b),
            (_, Some(y)) if y.abs().is_one() => return sign_of(y, a),
            _ => {}
        }
        let (a, b) = (unsigned(a), unsigned(b));
        Expr {
            value: self.push(Op::Mul(a.value, b.value)),
            negated: a.negated != b.negated,
        }
    }

    /// `a / b`; a constant numerator other than `±1` is a division step, `±1` a reciprocal.
    ///
    /// # Panics
    /// If `b` is the constant zero.
    pub fn div(&mut self, a: &Expr, b: &Expr) -> Expr {
        if let Some(y) = b.as_const() {
            assert!(!y.is_zero(), "division by the constant zero");
            return self.mul(a, &Expr::constant(y.recip()));
        }
        if a.as_const().is_some_and(Zero::is_zero) {
            return Expr::int(0);
        }
        let (a, b) = (unsigned(a), unsigned(b));
        let value = match &a.value {
            Value::Const(x) if x.is_one() => self.push(Op::Recip(b.value)),
            _ => self.push(Op::Div(a.value, b.value)),
        };
        Expr {
            value,
            negated: a.negated != b.negated,
        }
    }

    /// The program for `T = size` with the given `size²` outputs (column-major), without the steps
    /// no output needs.
    ///
    /// # Panics
    /// If there are not `size²` outputs (a bug of the caller).
    pub fn finish(mut self, size: usize, outputs: &[Expr]) -> Program {
        let outputs: Vec<Value> = outputs
            .iter()
            .map(|e| {
                if e.negated {
                    self.push(Op::Neg(e.value.clone()))
                } else {
                    e.value.clone()
                }
            })
            .collect();
        let (steps, outputs) = prune(self.steps, outputs);
        Program::new(size, steps, outputs).expect("the builder makes consistent programs")
    }
}

/// Keeps only the steps the outputs need, renumbered.
fn prune(steps: Vec<Op>, outputs: Vec<Value>) -> (Vec<Op>, Vec<Value>) {
    let mut live = vec![false; steps.len()];
    let mark = |live: &mut [bool], v: &Value| {
        if let Value::Step(k) = v {
            live[*k] = true;
        }
    };
    for v in &outputs {
        mark(&mut live, v);
    }
    for k in (0..steps.len()).rev() {
        if live[k] {
            for v in steps[k].operands() {
                mark(&mut live, v);
            }
        }
    }
    let mut renumber = vec![usize::MAX; steps.len()];
    let mut kept = Vec::new();
    let map = |renumber: &[usize], v: &Value| match v {
        Value::Step(k) => Value::Step(renumber[*k]),
        other => other.clone(),
    };
    for (k, op) in steps.into_iter().enumerate() {
        if live[k] {
            renumber[k] = kept.len();
            kept.push(match op {
                Op::Add(a, b) => Op::Add(map(&renumber, &a), map(&renumber, &b)),
                Op::Sub(a, b) => Op::Sub(map(&renumber, &a), map(&renumber, &b)),
                Op::Mul(a, b) => Op::Mul(map(&renumber, &a), map(&renumber, &b)),
                Op::Div(a, b) => Op::Div(map(&renumber, &a), map(&renumber, &b)),
                Op::Neg(a) => Op::Neg(map(&renumber, &a)),
                Op::Recip(a) => Op::Recip(map(&renumber, &a)),
            });
        }
    }
    let outputs = outputs.iter().map(|v| map(&renumber, v)).collect();
    (kept, outputs)
}

/// A constant `c` becomes `|c|` with the sign moved out.
fn unsigned(e: &Expr) -> Expr {
    match e.as_const() {
        Some(c) if c.is_negative() => Expr {
            value: Value::Const(-c),
            negated: !e.negated,
        },
        _ => e.clone(),
    }
}

/// `e` or `−e` by the sign of the constant `c`.
fn sign_of(c: &BigRational, e: &Expr) -> Expr {
    if c.is_negative() { e.neg() } else { e.clone() }
}

/// An order on operands so that `a + b` and `b + a` are the same step.
fn key(v: &Value) -> (u8, usize, String) {
    match v {
        Value::Input(k) => (0, *k, String::new()),
        Value::Step(k) => (1, *k, String::new()),
        Value::Const(c) => (2, 0, c.to_string()),
    }
}

/// `I + C` as expressions, row by row: the inputs above the diagonal, their negatives below, 1 on
/// it. What both the elimination and the Gram–Schmidt programs start from.
pub fn identity_plus_skew(t: usize) -> Vec<Vec<Expr>> {
    (0..t)
        .map(|i| {
            (0..t)
                .map(|j| match i.cmp(&j) {
                    core::cmp::Ordering::Less => Expr::input(Program::input_index(i, j)),
                    core::cmp::Ordering::Greater => Expr::input(Program::input_index(j, i)).neg(),
                    core::cmp::Ordering::Equal => Expr::int(1),
                })
                .collect()
        })
        .collect()
}

/// The program whose outputs are `Cay(C) = X − I`, column-major, for `X = 2(I + C)⁻¹` given row
/// by row.
pub fn finish_cayley(mut b: Builder, x: &[Vec<Expr>]) -> Program {
    let t = x.len();
    let outputs: Vec<Expr> = (0..t * t)
        .map(|n| {
            let (i, j) = (n % t, n / t);
            if i == j {
                b.sub(&x[i][j], &Expr::int(1))
            } else {
                x[i][j].clone()
            }
        })
        .collect();
    b.finish(t, &outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_minus_itself_is_zero() {
        let mut b = Builder::new();
        let (x, y) = (Expr::input(0), Expr::input(1));
        assert_eq!(b.sub(&x, &x), Expr::int(0));
        assert_eq!(b.add(&x.neg(), &x), Expr::int(0));
        let xy = b.mul(&x, &y);
        let yx = b.mul(&y, &x);
        assert_eq!(b.sub(&xy, &yx), Expr::int(0));
        // x + x is not folded to zero.
        assert_ne!(b.add(&x, &x), Expr::int(0));
    }

    #[test]
    fn folds_signs_constants_and_repeats() {
        let mut b = Builder::new();
        let (x, y) = (Expr::input(0), Expr::input(2));
        let xy = b.mul(&x.neg(), &y);
        assert_eq!(b.mul(&y, &x.neg()), xy);
        let one = Expr::int(1);
        assert_eq!(b.mul(&one, &x), x);
        assert_eq!(b.add(&Expr::int(0), &y), y);
        let d = b.sub(&one, &xy); // 1 + x·y
        let out = b.add(&d, &Expr::int(-2)); // x·y − 1
        let mut outputs = vec![d, out, xy, Expr::int(3)];
        outputs.resize(9, Expr::int(0));
        let program = b.finish(3, &outputs);
        let counts = program.counts();
        assert_eq!((counts.mul, counts.add, counts.neg), (1, 2, 1));
        let r = |n: i64| BigRational::from_integer(n.into());
        let values = program.eval(&[r(2), r(9), r(3)]);
        assert_eq!(values[..4], [r(7), r(5), r(-6), r(3)]);
    }

    /// The program computing `outputs`, padded with zeros to the four of `T = 2`.
    /// A size-2 program with the given first outputs, the rest zero.
    fn program(b: Builder, outputs: &[Expr]) -> Program {
        sized(2, b, outputs)
    }

    /// A program of size `t` (inputs `i0 …`) with the given first outputs, the rest zero.
    fn sized(t: usize, b: Builder, outputs: &[Expr]) -> Program {
        let mut outputs = outputs.to_vec();
        outputs.resize(t * t, Expr::int(0));
        b.finish(t, &outputs)
    }

    #[test]
    fn shares_steps_up_to_operand_order() {
        let mut b = Builder::new();
        let (x, y) = (Expr::input(0), Expr::input(0).neg());
        let s1 = b.add(&x, &Expr::constant(BigRational::new(1.into(), 3.into())));
        let s2 = b.add(&Expr::constant(BigRational::new(1.into(), 3.into())), &x);
        assert_eq!(s1, s2);
        let p1 = b.mul(&s1, &x);
        let p2 = b.mul(&x, &s2);
        assert_eq!(p1, p2);
        assert_eq!(b.mul(&y, &s1), p1.neg(), "a sign is not a new step");
        let program = program(b, &[p1]);
        assert_eq!(program.steps().len(), 2);
    }

    #[test]
    fn folds_negations_into_additions_and_outputs() {
        let mut b = Builder::new();
        let (x, y) = (Expr::input(0), Expr::input(1));
        let minus = b.add(&x, &y.neg());
        let both = b.add(&x.neg(), &y.neg());
        assert_eq!(b.sub(&x.neg(), &y), both);
        let product = b.mul(&x.neg(), &y.neg());
        assert_eq!(b.mul(&x, &y), product, "(−x)(−y) is x·y");
        let program = sized(3, b, &[minus, both, product]);
        let text = program.to_text(&[]);
        assert!(text.contains("t0 = i0 - i1\n"), "{text}");
        assert!(text.contains("t1 = i0 + i1\n"), "{text}");
        assert!(text.contains("neg t1\n"), "{text}");
        assert_eq!(program.counts().neg, 1, "{text}");
    }

    #[test]
    fn folds_constants_into_constant_terms() {
        let mut b = Builder::new();
        let x = Expr::input(0);
        let two_minus_x = b.sub(&Expr::int(2), &x);
        let one_minus_x = b.sub(&two_minus_x, &Expr::int(1));
        let back = b.add(&one_minus_x, &x.neg().neg());
        let program = program(b, &[one_minus_x, back]);
        let text = program.to_text(&[]);
        assert_eq!(program.steps().len(), 2, "{text}");
        assert!(
            text.contains("t0 = 1 - i0\n"),
            "the unused 2 − x is pruned: {text}"
        );
    }

    #[test]
    fn divides_by_reciprocals_and_constants_by_products() {
        let mut b = Builder::new();
        let x = Expr::input(0);
        let recip = b.div(&Expr::int(-1), &x);
        let quotient = b.div(&Expr::int(3), &x);
        let half = b.div(&x, &Expr::int(2));
        let zero = b.div(&Expr::int(0), &x);
        assert_eq!(zero, Expr::int(0));
        let program = program(b, &[recip, quotient, half]);
        assert_eq!(
            program.to_text(&[]),
            "size 2\nt0 = recip i0\nt1 = 3 / i0\nt2 = i0 * 1/2\nt3 = neg t0\n\
             out 0 = t3\nout 1 = t1\nout 2 = t2\nout 3 = 0\n",
            "the sign of −1/x costs a negation at the output only"
        );
    }
}
