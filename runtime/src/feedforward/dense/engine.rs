//! GML's (AbstractNeuralNetworks') `Dense` layer at run-time sizes.

use nalgebra::{DMatrix, DVector};

use crate::activation::Function;
use crate::engine::backward::{activated, activation_cotangent, add_affine_gradient, column_major};
use crate::engine::{Backward, Element, Forward, Scratch, matrix, tr_mul, vector};
use crate::error::Error;
use crate::scalar::{Field, MapScalar};

/// `Dense(inputs, outputs, activation; use_bias)`: `x ↦ σ(W x + b)` on every time step, `W`
/// `outputs×inputs` (the compile-time [`crate::Dense`]): the standard transformer's maps up to
/// its `transformer_dim` and back.
///
/// ```
/// use geomattn::activation::Function;
/// use geomattn::engine::{Dense, Forward};
/// use geomattn::nalgebra::DMatrix;
/// // R² → R³: W = [1 0; 0 1; 1 1], no bias.
/// let up = Dense::new(2, 3, &[1.0, 0.0, 1.0, 0.0, 1.0, 1.0], None, Function::Identity)?;
/// let y = up.forward(&DMatrix::from_column_slice(2, 1, &[1.0, 2.0]))?;
/// assert_eq!(y.as_slice(), [1.0, 2.0, 3.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Dense<S> {
    weight: DMatrix<S>,
    bias: Option<DVector<S>>,
    activation: Function,
}

impl<S: Field> Dense<S> {
    /// The layer from `weight` (`outputs×inputs`, column-major, as Julia stores it) and the bias.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `weight` does not have `outputs·inputs` entries or `bias` not
    /// `outputs`.
    pub fn new(
        inputs: usize,
        outputs: usize,
        weight: &[S],
        bias: Option<&[S]>,
        activation: Function,
    ) -> Result<Self, Error> {
        Ok(Self {
            weight: matrix("W", outputs, inputs, weight)?,
            bias: bias.map(|b| vector("b", outputs, b)).transpose()?,
            activation,
        })
    }

    /// The dimension of its output.
    pub fn outputs(&self) -> usize {
        self.weight.nrows()
    }
}

impl<S: Element> Forward<S> for Dense<S> {
    fn name(&self) -> &'static str {
        "Dense"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.weight.ncols(), None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        // The sums of the compile-time layer's `affine`, in its order.
        let y = activated(
            &self.weight,
            z,
            self.bias.as_ref(),
            self.activation,
            scratch,
        );
        scratch.replace(z, y);
    }
}

/// `x̄ = Wᵀ δ`, `δ = ȳ ⊙ σ'(W x + b)`; `∂L/∂W = δ xᵀ` (column-major), then `∂L/∂b`.
impl<S: Element> Backward<S> for Dense<S> {
    fn parameter_count(&self) -> usize {
        self.weight.len() + self.bias.as_ref().map_or(0, DVector::len)
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let y = activated(
            &self.weight,
            z,
            self.bias.as_ref(),
            self.activation,
            scratch,
        );
        let delta = activation_cotangent(y, self.activation, bar);
        let (rows, cols) = self.weight.shape();
        let positions = column_major(rows, cols);
        add_affine_gradient(&delta, z, positions, self.bias.is_some(), gradient);
        let back = tr_mul(&self.weight, &delta, scratch);
        scratch.recycle(delta);
        scratch.replace(bar, back);
    }
}

impl<S: Field> MapScalar for Dense<S> {
    type Scalar = S;
    type Over<X: Field> = Dense<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> Dense<X> {
        Dense {
            weight: self.weight.map(&mut f),
            bias: self.bias.as_ref().map(|b| b.map(&mut f)),
            activation: self.activation,
        }
    }
}
