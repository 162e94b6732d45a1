//! GML's `MultiHeadAttention` at run-time sizes.

use std::vec::Vec;

use nalgebra::{DMatrix, RealField};

use super::backward::{dot_rows, transpose};
use super::{Backward, Element, Forward, Scratch, matrix, mul, tr_mul};
use crate::error::Error;
use crate::scalar::ratio;
use crate::scalar::{Field, MapScalar};
use crate::softmax::Function as Softmax;

/// GML's `MultiHeadAttention(dim, n_heads; add_connection)` with its softmax (GML's
/// `activation`, [`Softmax::Vector`] by default): per head, `Q = PQᵀ Z`, `K = PKᵀ Z`,
/// `V = PVᵀ Z`, `O = V·σ(Qᵀ K / √dim)`, the heads stacked in head order, plus `Z` with
/// `add_connection` (the compile-time [`crate::MultiHeadAttention`], whose sums it runs in the
/// same order). Any sequence length.
///
/// ```
/// use geomattn::engine::{Forward, MultiHeadAttention};
/// use geomattn::nalgebra::DMatrix;
/// use geomattn::softmax::Function;
/// // One head on R¹ with PQ = PK = PV = 1 and two equal states: each attends half to each.
/// let one = [1.0];
/// let layer = MultiHeadAttention::new(1, 1, &[&one[..]], &[&one[..]], &[&one[..]],
///                                     Function::Vector, false)?;
/// let y = layer.forward(&DMatrix::from_column_slice(1, 2, &[2.0, 2.0]))?;
/// assert_eq!(y.as_slice(), [2.0, 2.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHeadAttention<S> {
    dim: usize,
    /// `(PQ, PK, PV)` of each head, each `dim×(dim/n_heads)`.
    heads: Vec<[DMatrix<S>; 3]>,
    softmax: Softmax,
    add_connection: bool,
}

impl<S: Field> MultiHeadAttention<S> {
    /// The layer on states of dimension `dim` with `n_heads` heads, from each head's `PQ`, `PK`
    /// and `PV` (`dim×(dim/n_heads)`, column-major, as Julia stores them; a Stiefel point's
    /// matrix as it is).
    ///
    /// # Errors
    /// [`Error::Heads`] if `n_heads` is zero or does not divide `dim` (GML's rule), or if a
    /// list does not hold `n_heads` projections; [`Error::WeightLength`] for a projection of
    /// another length.
    pub fn new(
        dim: usize,
        n_heads: usize,
        query: &[&[S]],
        key: &[&[S]],
        value: &[&[S]],
        softmax: Softmax,
        add_connection: bool,
    ) -> Result<Self, Error> {
        let lists = [query.len(), key.len(), value.len()];
        if n_heads == 0 || !dim.is_multiple_of(n_heads) || lists.iter().any(|&n| n != n_heads) {
            return Err(Error::Heads { dim, n_heads });
        }
        let width = dim / n_heads;
        let heads = (0..n_heads)
            .map(|h| {
                Ok([
                    matrix("PQ", dim, width, query[h])?,
                    matrix("PK", dim, width, key[h])?,
                    matrix("PV", dim, width, value[h])?,
                ])
            })
            .collect::<Result<_, Error>>()?;
        Ok(Self {
            dim,
            heads,
            softmax,
            add_connection,
        })
    }

    /// `(PQ, PK, PV)` of each head, in head order, each `dim×(dim/n_heads)`.
    pub fn heads(&self) -> &[[DMatrix<S>; 3]] {
        &self.heads
    }

    /// GML's `add_connection`: the output adds the input.
    pub fn add_connection(&self) -> bool {
        self.add_connection
    }

    /// `Ok` if every projection has orthonormal columns to within `tolerance`
    /// (`‖WᵀW − I‖_max ≤ tolerance`): GML's `Stiefel = true` layer, as the compile-time loaders
    /// check it (to [`crate::STIEFEL_TOLERANCE`]).
    ///
    /// # Errors
    /// [`Error::NotOrthonormal`] for the first projection that is not (or holds NaN).
    pub fn check_stiefel(&self, tolerance: S) -> Result<(), Error>
    where
        S: RealField,
    {
        for (head, projections) in self.heads.iter().enumerate() {
            for (name, w) in ["PQ", "PK", "PV"].into_iter().zip(projections) {
                let identity = DMatrix::<S>::identity(w.ncols(), w.ncols());
                // A NaN entry compares as `None` and is refused too.
                let within = (w.tr_mul(w) - identity)
                    .iter()
                    .all(|x| x.abs().partial_cmp(&tolerance).is_some_and(|o| o.is_le()));
                if !within {
                    return Err(Error::NotOrthonormal { name, head });
                }
            }
        }
        Ok(())
    }
}

impl<S: Element> MultiHeadAttention<S> {
    /// `1/√dim`: GML scales by the square root of the full dimension (exact in either float).
    fn scale(&self) -> S {
        S::one() / ratio::<S>(self.dim as i64, 1).sqrt()
    }

    /// A head's `Q = PQᵀZ`, `K = PKᵀZ` and its attention weights `Λ = σ(s QᵀK)`, on buffers of
    /// `scratch`: what the forward and the backward pass both compute.
    fn scores(
        &self,
        query: &DMatrix<S>,
        key: &DMatrix<S>,
        z: &DMatrix<S>,
        scratch: &mut Scratch<S>,
    ) -> (DMatrix<S>, DMatrix<S>, DMatrix<S>) {
        let q = tr_mul(query, z, scratch);
        let k = tr_mul(key, z, scratch);
        let mut lambda = tr_mul(&q, &k, scratch);
        lambda *= self.scale();
        (self.softmax).apply_in_place_with(lambda.as_mut_slice(), z.ncols(), S::exp_all);
        (q, k, lambda)
    }
}

impl<S: Element> Forward<S> for MultiHeadAttention<S> {
    fn name(&self) -> &'static str {
        "MultiHeadAttention"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let mut out = if self.add_connection {
            scratch.copy(z)
        } else {
            scratch.zeros(z.nrows(), z.ncols())
        };
        for (h, [query, key, value]) in self.heads.iter().enumerate() {
            let (q, k, c) = self.scores(query, key, z, scratch);
            let v = tr_mul(value, &*z, scratch);
            let update = mul(&v, &c, scratch);
            let width = update.nrows();
            out.rows_mut(h * width, width)
                .zip_apply(&update, |o, u| *o += u);
            for m in [q, k, c, v, update] {
                scratch.recycle(m);
            }
        }
        scratch.replace(z, out);
    }
}

/// Per head `h`, with `Q = PQᵀZ`, `K = PKᵀZ`, `V = PVᵀZ`, `Λ = σ(s QᵀK)`, `s = 1/√dim` and
/// `Ō_h` the head's rows of `Ō` (the compile-time layer's formulas):
///
/// ```text
/// V̄ = Ō_h Λᵀ,  C̄ = s · σ-pullback(Λ, Vᵀ Ō_h),  Q̄ = K C̄ᵀ,  K̄ = Q C̄,
/// Z̄ += PQ Q̄ + PK K̄ + PV V̄,  P̄Q += Z Q̄ᵀ,  P̄K += Z K̄ᵀ,  P̄V += Z V̄ᵀ,
/// ```
///
/// `Z̄` starting from `Ō` with `add_connection`, from zero without. The gradient holds every
/// head's `P̄Q`, then every `P̄K`, then every `P̄V` (GML's order), each column-major. The
/// projections are Euclidean here: a Stiefel layer's gradient is the Euclidean one, which GML's
/// manifold optimisers would project.
impl<S: Element> Backward<S> for MultiHeadAttention<S> {
    fn parameter_count(&self) -> usize {
        self.heads.iter().flatten().map(DMatrix::len).sum()
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let (scale, t) = (self.scale(), z.ncols());
        let mut z_bar = if self.add_connection {
            scratch.copy(bar)
        } else {
            scratch.zeros(z.nrows(), t)
        };
        let per_head = self.heads.first().map_or(0, |[q, _, _]| q.len());
        let n_heads = self.heads.len();
        for (h, [query, key, value]) in self.heads.iter().enumerate() {
            let (q, k, lambda) = self.scores(query, key, z, scratch);
            let v = tr_mul(value, z, scratch);
            let width = q.nrows();
            let mut o_bar = scratch.zeros(width, t);
            o_bar.copy_from(&bar.rows(h * width, width));
            // V̄ = Ō_h Λᵀ; C̄ = s · σ-pullback(Λ, Vᵀ Ō_h).
            let lambda_t = transpose(&lambda, scratch);
            let v_bar = mul(&o_bar, &lambda_t, scratch);
            let s_bar = tr_mul(&v, &o_bar, scratch);
            let mut c_bar = scratch.zeros(t, t);
            (self.softmax).pullback(lambda.as_slice(), s_bar.as_slice(), t, c_bar.as_mut_slice());
            c_bar *= scale;
            // Q̄ = K C̄ᵀ, K̄ = Q C̄.
            let c_bar_t = transpose(&c_bar, scratch);
            let q_bar = mul(&k, &c_bar_t, scratch);
            let k_bar = mul(&q, &c_bar, scratch);
            for (projection, cotangent) in [(query, &q_bar), (key, &k_bar), (value, &v_bar)] {
                let share = mul(projection, cotangent, scratch);
                z_bar += &share;
                scratch.recycle(share);
            }
            // P̄ += Z X̄ᵀ, each at its place in GML's order.
            for (group, cotangent) in [&q_bar, &k_bar, &v_bar].into_iter().enumerate() {
                let start = (group * n_heads + h) * per_head;
                let rows = z.nrows();
                let place = &mut gradient[start..start + per_head];
                for (at, g) in place.iter_mut().enumerate() {
                    *g += dot_rows(z, at % rows, cotangent, at / rows);
                }
            }
            for m in [
                q, k, v, lambda, o_bar, lambda_t, v_bar, s_bar, c_bar, c_bar_t, q_bar, k_bar,
            ] {
                scratch.recycle(m);
            }
        }
        scratch.replace(bar, z_bar);
    }
}

impl<S: Field> MapScalar for MultiHeadAttention<S> {
    type Scalar = S;
    type Over<X: Field> = MultiHeadAttention<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> MultiHeadAttention<X> {
        MultiHeadAttention {
            dim: self.dim,
            heads: self
                .heads
                .iter()
                .map(|head| head.each_ref().map(|w| w.map(&mut f)))
                .collect(),
            softmax: self.softmax,
            add_connection: self.add_connection,
        }
    }
}
