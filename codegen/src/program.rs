//! The straight-line-program IR: entries of `C` above the diagonal in, entries of `Cay(C)` out.
//!
//! Inputs are numbered column by column over the strict upper triangle of `C`:
//! `i0 = C[0,1]`, `i1 = C[0,2]`, `i2 = C[1,2]`, `i3 = C[0,3]`, … (0-based), i.e. input `k` is
//! `C[i,j]` with `k = j(j−1)/2 + i`, `i < j`. Outputs are the `T²` entries of `Cay(C)` in
//! column-major order (output `k` is entry `(k mod T, k div T)`), the storage order of nalgebra.
//!
//! Text form, one item a line (`#` starts a comment line):
//!
//! ```text
//! size 2
//! t0 = i0 * i0
//! t1 = t0 + 1
//! t2 = recip t1
//! ...
//! out 0 = t5
//! ```

use core::fmt;

use num_rational::BigRational;
use num_traits::{One, Zero};

/// An operand: an input, an exact rational constant, or the result of an earlier step.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// Input `k` (see the module docs for the numbering).
    Input(usize),
    /// Result of step `k`.
    Step(usize),
    /// An exact constant.
    Const(BigRational),
}

/// One step; it defines the next `t` value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `a + b`.
    Add(Value, Value),
    /// `a − b`.
    Sub(Value, Value),
    /// `a · b`.
    Mul(Value, Value),
    /// `−a`.
    Neg(Value),
    /// `1 / a`.
    Recip(Value),
    /// `a / b`.
    Div(Value, Value),
}

/// A straight-line program for `Cay(C)` at one size `T`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    size: usize,
    steps: Vec<Op>,
    outputs: Vec<Value>,
}

/// How many operations of each kind a program performs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Additions and subtractions.
    pub add: usize,
    /// Multiplications.
    pub mul: usize,
    /// Negations.
    pub neg: usize,
    /// Divisions and reciprocals.
    pub div: usize,
}

impl OpCounts {
    /// All operations.
    pub fn total(&self) -> usize {
        self.add + self.mul + self.neg + self.div
    }
}

/// What an arithmetic must offer to run a program: field operations and exact constants.
pub trait Arithmetic: Clone {
    /// The value of an exact rational constant.
    fn constant(value: &BigRational) -> Self;
    /// `a + b`.
    fn add(&self, other: &Self) -> Self;
    /// `a − b`.
    fn sub(&self, other: &Self) -> Self;
    /// `a · b`.
    fn mul(&self, other: &Self) -> Self;
    /// `a / b`.
    fn div(&self, other: &Self) -> Self;
    /// `−a`.
    fn neg(&self) -> Self;
}

impl Arithmetic for BigRational {
    fn constant(value: &BigRational) -> Self {
        value.clone()
    }
    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn div(&self, other: &Self) -> Self {
        self / other
    }
    fn neg(&self) -> Self {
        -self
    }
}

macro_rules! float_arithmetic {
    ($($float:ty),*) => {$(
        impl Arithmetic for $float {
            fn constant(value: &BigRational) -> Self {
                use num_traits::ToPrimitive;
                value.to_f64().unwrap_or(f64::NAN) as $float
            }
            fn add(&self, other: &Self) -> Self { self + other }
            fn sub(&self, other: &Self) -> Self { self - other }
            fn mul(&self, other: &Self) -> Self { self * other }
            fn div(&self, other: &Self) -> Self { self / other }
            fn neg(&self) -> Self { -self }
        }
    )*};
}
float_arithmetic!(f32, f64);

impl Program {
    /// A program for `T = size` from its steps and its `size²` outputs.
    ///
    /// # Errors
    /// [`ParseError`] if an operand refers to an input or step that does not exist (steps may
    /// only use earlier steps), or if there are not `size²` outputs.
    pub fn new(size: usize, steps: Vec<Op>, outputs: Vec<Value>) -> Result<Self, ParseError> {
        let program = Self {
            size,
            steps,
            outputs,
        };
        program.validate()?;
        Ok(program)
    }

    /// The matrix size `T`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of inputs, `T(T−1)/2`.
    pub fn input_count(&self) -> usize {
        self.size * self.size.saturating_sub(1) / 2
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[Op] {
        &self.steps
    }

    /// The `T²` outputs, column-major.
    pub fn outputs(&self) -> &[Value] {
        &self.outputs
    }

    /// Index of input `C[i,j]`, `i < j`.
    pub fn input_index(i: usize, j: usize) -> usize {
        debug_assert!(i < j);
        j * (j - 1) / 2 + i
    }

    /// Operation counts.
    pub fn counts(&self) -> OpCounts {
        let mut counts = OpCounts::default();
        for op in &self.steps {
            match op {
                Op::Add(..) | Op::Sub(..) => counts.add += 1,
                Op::Mul(..) => counts.mul += 1,
                Op::Neg(..) => counts.neg += 1,
                Op::Recip(..) | Op::Div(..) => counts.div += 1,
            }
        }
        counts
    }

    /// Runs the program on the strict upper entries of `C` (see the module docs for the order)
    /// and returns `Cay(C)` column-major.
    ///
    /// # Panics
    /// If `inputs` does not have [`Self::input_count`] entries.
    pub fn eval<A: Arithmetic>(&self, inputs: &[A]) -> Vec<A> {
        assert_eq!(inputs.len(), self.input_count(), "wrong number of inputs");
        let mut values: Vec<A> = Vec::with_capacity(self.steps.len());
        let read = |values: &[A], value: &Value| match value {
            Value::Input(k) => inputs[*k].clone(),
            Value::Step(k) => values[*k].clone(),
            Value::Const(c) => A::constant(c),
        };
        for op in &self.steps {
            let result = match op {
                Op::Add(a, b) => read(&values, a).add(&read(&values, b)),
                Op::Sub(a, b) => read(&values, a).sub(&read(&values, b)),
                Op::Mul(a, b) => read(&values, a).mul(&read(&values, b)),
                Op::Div(a, b) => read(&values, a).div(&read(&values, b)),
                Op::Neg(a) => read(&values, a).neg(),
                Op::Recip(a) => A::constant(&BigRational::one()).div(&read(&values, a)),
            };
            values.push(result);
        }
        self.outputs.iter().map(|o| read(&values, o)).collect()
    }

    /// The text form (see the module docs), preceded by `header` lines as `#` comments.
    pub fn to_text(&self, header: &[&str]) -> String {
        let mut text = String::new();
        for line in header {
            text.push_str("# ");
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!("size {}\n", self.size));
        for (k, op) in self.steps.iter().enumerate() {
            text.push_str(&format!("t{k} = {op}\n"));
        }
        for (k, value) in self.outputs.iter().enumerate() {
            text.push_str(&format!("out {k} = {value}\n"));
        }
        text
    }

    /// Parses the text form.
    ///
    /// # Errors
    /// [`ParseError`] naming the line that does not parse, or what is inconsistent.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut size = None;
        let mut steps = Vec::new();
        let mut outputs = Vec::new();
        for (number, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |problem: LineProblem| ParseError::Line {
                line: number + 1,
                problem,
                text: line.to_owned(),
            };
            if let Some(rest) = line.strip_prefix("size ") {
                size = Some(rest.trim().parse().map_err(|_| bad(LineProblem::Size))?);
            } else if let Some(rest) = line.strip_prefix("out ") {
                let (index, value) = rest
                    .split_once(" = ")
                    .ok_or_else(|| bad(LineProblem::OutputForm))?;
                let index: usize = index.parse().map_err(|_| bad(LineProblem::Index))?;
                if index != outputs.len() {
                    return Err(bad(LineProblem::OutOfOrder {
                        kind: "output",
                        expected: outputs.len(),
                    }));
                }
                outputs.push(parse_value(value).ok_or_else(|| bad(LineProblem::Operand))?);
            } else if let Some(rest) = line.strip_prefix('t') {
                let (index, op) = rest
                    .split_once(" = ")
                    .ok_or_else(|| bad(LineProblem::StepForm))?;
                let index: usize = index.parse().map_err(|_| bad(LineProblem::Index))?;
                if index != steps.len() {
                    return Err(bad(LineProblem::OutOfOrder {
                        kind: "step",
                        expected: steps.len(),
                    }));
                }
                steps.push(parse_op(op).ok_or_else(|| bad(LineProblem::Operation))?);
            } else {
                return Err(bad(LineProblem::Unknown));
            }
        }
        let size = size.ok_or(ParseError::NoSize)?;
        Self::new(size, steps, outputs)
    }

    fn validate(&self) -> Result<(), ParseError> {
        let inputs = self.input_count();
        let check = |value: &Value, defined: usize| match value {
            Value::Input(k) if *k >= inputs => Err(ParseError::NoSuchInput {
                input: *k,
                size: self.size,
                inputs,
            }),
            Value::Step(k) if *k >= defined => Err(ParseError::UsedBeforeDefined { step: *k }),
            _ => Ok(()),
        };
        for (k, op) in self.steps.iter().enumerate() {
            for operand in op.operands() {
                check(operand, k)?;
            }
        }
        if self.outputs.len() != self.size * self.size {
            return Err(ParseError::OutputCount {
                found: self.outputs.len(),
                size: self.size,
                expected: self.size * self.size,
            });
        }
        for output in &self.outputs {
            check(output, self.steps.len())?;
        }
        Ok(())
    }
}

impl Op {
    /// The operands, in order.
    pub fn operands(&self) -> impl Iterator<Item = &Value> {
        let (a, b) = match self {
            Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Div(a, b) => (a, Some(b)),
            Op::Neg(a) | Op::Recip(a) => (a, None),
        };
        core::iter::once(a).chain(b)
    }
}

/// A program text that does not parse, or a program that is inconsistent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A line of the text form that does not parse.
    #[error("line {line}: {problem}: `{text}`")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        problem: LineProblem,
        /// The line, trimmed.
        text: String,
    },
    /// The text has no `size T` line.
    #[error("no `size` line")]
    NoSize,
    /// An operand names an input beyond the `T(T−1)/2` of the program.
    #[error("input i{input} does not exist (T = {size} has {inputs} inputs)")]
    NoSuchInput {
        /// The input named.
        input: usize,
        /// The program's `T`.
        size: usize,
        /// How many inputs it has.
        inputs: usize,
    },
    /// An operand names a step that is not defined before it.
    #[error("t{step} is used before it is defined")]
    UsedBeforeDefined {
        /// The step named.
        step: usize,
    },
    /// There are not `T²` outputs.
    #[error("{found} outputs, T = {size} needs {expected}")]
    OutputCount {
        /// How many outputs there are.
        found: usize,
        /// The program's `T`.
        size: usize,
        /// `T²`.
        expected: usize,
    },
}

/// What is wrong with a line of the text form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// `size` is not followed by an integer.
    #[error("expected `size T` with T an integer")]
    Size,
    /// An `out` line without ` = `.
    #[error("expected `out k = v`")]
    OutputForm,
    /// A `t` line without ` = `.
    #[error("expected `tk = op`")]
    StepForm,
    /// The index of an output or step is not an integer.
    #[error("the index is not an integer")]
    Index,
    /// An output or step out of order.
    #[error("expected {kind} {expected} next ({kind}s are numbered in order)")]
    OutOfOrder {
        /// `output` or `step`.
        kind: &'static str,
        /// The index expected.
        expected: usize,
    },
    /// An operand that is not `iK`, `tK` or a rational constant.
    #[error("bad operand: expected `iK`, `tK`, an integer or `n/d` with d ≠ 0")]
    Operand,
    /// An operation that does not parse.
    #[error(
        "bad operation: expected `a + b`, `a - b`, `a * b`, `a / b`, `neg a` or `recip a`, \
         with operands `iK`, `tK`, an integer or `n/d` with d ≠ 0"
    )]
    Operation,
    /// A line that is neither a comment, `size`, a step nor an output.
    #[error("unknown line: expected `size T`, `tk = op` or `out k = v`")]
    Unknown,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Input(k) => write!(f, "i{k}"),
            Value::Step(k) => write!(f, "t{k}"),
            Value::Const(c) if c.is_integer() => write!(f, "{}", c.numer()),
            Value::Const(c) => write!(f, "{}/{}", c.numer(), c.denom()),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Add(a, b) => write!(f, "{a} + {b}"),
            Op::Sub(a, b) => write!(f, "{a} - {b}"),
            Op::Mul(a, b) => write!(f, "{a} * {b}"),
            Op::Div(a, b) => write!(f, "{a} / {b}"),
            Op::Neg(a) => write!(f, "neg {a}"),
            Op::Recip(a) => write!(f, "recip {a}"),
        }
    }
}

fn parse_value(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Some(k) = text.strip_prefix('i') {
        return k.parse().ok().map(Value::Input);
    }
    if let Some(k) = text.strip_prefix('t') {
        return k.parse().ok().map(Value::Step);
    }
    let constant = match text.split_once('/') {
        Some((n, d)) => {
            let d: num_bigint::BigInt = d.parse().ok()?;
            if d.is_zero() {
                return None;
            }
            BigRational::new(n.parse().ok()?, d)
        }
        None => BigRational::from_integer(text.parse().ok()?),
    };
    Some(Value::Const(constant))
}

fn parse_op(text: &str) -> Option<Op> {
    if let Some(a) = text.strip_prefix("neg ") {
        return parse_value(a).map(Op::Neg);
    }
    if let Some(a) = text.strip_prefix("recip ") {
        return parse_value(a).map(Op::Recip);
    }
    let mut parts = text.splitn(3, ' ');
    let (a, op, b) = (parts.next()?, parts.next()?, parts.next()?);
    let (a, b) = (parse_value(a)?, parse_value(b)?);
    Some(match op {
        "+" => Op::Add(a, b),
        "-" => Op::Sub(a, b),
        "*" => Op::Mul(a, b),
        "/" => Op::Div(a, b),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cay(C) for T = 2 written by hand: with c = C[0,1], d = 1 + c², Cay = [(1−c²)/d, −2c/d; 2c/d, (1−c²)/d].
    fn cayley_2() -> Program {
        let c = Value::Input(0);
        let t = Value::Step;
        let int = |k: i64| Value::Const(BigRational::from_integer(k.into()));
        let steps = vec![
            Op::Mul(c.clone(), c.clone()), // t0 = c²
            Op::Add(t(0), int(1)),         // t1 = 1 + c²
            Op::Recip(t(1)),               // t2 = 1/d
            Op::Sub(int(1), t(0)),         // t3 = 1 − c²
            Op::Mul(t(3), t(2)),           // t4 = (1 − c²)/d
            Op::Mul(c, t(2)),              // t5 = c/d
            Op::Mul(int(2), t(5)),         // t6 = 2c/d
            Op::Neg(t(6)),                 // t7 = −2c/d
        ];
        Program::new(2, steps, vec![t(4), t(6), t(7), t(4)]).unwrap()
    }

    #[test]
    fn evaluates_the_conventions_vector_exactly() {
        // C = [0 −½; ½ 0] → [3/5 4/5; −4/5 3/5]; input i0 = C[0,1] = −½.
        let half = BigRational::new((-1).into(), 2.into());
        let out = cayley_2().eval(&[half]);
        let r = |n: i64, d: i64| BigRational::new(n.into(), d.into());
        assert_eq!(out, vec![r(3, 5), r(-4, 5), r(4, 5), r(3, 5)]);
    }

    #[test]
    fn text_round_trips() {
        let program = cayley_2();
        let text = program.to_text(&["a header"]);
        assert!(text.starts_with("# a header\nsize 2\n"));
        assert_eq!(Program::parse(&text).unwrap(), program);
    }

    #[test]
    fn counts_each_kind() {
        let counts = cayley_2().counts();
        assert_eq!(
            counts,
            OpCounts {
                add: 2,
                mul: 4,
                neg: 1,
                div: 1
            }
        );
        assert_eq!(counts.total(), 8);
    }

    #[test]
    fn rejects_inconsistent_programs() {
        let errors = [
            "size 2\nt0 = i1 * i0\nout 0 = t0\nout 1 = t0\nout 2 = t0\nout 3 = t0\n",
            "size 2\nt0 = t1 * i0\nout 0 = t0\nout 1 = t0\nout 2 = t0\nout 3 = t0\n",
            "size 2\nt0 = i0 * i0\nout 0 = t0\n",
            "size 2\nt0 = i0 ^ i0\n",
            "size 2\nt0 = i0 / 1/0\n",
            "t0 = i0 * i0\n",
        ];
        let messages = [
            "input i1 does not exist (T = 2 has 1 inputs)",
            "t1 is used before it is defined",
            "1 outputs, T = 2 needs 4",
            "line 2: bad operation",
            "line 2: bad operation",
            "no `size` line",
        ];
        for (text, message) in errors.iter().zip(messages) {
            let error = Program::parse(text).expect_err(text).to_string();
            assert!(error.starts_with(message), "{error}\nfor:\n{text}");
        }
        assert_eq!(
            Program::parse("size 2\nt1 = i0 * i0\n"),
            Err(ParseError::Line {
                line: 2,
                problem: LineProblem::OutOfOrder {
                    kind: "step",
                    expected: 0
                },
                text: "t1 = i0 * i0".into()
            })
        );
    }
}
