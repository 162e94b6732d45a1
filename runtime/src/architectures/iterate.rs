//! GML's `iterate`: a trajectory from a trained integrator network.

use nalgebra::{SMatrix, SVector};

use crate::layer::SequenceLayer;
use crate::scalar::Field;

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

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix2x3, SMatrix, Vector1, Vector2};

    use super::iterate;
    use crate::layer::{ColumnLayer, SequenceLayer};
    use crate::packed::SkewSymmetric;
    use crate::vpa::SkewVpa;

    /// `x ↦ 2x + 1` on one state: a network of one time step, a layer for every `T`.
    struct Affine;
    impl ColumnLayer<1> for Affine {
        type Scalar = f64;
        fn apply(&self, x: &Vector1<f64>) -> Vector1<f64> {
            x * 2.0 + Vector1::new(1.0)
        }
    }

    #[test]
    fn a_network_of_one_time_step_rolls_out_state_by_state_from_one_state() {
        let mut states = [Vector1::zeros(); 5];
        Affine.rollout(&Vector1::new(0.0), &mut states);
        assert_eq!(states.map(|x| x[0]), [0.0, 1.0, 3.0, 7.0, 15.0]);
    }

    #[test]
    fn a_transformer_rolls_out_with_the_whole_window_as_gmls_default() {
        let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.7]).unwrap());
        let initial = Matrix2x3::new(1.0, 0.5, 2.0, 0.0, 1.0, -1.0);
        let mut by_method = [Vector2::zeros(); 11];
        let mut by_function = [Vector2::zeros(); 11];
        layer.rollout(&initial, &mut by_method);
        iterate::<f64, 2, 3, 3, _>(&layer, &initial, &mut by_function);
        assert_eq!(by_method, by_function);
        // The tenth and eleventh states: the first two columns of the third pass.
        let third = layer.forward(&layer.forward(&layer.forward(&initial)));
        assert_eq!(by_method[9], third.column(0));
        assert_eq!(by_method[10], third.column(1));
    }

    #[test]
    fn fewer_slots_than_the_window_hold_initial_states_only() {
        let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.7]).unwrap());
        let initial = SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + 3 * j) as f64);
        let mut two = [Vector2::repeat(f64::NAN); 2];
        layer.rollout(&initial, &mut two);
        assert_eq!(two, [initial.column(0), initial.column(1)]);
        layer.rollout(&initial, &mut []);
    }

    #[test]
    fn a_shorter_prediction_window_appends_the_last_columns() {
        let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.7]).unwrap());
        let initial = SMatrix::<f64, 2, 3>::from_fn(|i, j| (1 + i + 3 * j) as f64);
        let mut states = [Vector2::zeros(); 5];
        iterate::<f64, 2, 3, 1, _>(&layer, &initial, &mut states);
        let window = SMatrix::<f64, 2, 3>::from_columns(&[states[1], states[2], states[3]]);
        assert_eq!(states[3], layer.forward(&initial).column(2));
        assert_eq!(states[4], layer.forward(&window).column(2));
    }
}
