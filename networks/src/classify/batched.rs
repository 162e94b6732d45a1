//! The classifier's body over a batch of inputs: every layer one large matrix product over all
//! the images at once, instead of small constant-size products image by image.
//!
//! # Layout
//! A chunk of `n` inputs (padded with zero inputs to `np`, a multiple of [`GROUP`]) is one
//! row-major matrix `X` of `dim` rows and `seq · np` columns, column `t · np + b` holding time
//! step `t` of input `b`: the concatenation `[Z₁ … Z_n]` with the inputs innermost. Then
//!
//! - the heads' projections of a block are one product `Y = P · X`, `P` the `3·dim × dim` matrix
//!   of every head's `PQᵀ`, then every `PKᵀ`, then every `PVᵀ` (a `147 × 49` by `49 × 16·np`
//!   product for GML's MNIST networks);
//! - each head's scores `C = QᵀK/√dim`, their column softmax and `V · σ(C)` are computed for
//!   [`GROUP`] inputs at a time, one input per SIMD lane (the inputs are contiguous in `Y`): the
//!   two products by [`Isa::lane_products`] in registers, the softmax by
//!   [`Isa::softmax_columns_in_place`], the scores of one group in a buffer of
//!   `seq² · GROUP` values that stays in the first-level cache;
//! - the ResNet layer is one product `W · A`, then its bias, `tanh` and the residual sum over the
//!   whole buffer.
//!
//! # The products: `matrixmultiply`
//! Measured in thread CPU time on one core of this machine (AMD EPYC Zen 4 under KVM, AVX-512;
//! a standalone timing of both crates, not kept in the repository) on the projection product
//! `147×49 · 49×(16·B)`, B = 16, 64 and 256 images: `matrixmultiply` 0.3 gave 86 / 82 / 72 GFLOP/s in f32 and 49 / 47 / 42 in
//! f64, the `gemm` crate 0.18 (faer's kernels) 94 / 93 / 83 and 49 / 48 / 41. Both run at about
//! the machine's AVX2 peak; `gemm`'s 12 % in f32 costs nine more crates to build (`pulp`, `half`,
//! `raw-cpuid`, `dyn-stack`, …), `matrixmultiply` has one small dependency, no threads of its own
//! (the batch is split over the cores one level up, chunk by chunk), and picks its AVX2 + FMA
//! kernels when the program runs. Hence `matrixmultiply`.
//!
//! # Accuracy
//! The products sum in another order and with fused multiply-adds, and `exp` and `tanh` are the
//! polynomial ones of [`geomattn::VectorFunctions`] (within 1.25 and 7 ulp): the probabilities
//! differ from the image-by-image path by rounding only. Measured over GML's four MNIST networks
//! on the 300 shipped images, the largest difference of a probability is `4.5·10⁻⁶` in f32 and
//! `1.4·10⁻¹⁴` in f64; the tests bound it by `10⁻⁴` and `10⁻¹²`, and every predicted label is the
//! same. Each input's result does not depend on the others in its batch nor on its place there.

use geomattn::engine::{self, ResNetStack, Transformer};
use geomattn::{BatchScalar, Isa, LaneMatrix};

use crate::network::Scalar;

/// Inputs computed together, one per SIMD lane (16 `f32` fill an AVX-512 vector; `f64` takes
/// two): a chunk is padded to a multiple of it.
pub(crate) const GROUP: usize = 16;

/// Inputs per chunk, the unit of work of one thread: `16 · 64` columns per product, and a chunk's
/// buffers (about 1.2 MB in `f32`) near the size of one core's second-level cache.
pub const CHUNK: usize = 64;

/// The scalars of the batched path: `f32` and `f64`, with `matrixmultiply`'s product.
pub(crate) trait Element: Scalar + BatchScalar {
    /// `C = A · B`, all three row-major with rows `a_row`, `b_row`, `c_row` apart, `A` of `m × k`,
    /// `B` of `k × n`.
    ///
    /// # Panics
    /// If a slice is too short for its matrix.
    #[allow(clippy::too_many_arguments)]
    fn product(
        sizes: (usize, usize, usize),
        a: &[Self],
        a_row: usize,
        b: &[Self],
        b_row: usize,
        c: &mut [Self],
        c_row: usize,
    );
}

/// The length a row-major `rows × cols` matrix with rows `row` apart spans (0 if it is empty).
fn span(rows: usize, cols: usize, row: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1) * row + cols
    }
}

/// Checks the three slices against their matrices, then runs `gemm` on them.
macro_rules! element {
    ($scalar:ty, $gemm:path) => {
        impl Element for $scalar {
            fn product(
                (m, k, n): (usize, usize, usize),
                a: &[Self],
                a_row: usize,
                b: &[Self],
                b_row: usize,
                c: &mut [Self],
                c_row: usize,
            ) {
                assert!(a.len() >= span(m, k, a_row) && a_row >= k);
                assert!(b.len() >= span(k, n, b_row) && b_row >= n);
                assert!(c.len() >= span(m, n, c_row) && c_row >= n);
                let stride = |s: usize| isize::try_from(s).expect("a stride that fits isize");
                // SAFETY: the asserts keep every element the strides reach inside its slice;
                // `c` is borrowed mutably, so it aliases neither `a` nor `b`.
                unsafe {
                    $gemm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        stride(a_row),
                        1,
                        b.as_ptr(),
                        stride(b_row),
                        1,
                        0.0,
                        c.as_mut_ptr(),
                        stride(c_row),
                        1,
                    );
                }
            }
        }
    };
}

element!(f32, matrixmultiply::sgemm);
element!(f64, matrixmultiply::dgemm);

/// One block: GML's `MultiHeadAttention` then `ResNetLayer(dim, tanh)`, laid out for products.
pub(crate) struct Block<S> {
    /// `3·dim × dim`, row-major: row `h·dh + i` is column `i` of head `h`'s `PQ`, then the same
    /// for `PK` and `PV`.
    pub(crate) projections: Vec<S>,
    /// The ResNet layer's `W`, `dim × dim`, row-major.
    pub(crate) weight: Vec<S>,
    /// Its bias, if it has one.
    pub(crate) bias: Option<Vec<S>>,
}

/// The blocks of a classifier and its sizes: the body of GML's `ClassificationTransformer`.
pub(crate) struct Body<S> {
    pub(crate) dim: usize,
    pub(crate) seq: usize,
    pub(crate) heads: usize,
    pub(crate) add_connection: bool,
    pub(crate) blocks: Vec<Block<S>>,
}

impl<S: Element> Body<S> {
    /// The body of the run-time engine's classifier `blocks` (each GML's `MultiHeadAttention`
    /// with `VectorSoftmax`, then one `ResNetLayer(dim, tanh)`, as every
    /// `ClassificationTransformer` has) on sequences of `seq` columns in `R^dim`, laid out for the
    /// products.
    pub(crate) fn of_engine(
        blocks: &Transformer<engine::MultiHeadAttention<S>, ResNetStack<S>>,
        dim: usize,
        seq: usize,
    ) -> Self {
        let attention = blocks.blocks().first().map(|(attention, _)| attention);
        let blocks = blocks.blocks().iter().map(|(attention, stack)| {
            let [resnet] = stack.layers() else {
                unreachable!("a classifier's block ends in one ResNet layer")
            };
            let mut projections = Vec::new();
            for which in 0..3 {
                for head in attention.heads() {
                    projections.extend(head[which].iter().copied());
                }
            }
            Block {
                projections,
                weight: resnet.weight().transpose().iter().copied().collect(),
                bias: resnet.bias().map(|b| b.iter().copied().collect()),
            }
        });
        Self {
            dim,
            seq,
            heads: attention.map_or(1, |a| a.heads().len()),
            add_connection: attention.is_some_and(engine::MultiHeadAttention::add_connection),
            blocks: blocks.collect(),
        }
    }
}

/// The buffers of one chunk, reused from chunk to chunk.
///
/// The sequence matrices hold row `i` of the chunk's `seq · np` columns at `i · row`: the rows
/// are [`GROUP`] values longer than the columns, so that the rows a head kernel reads at once
/// are not a multiple of 4 KiB apart (they would share one set of the first-level cache).
pub(crate) struct Workspace<S> {
    /// The sequences, `dim` rows: the input, then each block's output.
    pub(crate) x: Vec<S>,
    /// The projections, `3·dim` rows.
    y: Vec<S>,
    /// The attention's output, `dim` rows.
    attended: Vec<S>,
    /// The ResNet layer's `W·A + b`, then its `tanh`.
    update: Vec<S>,
    /// One head's scores for one group of inputs, `[n][m][lane]`: column `n` of `C` is
    /// contiguous, as its softmax reads it.
    scores: Vec<S>,
    /// Inputs in the chunk, padding included.
    pub(crate) padded: usize,
    /// The distance between two rows of the sequence matrices.
    row: usize,
}

impl<S: Element> Body<S> {
    /// Empty buffers for chunks of `count` inputs, to be filled by [`Workspace::x`] (input `b`,
    /// entry `(i, t)` at [`Self::index`]).
    pub(crate) fn workspace(&self, count: usize) -> Workspace<S> {
        let padded = count.div_ceil(GROUP) * GROUP;
        let row = self.seq * padded + GROUP;
        Workspace {
            x: vec![S::zero(); self.dim * row],
            y: vec![S::zero(); 3 * self.dim * row],
            attended: vec![S::zero(); self.dim * row],
            update: vec![S::zero(); self.dim * row],
            scores: vec![S::zero(); self.seq * self.seq * GROUP],
            padded,
            row,
        }
    }

    /// Where entry `(i, t)` of input `b` is in [`Workspace::x`].
    pub(crate) fn index(&self, work: &Workspace<S>, i: usize, t: usize, b: usize) -> usize {
        i * work.row + t * work.padded + b
    }

    /// Every block on the chunk in `work.x`, in place, with the instruction set `isa` (available).
    /// The last block computes the last time step only: the head reads nothing else
    /// (`ClassificationLayer` with `average = false`), and that step's output needs the last
    /// block's keys at that step alone (its output at `t` is `Σ_s v_s σ(C)[s, t]`,
    /// `C[s, t] = q_s·k_t/√dim`). The earlier steps of `work.x` then hold the next-to-last
    /// block's output.
    pub(crate) fn forward(&self, work: &mut Workspace<S>, isa: Isa) {
        if let Some((last, blocks)) = self.blocks.split_last() {
            for block in blocks {
                self.block(block, 0, work, isa);
            }
            self.block(last, self.seq - 1, work, isa);
        }
    }

    /// One block's output at the time steps `from..seq`, written over them in `work.x`: the
    /// queries and values of every step, the keys of those steps.
    fn block(&self, block: &Block<S>, from: usize, work: &mut Workspace<S>, isa: Isa) {
        let (dim, np, row) = (self.dim, work.padded, work.row);
        let (columns, first) = (self.seq * np, from * np);
        let (x, y) = (&work.x, &mut work.y);
        if from == 0 {
            S::product(
                (3 * dim, dim, columns),
                &block.projections,
                dim,
                x,
                row,
                y,
                row,
            );
        } else {
            let (queries, keys, values) = (0, dim * row, 2 * dim * row);
            let rows = |r: usize| &block.projections[r * dim * dim..];
            let all = (dim, dim, columns);
            S::product(all, rows(0), dim, x, row, &mut y[queries..], row);
            S::product(all, rows(2), dim, x, row, &mut y[values..], row);
            let later = (dim, dim, columns - first);
            S::product(
                later,
                rows(1),
                dim,
                &x[first..],
                row,
                &mut y[keys + first..],
                row,
            );
        }
        if self.add_connection {
            work.attended.copy_from_slice(&work.x);
        } else {
            work.attended.fill(S::zero());
        }
        for head in 0..self.heads {
            self.attend(head, from, work, isa);
        }
        let resnet = (dim, dim, columns - first);
        S::product(
            resnet,
            &block.weight,
            dim,
            &work.attended[first..],
            row,
            &mut work.update[first..],
            row,
        );
        let rows = work
            .update
            .chunks_exact_mut(row)
            .zip(work.attended.chunks_exact(row));
        for (i, ((update, attended), x)) in rows.zip(work.x.chunks_exact_mut(row)).enumerate() {
            let steps = first..columns;
            let (update, attended, x) = (
                &mut update[steps.clone()],
                &attended[steps.clone()],
                &mut x[steps],
            );
            if let Some(bias) = &block.bias {
                update.iter_mut().for_each(|u| *u += bias[i]);
            }
            isa.tanh_in_place(update);
            for ((x, &a), &u) in x.iter_mut().zip(attended).zip(&*update) {
                *x = a + u;
            }
        }
    }

    /// Head `head`'s `V · σ(QᵀK/√dim)` at the time steps `from..seq` added to `work.attended`,
    /// [`GROUP`] inputs at a time.
    fn attend(&self, head: usize, from: usize, work: &mut Workspace<S>, isa: Isa) {
        let (seq, np, row) = (self.seq, work.padded, work.row);
        let steps = seq - from;
        let dh = self.dim / self.heads;
        let first = head * dh * row;
        let (q, k, v) = (first, self.dim * row + first, 2 * self.dim * row + first);
        // A head's rows of `Q`, `K`, `V` and of the output: entry `(i, t)` at `i·row + t·np`.
        let rows = LaneMatrix {
            rows: dh,
            columns: seq,
            row,
            column: np,
        };
        // The keys of the steps computed, as rows; the output's columns at those steps.
        let keys = LaneMatrix {
            rows: steps,
            columns: dh,
            row: np,
            column: row,
        };
        let outputs = LaneMatrix {
            columns: steps,
            ..rows
        };
        // The scores `[n][m]` (`n` over the steps computed), and the same read as `[m][n]`.
        let scores = LaneMatrix {
            rows: steps,
            columns: seq,
            row: seq * GROUP,
            column: GROUP,
        };
        let transposed = LaneMatrix {
            rows: seq,
            columns: steps,
            row: GROUP,
            column: seq * GROUP,
        };
        let scored = &mut work.scores[..steps * seq * GROUP];
        // GML scales by the square root of the full dimension (exact in either float).
        let scale = S::one() / geomattn::Real::sqrt(S::from_double(self.dim as f64));
        let later = from * np;
        for g in (0..np).step_by(GROUP) {
            // Column `n` of `C = QᵀK` is row `n` of `KᵀQ`.
            let (keys, queries) = ((&work.y[k + later + g..], keys), (&work.y[q + g..], rows));
            isa.lane_products(GROUP, keys, queries, (&mut *scored, scores), false);
            isa.softmax_columns_in_place(GROUP, seq, scale, scored);
            let (values, weights) = ((&work.y[v + g..], rows), (&*scored, transposed));
            let out = (&mut work.attended[first + later + g..], outputs);
            isa.lane_products(GROUP, values, weights, out, true);
        }
    }
}
