//! GML's `iterate`: a trajectory from a trained integrator network.

use nalgebra::{SMatrix, SVector};

use crate::{Field, SequenceLayer};

/// Rolls a network out into `out` (one state per slot, `n_points = out.len()`), as GML's
/// `iterate(nn, ics; n_points, prediction_window = P)`: the first `T` states are the initial
/// conditions `initial`; then, repeatedly, the last `T` states are fed to the network and the last
/// `P` columns of its output appended, until `out` is full (the last prediction may be cut short).
/// A feed-forward network is the case `T = P = 1`.
///
/// Allocates nothing. `P` must be in `1..=T` (checked at compile time).
///
/// ```
/// use geomattn::architectures::iterate;
/// use geomattn::{SequenceLayer, nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, Vector1}};
/// struct Double;
/// impl SequenceLayer<f64, 1, 1> for Double {
///     fn forward_into(&self, z: SMatrixView<'_, f64, 1, 1>, mut out: SMatrixViewMut<'_, f64, 1, 1>) {
///         out.copy_from(&(z * 2.0));
///     }
/// }
/// let mut out = [Vector1::zeros(); 5];
/// iterate::<f64, 1, 1, 1, _>(&Double, &SMatrix::<f64, 1, 1>::new(1.0), &mut out);
/// assert_eq!(out.map(|x| x[0]), [1.0, 2.0, 4.0, 8.0, 16.0]);
/// ```
pub fn iterate<S: Field, const D: usize, const T: usize, const P: usize, N>(
    network: &N,
    initial: &SMatrix<S, D, T>,
    out: &mut [SVector<S, D>],
) where
    N: SequenceLayer<S, D, T> + ?Sized,
{
    const { assert!(P >= 1 && P <= T, "the prediction window must be in 1..=T") };
    for (slot, column) in out.iter_mut().zip(initial.column_iter()) {
        *slot = column.into_owned();
    }
    let mut filled = T;
    while filled < out.len() {
        let window = SMatrix::<S, D, T>::from_fn(|i, j| out[filled - T + j][i]);
        let prediction = network.forward(&window);
        let end = out.len().min(filled + P);
        for (k, slot) in out[filled..end].iter_mut().enumerate() {
            *slot = prediction.column(T - P + k).into_owned();
        }
        filled = end;
    }
}
