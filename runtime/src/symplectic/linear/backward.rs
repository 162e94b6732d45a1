//! The backward pass of linear symplectic attention: the kick `x A` (`A` symmetric) pulled back,
//! `Z̄ = Ō` plus `G A` in the driving half, `G` the updated half of `Ō`.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use super::LinearSymplecticAttention;
use crate::backward::Backward;
use crate::packed::Symmetric;
use crate::scalar::Field;
use crate::symplectic::{PhaseSide, assert_phase_space, half, write_input_bar};
use crate::workspace::Fresh;

/// Kick `x A` (`A` symmetric): `x̄ = G A`, and `∂L/∂A = xᵀ G` entry by entry, folded onto the
/// packed entries. The gradient is the layer's own type, its `A` holding `∂L/∂A`.
impl<S: Field, const D: usize, const N: usize, const T: usize, Side: PhaseSide> Backward<S, D, T>
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        Self::new(Symmetric::zeros())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        const { assert_phase_space::<D, N>() };
        let (updated, driving) = Side::rows(N);
        let x: SMatrix<S, N, T> = half(&z, driving);
        let g: SMatrix<S, N, T> = half(&out_bar, updated);
        let (x_bar, a_bar) = super::kick_backward(self.a().matrix(), (&x, &g), &mut Fresh);
        write_input_bar(&out_bar, driving, &x_bar, &mut z_bar);
        gradient.accumulate(&a_bar);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kick, kick_backward};
    use crate::backward::exact::{inner, rational};
    use crate::workspace::Fresh;

    /// The linear kick `x A`: `⟨G, ẋ A⟩ = ⟨x̄, ẋ⟩`, `⟨G, x Ȧ⟩ = ⟨Ā, Ȧ⟩`, exactly.
    #[test]
    fn the_linear_kicks_pullback_is_exact_in_rationals() {
        let a = rational::<3, 3>(1) + rational::<3, 3>(1).transpose();
        let (x, g, x_dot, a_dot) = (
            rational::<2, 3>(2),
            rational::<2, 3>(3),
            rational::<2, 3>(4),
            rational::<3, 3>(5),
        );
        let (x_bar, a_bar) = kick_backward(&a, (&x, &g), &mut Fresh);
        assert_eq!(kick(&a, &x, &mut Fresh), x * a);
        assert_eq!(inner(&g, &(x_dot * a)), inner(&x_bar, &x_dot));
        assert_eq!(inner(&g, &(x * a_dot)), inner(&a_bar, &a_dot));
    }
}
