//! The softmaxes attention layers normalise their correlation matrices with, as zero-cost marker
//! types implementing [`Softmax`], so that a layer is generic over its activation.
//!
//! | type | GML | normalises | denominator |
//! |---|---|---|---|
//! | [`VectorSoftmax`] | `VectorSoftmax` | each column, over the first index | `Σ_i e^{c_ij}` |
//! | [`MatrixSoftmax`] | `MatrixSoftmax` | the whole matrix | `Σ_{ij} e^{c_ij}` |
//! | [`OneVectorSoftmax`] | (docs only) | each column | `1 + Σ_i e^{c_ij}` |
//! | [`OneMatrixSoftmax`] | (docs only) | the whole matrix | `1 + Σ_{ij} e^{c_ij}` |
//!
//! All of them subtract a maximum before exponentiating, which changes nothing mathematically but
//! keeps every exponent `≤ 0`: no finite input gives NaN or ∞ (GML 0.4.8's `MatrixSoftmax` does not
//! subtract it and returns NaN once an entry exceeds the exponent range). For the "one" softmaxes
//! the shift is `m = max(0, max c)`, so the `1` becomes `e^{−m} ≤ 1` and every term stays in
//! `[0, 1]`, with at least one equal to 1: the denominator lies in `[1, n + 1]`, never overflows
//! and is never zero.
//!
//! ```
//! use geomattn::nalgebra::Matrix2;
//! use geomattn::{MatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};
//! let c = Matrix2::new(0.0_f64, 1e4,
//!                      0.0, -1e4);
//! let s = VectorSoftmax::apply(&c);
//! assert_eq!(s, Matrix2::new(0.5, 1.0, 0.5, 0.0));
//! let whole = MatrixSoftmax::apply(&Matrix2::from_element(3.0_f64));
//! assert_eq!(whole, Matrix2::from_element(0.25));
//! // One softmax: a column of zeros gives e⁰/(1 + 2e⁰) = 1/3 per entry.
//! let one = OneVectorSoftmax::apply(&Matrix2::<f64>::zeros());
//! assert!((one - Matrix2::from_element(1.0 / 3.0)).amax() < 1e-15);
//! ```

use nalgebra::SMatrix;

use crate::scalar::Real;

/// A normalisation of a matrix of scores into weights, applied as `σ(C)`.
///
/// Implemented by zero-sized marker types; layers take it as a type parameter, so the choice costs
/// nothing at run time. The supertraits let layers that carry the marker derive `Copy`, `Debug`
/// and `PartialEq`.
pub trait Softmax: Copy + core::fmt::Debug + PartialEq {
    /// Name for reports and debugging (`"VectorSoftmax"`, …).
    const NAME: &'static str;

    /// Replaces `c` by `σ(c)`.
    fn apply_in_place<S: Real, const ROWS: usize, const COLS: usize>(
        c: &mut SMatrix<S, ROWS, COLS>,
    );

    /// `σ(c)`.
    #[inline(always)]
    fn apply<S: Real, const ROWS: usize, const COLS: usize>(
        c: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS> {
        let mut s = *c;
        Self::apply_in_place(&mut s);
        s
    }
}

/// `σ(s)` with `σ` = `Sm`, the scores taken and returned by value, as a closure that is always
/// inlined, for the kernels written over `Dim` (symplectic and multi-head attention): a function
/// item passed for their `impl FnOnce` is called through a shim that is not (over lanes, a layer
/// ran 7× slower, its matrices spilled around the call), and `σ` applied in place left the
/// symplectic layer 5 – 10 % slower than by value.
#[inline(always)]
pub(crate) fn applied<Sm: Softmax, S: Real, const T: usize>()
-> impl FnOnce(SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    #[inline(always)]
    |s| Sm::apply(&s)
}

/// GML's `VectorSoftmax`: each column normalised over the first index,
/// `σ(C)[i,j] = e^{c_ij} / Σ_k e^{c_kj}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorSoftmax;

/// GML's `MatrixSoftmax`: the whole matrix normalised at once,
/// `σ(C)[i,j] = e^{c_ij} / Σ_{kl} e^{c_kl}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatrixSoftmax;

/// Column-wise "one softmax", `e^{c_ij} / (1 + Σ_k e^{c_kj})`: each column sums to less than 1, so
/// a column of very negative scores can attend to nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OneVectorSoftmax;

/// Whole-matrix "one softmax", `e^{c_ij} / (1 + Σ_{kl} e^{c_kl})`: the matrix sums to less than 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OneMatrixSoftmax;

impl Softmax for VectorSoftmax {
    const NAME: &'static str = "VectorSoftmax";

    #[inline(always)]
    fn apply_in_place<S: Real, const ROWS: usize, const COLS: usize>(
        c: &mut SMatrix<S, ROWS, COLS>,
    ) {
        for j in 0..COLS {
            normalise::<S, false>(column(c, j));
        }
    }
}

impl Softmax for MatrixSoftmax {
    const NAME: &'static str = "MatrixSoftmax";

    #[inline(always)]
    fn apply_in_place<S: Real, const ROWS: usize, const COLS: usize>(
        c: &mut SMatrix<S, ROWS, COLS>,
    ) {
        normalise::<S, false>(c.as_mut_slice());
    }
}

impl Softmax for OneVectorSoftmax {
    const NAME: &'static str = "OneVectorSoftmax";

    #[inline(always)]
    fn apply_in_place<S: Real, const ROWS: usize, const COLS: usize>(
        c: &mut SMatrix<S, ROWS, COLS>,
    ) {
        for j in 0..COLS {
            normalise::<S, true>(column(c, j));
        }
    }
}

impl Softmax for OneMatrixSoftmax {
    const NAME: &'static str = "OneMatrixSoftmax";

    #[inline(always)]
    fn apply_in_place<S: Real, const ROWS: usize, const COLS: usize>(
        c: &mut SMatrix<S, ROWS, COLS>,
    ) {
        normalise::<S, true>(c.as_mut_slice());
    }
}

/// The softmax as a value (GML's `attention_activation`), for layers whose choice is data (the
/// run-time engine's, [`crate::engine`]): each normalises as its marker type does, through the
/// same code.
///
/// ```
/// use geomattn::softmax::Function;
/// let mut c = [0.0_f64, 0.0, 3.0, 3.0];
/// Function::Vector.apply_in_place(&mut c, 2);
/// assert_eq!(c, [0.5; 4]);
/// let mut c = [0.0_f64, 0.0, 0.0, 0.0];
/// Function::Matrix.apply_in_place(&mut c, 2);
/// assert_eq!(c, [0.25; 4]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Function {
    /// [`VectorSoftmax`]: each column.
    Vector,
    /// [`MatrixSoftmax`]: the whole matrix.
    Matrix,
}

impl Function {
    /// Replaces the column-major matrix `values` of `rows` rows by its softmax.
    #[inline(always)]
    pub fn apply_in_place<S: Real>(self, values: &mut [S], rows: usize) {
        self.apply_in_place_with(values, rows, exp_each);
    }

    /// [`apply_in_place`](Self::apply_in_place) with `exp_all`, which replaces every value of a
    /// slice by its exponential, called once on the whole matrix (for exponentials of whole
    /// vectors, as the engine's [`FastLanes`](crate::engine::FastLanes) compute them).
    #[inline(always)]
    pub fn apply_in_place_with<S: Real>(
        self,
        values: &mut [S],
        rows: usize,
        exp_all: impl FnOnce(&mut [S]),
    ) {
        let group = match self {
            Self::Vector => rows,
            Self::Matrix => values.len(),
        };
        if group == 0 {
            return;
        }
        for x in values.chunks_exact_mut(group) {
            shift_by_max::<S, false>(x);
        }
        exp_all(values);
        for x in values.chunks_exact_mut(group) {
            divide_by_sum(x, S::zero());
        }
    }
}

/// Column `j` of `c`, as a slice (the storage is column-major).
#[inline(always)]
fn column<S: Real, const ROWS: usize, const COLS: usize>(
    c: &mut SMatrix<S, ROWS, COLS>,
    j: usize,
) -> &mut [S] {
    &mut c.as_mut_slice()[j * ROWS..(j + 1) * ROWS]
}

/// Replaces the entries of `x` by their max-shifted softmax (the one softmax if `PLUS_ONE`);
/// nothing to do for an empty slice.
#[inline(always)]
fn normalise<S: Real, const PLUS_ONE: bool>(x: &mut [S]) {
    let Some(shift) = shift_by_max::<S, PLUS_ONE>(x) else {
        return;
    };
    exp_each(x);
    divide_by_sum(x, if PLUS_ONE { (-shift).exp() } else { S::zero() });
}

/// Subtracts the largest entry of `x` (at least zero if `PLUS_ONE`) from every entry, and
/// returns it; `None` for an empty slice.
#[inline(always)]
fn shift_by_max<S: Real, const PLUS_ONE: bool>(x: &mut [S]) -> Option<S> {
    let &first = x.first()?;
    let mut shift = x.iter().fold(first, |m, &v| m.greater_of(v));
    if PLUS_ONE {
        shift = shift.greater_of(S::zero());
    }
    for v in x.iter_mut() {
        *v -= shift;
    }
    Some(shift)
}

/// Every value replaced by its exponential.
#[inline(always)]
fn exp_each<S: Real>(x: &mut [S]) {
    for v in x.iter_mut() {
        *v = v.exp();
    }
}

/// Every entry divided by `start` plus the sum of the entries (summed in order, multiplied by
/// the inverse).
#[inline(always)]
fn divide_by_sum<S: Real>(x: &mut [S], start: S) {
    let mut sum = start;
    for &v in x.iter() {
        sum += v;
    }
    let inverse = S::one() / sum;
    for v in x.iter_mut() {
        *v *= inverse;
    }
}
