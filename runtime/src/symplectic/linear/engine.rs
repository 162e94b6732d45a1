//! GML's `LinearSymplecticAttentionQ / P` at run-time sizes.

use nalgebra::DMatrix;

use crate::engine::transformer::BlockAttention;
use crate::engine::{Backward, Element, Forward, Scratch, half};
use crate::error::Error;
use crate::packed::{PackedLayout, Sym, add_folded, dense_from_packed};
use crate::scalar::{Field, MapScalar};
use crate::symplectic::{Side, linear};

/// GML's `LinearSymplecticAttentionQ / P(dim, seq_length)`: `q ← q + p A` (`Q`) or
/// `p ← p + q A` (`P`), `A` a symmetric `seq_length × seq_length` matrix acting along time (the
/// compile-time [`crate::LinearSymplecticAttention`], whose sums it runs in the same order). It
/// takes sequences of `seq_length` states only.
///
/// ```
/// use geomattn::engine::{Forward, LinearSymplecticAttention};
/// use geomattn::nalgebra::DMatrix;
/// use geomattn::symplectic::Side;
/// // n = 1, T = 2, A = [1 2; 2 3] (packed (1,1), (2,1), (2,2)): q ← q + p A.
/// let layer = LinearSymplecticAttention::new(Side::Q, 2, 2, &[1.0, 2.0, 3.0])?;
/// let z = DMatrix::from_column_slice(2, 2, &[0.0, 1.0, 0.0, 1.0]); // q = (0, 0), p = (1, 1)
/// assert_eq!(layer.forward(&z)?.as_slice(), [3.0, 1.0, 5.0, 1.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSymplecticAttention<S> {
    side: Side,
    dim: usize,
    /// `A`, `seq × seq`, mirrored from its packed entries.
    a: DMatrix<S>,
}

impl<S: Field> LinearSymplecticAttention<S> {
    /// The layer on phase space `R^dim` and sequences of `seq` states, from GML's packed
    /// `SymmetricMatrix` entries of `A` (`seq(seq+1)/2`).
    ///
    /// # Errors
    /// [`Error::PhaseSpace`] for an odd `dim`; [`Error::PackedLength`] for a packed `A` of
    /// another length.
    pub fn new(side: Side, dim: usize, seq: usize, packed: &[S]) -> Result<Self, Error> {
        half(name(side), dim)?;
        Ok(Self {
            side,
            dim,
            a: dense_from_packed::<S, Sym>(seq, packed)?,
        })
    }
}

fn name(side: Side) -> &'static str {
    match side {
        Side::Q => "LinearSymplecticAttentionQ",
        Side::P => "LinearSymplecticAttentionP",
    }
}

impl<S: Element> Forward<S> for LinearSymplecticAttention<S> {
    fn name(&self) -> &'static str {
        name(self.side)
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, Some(self.a.nrows()))
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let n = self.dim / 2;
        let (updated, driving) = self.side.rows(n);
        let x = scratch.copy_rows(z, driving, n);
        let kick = linear::kick(&self.a, &x, scratch);
        z.rows_mut(updated, n).zip_apply(&kick, |o, k| *o += k);
        scratch.recycle(kick);
        scratch.recycle(x);
    }
}

/// The kick `x A` of the driving half `x`, with `G` the updated half of `Ō`: `Z̄ = Ō` plus
/// `G A` in the driving half, and `∂L/∂A = xᵀ G` folded onto the packed entries (`Ā_ij + Ā_ji`
/// off the diagonal): the compile-time layer's kernels.
impl<S: Element> Backward<S> for LinearSymplecticAttention<S> {
    fn parameter_count(&self) -> usize {
        Sym::packed_len(self.a.nrows())
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let n = self.dim / 2;
        let (updated, driving) = self.side.rows(n);
        let (x, g) = (
            scratch.copy_rows(z, driving, n),
            scratch.copy_rows(bar, updated, n),
        );
        let (x_bar, a_bar) = linear::kick_backward(&self.a, (&x, &g), scratch);
        add_folded::<S, Sym>(self.a.nrows(), |i, j| a_bar[(i, j)], gradient);
        bar.rows_mut(driving, n).zip_apply(&x_bar, |o, x| *o += x);
        for m in [x, g, x_bar, a_bar] {
            scratch.recycle(m);
        }
    }
}

impl<S: Element> BlockAttention<S> for LinearSymplecticAttention<S> {
    const TRANSFORMER: &'static str = "LinearSymplecticTransformer";
}

impl<S: Field> MapScalar for LinearSymplecticAttention<S> {
    type Scalar = S;
    type Over<X: Field> = LinearSymplecticAttention<X>;

    fn map_scalar<X: Field>(&self, f: impl FnMut(S) -> X) -> LinearSymplecticAttention<X> {
        LinearSymplecticAttention {
            side: self.side,
            dim: self.dim,
            a: self.a.map(f),
        }
    }
}
