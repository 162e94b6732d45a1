//! GML's `LinearSymplecticAttentionQ / P(M, seq_length)`: a symmetric `T×T` matrix `A` mixing the
//! time steps, `q ← q + p·A` (Q layer) or `p ← p + q·A` (P layer).
//!
//! `p·A` is the gradient of the quadratic potential `½ tr(p A pᵀ)` (because `A` is symmetric), so
//! each layer is a linear symplectic shear of `R^{2n×T}`. It needs only `+ −  ×`, so it runs on any
//! [`Field`], exact rationals included.
//!
//! ```
//! use geomattn::symplectic::linear::LinearSymplecticAttentionQ;
//! use geomattn::{SequenceLayer, Symmetric, nalgebra::Matrix2x3};
//! // n = 1, T = 3: A = SymmetricMatrix(1..6, 3), q = (1 2 3), p = (0 1 −1).
//! let a = Symmetric::<f64, 3>::from_packed(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let layer = LinearSymplecticAttentionQ::<f64, 2, 1, 3>::new(a);
//! let z = Matrix2x3::new(1.0, 2.0, 3.0,
//!                        0.0, 1.0, -1.0);
//! assert_eq!(layer.forward(&z), Matrix2x3::new(-1.0, 0.0, 2.0,
//!                                              0.0, 1.0, -1.0));
//! # Ok::<(), geomattn::Error>(())
//! ```

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrixView, SMatrixViewMut};
use rand::Rng;

use super::{Side, UpdateP, UpdateQ};
use crate::{Error, Field, SequenceLayer, Symmetric};

/// Linear symplectic attention on sequences of `T` points of `R^M = R^{2N}`, updating the half
/// chosen by `Sd` ([`UpdateQ`] or [`UpdateP`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearSymplecticAttention<S, const M: usize, const N: usize, const T: usize, Sd> {
    a: Symmetric<S, T>,
    side: PhantomData<Sd>,
}

/// GML's `LinearSymplecticAttentionQ`: `q ← q + p·A`.
pub type LinearSymplecticAttentionQ<S, const M: usize, const N: usize, const T: usize> =
    LinearSymplecticAttention<S, M, N, T, UpdateQ>;

/// GML's `LinearSymplecticAttentionP`: `p ← p + q·A`.
pub type LinearSymplecticAttentionP<S, const M: usize, const N: usize, const T: usize> =
    LinearSymplecticAttention<S, M, N, T, UpdateP>;

impl<S: Field, const M: usize, const N: usize, const T: usize, Sd: Side>
    LinearSymplecticAttention<S, M, N, T, Sd>
{
    /// The layer with weight `A` (GML's `SymmetricMatrix` of size `seq_length`).
    ///
    /// `M = 2N` is checked at compile time.
    pub fn new(a: Symmetric<S, T>) -> Self {
        const {
            assert!(
                M == 2 * N,
                "phase space has M = 2N rows: q (first N) and p (last N)"
            )
        };
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

    /// The same layer over another scalar, weight by weight.
    pub fn map_scalar<S2: Field>(
        &self,
        f: impl FnMut(S) -> S2,
    ) -> LinearSymplecticAttention<S2, M, N, T, Sd> {
        LinearSymplecticAttention::new(self.a.map_scalar(f))
    }
}

impl<S: RealField + Copy, const M: usize, const N: usize, const T: usize, Sd: Side>
    LinearSymplecticAttention<S, M, N, T, Sd>
{
    /// GML's initialisation: the `T(T+1)/2` packed entries of `A` from U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(Symmetric::glorot(rng))
    }
}

impl<S: Field, const M: usize, const N: usize, const T: usize, Sd: Side> SequenceLayer<S, M, T>
    for LinearSymplecticAttention<S, M, N, T, Sd>
{
    fn forward_into(&self, z: SMatrixView<'_, S, M, T>, mut out: SMatrixViewMut<'_, S, M, T>) {
        let (updated, driving) = Sd::rows(N);
        out.copy_from(&z);
        let kick = z.fixed_rows::<N>(driving) * self.a.matrix();
        let mut rows = out.fixed_rows_mut::<N>(updated);
        rows += kick;
    }
}
