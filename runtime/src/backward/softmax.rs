//! The vector-Jacobian products of the softmaxes.

use nalgebra::SMatrix;

use crate::scalar::Field;
use crate::softmax::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};

/// A [`Softmax`] with its vector-Jacobian product.
///
/// Every softmax here normalises groups of entries (a column, or the whole matrix) as
/// `σ_i = e^{c_i} / (κ + Σ_k e^{c_k})`, `κ` 0 or 1, so `∂σ_i/∂c_k = σ_i δ_ik − σ_i σ_k` and
/// `c̄_k = σ_k (s̄_k − Σ_i σ_i s̄_i)` over each group: the same formula for the "one" softmaxes,
/// whose `κ` only changes `σ`.
///
/// `c̄ = ∂L/∂C` from `s = σ(C)` and `s̄` with `σ` = `Sm`, as a closure that is always inlined
/// (as [`applied`](crate::softmax::applied)'s).
#[inline(always)]
pub(crate) fn pulled_back<Sm: SoftmaxBackward, S: Field, const T: usize>()
-> impl FnOnce(&SMatrix<S, T, T>, &SMatrix<S, T, T>, &mut SMatrix<S, T, T>) {
    #[inline(always)]
    |s, s_bar, c_bar| *c_bar = Sm::pullback(s, s_bar)
}

/// ```
/// use geomattn::{MatrixSoftmax, Softmax, SoftmaxBackward, nalgebra::Matrix2};
/// // A cotangent that is constant over the group is orthogonal to every change of σ(C).
/// let c = Matrix2::new(0.3, -1.0, 2.0, 0.5);
/// let c_bar = MatrixSoftmax::pullback(&MatrixSoftmax::apply(&c), &Matrix2::from_element(4.0));
/// assert!(c_bar.amax() < 1e-15);
/// ```
pub trait SoftmaxBackward: Softmax {
    /// `∂L/∂C`, given `s = σ(C)` and `s_bar = ∂L/∂σ(C)`.
    fn pullback<S: Field, const ROWS: usize, const COLS: usize>(
        s: &SMatrix<S, ROWS, COLS>,
        s_bar: &SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>;
}

/// `c̄_k = σ_k (s̄_k − Σ_i σ_i s̄_i)` over one group of entries.
fn pull_group<S: Field>(s: &[S], s_bar: &[S], c_bar: &mut [S]) {
    let mean = s
        .iter()
        .zip(s_bar)
        .fold(S::zero(), |sum, (&v, &w)| sum + v * w);
    for ((out, &v), &w) in c_bar.iter_mut().zip(s).zip(s_bar) {
        *out = v * (w - mean);
    }
}

/// The pullback over the whole matrix as one group.
fn pull_matrix<S: Field, const ROWS: usize, const COLS: usize>(
    s: &SMatrix<S, ROWS, COLS>,
    s_bar: &SMatrix<S, ROWS, COLS>,
) -> SMatrix<S, ROWS, COLS> {
    let mut c_bar = SMatrix::<S, ROWS, COLS>::zeros();
    pull_group(s.as_slice(), s_bar.as_slice(), c_bar.as_mut_slice());
    c_bar
}

/// The pullback column by column (the storage is column-major).
fn pull_columns<S: Field, const ROWS: usize, const COLS: usize>(
    s: &SMatrix<S, ROWS, COLS>,
    s_bar: &SMatrix<S, ROWS, COLS>,
) -> SMatrix<S, ROWS, COLS> {
    let mut c_bar = SMatrix::<S, ROWS, COLS>::zeros();
    for j in 0..COLS {
        let column = j * ROWS..(j + 1) * ROWS;
        pull_group(
            &s.as_slice()[column.clone()],
            &s_bar.as_slice()[column.clone()],
            &mut c_bar.as_mut_slice()[column],
        );
    }
    c_bar
}

/// Implements [`SoftmaxBackward`] for softmaxes that normalise with `$pull`'s grouping.
macro_rules! softmax_backward {
    ($($softmax:ty => $pull:ident),*) => {$(
        impl SoftmaxBackward for $softmax {
            fn pullback<S: Field, const ROWS: usize, const COLS: usize>(
                s: &SMatrix<S, ROWS, COLS>,
                s_bar: &SMatrix<S, ROWS, COLS>,
            ) -> SMatrix<S, ROWS, COLS> {
                $pull(s, s_bar)
            }
        }
    )*};
}

softmax_backward!(
    MatrixSoftmax => pull_matrix,
    OneMatrixSoftmax => pull_matrix,
    VectorSoftmax => pull_columns,
    OneVectorSoftmax => pull_columns
);

impl crate::softmax::Function {
    /// [`SoftmaxBackward::pullback`] at run-time sizes: `c_bar = ∂L/∂C` of the column-major
    /// matrix of `rows` rows, given `s = σ(C)` and `s_bar = ∂L/∂σ(C)`.
    pub fn pullback<S: Field>(self, s: &[S], s_bar: &[S], rows: usize, c_bar: &mut [S]) {
        let group = match self {
            Self::Vector => rows,
            Self::Matrix => s.len(),
        };
        if group == 0 {
            return;
        }
        let groups = s.chunks_exact(group).zip(s_bar.chunks_exact(group));
        for ((s, s_bar), c_bar) in groups.zip(c_bar.chunks_exact_mut(group)) {
            pull_group(s, s_bar, c_bar);
        }
    }
}
