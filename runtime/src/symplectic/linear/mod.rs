//! GML's `LinearSymplecticAttentionQ / P(M, seq_length)`: a symmetric `T×T` matrix `A` mixing the
//! time steps, `q ← q + p·A` (Q layer) or `p ← p + q·A` (P layer).
//!
//! `p·A` is the gradient of the quadratic potential `½ tr(p A pᵀ)` (because `A` is symmetric), so
//! each layer is a linear symplectic shear of `R^{2n×T}`. It needs only `+ −  ×`, so it runs on any
//! [`Field`], exact rationals included.
//!
//! ```
//! use geomattn::{LinearSymplecticAttentionQ, SequenceLayer, Symmetric, nalgebra::Matrix2x3};
//! // n = 1, T = 3: A = SymmetricMatrix(1..6, 3), q = (1 2 3), p = (0 1 −1).
//! let a = Symmetric::<f64, 3>::from_packed(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let layer = LinearSymplecticAttentionQ::<f64, 1, 3>::new(a);
//! let z = Matrix2x3::new(1.0, 2.0, 3.0,
//!                        0.0, 1.0, -1.0);
//! assert_eq!(layer.forward(&z), Matrix2x3::new(-1.0, 0.0, 2.0,
//!                                              0.0, 1.0, -1.0));
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
use crate::product;
use crate::scalar::{Field, MapScalar, Real};
use crate::workspace::{Fresh, Workspace};

/// Linear symplectic attention on sequences of `T` points of `R^{2N}`, updating the half chosen by
/// `Side` ([`UpdateQ`] or [`UpdateP`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearSymplecticAttention<S, const N: usize, const T: usize, Side> {
    a: Symmetric<S, T>,
    side: PhantomData<Side>,
}

/// GML's `LinearSymplecticAttentionQ`: `q ← q + p·A`.
pub type LinearSymplecticAttentionQ<S, const N: usize, const T: usize> =
    LinearSymplecticAttention<S, N, T, UpdateQ>;

/// GML's `LinearSymplecticAttentionP`: `p ← p + q·A`.
pub type LinearSymplecticAttentionP<S, const N: usize, const T: usize> =
    LinearSymplecticAttention<S, N, T, UpdateP>;

impl<S: Field, const N: usize, const T: usize, Side: PhaseSide>
    LinearSymplecticAttention<S, N, T, Side>
{
    /// The layer with weight `A` (GML's `SymmetricMatrix` of size `seq_length`).
    pub const fn new(a: Symmetric<S, T>) -> Self {
        Self {
            a,
            side: PhantomData,
        }
    }

    /// The layer from GML's packed vector of `A` (`T(T+1)/2` entries).
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `packed` has the wrong length.
    pub fn from_packed(packed: &[S]) -> Result<Self, Error> {
        Ok(Self::new(Symmetric::from_packed(packed)?))
    }

    /// The weight `A`.
    pub fn a(&self) -> &Symmetric<S, T> {
        &self.a
    }

    /// Adds `∂L/∂A`, given entry by entry of the dense `A`, to the packed weight: the layer as a
    /// gradient accumulator (see [`crate::backward`]).
    pub(crate) fn accumulate(&mut self, dense: &SMatrix<S, T, T>) {
        self.a.add_dense_gradient(dense);
    }
}

impl<S: RealField + Copy, const N: usize, const T: usize, Side: PhaseSide>
    LinearSymplecticAttention<S, N, T, Side>
{
    /// GML's initialisation: the `T(T+1)/2` packed entries of `A` from U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(Symmetric::glorot(rng))
    }
}

/// The same layer over another scalar, weight by weight.
impl<S: Field, const N: usize, const T: usize, Side: PhaseSide> MapScalar
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Scalar = S;
    type Over<S2: Field> = LinearSymplecticAttention<S2, N, T, Side>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        LinearSymplecticAttention::new(self.a.map_scalar(f))
    }
}

/// The lane twin (the layer needs only `+` and `×`).
impl<S: Field, const D: usize, const N: usize, const T: usize, Side: PhaseSide> LaneTwin<D, T>
    for LinearSymplecticAttention<S, N, T, Side>
{
    type Twin<X: Real> = LinearSymplecticAttention<X, N, T, Side>;

    fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
        self.map_scalar(f)
    }
}

/// A sequence of dimension `D = 2N` (any other `D` fails to compile).
impl<S: Field, const D: usize, const N: usize, const T: usize, Side: PhaseSide>
    SequenceLayer<S, D, T> for LinearSymplecticAttention<S, N, T, Side>
{
    #[inline(always)]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        const { assert_phase_space::<D, N>() };
        let (updated, driving) = Side::rows(N);
        let x: SMatrix<S, N, T> = product::matrix(
            #[inline(always)]
            |i, j| z[(driving + i, j)],
        );
        let kick = kick(self.a.matrix(), &x, &mut Fresh);
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

/// The kick `x A` of the driving half `x` (`n×T`), on a matrix of `workspace`: with
/// [`kick_backward`], the one place the layer's maths is written, for every size (nalgebra's
/// [`Dim`]); the compile-time layer runs it on the stack ([`Fresh`]), the engine's on its
/// scratch.
#[inline(always)]
pub(crate) fn kick<S, N: Dim, T: Dim, W: Workspace<S>>(
    a: &OMatrix<S, T, T>,
    x: &OMatrix<S, N, T>,
    workspace: &mut W,
) -> OMatrix<S, N, T>
where
    S: Field,
    DefaultAllocator: Allocator<N, T> + Allocator<T, T>,
{
    workspace.mul(x, a)
}

/// The pullback of [`kick`] at `x`, given `g = ∂L/∂(x A)`: `(x̄, Ā) = (G A, xᵀ G)` (`A`
/// symmetric; `Ā` dense, for the caller to fold onto the packed entries).
#[inline(always)]
pub(crate) fn kick_backward<S, N: Dim, T: Dim, W: Workspace<S>>(
    a: &OMatrix<S, T, T>,
    (x, g): (&OMatrix<S, N, T>, &OMatrix<S, N, T>),
    workspace: &mut W,
) -> (OMatrix<S, N, T>, OMatrix<S, T, T>)
where
    S: Field,
    DefaultAllocator: Allocator<N, T> + Allocator<T, T>,
{
    (workspace.mul(g, a), workspace.tr_mul(x, g))
}
