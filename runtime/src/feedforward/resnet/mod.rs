//! GML's `ResNetLayer(dim, act; use_bias)`: `x ↦ x + σ(W x + b)` with `W` dense `D×D`.

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SVector};
use rand::Rng;

use super::{bias_from_slice, residual};
use crate::activation::{Activation, Identity, Tanh};
use crate::error::Error;
use crate::lanewise::LaneTwin;
use crate::layer::ColumnLayer;
use crate::packed::matrix_from_slice;
use crate::scalar::{Field, MapScalar, Real};
use crate::{init, product};

/// `x ↦ x + σ(W x + b)`, `W` dense; GML's default activation is the identity.
///
/// ```
/// use geomattn::{ColumnLayer, Identity, ResNetLayer};
/// use geomattn::nalgebra::{Matrix2, Vector2};
/// let layer = ResNetLayer::<f64, 2, Identity>::new(Matrix2::new(0.0, 1.0,
///                                                               2.0, 0.0),
///                                                  Some(Vector2::new(1.0, 0.0)));
/// assert_eq!(layer.apply(&Vector2::new(3.0, 4.0)), Vector2::new(8.0, 10.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResNetLayer<S, const D: usize, Act = Identity> {
    weight: SMatrix<S, D, D>,
    bias: Option<SVector<S, D>>,
    activation: PhantomData<Act>,
}

impl<S: Field, const D: usize, Act> ResNetLayer<S, D, Act> {
    /// The layer with weight `W` and bias `b` (`None`: GML's `use_bias = false`).
    pub const fn new(weight: SMatrix<S, D, D>, bias: Option<SVector<S, D>>) -> Self {
        Self {
            weight,
            bias,
            activation: PhantomData,
        }
    }

    /// The layer from `W` in Julia's column-major order and an optional bias.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `weight` does not have `D²` entries or `bias` not `D`.
    pub fn from_slices(weight: &[S], bias: Option<&[S]>) -> Result<Self, Error> {
        Ok(Self::new(
            matrix_from_slice("weight", weight)?,
            bias_from_slice(bias)?,
        ))
    }

    /// The weight `W`.
    pub fn weight(&self) -> &SMatrix<S, D, D> {
        &self.weight
    }

    /// The bias `b`, if the layer has one.
    pub fn bias(&self) -> Option<&SVector<S, D>> {
        self.bias.as_ref()
    }

    /// Adds `w_bar` to the weight and `b_bar` to the bias (if any): the layer as a gradient
    /// accumulator (see [`crate::backward`]).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn accumulate(&mut self, w_bar: &SMatrix<S, D, D>, b_bar: &SVector<S, D>) {
        product::update(
            &mut self.weight,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |entry, i, j| entry + w_bar[(i, j)],
        );
        if let Some(bias) = self.bias.as_mut() {
            product::update(
                bias,
                #[cfg_attr(not(debug_assertions), inline(always))]
                |entry, i, _| entry + b_bar[i],
            );
        }
    }
}

impl<S: RealField + Copy, const D: usize, Act> ResNetLayer<S, D, Act> {
    /// GML's initialisation: `W` GlorotUniform, U(−√(6/2D), √(6/2D)); the bias (with
    /// `use_bias`) zero.
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R, use_bias: bool) -> Self {
        Self::new(init::glorot_dense(rng), use_bias.then(SVector::zeros))
    }
}

impl<S: Field, const D: usize, Act: Activation<S>> ColumnLayer<D> for ResNetLayer<S, D, Act> {
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        residual::<S, Act, D>(&self.weight, x, self.bias.as_ref())
    }
}

/// The same layer over another scalar, weight by weight.
impl<S: Field, const D: usize, Act> MapScalar for ResNetLayer<S, D, Act> {
    type Scalar = S;
    type Over<S2: Field> = ResNetLayer<S2, D, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> ResNetLayer<S2, D, Act> {
        let weight = self.weight.map(&mut f);
        ResNetLayer::new(weight, self.bias.map(|b| b.map(f)))
    }
}

/// The lane twins of the layer with GML's activations.
macro_rules! resnet_lane_twins {
    ($($act:ty),*) => {$(
        impl<S: Field, const D: usize, const T: usize> LaneTwin<D, T> for ResNetLayer<S, D, $act> {
            type Twin<X: Real> = ResNetLayer<X, D, $act>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

resnet_lane_twins!(Tanh, Identity);
