//! GML's `VolumePreservingLowerLayer` / `VolumePreservingUpperLayer(dim, act; use_bias)`:
//! the residual map `x ↦ x + σ(W x + b)` with `W` strictly lower / upper triangular.
//!
//! Entry `k` of the output adds a function of the entries before it (lower) or after it (upper)
//! only, so the Jacobian is unit triangular: the determinant is exactly 1 for any activation.

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SVector};
use rand::Rng;

use super::{bias_from_slice, residual};
use crate::activation::{Activation, Tanh};
use crate::error::Error;
use crate::layer::ColumnLayer;
use crate::packed::{Lower, Packed, PackedLayout, Upper};
use crate::product;
use crate::scalar::{Field, MapScalar};

/// The two packed layouts a volume-preserving feed-forward weight can have:
/// [`Lower`] and [`Upper`] (strict).
pub trait StrictlyTriangular: PackedLayout {}
impl StrictlyTriangular for Lower {}
impl StrictlyTriangular for Upper {}

/// `x ↦ x + σ(W x + b)` with `W` a strictly triangular [`Packed`] matrix of layout `Layout`.
///
/// Use the aliases [`VolumePreservingLowerLayer`] and [`VolumePreservingUpperLayer`].
///
/// ```
/// use geomattn::{ColumnLayer, StrictlyUpper, Tanh, VolumePreservingUpperLayer};
/// use geomattn::nalgebra::Vector3;
/// let w = StrictlyUpper::<f64, 3>::from_packed(&[1.0, 2.0, 3.0])?;
/// let layer = VolumePreservingUpperLayer::<f64, 3, Tanh>::new(w, Some(Vector3::new(0.0, 0.5, 0.0)));
/// let y = layer.apply(&Vector3::new(0.0, 0.0, 1.0));
/// // The last entry has nothing after it: only the bias could move it, and it is 0 there.
/// assert_eq!(y[2], 1.0);
/// assert!((y[0] - 2.0_f64.tanh()).abs() < 1e-15);
/// assert!((y[1] - 3.5_f64.tanh()).abs() < 1e-15);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumePreservingLayer<S, const D: usize, Layout, Act = Tanh> {
    weight: Packed<S, D, Layout>,
    bias: Option<SVector<S, D>>,
    activation: PhantomData<Act>,
}

/// GML's `VolumePreservingLowerLayer`: `W` strictly lower triangular ([`crate::StrictlyLower`]).
pub type VolumePreservingLowerLayer<S, const D: usize, Act = Tanh> =
    VolumePreservingLayer<S, D, Lower, Act>;
/// GML's `VolumePreservingUpperLayer`: `W` strictly upper triangular ([`crate::StrictlyUpper`]).
pub type VolumePreservingUpperLayer<S, const D: usize, Act = Tanh> =
    VolumePreservingLayer<S, D, Upper, Act>;

impl<S: Field, const D: usize, Layout: StrictlyTriangular, Act>
    VolumePreservingLayer<S, D, Layout, Act>
{
    /// The layer with weight `W` and bias `b` (`None`: GML's `use_bias = false`).
    pub const fn new(weight: Packed<S, D, Layout>, bias: Option<SVector<S, D>>) -> Self {
        Self {
            weight,
            bias,
            activation: PhantomData,
        }
    }

    /// The layer from GML's packed weight vector and an optional bias.
    ///
    /// ```
    /// use geomattn::{Error, VolumePreservingLowerLayer};
    /// let ok = VolumePreservingLowerLayer::<f64, 3>::from_slices(&[1.0, 2.0, 3.0], Some(&[0.0; 3]));
    /// assert!(ok.is_ok());
    /// let short = VolumePreservingLowerLayer::<f64, 3>::from_slices(&[1.0, 2.0], None);
    /// assert!(matches!(short, Err(Error::PackedLength { expected: 3, found: 2, .. })));
    /// ```
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `weight` does not have `D(D−1)/2` entries,
    /// [`Error::WeightLength`] if `bias` does not have `D`.
    pub fn from_slices(weight: &[S], bias: Option<&[S]>) -> Result<Self, Error> {
        Ok(Self::new(
            Packed::from_packed(weight)?,
            bias_from_slice(bias)?,
        ))
    }

    /// The weight `W`.
    pub fn weight(&self) -> &Packed<S, D, Layout> {
        &self.weight
    }

    /// The bias `b`, if the layer has one.
    pub fn bias(&self) -> Option<&SVector<S, D>> {
        self.bias.as_ref()
    }

    /// Adds `w_bar` at the weight's packed positions and `b_bar` to the bias (if any): the
    /// layer as a gradient accumulator (see [`crate::backward`]).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn accumulate(&mut self, w_bar: &SMatrix<S, D, D>, b_bar: &SVector<S, D>) {
        self.weight.add_packed_from(w_bar);
        if let Some(bias) = self.bias.as_mut() {
            product::update(
                bias,
                #[cfg_attr(not(debug_assertions), inline(always))]
                |entry, i, _| entry + b_bar[i],
            );
        }
    }
}

/// The same layer over another scalar, weight by weight (e.g. lifted to dual numbers).
impl<S: Field, const D: usize, Layout: StrictlyTriangular, Act> MapScalar
    for VolumePreservingLayer<S, D, Layout, Act>
{
    type Scalar = S;
    type Over<S2: Field> = VolumePreservingLayer<S2, D, Layout, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        let weight = self.weight.map_scalar(&mut f);
        VolumePreservingLayer::new(weight, self.bias.map(|b| b.map(f)))
    }
}

impl<S: RealField + Copy, const D: usize, Layout: StrictlyTriangular, Act>
    VolumePreservingLayer<S, D, Layout, Act>
{
    /// GML's initialisation: the `D(D−1)/2` packed weights from U(−√(6/L), √(6/L)), and (with
    /// `use_bias`) a zero bias (GML 0.4.8's `init_bias! = ZeroInitializer()`, which no caller
    /// overrides).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R, use_bias: bool) -> Self {
        let weight = Packed::glorot(rng);
        Self::new(weight, use_bias.then(SVector::zeros))
    }
}

impl<S: Field, const D: usize, Layout: StrictlyTriangular, Act: Activation<S>> ColumnLayer<D>
    for VolumePreservingLayer<S, D, Layout, Act>
{
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        residual::<S, Act, D>(self.weight.matrix(), x, self.bias.as_ref())
    }
}
