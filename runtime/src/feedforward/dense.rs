//! GML's `Dense(in, out, σ; use_bias)`: `x ↦ σ(W x + b)` with `W` `OUT×IN`.
//!
//! It changes the dimension, so it is not a [`crate::SequenceLayer`]; it has its own forward
//! passes from `R^{IN×T}` to `R^{OUT×T}`, column by column.

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use rand::Rng;

use super::{affine, bias_from_slice, glorot_vector, matrix_from_slice};
use crate::activation::Activation;
use crate::layer::check_batch_lengths;
use crate::{Error, Field, init};

/// `x ↦ σ(W x + b)` from `R^IN` to `R^OUT`. GML's default activation is `tanh`; the transformer
/// integrators use [`crate::activation::Identity`] for their up and down projections.
///
/// ```
/// use geomattn::Dense;
/// use geomattn::activation::Identity;
/// use geomattn::nalgebra::{Matrix2x3, Matrix3x2, Vector2, Vector3};
/// let w = Matrix3x2::new(1.0, 0.0,
///                        0.0, 1.0,
///                        1.0, 1.0);
/// let dense = Dense::<f64, 2, 3, Identity>::new(w, Some(Vector3::new(0.0, 0.0, 1.0)));
/// assert_eq!(dense.apply(&Vector2::new(2.0, 3.0)), Vector3::new(2.0, 3.0, 6.0));
/// let z = Matrix2x3::new(1.0, 0.0, 2.0,
///                        0.0, 1.0, 3.0);
/// let y = dense.forward(&z);
/// assert_eq!(y.column(2), Vector3::new(2.0, 3.0, 6.0));
/// assert!(dense.forward_batch(&[z; 2], &mut [y; 3]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dense<S, const IN: usize, const OUT: usize, A> {
    weight: SMatrix<S, OUT, IN>,
    bias: Option<SVector<S, OUT>>,
    activation: PhantomData<A>,
}

impl<S: Field, const IN: usize, const OUT: usize, A> Dense<S, IN, OUT, A> {
    /// The layer with weight `W` (`OUT×IN`) and bias `b` (`None`: GML's `use_bias = false`).
    pub fn new(weight: SMatrix<S, OUT, IN>, bias: Option<SVector<S, OUT>>) -> Self {
        Self {
            weight,
            bias,
            activation: PhantomData,
        }
    }

    /// The layer from `W` in Julia's column-major order and an optional bias.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `weight` does not have `IN·OUT` entries or `bias` not `OUT`.
    pub fn from_slices(weight: &[S], bias: Option<&[S]>) -> Result<Self, Error> {
        Ok(Self::new(
            matrix_from_slice("W", weight)?,
            bias_from_slice(bias)?,
        ))
    }

    /// The weight `W`.
    pub fn weight(&self) -> &SMatrix<S, OUT, IN> {
        &self.weight
    }

    /// The bias `b`, if the layer has one.
    pub fn bias(&self) -> Option<&SVector<S, OUT>> {
        self.bias.as_ref()
    }
}

impl<S: Field, const IN: usize, const OUT: usize, A: Activation<S>> Dense<S, IN, OUT, A> {
    /// The output for one vector.
    pub fn apply(&self, x: &SVector<S, IN>) -> SVector<S, OUT> {
        A::apply_matrix(affine(&self.weight, x, self.bias.as_ref()))
    }

    /// Writes the output for the sequence `z` into `out`, column by column.
    pub fn forward_into<const T: usize>(
        &self,
        z: SMatrixView<'_, S, IN, T>,
        mut out: SMatrixViewMut<'_, S, OUT, T>,
    ) {
        for j in 0..T {
            out.set_column(j, &self.apply(&z.column(j).into_owned()));
        }
    }

    /// The output for one sequence.
    pub fn forward<const T: usize>(&self, z: &SMatrix<S, IN, T>) -> SMatrix<S, OUT, T> {
        let mut out = SMatrix::<S, OUT, T>::zeros();
        self.forward_into(z.as_view(), out.as_view_mut());
        out
    }

    /// Applies the layer to every sequence of a batch.
    ///
    /// # Errors
    /// [`Error::BatchShape`] if `inputs` and `outputs` differ in length.
    pub fn forward_batch<const T: usize>(
        &self,
        inputs: &[SMatrix<S, IN, T>],
        outputs: &mut [SMatrix<S, OUT, T>],
    ) -> Result<(), Error> {
        check_batch_lengths(inputs, outputs)?;
        for (z, out) in inputs.iter().zip(outputs.iter_mut()) {
            self.forward_into(z.as_view(), out.as_view_mut());
        }
        Ok(())
    }
}

impl<S: RealField + Copy, const IN: usize, const OUT: usize, A> Dense<S, IN, OUT, A> {
    /// GML's initialisation: `W` from U(−√(6/(IN+OUT)), …) and (with `use_bias`) `b` from
    /// U(−√(6/OUT), √(6/OUT)), both GlorotUniform.
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R, use_bias: bool) -> Self {
        let weight = init::glorot_dense(rng);
        Self::new(weight, use_bias.then(|| glorot_vector(rng)))
    }
}
