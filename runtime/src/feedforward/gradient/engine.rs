//! GML's SympNet gradient layers at run-time sizes, and their stacks.

use nalgebra::{DMatrix, DMatrixViewMut, DVector, DVectorViewMut};

use super::backward::shear_pullback;
use crate::activation::Function;
use crate::engine::feedforward::{FeedForward, StackLayer, activate_all};
use crate::engine::{Backward, Element, Forward, Scratch, half, matrix, mul, tr_mul, vector};
use crate::error::Error;
use crate::feedforward::{activated_after_product, shear_after_product};
use crate::scalar::{Field, MapScalar};
use crate::symplectic::Side;

/// GML's `GradientLayerQ / GradientLayerP(dim, upscaling_dimension, activation)`: on every time
/// step `(q, p)`, `q ← q + Kᵀ(a ⊙ σ(K p + b))` (`Q`) or `p ← p + Kᵀ(a ⊙ σ(K q + b))` (`P`), with
/// `K` of `upscaling_dimension/2 × dim/2` (the compile-time [`crate::GradientLayer`], whose sums
/// it runs in the same order). A symplectic shear.
///
/// ```
/// use geomattn::activation::Function;
/// use geomattn::engine::{Forward, GradientLayer};
/// use geomattn::nalgebra::DMatrix;
/// use geomattn::symplectic::Side;
/// // R⁴, one hidden unit: K = [1 2], b = 1, a = 3, so q ← q + Kᵀ · 3 (p₁ + 2p₂ + 1).
/// let layer = GradientLayer::new(Side::Q, 4, 2, &[1.0, 2.0], &[1.0], &[3.0], Function::Identity)?;
/// let y = layer.forward(&DMatrix::from_column_slice(4, 1, &[0.0, 0.0, 1.0, 1.0]))?;
/// assert_eq!(y.as_slice(), [12.0, 24.0, 1.0, 1.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GradientLayer<S> {
    side: Side,
    /// `K`, `hidden × n`.
    weight: DMatrix<S>,
    bias: DVector<S>,
    scale: DVector<S>,
    activation: Function,
}

/// The gradient layers of a symplectic transformer after each attention layer (the compile-time
/// [`crate::SympNetStack`]).
pub type SympNetStack<S> = FeedForward<GradientLayer<S>>;

impl<S: Field> GradientLayer<S> {
    /// GML's `GradientLayer{side}(dim, upscaling_dimension, activation)` from its `weight` `K`
    /// (`upscaling_dimension/2 × dim/2`, column-major as Julia stores it), `bias` and `scale`
    /// (`upscaling_dimension/2` each).
    ///
    /// # Errors
    /// [`Error::PhaseSpace`] for an odd `dim`; [`Error::WeightLength`] for a parameter of
    /// another length.
    pub fn new(
        side: Side,
        dim: usize,
        upscaling_dimension: usize,
        weight: &[S],
        bias: &[S],
        scale: &[S],
        activation: Function,
    ) -> Result<Self, Error> {
        let n = half(name(side), dim)?;
        let hidden = upscaling_dimension / 2;
        Ok(Self {
            side,
            weight: matrix("weight", hidden, n, weight)?,
            bias: vector("bias", hidden, bias)?,
            scale: vector("scale", hidden, scale)?,
            activation,
        })
    }

    /// The half of phase space it updates.
    pub fn side(&self) -> Side {
        self.side
    }
}

fn name(side: Side) -> &'static str {
    match side {
        Side::Q => "GradientLayerQ",
        Side::P => "GradientLayerP",
    }
}

impl<S: Element> Forward<S> for GradientLayer<S> {
    fn name(&self) -> &'static str {
        name(self.side)
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (2 * self.weight.ncols(), None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let n = self.weight.ncols();
        let (target, source) = self.side.rows(n);
        // The compile-time layer's kernel: `K x`, `+ b`, `σ`, `⊙ a`, `Kᵀ ·`.
        let mut hidden = mul(&self.weight, z.rows(source, n), scratch);
        let update = shear_after_product(
            &mut hidden,
            &self.bias,
            &self.scale,
            activate_all(self.activation),
            |h| tr_mul(&self.weight, h, scratch),
            (z, target),
        );
        scratch.recycle(hidden);
        scratch.recycle(update);
    }
}

impl<S: Element> GradientLayer<S> {
    /// `σ(K x + b)` of the driving half `x` of every column of `z`, on a buffer of `scratch`.
    fn activated(&self, z: &DMatrix<S>, scratch: &mut Scratch<S>) -> DMatrix<S> {
        let n = self.weight.ncols();
        let (_, source) = self.side.rows(n);
        let mut activated = mul(&self.weight, z.rows(source, n), scratch);
        activated_after_product(
            &mut activated,
            Some(&self.bias),
            activate_all(self.activation),
        );
        activated
    }
}

/// For `y_t = x_t + Kᵀ h`, `h = a ⊙ σ(u)`, `u = K x_s + b` (`t` the updated half, `s` the
/// driving one), with `h̄ = K ȳ_t` and `r = a ⊙ σ'(u) ⊙ h̄`: `x̄_t = ȳ_t`, `x̄_s = ȳ_s + Kᵀ r`,
/// `∂L/∂K = h ȳ_tᵀ + r x_sᵀ` (column-major), `∂L/∂b = r` and `∂L/∂a = σ(u) ⊙ h̄`, each summed
/// over the time steps, in the constructor's order `K`, `b`, `a`: the compile-time layer's
/// kernel (`shear_pullback`) on the scratch.
impl<S: Element> Backward<S> for GradientLayer<S> {
    fn parameter_count(&self) -> usize {
        self.weight.len() + self.bias.len() + self.scale.len()
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let (hidden, n) = self.weight.shape();
        let (target, source) = self.side.rows(n);
        let activated = self.activated(z, scratch);
        let (driver, target_bar) = (
            scratch.copy_rows(z, source, n),
            scratch.copy_rows(bar, target, n),
        );
        let (k_bar, rest) = gradient.split_at_mut(self.weight.len());
        let (b_bar, a_bar) = rest.split_at_mut(hidden);
        let activation = self.activation;
        let share = shear_pullback(
            (&self.weight, &self.scale),
            (&activated, |value: S| {
                value.derivative_from_value(activation)
            }),
            (&driver, &target_bar),
            &mut DMatrixViewMut::from_slice(k_bar, hidden, n),
            &mut DVectorViewMut::from_slice(b_bar, hidden),
            &mut DVectorViewMut::from_slice(a_bar, hidden),
            scratch,
        );
        bar.rows_mut(source, n).zip_apply(&share, |o, s| *o += s);
        for m in [activated, driver, target_bar, share] {
            scratch.recycle(m);
        }
    }
}

impl<S: Element> StackLayer<S> for GradientLayer<S> {
    const STACK: &'static str = "SympNetStack";
}

impl<S: Field> MapScalar for GradientLayer<S> {
    type Scalar = S;
    type Over<X: Field> = GradientLayer<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> GradientLayer<X> {
        GradientLayer {
            side: self.side,
            weight: self.weight.map(&mut f),
            bias: self.bias.map(&mut f),
            scale: self.scale.map(&mut f),
            activation: self.activation,
        }
    }
}
