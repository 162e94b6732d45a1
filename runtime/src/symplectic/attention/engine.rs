//! GML's `SymplecticAttentionQ / P` at run-time sizes.

use nalgebra::DMatrix;

use super::backward::kick_backward;
use super::{Kick, kick};
use crate::engine::softmax::{applied, pulled_back};
use crate::engine::transformer::BlockAttention;
use crate::engine::{Backward, Element, Forward, Scratch, half, matrix};
use crate::error::Error;
use crate::packed::{PackedLayout, Sym, add_folded, dense_from_packed};
use crate::scalar::{Field, MapScalar};
use crate::softmax::Function as Softmax;
use crate::symplectic::Side;

/// GML's `SymplecticAttentionQ / P(dim; symmetric, activation)` on sequences of phase-space
/// states: for the `Q` layer, `q ← q + K(p)` with `S = σ(pᵀ A p)` and the kick `K` of the
/// weight (the compile-time [`crate::SymplecticAttention`], whose sums it runs in the same order;
/// its module documents the three kicks). Any sequence length.
///
/// ```
/// use geomattn::engine::{Forward, SymplecticAttention};
/// use geomattn::nalgebra::DMatrix;
/// use geomattn::softmax::Function;
/// use geomattn::symplectic::Side;
/// // n = 1, A = (1), one state: S = (1), so q ← q + 2 A p.
/// let layer = SymplecticAttention::arbitrary(Side::Q, 2, &[1.0], Function::Matrix)?;
/// let y = layer.forward(&DMatrix::from_column_slice(2, 1, &[0.5, 3.0]))?;
/// assert_eq!(y.as_slice(), [6.5, 3.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SymplecticAttention<S> {
    side: Side,
    /// `A`, `n × n` (dense; mirrored from the packed entries of a symmetric one).
    a: DMatrix<S>,
    kick: Kick,
    softmax: Softmax,
}

impl<S: Field> SymplecticAttention<S> {
    /// GML's `symmetric = false` layer on phase space `R^dim`, from `A` (`dim/2 × dim/2`,
    /// column-major as Julia stores it).
    ///
    /// # Errors
    /// [`Error::PhaseSpace`] for an odd `dim`; [`Error::WeightLength`] for an `A` of another
    /// length.
    pub fn arbitrary(side: Side, dim: usize, a: &[S], softmax: Softmax) -> Result<Self, Error> {
        let n = half(name(side), dim)?;
        Ok(Self::with(
            side,
            matrix("A", n, n, a)?,
            Kick::Dense,
            softmax,
        ))
    }

    /// GML's `symmetric = true` layer from GML's packed `SymmetricMatrix` entries of `A`, with
    /// the structure-preserving kick `A x (S + Sᵀ)`.
    ///
    /// # Errors
    /// [`Error::PhaseSpace`] for an odd `dim`; [`Error::PackedLength`] for a packed `A` of
    /// another length.
    pub fn symmetric(
        side: Side,
        dim: usize,
        packed: &[S],
        softmax: Softmax,
    ) -> Result<Self, Error> {
        Self::packed(side, dim, packed, Kick::Exact, softmax)
    }

    /// [`symmetric`](Self::symmetric) with GML's own kick `2 A x S`: GML's numbers, symplectic
    /// only with [`Softmax::Matrix`].
    ///
    /// # Errors
    /// As [`symmetric`](Self::symmetric).
    pub fn symmetric_gml(
        side: Side,
        dim: usize,
        packed: &[S],
        softmax: Softmax,
    ) -> Result<Self, Error> {
        Self::packed(side, dim, packed, Kick::Gml, softmax)
    }

    fn packed(
        side: Side,
        dim: usize,
        packed: &[S],
        kick: Kick,
        softmax: Softmax,
    ) -> Result<Self, Error> {
        let n = half(name(side), dim)?;
        Ok(Self::with(
            side,
            dense_from_packed::<S, Sym>(n, packed)?,
            kick,
            softmax,
        ))
    }

    fn with(side: Side, a: DMatrix<S>, kick: Kick, softmax: Softmax) -> Self {
        Self {
            side,
            a,
            kick,
            softmax,
        }
    }
}

impl<S: Element> SymplecticAttention<S> {
    /// The driving half `x` (`n × T`) of `z`, on a buffer of `scratch`.
    fn driving(&self, z: &DMatrix<S>, scratch: &mut Scratch<S>) -> DMatrix<S> {
        let n = self.a.nrows();
        scratch.copy_rows(z, self.side.rows(n).1, n)
    }
}

fn name(side: Side) -> &'static str {
    match side {
        Side::Q => "SymplecticAttentionQ",
        Side::P => "SymplecticAttentionP",
    }
}

impl<S: Element> Forward<S> for SymplecticAttention<S> {
    fn name(&self) -> &'static str {
        name(self.side)
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (2 * self.a.nrows(), None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let n = self.a.nrows();
        let x = self.driving(z, scratch);
        let kick = kick(self.kick, &self.a, &x, applied(self.softmax), scratch);
        z.rows_mut(self.side.rows(n).0, n)
            .zip_apply(&kick, |o, k| *o += k);
        scratch.recycle(kick);
        scratch.recycle(x);
    }
}

/// The kick `K(x)` of the driving half added to the updated one: with `G` the updated half of
/// `Ō`, `Z̄ = Ō` plus, in the driving half, the kick's pullback of `G` (the formulas of the
/// compile-time `SymplecticWeightBackward`, for each kick). The gradient is `A`'s: dense
/// column-major, or GML's packed symmetric entries.
impl<S: Element> Backward<S> for SymplecticAttention<S> {
    fn parameter_count(&self) -> usize {
        let n = self.a.nrows();
        match self.kick {
            Kick::Dense => n * n,
            Kick::Exact | Kick::Gml => Sym::packed_len(n),
        }
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let n = self.a.nrows();
        let (updated, driving) = self.side.rows(n);
        let x = self.driving(z, scratch);
        let g = scratch.copy_rows(bar, updated, n);
        let (x_bar, a_bar) = kick_backward(
            self.kick,
            &self.a,
            (&x, &g),
            (applied(self.softmax), pulled_back(self.softmax)),
            scratch,
        );
        if self.kick == Kick::Dense {
            // Column-major, as the dense `A` is stored.
            for (g, a) in gradient.iter_mut().zip(a_bar.iter()) {
                *g += *a;
            }
        } else {
            add_folded::<S, Sym>(n, |i, j| a_bar[(i, j)], gradient);
        }
        bar.rows_mut(driving, n).zip_apply(&x_bar, |o, x| *o += x);
        for m in [x, g, x_bar, a_bar] {
            scratch.recycle(m);
        }
    }
}

impl<S: Element> BlockAttention<S> for SymplecticAttention<S> {
    const TRANSFORMER: &'static str = "SymplecticTransformer";
}

impl<S: Field> MapScalar for SymplecticAttention<S> {
    type Scalar = S;
    type Over<X: Field> = SymplecticAttention<X>;

    fn map_scalar<X: Field>(&self, f: impl FnMut(S) -> X) -> SymplecticAttention<X> {
        SymplecticAttention {
            side: self.side,
            a: self.a.map(f),
            kick: self.kick,
            softmax: self.softmax,
        }
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, SMatrix};

    use super::*;
    use crate::engine::sample::{dynamic, values};
    use crate::workspace::Fresh;

    /// The kicks and their pullbacks on the engine's scratch (`Dyn` sizes, its products, its
    /// buffers used again with their old values) are the compile-time layers' (`Const` sizes, on
    /// the stack), bit for bit.
    fn same_bits<const N: usize, const T: usize>() {
        let mut scratch = Scratch::new();
        for kind in [Kick::Dense, Kick::Exact, Kick::Gml] {
            let (a, x, g) = (
                values::<N, N>(0.3),
                values::<N, T>(1.1),
                values::<N, T>(2.9),
            );
            let fixed = kick(kind, &a, &x, |s| s.map(f64::tanh), &mut Fresh);
            let pullback = |s: &SMatrix<f64, T, T>, s_bar: &SMatrix<f64, T, T>, c_bar: &mut _| {
                *c_bar = s.component_mul(s_bar);
            };
            let (x_bar, a_bar) = kick_backward(
                kind,
                &a,
                (&x, &g),
                (|s: SMatrix<f64, T, T>| s.map(f64::tanh), pullback),
                &mut Fresh,
            );
            let (a, x, g) = (dynamic(&a), dynamic(&x), dynamic(&g));
            for run in 0..2 {
                let engine = kick(kind, &a, &x, |s| s.map(f64::tanh), &mut scratch);
                assert_eq!(
                    engine.as_slice(),
                    fixed.as_slice(),
                    "{kind:?} {N}×{T}, run {run}"
                );
                let pullback =
                    |s: &DMatrix<f64>, s_bar: &DMatrix<f64>, c_bar: &mut DMatrix<f64>| {
                        c_bar.copy_from(&s.component_mul(s_bar));
                    };
                let (engine_x_bar, engine_a_bar) = kick_backward(
                    kind,
                    &a,
                    (&x, &g),
                    (|s: DMatrix<f64>| s.map(f64::tanh), pullback),
                    &mut scratch,
                );
                assert_eq!(
                    engine_x_bar.as_slice(),
                    x_bar.as_slice(),
                    "{kind:?} {N}×{T}"
                );
                assert_eq!(
                    engine_a_bar.as_slice(),
                    a_bar.as_slice(),
                    "{kind:?} {N}×{T}"
                );
                for m in [engine, engine_x_bar, engine_a_bar] {
                    scratch.recycle(m);
                }
            }
        }
    }

    #[test]
    fn on_the_engines_scratch_the_kicks_are_the_compiled_ones_bit_for_bit() {
        same_bits::<1, 1>();
        same_bits::<2, 3>();
        same_bits::<3, 5>();
        same_bits::<4, 2>();
    }
}
