//! GML's `GradientLayerQ / GradientLayerP(M, upscale, act)`, the SympNet gradient modules.
//!
//! On phase space `x = (q, p) ∈ R^{2N}` (`q` the first `N` rows, `p` the last `N`), with
//! `K ∈ R^{H×N}`, `b, a ∈ R^H` (GML: `M = 2N`, `upscale = 2H`, parameters `weight`, `bias`,
//! `scale`):
//!
//! - Q layer: `q ← q + Kᵀ(a ⊙ σ(K p + b))`, `p` unchanged;
//! - P layer: `p ← p + Kᵀ(a ⊙ σ(K q + b))`, `q` unchanged.
//!
//! The update is the gradient of `V(p) = Σᵢ aᵢ Σ(K p + b)ᵢ` (`Σ' = σ`), so the map is a shear by a
//! symmetric matrix and is symplectic: `Jᵀ 𝕁 J = 𝕁`.

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use rand::Rng;

use super::{ColumnLayer, forward_columns, glorot_vector, matrix_from_slice};
use crate::activation::{Activation, Tanh};
use crate::{Error, Field, SequenceLayer, init};

/// Which half of phase space a gradient layer changes: [`ChangeQ`] or [`ChangeP`].
pub trait PhaseSide {
    /// `true` if the layer changes `q` (from `p`), `false` if it changes `p` (from `q`).
    const CHANGES_Q: bool;
}

/// Marker of the Q layer: `q` changes, driven by `p`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeQ;
/// Marker of the P layer: `p` changes, driven by `q`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeP;

impl PhaseSide for ChangeQ {
    const CHANGES_Q: bool = true;
}
impl PhaseSide for ChangeP {
    const CHANGES_Q: bool = false;
}

/// A SympNet gradient layer on `R^{2N}` with `H` hidden units, changing the half `P` of phase
/// space. Use the aliases [`GradientLayerQ`] and [`GradientLayerP`].
///
/// It implements [`ColumnLayer<S, D>`] (hence [`crate::SequenceLayer`]) for `D = 2N` only: any
/// other `D` fails to compile.
///
/// ```
/// use geomattn::{ColumnLayer, GradientLayerQ};
/// use geomattn::activation::Identity;
/// use geomattn::nalgebra::{Matrix1x2, Vector1, Vector4};
/// // K = [1 2], b = 1, a = 3: q ← q + Kᵀ · 3 (p₁ + 2p₂ + 1).
/// let layer = GradientLayerQ::<f64, 2, 1, Identity>::new(
///     Matrix1x2::new(1.0, 2.0), Vector1::new(1.0), Vector1::new(3.0));
/// let y = layer.apply(&Vector4::new(0.0, 0.0, 1.0, 1.0));
/// assert_eq!(y, Vector4::new(12.0, 24.0, 1.0, 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradientLayer<S, const N: usize, const H: usize, P, A = Tanh> {
    k: SMatrix<S, H, N>,
    b: SVector<S, H>,
    a: SVector<S, H>,
    marker: PhantomData<(P, A)>,
}

/// GML's `GradientLayerQ`: `q ← q + Kᵀ(a ⊙ σ(K p + b))`.
pub type GradientLayerQ<S, const N: usize, const H: usize, A = Tanh> =
    GradientLayer<S, N, H, ChangeQ, A>;
/// GML's `GradientLayerP`: `p ← p + Kᵀ(a ⊙ σ(K q + b))`.
pub type GradientLayerP<S, const N: usize, const H: usize, A = Tanh> =
    GradientLayer<S, N, H, ChangeP, A>;

impl<S: Field, const N: usize, const H: usize, P: PhaseSide, A> GradientLayer<S, N, H, P, A> {
    /// The layer with GML's `weight` `K` (`H×N`), `bias` `b` and `scale` `a`.
    pub fn new(k: SMatrix<S, H, N>, b: SVector<S, H>, a: SVector<S, H>) -> Self {
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
    /// [`Error::WeightLength`] if `weight` does not have `H·N` entries, or `bias` or `scale`
    /// not `H`.
    pub fn from_slices(weight: &[S], bias: &[S], scale: &[S]) -> Result<Self, Error> {
        Ok(Self::new(
            matrix_from_slice("weight", weight)?,
            matrix_from_slice("bias", bias)?,
            matrix_from_slice("scale", scale)?,
        ))
    }

    /// GML's `weight` `K`.
    pub fn weight(&self) -> &SMatrix<S, H, N> {
        &self.k
    }

    /// GML's `bias` `b`.
    pub fn bias(&self) -> &SVector<S, H> {
        &self.b
    }

    /// GML's `scale` `a`.
    pub fn scale(&self) -> &SVector<S, H> {
        &self.a
    }

    /// The same layer over another scalar, weight by weight.
    pub fn map_scalar<S2: Field>(
        &self,
        mut f: impl FnMut(S) -> S2,
    ) -> GradientLayer<S2, N, H, P, A> {
        GradientLayer::new(self.k.map(&mut f), self.b.map(&mut f), self.a.map(f))
    }
}

impl<S: RealField + Copy, const N: usize, const H: usize, P: PhaseSide, A>
    GradientLayer<S, N, H, P, A>
{
    /// GML's initialisation: `K` GlorotUniform (U(−√(6/(H+N)), …)), `b` zero, `a` GlorotUniform
    /// (U(−√(6/H), √(6/H))).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let k = init::glorot_dense(rng);
        let a = glorot_vector(rng);
        Self::new(k, SVector::zeros(), a)
    }
}

impl<S: Field, const D: usize, const N: usize, const H: usize, P: PhaseSide, A: Activation<S>>
    ColumnLayer<S, D> for GradientLayer<S, N, H, P, A>
{
    fn apply(&self, x: &SVector<S, D>) -> SVector<S, D> {
        const {
            assert!(
                D == 2 * N,
                "a gradient layer on R^2N acts on vectors of length 2N"
            )
        };
        let (source, target) = if P::CHANGES_Q { (N, 0) } else { (0, N) };
        let driver = x.fixed_rows::<N>(source).into_owned();
        let hidden = A::apply_matrix(self.k * driver + self.b).component_mul(&self.a);
        let mut y = *x;
        let mut changed = y.fixed_rows_mut::<N>(target);
        changed += self.k.tr_mul(&hidden);
        y
    }
}

impl<S, const D: usize, const T: usize, const N: usize, const H: usize, P, A> SequenceLayer<S, D, T>
    for GradientLayer<S, N, H, P, A>
where
    S: Field,
    P: PhaseSide,
    A: Activation<S>,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, out: SMatrixViewMut<'_, S, D, T>) {
        forward_columns(self, z, out);
    }
}
