//! The vector-Jacobian products of the softmaxes.

use nalgebra::SMatrix;

use crate::Field;
use crate::softmax::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};

/// A [`Softmax`] with its vector-Jacobian product.
///
/// Every softmax normalises groups of entries (a column, or the whole matrix) as
/// `s_i = e^{c_i} / (κ + Σ_k e^{c_k})`, `κ` being 0 or, for the "one" softmaxes, 1. Either way
/// `∂s_i/∂c_j = s_i (δ_ij − s_j)`, so within each group `c̄_i = s_i (s̄_i − Σ_k s_k s̄_k)`.
///
/// ```
/// use geomattn::{Softmax, SoftmaxBackward, VectorSoftmax};
/// use geomattn::nalgebra::Matrix2;
/// // A uniform column: c̄ = ½(s̄ − mean(s̄)), so a constant cotangent has no effect.
/// let s = VectorSoftmax::apply(&Matrix2::<f64>::zeros());
/// let c_bar = VectorSoftmax::vjp(&s, &Matrix2::new(1.0, 5.0, 3.0, 5.0));
/// assert_eq!(c_bar, Matrix2::new(-0.5, 0.0, 0.5, 0.0));
/// ```
pub trait SoftmaxBackward: Softmax {
    /// `∂L/∂C` for `s = σ(C)` and `s_bar = ∂L/∂s`.
    fn vjp<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>;
}

/// The products of the column-wise softmaxes (`COLUMNWISE`) or the whole-matrix ones.
fn grouped_vjp<S: Field, const COLUMNWISE: bool, const ROWS: usize, const COLS: usize>(
    s: &SMatrix<S, ROWS, COLS>,
    s_bar: &SMatrix<S, ROWS, COLS>,
) -> SMatrix<S, ROWS, COLS> {
    let mut c_bar = SMatrix::<S, ROWS, COLS>::zeros();
    let group = if COLUMNWISE { ROWS } else { ROWS * COLS };
    // An empty matrix has no group (and `chunks` needs a positive length).
    if group == 0 {
        return c_bar;
    }
    let groups = s
        .as_slice()
        .chunks(group)
        .zip(s_bar.as_slice().chunks(group))
        .zip(c_bar.as_mut_slice().chunks_mut(group));
    for ((s, s_bar), c_bar) in groups {
        let s_dot_s_bar = s
            .iter()
            .zip(s_bar)
            .fold(S::zero(), |sum, (s, s_bar)| sum + *s * *s_bar);
        for ((c_bar, s), s_bar) in c_bar.iter_mut().zip(s).zip(s_bar) {
            *c_bar = *s * (*s_bar - s_dot_s_bar);
        }
    }
    c_bar
}

impl SoftmaxBackward for VectorSoftmax {
    fn vjp<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS> {
        grouped_vjp::<S, true, ROWS, COLS>(s, s_bar)
    }
}

impl SoftmaxBackward for OneVectorSoftmax {
    fn vjp<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS> {
        grouped_vjp::<S, true, ROWS, COLS>(s, s_bar)
    }
}

impl SoftmaxBackward for MatrixSoftmax {
    fn vjp<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS> {
        grouped_vjp::<S, false, ROWS, COLS>(s, s_bar)
    }
}

impl SoftmaxBackward for OneMatrixSoftmax {
    fn vjp<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS> {
        grouped_vjp::<S, false, ROWS, COLS>(s, s_bar)
    }
}
