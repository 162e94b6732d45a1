//! GML's `MultiHeadAttention` at run-time sizes.

use std::vec::Vec;

use nalgebra::{DMatrix, DMatrixViewMut, RealField};

use super::backward::head_pullback;
use super::{head_update, scale};
use crate::engine::softmax::{applied, pulled_back};
use crate::engine::{Backward, Element, Forward, Scratch, matrix};
use crate::error::Error;
use crate::scalar::{Field, MapScalar};
use crate::softmax::Function as Softmax;
use crate::workspace::Workspace;

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

impl<S: Element> Forward<S> for MultiHeadAttention<S> {
    fn name(&self) -> &'static str {
        "MultiHeadAttention"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, None)
    }

    /// The compile-time layer's kernel ([`crate::mha`]'s `head_update`) head by head.
    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let mut out = if self.add_connection {
            scratch.copy(z)
        } else {
            scratch.zeros(z.nrows(), z.ncols())
        };
        for (h, [query, key, value]) in self.heads.iter().enumerate() {
            let scores = (scale(self.dim), applied(self.softmax));
            let project = |scratch: &mut Scratch<S>, projection: &DMatrix<S>| {
                Workspace::tr_mul(scratch, projection, &*z)
            };
            let update = head_update([query, key, value], project, scores, scratch);
            let width = update.nrows();
            out.rows_mut(h * width, width)
                .zip_apply(&update, |o, u| *o += u);
            scratch.recycle(update);
        }
        scratch.replace(z, out);
    }
}

/// Per head `h`, with `Q = PQᵀZ`, `K = PKᵀZ`, `V = PVᵀZ`, `Λ = σ(s QᵀK)`, `s = 1/√dim` and
/// `Ō_h` the head's rows of `Ō`: the compile-time layer's kernel (`head_pullback`, its formulas
/// in [`crate::MultiHeadAttention`]'s backward pass), `Z̄` starting from `Ō` with
/// `add_connection`, from zero without. The gradient holds every head's `P̄Q`, then every
/// `P̄K`, then every `P̄V` (GML's order), each column-major. The projections are Euclidean
/// here: a Stiefel layer's gradient is the Euclidean one, which GML's manifold optimisers would
/// project.
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
        let mut z_bar = if self.add_connection {
            scratch.copy(bar)
        } else {
            scratch.zeros(z.nrows(), z.ncols())
        };
        let n_heads = self.heads.len();
        let per_head = self.heads.first().map_or(0, |[q, _, _]| q.len());
        for (h, [query, key, value]) in self.heads.iter().enumerate() {
            let width = query.ncols();
            let o_bar = scratch.copy_rows(bar, h * width, width);
            // This head's `P̄Q`, `P̄K` and `P̄V`: every `n_heads`-th block from the head's on.
            let mut blocks = gradient
                .chunks_exact_mut(per_head)
                .skip(h)
                .step_by(n_heads)
                .map(|block| DMatrixViewMut::from_slice(block, self.dim, width));
            let mut next = || blocks.next().expect("three groups of projections");
            let mut projections_bar = [next(), next(), next()];
            head_pullback(
                [query, key, value],
                (z, &o_bar),
                (
                    scale(self.dim),
                    applied(self.softmax),
                    pulled_back(self.softmax),
                ),
                &mut z_bar,
                projections_bar.each_mut(),
                scratch,
            );
            scratch.recycle(o_bar);
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

#[cfg(test)]
mod tests {
    use std::format;
    use std::vec;
    use std::vec::Vec;

    use nalgebra::SMatrix;

    use super::*;
    use crate::backward::{Backward as _, SoftmaxBackward};
    use crate::engine::sample::values;
    use crate::layer::SequenceLayer as _;
    use crate::mha::{AddConnection, Connection, Head, NoConnection};
    use crate::softmax::{MatrixSoftmax, VectorSoftmax};

    /// The engine's forward and backward passes (its scratch used twice, its gradient in GML's
    /// order) against the compile-time layer's, bit for bit.
    fn same_bits<Conn, Sm, const D: usize, const H: usize, const DH: usize, const T: usize>(
        softmax: Softmax,
    ) where
        Conn: Connection,
        Sm: SoftmaxBackward,
    {
        let heads: [Head<f64, D, DH>; H] = core::array::from_fn(|h| {
            let seed = h as f64;
            Head::new(values(seed), values(seed + 0.4), values(seed + 0.8))
        });
        let layer =
            crate::mha::MultiHeadAttention::<f64, D, H, DH, Conn>::new(heads).with_softmax::<Sm>();
        let (z, out_bar) = (values::<D, T>(1.1), values::<D, T>(2.9));
        let out = layer.forward(&z);
        let mut gradient = crate::backward::Backward::<f64, D, T>::zero_gradient(&layer);
        let z_bar = layer.backward(&z, &out_bar, &mut gradient);
        let mut expected = Vec::new();
        for group in 0..3 {
            for head in gradient.heads() {
                let projection = [&head.query, &head.key, &head.value][group];
                expected.extend_from_slice(projection.as_slice());
            }
        }
        let columns = |pick: fn(&Head<f64, D, DH>) -> &SMatrix<f64, D, DH>| {
            heads.iter().map(|h| pick(h).as_slice()).collect::<Vec<_>>()
        };
        let engine = MultiHeadAttention::new(
            D,
            H,
            &columns(|h| &h.query),
            &columns(|h| &h.key),
            &columns(|h| &h.value),
            softmax,
            Conn::ADD,
        )
        .unwrap();
        let mut scratch = Scratch::new();
        let sizes = format!("{} {D}×{T}, {H} heads", Sm::NAME);
        for run in 0..2 {
            let mut y = DMatrix::from_column_slice(D, T, z.as_slice());
            engine.forward_in_place(&mut y, &mut scratch);
            assert_eq!(y.as_slice(), out.as_slice(), "{sizes}, run {run}");
            let mut bar = DMatrix::from_column_slice(D, T, out_bar.as_slice());
            let mut found = vec![0.0; expected.len()];
            let input = DMatrix::from_column_slice(D, T, z.as_slice());
            engine.backward_in_place(&input, &mut bar, &mut found, &mut scratch);
            assert_eq!(bar.as_slice(), z_bar.as_slice(), "{sizes}, run {run}");
            assert_eq!(found, expected, "{sizes}, run {run}");
        }
    }

    #[test]
    fn the_passes_are_the_compiled_layers_bit_for_bit() {
        same_bits::<AddConnection, VectorSoftmax, 2, 1, 2, 3>(Softmax::Vector);
        same_bits::<NoConnection, MatrixSoftmax, 4, 2, 2, 3>(Softmax::Matrix);
        same_bits::<AddConnection, MatrixSoftmax, 6, 3, 2, 4>(Softmax::Matrix);
        same_bits::<NoConnection, VectorSoftmax, 5, 5, 1, 2>(Softmax::Vector);
        same_bits::<AddConnection, VectorSoftmax, 3, 1, 3, 5>(Softmax::Vector);
    }
}
