//! GML's `Dense(in, out, σ; use_bias)`: `x ↦ σ(W x + b)` with `W` `OUT×IN`.
//!
//! It changes the dimension: a [`ColumnLayer<IN, OUT>`](ColumnLayer), which maps sequences from
//! `R^{IN×T}` to `R^{OUT×T}` column by column ([`ColumnLayer::apply_columns`]). With `IN = OUT` it
//! is also a [`crate::SequenceLayer`].

#[cfg(feature = "std")]
pub(crate) mod engine;

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SVector};
use rand::Rng;

use super::{activated_after_product, bias_from_slice, glorot_vector};
use crate::activation::Activation;
use crate::error::Error;
use crate::layer::ColumnLayer;
use crate::packed::matrix_from_slice;
use crate::scalar::Field;
use crate::{init, product};

/// `x ↦ σ(W x + b)` from `R^IN` to `R^OUT`. GML's default activation is `tanh`; the transformer
/// integrators use [`crate::activation::Identity`] for their up and down projections.
///
/// ```
/// use geomattn::{ColumnLayer, Dense, Identity};
/// use geomattn::nalgebra::{Matrix2x3, Matrix3x2, Vector2, Vector3};
/// let w = Matrix3x2::new(1.0, 0.0,
///                        0.0, 1.0,
///                        1.0, 1.0);
/// let dense = Dense::<f64, 2, 3, Identity>::new(w, Some(Vector3::new(0.0, 0.0, 1.0)));
/// assert_eq!(dense.apply(&Vector2::new(2.0, 3.0)), Vector3::new(2.0, 3.0, 6.0));
/// let z = Matrix2x3::new(1.0, 0.0, 2.0,
///                        0.0, 1.0, 3.0);
/// let y = dense.apply_columns(&z);
/// assert_eq!(y.column(2), Vector3::new(2.0, 3.0, 6.0));
/// assert!(dense.apply_columns_batch(&[z; 2], &mut [y; 3]).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dense<S, const IN: usize, const OUT: usize, Act> {
    weight: SMatrix<S, OUT, IN>,
    bias: Option<SVector<S, OUT>>,
    activation: PhantomData<Act>,
}

impl<S: Field, const IN: usize, const OUT: usize, Act> Dense<S, IN, OUT, Act> {
    /// The layer with weight `W` (`OUT×IN`) and bias `b` (`None`: GML's `use_bias = false`).
    pub const fn new(weight: SMatrix<S, OUT, IN>, bias: Option<SVector<S, OUT>>) -> Self {
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

impl<S: Field, const IN: usize, const OUT: usize, Act: Activation<S>> ColumnLayer<IN, OUT>
    for Dense<S, IN, OUT, Act>
{
    type Scalar = S;

    fn apply(&self, x: &SVector<S, IN>) -> SVector<S, OUT> {
        let mut y = product::mul(&self.weight, x);
        activated_after_product(
            &mut y,
            self.bias.as_ref(),
            #[cfg_attr(not(debug_assertions), inline(always))]
            |u| *u = Act::apply_matrix(*u),
        );
        y
    }
}

impl<S: RealField + Copy, const IN: usize, const OUT: usize, Act> Dense<S, IN, OUT, Act> {
    /// GML's initialisation: `W` from U(−√(6/(IN+OUT)), …) and (with `use_bias`) `b` from
    /// U(−√(6/OUT), √(6/OUT)), both GlorotUniform.
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R, use_bias: bool) -> Self {
        let weight = init::glorot_dense(rng);
        Self::new(weight, use_bias.then(|| glorot_vector(rng)))
    }
}
