//! GML's `SymplecticAttentionQ / P` at run-time sizes.

use nalgebra::{DMatrix, DMatrixView};

use super::backward::{column_major, dot_rows, transpose};
use super::transformer::BlockAttention;
use super::{Backward, Element, Forward, Scratch, half, matrix, mul, tr_mul};
use crate::error::Error;
use crate::packed::{PackedLayout, Sym, add_folded, dense_from_packed};
use crate::scalar::two;
use crate::scalar::{Field, MapScalar};
use crate::softmax::Function as Softmax;
use crate::symplectic::Side;

/// The kick a [`SymplecticAttention`] adds, from its weight `A` and `S = σ(xᵀ A x)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kick {
    /// `symmetric = false`: `A x Sᵀ + Aᵀ x S` (the compile-time [`crate::DenseA`]).
    Dense,
    /// `symmetric = true`, the gradient `A x (S + Sᵀ)` ([`crate::GradientExact`]).
    Exact,
    /// `symmetric = true`, GML's `2 A x S` ([`crate::GmlCompatible`]).
    Gml,
}

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
    /// The kick added to the updated half, from the driving half `x` (`n × T`), on a buffer of
    /// `scratch`.
    fn kick(&self, x: &DMatrixView<'_, S>, scratch: &mut Scratch<S>) -> DMatrix<S> {
        let (ax, s) = self.scores(x, scratch);
        let t = s.nrows();
        let kick = match self.kick {
            Kick::Dense => {
                let mut transposed = scratch.unfilled(t, t);
                s.transpose_to(&mut transposed);
                let mut forward = mul(&ax, &transposed, scratch);
                let atx = tr_mul(&self.a, x, scratch);
                let backward = mul(&atx, &s, scratch);
                forward += &backward;
                for m in [transposed, atx, backward] {
                    scratch.recycle(m);
                }
                forward
            }
            Kick::Exact => {
                let mut symmetric = scratch.zeros(t, t);
                for j in 0..t {
                    for i in 0..t {
                        symmetric[(i, j)] = s[(i, j)] + s[(j, i)];
                    }
                }
                let kick = mul(&ax, &symmetric, scratch);
                scratch.recycle(symmetric);
                kick
            }
            Kick::Gml => {
                let mut kick = mul(&ax, &s, scratch);
                kick *= two::<S>();
                kick
            }
        };
        scratch.recycle(ax);
        scratch.recycle(s);
        kick
    }

    /// `y = A x` and `S = σ(xᵀ y)` of the driving half `x`, on buffers of `scratch`.
    fn scores(&self, x: &DMatrixView<'_, S>, scratch: &mut Scratch<S>) -> (DMatrix<S>, DMatrix<S>) {
        let ax = mul(&self.a, x, scratch);
        let mut s = tr_mul(x, &ax, scratch);
        let t = s.nrows();
        (self.softmax).apply_in_place_with(s.as_mut_slice(), t, S::exp_all);
        (ax, s)
    }

    /// `∂L/∂x` of the driving half `x` given `g = ∂L/∂K(x)`, adding `∂L/∂A` to `gradient`; the
    /// formulas of the compile-time `SymplecticWeightBackward`. With `C̄` the softmax's pullback
    /// of `S̄`:
    /// - the dense kick `y Sᵀ + w S` (`w = Aᵀ x`): `S̄ = Gᵀ y + wᵀ G`, `ȳ = G S + x C̄`,
    ///   `w̄ = G Sᵀ`, `x̄ = Aᵀ ȳ + A w̄ + y C̄ᵀ`, `Ā = ȳ xᵀ + x w̄ᵀ` (column-major);
    /// - the symmetric kicks `y M`, `M = S + Sᵀ` or `2S`: `M̄ = yᵀ G`, `S̄ = M̄ + M̄ᵀ` or `2M̄`,
    ///   `ȳ = G Mᵀ + x C̄`, `x̄ = A ȳ + y C̄ᵀ`, `Ā = ȳ xᵀ` folded onto the packed entries
    ///   (`Ā_ij + Ā_ji` off the diagonal).
    fn kick_backward(
        &self,
        x: &DMatrixView<'_, S>,
        g: &DMatrixView<'_, S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) -> DMatrix<S> {
        let (y, s) = self.scores(x, scratch);
        let t = s.nrows();
        let (s_bar, y_from_g, w) = match self.kick {
            Kick::Dense => {
                let w = tr_mul(&self.a, x, scratch);
                let mut s_bar = tr_mul(g, &y, scratch);
                let from_w = tr_mul(&w, g, scratch);
                s_bar += &from_w;
                scratch.recycle(from_w);
                (s_bar, mul(g, &s, scratch), Some(w))
            }
            Kick::Exact | Kick::Gml => {
                let m_bar = tr_mul(&y, g, scratch);
                let mut s_bar = scratch.zeros(t, t);
                let mut mixing_t = scratch.zeros(t, t);
                for j in 0..t {
                    for i in 0..t {
                        (s_bar[(i, j)], mixing_t[(i, j)]) = if self.kick == Kick::Gml {
                            (m_bar[(i, j)] + m_bar[(i, j)], s[(j, i)] + s[(j, i)])
                        } else {
                            (m_bar[(i, j)] + m_bar[(j, i)], s[(j, i)] + s[(i, j)])
                        };
                    }
                }
                let y_from_g = mul(g, &mixing_t, scratch);
                scratch.recycle(m_bar);
                scratch.recycle(mixing_t);
                (s_bar, y_from_g, None)
            }
        };
        let mut c_bar = scratch.zeros(t, t);
        (self.softmax).pullback(s.as_slice(), s_bar.as_slice(), t, c_bar.as_mut_slice());
        let mut y_bar = mul(x, &c_bar, scratch);
        y_bar += &y_from_g;
        let c_bar_t = transpose(&c_bar, scratch);
        let mut x_bar = mul(&y, &c_bar_t, scratch);
        let n = self.a.nrows();
        if let Some(w) = w {
            let s_t = transpose(&s, scratch);
            let w_bar = mul(g, &s_t, scratch);
            for ((i, j), a) in column_major(n, n).zip(gradient.iter_mut()) {
                *a += dot_rows(&y_bar, i, x, j) + dot_rows(x, i, &w_bar, j);
            }
            let through_y = tr_mul(&self.a, &y_bar, scratch);
            let through_w = mul(&self.a, &w_bar, scratch);
            x_bar += &through_y;
            x_bar += &through_w;
            for m in [w, s_t, w_bar, through_y, through_w] {
                scratch.recycle(m);
            }
        } else {
            add_folded::<S, Sym>(n, |i, j| dot_rows(&y_bar, i, x, j), gradient);
            let through_y = mul(&self.a, &y_bar, scratch);
            x_bar += &through_y;
            scratch.recycle(through_y);
        }
        for m in [y, s, s_bar, y_from_g, c_bar, y_bar, c_bar_t] {
            scratch.recycle(m);
        }
        x_bar
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
        let (updated, driving) = self.side.rows(n);
        let kick = self.kick(&z.rows(driving, n), scratch);
        z.rows_mut(updated, n).zip_apply(&kick, |o, k| *o += k);
        scratch.recycle(kick);
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
        let x_bar = self.kick_backward(
            &z.rows(driving, n),
            &bar.rows(updated, n),
            gradient,
            scratch,
        );
        bar.rows_mut(driving, n).zip_apply(&x_bar, |o, x| *o += x);
        scratch.recycle(x_bar);
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
