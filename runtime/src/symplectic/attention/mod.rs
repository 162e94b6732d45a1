//! GML's `SymplecticAttentionQ / P(M; symmetric, activation)`.
//!
//! For the `Q` layer, with `p ∈ R^{n×T}` the momenta of the sequence:
//!
//! ```text
//! C = pᵀ A p   (T×T, C[i,j] = p_iᵀ A p_j, no scaling),   S = σ(C),   q ← q + K(p),   p unchanged
//! ```
//!
//! The `P` layer swaps the roles of `q` and `p`. `σ` is [`MatrixSoftmax`] (GML's default) or
//! [`VectorSoftmax`]; the kick `K` depends on the weight:
//!
//! | weight | GML | kick `K(p)` | symplectic |
//! |---|---|---|---|
//! | [`DenseA`] (`n×n`) | `symmetric = false` (default) | `A p Sᵀ + Aᵀ p S` | yes, both softmaxes |
//! | [`SymmetricA`]`<_, _, `[`GradientExact`]`>` | — | `A p (S + Sᵀ)` | yes, both softmaxes |
//! | [`SymmetricA`]`<_, _, `[`GmlCompatible`]`>` | `symmetric = true` | `2 A p S` | only with `MatrixSoftmax` |
//!
//! Why: with `φ(p) = log Σ_{ij} e^{C_ij}` ([`MatrixSoftmax`]) or `φ(p) = Σ_j log Σ_i e^{C_ij}`
//! ([`VectorSoftmax`]), `∂φ/∂p_k = Σ_j S_kj A p_j + Σ_i S_ik Aᵀ p_i`, i.e. `∇φ = A p Sᵀ + Aᵀ p S`:
//! the dense kick is a gradient, so `(q, p) ↦ (q + ∇φ(p), p)` is a symplectic shear. For symmetric
//! `A` that gradient is `A p (S + Sᵀ)`, which is what [`GradientExact`] computes. GML computes
//! `2 A p S` instead; that equals the gradient when `S` is symmetric, which holds for
//! `MatrixSoftmax` (symmetric `A` makes `C` symmetric, and the whole-matrix softmax keeps it so),
//! but not for `VectorSoftmax`, whose columns are normalised separately: then the kick is not a
//! gradient and the layer is **not** symplectic (the test suite measures `‖Jᵀ𝕁J − 𝕁‖` of order 1).
//!
//! The default for symmetric weights is therefore the structure-preserving [`GradientExact`]; use
//! [`SymplecticAttention::symmetric_gml`] (weight [`SymmetricA`]`<S, N, GmlCompatible>`) to reproduce
//! GML's numbers for weights trained with `symmetric = true`. With `MatrixSoftmax` both agree.
//!
//! The layer works for every sequence length `T` and on sequences of dimension `D = 2N`, so the
//! flat-buffer entry point names both: `SequenceLayer::<f64, D, T>::forward_flat(&layer, …)`.
//! Any other `D` fails to compile:
//!
//! ```compile_fail
//! use geomattn::{SequenceLayer, SymplecticAttentionQ, nalgebra::{Matrix2, SMatrix}};
//! let layer = SymplecticAttentionQ::<f64, 2>::arbitrary(Matrix2::identity());
//! // Phase space R⁵ has no (q, p) split into halves of 2.
//! let _ = layer.forward(&SMatrix::<f64, 5, 3>::zeros());
//! ```
//!
//! ```
//! use geomattn::{SequenceLayer, SymplecticAttentionQ, nalgebra::{Matrix1, Matrix2x3}};
//! // n = 1, A = (1): C = p pᵀ, S = σ(C), q ← q + p (Sᵀ + S).
//! let layer = SymplecticAttentionQ::<f64, 1>::arbitrary(Matrix1::new(1.0));
//! let z = Matrix2x3::new(0.0, 0.0, 0.0,
//!                        1.0, 0.0, 0.0);
//! // C has one nonzero entry, C[0,0] = 1: S[0,0] = e/(e + 8), all others 1/(e + 8).
//! let e = std::f64::consts::E;
//! let out = layer.forward(&z);
//! assert!((out[(0, 0)] - 2.0 * e / (e + 8.0)).abs() < 1e-15);
//! assert!((out[(0, 1)] - 2.0 / (e + 8.0)).abs() < 1e-15);
//! assert_eq!(out.row(1), z.row(1));
//! # Ok::<(), geomattn::Error>(())
//! ```

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, RealField, SMatrix, SMatrixView, SMatrixViewMut};
use rand::Rng;

use super::{PhaseSide, UpdateP, UpdateQ, assert_phase_space};
use crate::error::Error;
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::packed::Symmetric;
use crate::packed::matrix_from_slice;
use crate::scalar::{Field, MapScalar, Real, two};
#[cfg(doc)]
use crate::softmax::VectorSoftmax;
use crate::softmax::{MatrixSoftmax, Softmax, applied};
use crate::workspace::{Fresh, Workspace};
use crate::{init, product};

/// The weight of a symplectic attention layer: how the driving half `x` (`p` for a `Q` layer)
/// becomes the kick added to the other half.
pub trait SymplecticWeight<S: Real, const N: usize> {
    /// The kick `K(x)`, with `σ` = `Sm`.
    fn kick<Sm: Softmax, const T: usize>(&self, x: &SMatrix<S, N, T>) -> SMatrix<S, N, T>;
}

/// GML's `symmetric = false` weight: `A` dense `n×n`, kick `A x Sᵀ + Aᵀ x S`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DenseA<S, const N: usize> {
    a: SMatrix<S, N, N>,
}

/// The formula a symmetric weight uses; see the [module docs](self).
///
/// The supertraits let layers that carry the marker derive `Copy`, `Debug` and `PartialEq`.
pub trait SymmetricMode: Copy + core::fmt::Debug + PartialEq {
    /// `true` for GML's `2 A x S`, `false` for the gradient `A x (S + Sᵀ)`.
    const GML: bool;
}

/// The kick `A x (S + Sᵀ)`: the exact gradient, symplectic with either softmax (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradientExact {}

/// GML's kick `2 A x S`: the numbers GML computes for `symmetric = true`; symplectic only with
/// [`MatrixSoftmax`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GmlCompatible {}

impl SymmetricMode for GradientExact {
    const GML: bool = false;
}

impl SymmetricMode for GmlCompatible {
    const GML: bool = true;
}

/// GML's `symmetric = true` weight: `A` a `SymmetricMatrix` (`n(n+1)/2` parameters), with the
/// kick formula chosen by `Mode`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SymmetricA<S, const N: usize, Mode = GradientExact> {
    a: Symmetric<S, N>,
    mode: PhantomData<Mode>,
}

impl<S: Field, const N: usize> DenseA<S, N> {
    /// The matrix `A` (in Julia's orientation: `C = pᵀ A p`).
    pub fn a(&self) -> &SMatrix<S, N, N> {
        &self.a
    }

    /// `A = 0`: the start of a gradient (see [`crate::backward`]).
    pub(crate) fn zeros() -> Self {
        Self {
            a: SMatrix::zeros(),
        }
    }

    /// Adds `∂L/∂A` to `A`: the weight as a gradient accumulator.
    pub(crate) fn accumulate(&mut self, a_bar: &SMatrix<S, N, N>) {
        self.a += a_bar;
    }
}

impl<S: Field, const N: usize, Mode> SymmetricA<S, N, Mode> {
    /// The matrix `A`.
    pub fn a(&self) -> &Symmetric<S, N> {
        &self.a
    }

    /// Every packed entry 0: the start of a gradient (see [`crate::backward`]).
    pub(crate) fn zeros() -> Self {
        Self {
            a: Symmetric::zeros(),
            mode: PhantomData,
        }
    }

    /// Adds `∂L/∂A`, given entry by entry of the dense `A`, to the packed entries: the weight as
    /// a gradient accumulator.
    pub(crate) fn accumulate(&mut self, dense: &SMatrix<S, N, N>) {
        self.a.add_dense_gradient(dense);
    }
}

impl<S: Real, const N: usize> SymplecticWeight<S, N> for DenseA<S, N> {
    #[inline(always)]
    fn kick<Sm: Softmax, const T: usize>(&self, x: &SMatrix<S, N, T>) -> SMatrix<S, N, T> {
        kick(Kick::Dense, &self.a, x, applied::<Sm, S, T>(), &mut Fresh)
    }
}

impl<S: Real, const N: usize, Mode: SymmetricMode> SymplecticWeight<S, N>
    for SymmetricA<S, N, Mode>
{
    #[inline(always)]
    fn kick<Sm: Softmax, const T: usize>(&self, x: &SMatrix<S, N, T>) -> SMatrix<S, N, T> {
        kick(
            Kick::symmetric(Mode::GML),
            self.a.matrix(),
            x,
            applied::<Sm, S, T>(),
            &mut Fresh,
        )
    }
}

/// The three kicks of the table above, as data (the engine's layers hold one; the compile-time
/// weights name theirs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kick {
    /// [`DenseA`]: `y Sᵀ + w S`, `w = Aᵀ x`.
    Dense,
    /// [`SymmetricA`]`<_, _, `[`GradientExact`]`>`: `y (S + Sᵀ)`.
    Exact,
    /// [`SymmetricA`]`<_, _, `[`GmlCompatible`]`>`: `2 y S`.
    Gml,
}

impl Kick {
    /// A symmetric weight's kick: GML's (`gml`) or the gradient.
    pub(crate) const fn symmetric(gml: bool) -> Self {
        if gml { Self::Gml } else { Self::Exact }
    }
}

/// `y = A x` and `S = σ(xᵀ y)` of the driving half `x`, on matrices of `workspace`, with the
/// caller's `σ` (by value).
#[inline(always)]
pub(crate) fn scores<S, N: Dim, T: Dim, W: Workspace<S>>(
    a: &OMatrix<S, N, N>,
    x: &OMatrix<S, N, T>,
    softmax: impl FnOnce(OMatrix<S, T, T>) -> OMatrix<S, T, T>,
    workspace: &mut W,
) -> (OMatrix<S, N, T>, OMatrix<S, T, T>)
where
    S: Field,
    DefaultAllocator: Allocator<N, N> + Allocator<N, T> + Allocator<T, T>,
{
    let y = workspace.mul(a, x);
    let s = softmax(workspace.tr_mul(x, &y));
    (y, s)
}

/// The kick `K(x)` of the driving half `x` (`n×T`) with weight `A` and the caller's `σ`, on a
/// matrix of `workspace`: the one place the three kicks are written, for every size (nalgebra's
/// [`Dim`]); the compile-time weights run it on the stack ([`Fresh`]), the engine's layers on
/// their scratch.
#[inline(always)]
pub(crate) fn kick<S, N: Dim, T: Dim, W: Workspace<S>>(
    kind: Kick,
    a: &OMatrix<S, N, N>,
    x: &OMatrix<S, N, T>,
    softmax: impl FnOnce(OMatrix<S, T, T>) -> OMatrix<S, T, T>,
    workspace: &mut W,
) -> OMatrix<S, N, T>
where
    S: Field,
    DefaultAllocator: Allocator<N, N> + Allocator<N, T> + Allocator<T, T>,
{
    let (mut y, mut s) = scores(a, x, softmax, workspace);
    let kick = match kind {
        Kick::Dense => {
            let mut s_t = workspace.transpose(&s);
            let mut forward = workspace.mul(&y, &s_t);
            let mut w = workspace.tr_mul(a, x);
            let mut backward = workspace.mul(&w, &s);
            let (n, t) = forward.shape_generic();
            let kick = workspace.build(
                n,
                t,
                #[inline(always)]
                |i, j| forward[(i, j)] + backward[(i, j)],
            );
            workspace.recycle(&mut s_t);
            workspace.recycle_all([&mut w, &mut forward, &mut backward]);
            kick
        }
        Kick::Exact => {
            let (t, _) = s.shape_generic();
            let mut mixing = workspace.build(
                t,
                t,
                #[inline(always)]
                |i, j| s[(i, j)] + s[(j, i)],
            );
            let kick = workspace.mul(&y, &mixing);
            workspace.recycle(&mut mixing);
            kick
        }
        Kick::Gml => {
            let mut kick = workspace.mul(&y, &s);
            product::update(
                &mut kick,
                #[inline(always)]
                |k, _, _| k * two::<S>(),
            );
            kick
        }
    };
    workspace.recycle(&mut y);
    workspace.recycle(&mut s);
    kick
}

impl<S: Field, const N: usize> MapScalar for DenseA<S, N> {
    type Scalar = S;
    type Over<S2: Field> = DenseA<S2, N>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> DenseA<S2, N> {
        DenseA { a: self.a.map(f) }
    }
}

/// The same weight over another scalar, entry by entry.
impl<S: Field, const N: usize, Mode> MapScalar for SymmetricA<S, N, Mode> {
    type Scalar = S;
    type Over<S2: Field> = SymmetricA<S2, N, Mode>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> SymmetricA<S2, N, Mode> {
        SymmetricA {
            a: self.a.map_scalar(f),
            mode: PhantomData,
        }
    }
}

/// Symplectic attention on sequences of points of `R^{2N}`, updating the half chosen by `Side`,
/// with softmax `Sm` and weight `Weight`. Works for every sequence length `T`.
///
/// The constructors live on the default type (dense weight, [`MatrixSoftmax`]) and return the
/// layer with the weight they build, so naming the scalar and `N` is enough for every one of them;
/// name the softmax third to change it (or call [`with_softmax`](Self::with_softmax)):
///
/// ```
/// use geomattn::{SymplecticAttentionQ, SymplecticAttentionP, Symmetric, VectorSoftmax};
/// use geomattn::nalgebra::Matrix2;
/// let a = Symmetric::<f64, 2>::from_packed(&[1.0, 0.5, 2.0])?;
/// // GML's defaults: dense A, MatrixSoftmax.
/// let dense = SymplecticAttentionQ::<f64, 2>::arbitrary(Matrix2::identity());
/// // symmetric = true, with the structure-preserving kick, or with GML's own kick.
/// let exact = SymplecticAttentionQ::<f64, 2>::symmetric(a);
/// let gml = SymplecticAttentionP::<f64, 2>::symmetric_gml(a);
/// // The same with VectorSoftmax: name it third, or switch afterwards.
/// let gml_vector = SymplecticAttentionP::<f64, 2, VectorSoftmax>::symmetric_gml(a);
/// assert_eq!(gml_vector, gml.with_softmax::<VectorSoftmax>());
/// # let _ = (dense, exact);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SymplecticAttention<S, const N: usize, Side, Sm = MatrixSoftmax, Weight = DenseA<S, N>> {
    weight: Weight,
    marker: PhantomData<(S, Side, Sm)>,
}

/// GML's `SymplecticAttentionQ` (`q ← q + K(p)`), by default with GML's constructor defaults:
/// [`MatrixSoftmax`] and a dense `A`.
pub type SymplecticAttentionQ<S, const N: usize, Sm = MatrixSoftmax, Weight = DenseA<S, N>> =
    SymplecticAttention<S, N, UpdateQ, Sm, Weight>;

/// GML's `SymplecticAttentionP` (`p ← p + K(q)`), by default with GML's constructor defaults:
/// [`MatrixSoftmax`] and a dense `A`.
pub type SymplecticAttentionP<S, const N: usize, Sm = MatrixSoftmax, Weight = DenseA<S, N>> =
    SymplecticAttention<S, N, UpdateP, Sm, Weight>;

impl<S, const N: usize, Side, Sm, Weight> SymplecticAttention<S, N, Side, Sm, Weight> {
    pub(crate) const fn with_weight(weight: Weight) -> Self {
        Self {
            weight,
            marker: PhantomData,
        }
    }

    /// The layer's weight.
    pub fn weight(&self) -> &Weight {
        &self.weight
    }

    /// The layer's weight, to accumulate a gradient in (see [`crate::backward`]).
    pub(crate) fn weight_mut(&mut self) -> &mut Weight {
        &mut self.weight
    }

    /// The same weight with another softmax.
    pub fn with_softmax<Sm2>(self) -> SymplecticAttention<S, N, Side, Sm2, Weight> {
        SymplecticAttention::with_weight(self.weight)
    }
}

impl<S: Field, const N: usize, Side, Sm> SymplecticAttention<S, N, Side, Sm, DenseA<S, N>> {
    /// GML's `symmetric = false` layer with the dense weight `A` (`n×n`).
    pub const fn arbitrary(a: SMatrix<S, N, N>) -> Self {
        Self::with_weight(DenseA { a })
    }

    /// The dense layer from Julia's `A` in column-major order (`vec(A)`).
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `a` does not have `N²` entries.
    pub fn arbitrary_from_column_major(a: &[S]) -> Result<Self, Error> {
        Ok(Self::arbitrary(matrix_from_slice("A", a)?))
    }

    /// A symmetric weight with the structure-preserving kick `A p (S + Sᵀ)`.
    pub const fn symmetric(
        a: Symmetric<S, N>,
    ) -> SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, GradientExact>> {
        SymplecticAttention::with_symmetric(a)
    }

    /// GML's `symmetric = true` layer, with GML's kick `2 A p S` (symplectic only with
    /// [`MatrixSoftmax`]; see the [module docs](self)).
    pub const fn symmetric_gml(
        a: Symmetric<S, N>,
    ) -> SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, GmlCompatible>> {
        SymplecticAttention::with_symmetric(a)
    }
}

impl<S: RealField + Copy, const N: usize, Side, Sm>
    SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    /// GML's initialisation of the dense weight: U(−√(6/2n), √(6/2n)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::arbitrary(init::glorot_dense(rng))
    }
}

impl<S: Field, const N: usize, Side, Sm, Mode>
    SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
{
    pub(crate) const fn with_symmetric(a: Symmetric<S, N>) -> Self {
        Self::with_weight(SymmetricA {
            a,
            mode: PhantomData,
        })
    }

    /// The same symmetric weight with the other kick formula (`Mode2`).
    pub fn with_mode<Mode2>(self) -> SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode2>> {
        SymplecticAttention::with_symmetric(self.weight.a)
    }
}

impl<S: RealField + Copy, const N: usize, Side, Sm, Mode>
    SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
{
    /// GML's initialisation of the symmetric weight: the `n(n+1)/2` packed entries from
    /// U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::with_symmetric(Symmetric::glorot(rng))
    }
}

/// The same layer over another scalar, weight by weight.
impl<S: Field, const N: usize, Side, Sm, Weight> MapScalar
    for SymplecticAttention<S, N, Side, Sm, Weight>
where
    Weight: MapScalar<Scalar = S>,
{
    type Scalar = S;
    type Over<S2: Field> = SymplecticAttention<S2, N, Side, Sm, Weight::Over<S2>>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        SymplecticAttention::with_weight(self.weight.map_scalar(f))
    }
}

/// The lane twins of the dense weight, with either softmax.
impl<S: Field, const D: usize, const N: usize, const T: usize, Side: PhaseSide, Sm: Softmax>
    LaneTwin<D, T> for SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
{
    type Twin<X: Real> = SymplecticAttention<X, N, Side, Sm, DenseA<X, N>>;

    fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
        self.map_scalar(f)
    }
}

/// The lane twins of the symmetric weight, with either kick and either softmax.
impl<S, const D: usize, const N: usize, const T: usize, Side, Sm, Mode> LaneTwin<D, T>
    for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
where
    S: Field,
    Side: PhaseSide,
    Sm: Softmax,
    Mode: SymmetricMode,
{
    type Twin<X: Real> = SymplecticAttention<X, N, Side, Sm, SymmetricA<X, N, Mode>>;

    fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
        self.map_scalar(f)
    }
}

/// A sequence of dimension `D = 2N` (any other `D` fails to compile).
impl<S, const D: usize, const N: usize, const T: usize, Side, Sm, Weight> SequenceLayer<S, D, T>
    for SymplecticAttention<S, N, Side, Sm, Weight>
where
    S: Real,
    Side: PhaseSide,
    Sm: Softmax,
    Weight: SymplecticWeight<S, N>,
{
    #[inline(always)]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        const { assert_phase_space::<D, N>() };
        let (updated, driving) = Side::rows(N);
        let x: SMatrix<S, N, T> = product::matrix(
            #[inline(always)]
            |i, j| z[(driving + i, j)],
        );
        let kick = self.weight.kick::<Sm, T>(&x);
        for j in 0..T {
            for i in 0..D {
                out[(i, j)] = z[(i, j)];
            }
            for i in 0..N {
                out[(updated + i, j)] += kick[(i, j)];
            }
        }
    }
}
