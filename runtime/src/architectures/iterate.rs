//! GML's `iterate`: a trajectory from a trained integrator network.

use nalgebra::{SMatrix, SVector};

use crate::{Field, SequenceLayer};

/// Rolls a network out into `out` (one state per slot, `n_points = out.len()`), as GML's
/// `iterate(nn, ics; n_points, prediction_window = WINDOW)`: the first `T` states are the initial
/// conditions `initial`; then, repeatedly, the last `T` states are fed to the network and the last
/// `WINDOW` columns of its output appended, until `out` is full (the last prediction may be cut
/// short). A feed-forward network is the case `T = WINDOW = 1`.
///
/// Allocates nothing. `WINDOW` must be in `1..=T` (checked at compile time).
///
/// ```
/// use geomattn::{SequenceLayer, iterate, nalgebra::{SMatrix, SMatrixView, SMatrixViewMut, Vector1}};
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
pub fn iterate<S: Field, const D: usize, const T: usize, const WINDOW: usize, Net>(
    network: &Net,
    initial: &SMatrix<S, D, T>,
    out: &mut [SVector<S, D>],
) where
    Net: SequenceLayer<S, D, T> + ?Sized,
{
    const {
        assert!(
            WINDOW >= 1 && WINDOW <= T,
            "the prediction window must be in 1..=T"
        )
    };
    for (slot, column) in out.iter_mut().zip(initial.column_iter()) {
        *slot = column.into_owned();
    }
    let mut filled = T;
    while filled < out.len() {
        let window = SMatrix::<S, D, T>::from_fn(|i, j| out[filled - T + j][i]);
        let prediction = network.forward(&window);
        let end = out.len().min(filled + WINDOW);
        for (k, slot) in out[filled..end].iter_mut().enumerate() {
            *slot = prediction.column(T - WINDOW + k).into_owned();
        }
        filled = end;
    }
}
