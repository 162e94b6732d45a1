//! The backward passes of GML's SympNet gradient layers (`GradientLayerQ / P`) and of the stacks
//! of them in the symplectic transformers.

use nalgebra::{SMatrix, SVector};

use super::{ActivationDerivative, ColumnBackward};
use crate::architectures::SympNetStack;
use crate::feedforward::GradientLayer;
use crate::product;
use crate::scalar::Field;
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ, assert_phase_space};

/// The backward pass of the shear on `Side` with the weights of `layer` (whichever side its type
/// names), its gradient added to `gradient`. For `y_t = x_t + Kᵀ h`, `h = a ⊙ σ(u)`,
/// `u = K x_s + b` (`t` the updated half, `s` the driving one), with `h̄ = K ȳ_t` and
/// `r = a ⊙ σ'(u) ⊙ h̄`: `x̄_t = ȳ_t`, `x̄_s = ȳ_s + Kᵀ r`, `K̄ = h ȳ_tᵀ + r x_sᵀ`, `b̄ = r`,
/// `ā = σ(u) ⊙ h̄`.
fn shear_backward<
    Side,
    S,
    Act,
    LayerSide,
    GradientSide,
    const D: usize,
    const N: usize,
    const H: usize,
>(
    layer: &GradientLayer<S, N, H, LayerSide, Act>,
    x: &SVector<S, D>,
    y_bar: &SVector<S, D>,
    gradient: &mut GradientLayer<S, N, H, GradientSide, Act>,
) -> SVector<S, D>
where
    Side: PhaseSide,
    S: Field,
    Act: ActivationDerivative<S>,
    LayerSide: PhaseSide,
    GradientSide: PhaseSide,
{
    const { assert_phase_space::<D, N>() };
    let (target, source) = Side::rows(N);
    let driver: SVector<S, N> = product::matrix(|i, _| x[source + i]);
    let target_bar: SVector<S, N> = product::matrix(|i, _| y_bar[target + i]);
    let (k, a) = (layer.weight(), layer.scale());
    let u = product::mul(k, &driver) + layer.bias();
    let activated = Act::apply_matrix(u);
    let h_bar = product::mul(k, &target_bar);
    let r: SVector<S, H> = product::matrix(|i, _| a[i] * Act::derivative(u[i]) * h_bar[i]);
    let hidden: SVector<S, H> = product::matrix(|i, _| a[i] * activated[i]);
    let k_bar: SMatrix<S, H, N> =
        product::matrix(|i, j| hidden[i] * target_bar[j] + r[i] * driver[j]);
    let a_bar: SVector<S, H> = product::matrix(|i, _| activated[i] * h_bar[i]);
    gradient.accumulate(&k_bar, &r, &a_bar);
    let driver_bar = product::tr_mul(k, &r);
    let mut x_bar = *y_bar;
    for i in 0..N {
        x_bar[source + i] += driver_bar[i];
    }
    x_bar
}

/// A layer of zeros with the same shape: the start of a gradient.
fn zeroed<S: Field, const N: usize, const H: usize, Side: PhaseSide, Act>()
-> GradientLayer<S, N, H, Side, Act> {
    GradientLayer::new(SMatrix::zeros(), SVector::zeros(), SVector::zeros())
}

/// The gradient is the layer's own type: `∂L/∂K` in its weight, `∂L/∂b` in its bias, `∂L/∂a` in
/// its scale.
impl<S, const D: usize, const N: usize, const H: usize, Side, Act> ColumnBackward<D>
    for GradientLayer<S, N, H, Side, Act>
where
    S: Field,
    Side: PhaseSide,
    Act: ActivationDerivative<S>,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        zeroed()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        shear_backward::<Side, _, _, _, _, D, N, H>(self, x, y_bar, gradient)
    }
}

/// The gradient is the stack's own type, every layer holding its gradient. The layers' inputs are
/// kept on the stack during the forward pass, then the layers run backward in reverse.
impl<S, const D: usize, const N: usize, const H: usize, const NS: usize, Act, First>
    ColumnBackward<D> for SympNetStack<S, N, H, NS, Act, First>
where
    S: Field,
    Act: ActivationDerivative<S>,
    First: PhaseSide,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        SympNetStack::new([(); NS].map(|()| zeroed()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn column_backward(
        &self,
        x: &SVector<S, D>,
        y_bar: &SVector<S, D>,
        gradient: &mut Self,
    ) -> SVector<S, D> {
        let mut inputs = [SVector::<S, D>::zeros(); NS];
        let mut v = *x;
        for (i, input) in inputs.iter_mut().enumerate() {
            *input = v;
            v = self.apply_layer(i, &v);
        }
        let mut bar = *y_bar;
        for i in (0..NS).rev() {
            let (layer, layer_gradient) = (&self.layers[i], &mut gradient.layers[i]);
            bar = if Self::layer_updates_q(i) {
                shear_backward::<UpdateQ, _, _, _, _, D, N, H>(
                    layer,
                    &inputs[i],
                    &bar,
                    layer_gradient,
                )
            } else {
                shear_backward::<UpdateP, _, _, _, _, D, N, H>(
                    layer,
                    &inputs[i],
                    &bar,
                    layer_gradient,
                )
            };
        }
        bar
    }
}
