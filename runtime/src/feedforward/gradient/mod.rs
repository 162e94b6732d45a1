//! GML's `GradientLayerQ / GradientLayerP(M, upscale, act)`, the SympNet gradient modules.
//!
//! On phase space `x = (q, p) ∈ R^{2N}` (`q` the first `N` rows, `p` the last `N`), with
//! `K ∈ R^{HIDDEN×N}`, `b, a ∈ R^HIDDEN` (GML: `M = 2N`, `upscale = 2·HIDDEN`, parameters `weight`, `bias`,
//! `scale`):
//!
//! - Q layer: `q ← q + Kᵀ(a ⊙ σ(K p + b))`, `p` unchanged;
//! - P layer: `p ← p + Kᵀ(a ⊙ σ(K q + b))`, `q` unchanged.
//!
//! The update is the gradient of `V(p) = Σᵢ aᵢ Σ(K p + b)ᵢ` (`Σ' = σ`), so the map is a shear by a
//! symmetric matrix and is symplectic: `Jᵀ 𝕁 J = 𝕁`.

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::{Dim, Matrix, RawStorage, RawStorageMut, RealField, SMatrix, SVector, U1};
use rand::Rng;

use super::{activated_after_product, glorot_vector};
use crate::activation::{Activation, Identity, Tanh};
use crate::error::Error;
use crate::lanewise::LaneTwin;
use crate::layer::ColumnLayer;
use crate::packed::matrix_from_slice;
use crate::scalar::{Field, MapScalar, Real};
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ, assert_phase_space};
use crate::{init, product};

/// A SympNet gradient layer on `R^{2N}` with `HIDDEN` hidden units, changing the half `Side` of
/// phase space. Use the aliases [`GradientLayerQ`] and [`GradientLayerP`].
///
/// It implements [`ColumnLayer<D>`] (hence [`crate::SequenceLayer`]) for `D = 2N` only: any
/// other `D` fails to compile.
///
/// ```
/// use geomattn::{ColumnLayer, GradientLayerQ, Identity};
/// use geomattn::nalgebra::{Matrix1x2, Vector1, Vector4};
/// // K = [1 2], b = 1, a = 3: q ← q + Kᵀ · 3 (p₁ + 2p₂ + 1).
/// let layer = GradientLayerQ::<f64, 2, 1, Identity>::new(
///     Matrix1x2::new(1.0, 2.0), Vector1::new(1.0), Vector1::new(3.0));
/// let y = layer.apply(&Vector4::new(0.0, 0.0, 1.0, 1.0));
/// assert_eq!(y, Vector4::new(12.0, 24.0, 1.0, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradientLayer<S, const N: usize, const HIDDEN: usize, Side, Act = Tanh> {
    k: SMatrix<S, HIDDEN, N>,
    b: SVector<S, HIDDEN>,
    a: SVector<S, HIDDEN>,
    marker: PhantomData<(Side, Act)>,
}

/// GML's `GradientLayerQ`: `q ← q + Kᵀ(a ⊙ σ(K p + b))`.
pub type GradientLayerQ<S, const N: usize, const HIDDEN: usize, Act = Tanh> =
    GradientLayer<S, N, HIDDEN, UpdateQ, Act>;
/// GML's `GradientLayerP`: `p ← p + Kᵀ(a ⊙ σ(K q + b))`.
pub type GradientLayerP<S, const N: usize, const HIDDEN: usize, Act = Tanh> =
    GradientLayer<S, N, HIDDEN, UpdateP, Act>;

impl<S: Field, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act>
    GradientLayer<S, N, HIDDEN, Side, Act>
{
    /// The layer with GML's `weight` `K` (`HIDDEN×N`), `bias` `b` and `scale` `a`.
    pub const fn new(
        k: SMatrix<S, HIDDEN, N>,
        b: SVector<S, HIDDEN>,
        a: SVector<S, HIDDEN>,
    ) -> Self {
        Self {
            k,
            b,
            a,
            marker: PhantomData,
        }
    }

    /// The layer from flat slices (`K` in Julia's column-major order).
    ///
    /// ```
    /// use geomattn::{Error, GradientLayerP};
    /// let bad = GradientLayerP::<f64, 2, 3>::from_slices(&[0.0; 6], &[0.0; 3], &[0.0; 2]);
    /// assert_eq!(bad, Err(Error::WeightLength { name: "scale", expected: 3, found: 2 }));
    /// ```
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `weight` does not have `HIDDEN·N` entries, or `bias` or
    /// `scale` not `HIDDEN`.
    pub fn from_slices(weight: &[S], bias: &[S], scale: &[S]) -> Result<Self, Error> {
        Ok(Self::new(
            matrix_from_slice("weight", weight)?,
            matrix_from_slice("bias", bias)?,
            matrix_from_slice("scale", scale)?,
        ))
    }

    /// GML's `weight` `K`.
    pub fn weight(&self) -> &SMatrix<S, HIDDEN, N> {
        &self.k
    }

    /// GML's `bias` `b`.
    pub fn bias(&self) -> &SVector<S, HIDDEN> {
        &self.b
    }

    /// GML's `scale` `a`.
    pub fn scale(&self) -> &SVector<S, HIDDEN> {
        &self.a
    }

    /// Adds `k_bar`, `b_bar` and `a_bar` to the weight, bias and scale: the layer as a gradient
    /// accumulator (see [`crate::backward`]).
    pub(crate) fn accumulate(
        &mut self,
        k_bar: &SMatrix<S, HIDDEN, N>,
        b_bar: &SVector<S, HIDDEN>,
        a_bar: &SVector<S, HIDDEN>,
    ) {
        self.k += k_bar;
        self.b += b_bar;
        self.a += a_bar;
    }
}

impl<S: RealField + Copy, const N: usize, const HIDDEN: usize, Side: PhaseSide, Act>
    GradientLayer<S, N, HIDDEN, Side, Act>
{
    /// GML's initialisation: `K` GlorotUniform (U(−√(6/(HIDDEN+N)), …)), `b` zero, `a`
    /// GlorotUniform (U(−√(6/HIDDEN), √(6/HIDDEN))).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let k = init::glorot_dense(rng);
        let a = glorot_vector(rng);
        Self::new(k, SVector::zeros(), a)
    }
}

impl<S, const D: usize, const N: usize, const HIDDEN: usize, Side, Act> ColumnLayer<D>
    for GradientLayer<S, N, HIDDEN, Side, Act>
where
    S: Field,
    Side: PhaseSide,
    Act: Activation<S>,
{
    type Scalar = S;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        const { assert_phase_space::<D, N>() };
        let (target, source) = Side::rows(N);
        let driver: SVector<S, N> = product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, _| x[source + i],
        );
        let mut hidden = product::mul(&self.k, &driver);
        let mut y = *x;
        shear_after_product(
            &mut hidden,
            &self.b,
            &self.a,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |u| *u = Act::apply_matrix(*u),
            #[cfg_attr(not(debug_assertions), inline(always))]
            |h| product::tr_mul(&self.k, h),
            (&mut y, target),
        );
        y
    }
}

/// The gradient layer's update after its product `u = K x_s` (`x_s` the driving half), for every
/// size (nalgebra's [`Dim`]) and every column: `u ← a ⊙ σ(u + b)`, then `x_t ← x_t + Kᵀ u` in
/// the `Kᵀ u` of the caller's product, `x_t` the rows of `x` from `target` on; returns `Kᵀ u`
/// (for the engine to recycle). The one place these steps are written: the compile-time layer
/// and the engine's (`engine::GradientLayer`) give it their products and their `σ` over the
/// whole of `u`.
#[inline(always)]
pub(crate) fn shear_after_product<S, H: Dim, N: Dim, C: Dim, R: Dim, SU, SB, SA, SP, SX>(
    u: &mut Matrix<S, H, C, SU>,
    b: &Matrix<S, H, U1, SB>,
    a: &Matrix<S, H, U1, SA>,
    activate: impl FnOnce(&mut Matrix<S, H, C, SU>),
    transposed_product: impl FnOnce(&Matrix<S, H, C, SU>) -> Matrix<S, N, C, SP>,
    (x, target): (&mut Matrix<S, R, C, SX>, usize),
) -> Matrix<S, N, C, SP>
where
    S: Field,
    SU: RawStorageMut<S, H, C>,
    SB: RawStorage<S, H, U1>,
    SA: RawStorage<S, H, U1>,
    SP: RawStorage<S, N, C>,
    SX: RawStorageMut<S, R, C>,
{
    activated_after_product(u, Some(b), activate);
    product::update(
        u,
        #[inline(always)]
        |entry, i, _| entry * a[i],
    );
    let update = transposed_product(u);
    for j in 0..update.ncols() {
        for i in 0..update.nrows() {
            x[(target + i, j)] += update[(i, j)];
        }
    }
    update
}

/// The same layer over another scalar, weight by weight.
impl<S: Field, const N: usize, const HIDDEN: usize, Side, Act> MapScalar
    for GradientLayer<S, N, HIDDEN, Side, Act>
{
    type Scalar = S;
    type Over<S2: Field> = GradientLayer<S2, N, HIDDEN, Side, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        let k = self.k.map(&mut f);
        let b = self.b.map(&mut f);
        GradientLayer {
            k,
            b,
            a: self.a.map(f),
            marker: PhantomData,
        }
    }
}

/// The lane twins of the layer with GML's activations.
macro_rules! gradient_lane_twins {
    ($($act:ty),*) => {$(
        impl<S, const D: usize, const T: usize, const N: usize, const HIDDEN: usize, Side>
            LaneTwin<D, T> for GradientLayer<S, N, HIDDEN, Side, $act>
        where
            S: Field,
            Side: PhaseSide,
        {
            type Twin<X: Real> = GradientLayer<X, N, HIDDEN, Side, $act>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

gradient_lane_twins!(Tanh, Identity);
