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
//!   [`GROUP`] inputs at a time, one input per SIMD lane (the inputs are contiguous in `Y`);
//! - the ResNet layer is one product `W · A`, then its bias, `tanh` and the residual sum over the
//!   whole buffer.
//!
//! # The products: `matrixmultiply`
//! Measured in thread CPU time on one core of this machine (AMD EPYC Zen 4 under KVM, AVX-512;
//! a standalone timing of both crates, not kept in the repository) on the projection product `147×49 · 49×(16·B)`, B = 16, 64
//! and 256 images: `matrixmultiply` 0.3 gave 86 / 82 / 72 GFLOP/s in f32 and 49 / 47 / 42 in
//! f64, the `gemm` crate 0.18 (faer's kernels) 94 / 93 / 83 and 49 / 48 / 41. Both run at about
//! the machine's AVX2 peak; `gemm`'s 12 % in f32 costs nine more crates to build (`pulp`, `half`,
//! `raw-cpuid`, `dyn-stack`, …), `matrixmultiply` has one small dependency, no threads of its own
//! (the batch is split over the cores one level up, chunk by chunk), and picks its AVX2 + FMA
//! kernels when the program runs. Hence `matrixmultiply`.
//!
//! # Accuracy
//! The products sum in another order and with fused multiply-adds, and `exp` and `tanh` are the
//! polynomial ones of [`geomattn::VectorFunctions`] (within 1.25 and 3.5 ulp): the probabilities
//! differ from the image-by-image path by rounding only. Measured over GML's four MNIST networks
//! on the 300 shipped images, the largest difference of a probability is `5.4·10⁻⁶` in f32 and
//! `9.4·10⁻¹⁵` in f64; the tests bound it by `10⁻⁴` and `10⁻¹²`, and every predicted label is the
//! same. Each input's result does not depend on the others in its batch nor on its place there.

use geomattn::{BatchScalar, Connection, Isa, MultiHeadAttention, ResNetLayer, Tanh};

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

/// A transformer unit the batched path lays out: GML's `MultiHeadAttention` (with its
/// `VectorSoftmax`), then `ResNetLayer(dim, tanh)`, as in every `ClassificationTransformer`.
pub(crate) trait Unit<S> {
    /// The number of heads.
    const HEADS: usize;
    /// Whether the attention adds its input (GML's `add_connection`).
    const ADD: bool;

    /// The unit's weights laid out for the products.
    fn block(&self) -> Block<S>;
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj> Unit<S>
    for (
        MultiHeadAttention<S, D, H, DH, Conn, Proj>,
        ResNetLayer<S, D, Tanh>,
    )
where
    S: Element,
    Conn: Connection,
{
    const HEADS: usize = H;
    const ADD: bool = Conn::ADD;

    fn block(&self) -> Block<S> {
        let (attention, resnet) = self;
        let mut projections = Vec::with_capacity(3 * D * D);
        for which in 0..3 {
            for head in attention.heads() {
                let p = [&head.query, &head.key, &head.value][which];
                // Row `i` of the block is column `i` of the projection, and nalgebra stores
                // `P` column by column: `Pᵀ` row by row.
                projections.extend(p.iter().copied());
            }
        }
        Block {
            projections,
            // nalgebra is column-major: the transpose's columns are `W`'s rows.
            weight: resnet.weight().transpose().iter().copied().collect(),
            bias: resnet.bias().map(|b| b.iter().copied().collect()),
        }
    }
}

impl<S> Body<S> {
    /// The body of `units` on sequences of `seq` columns in `R^dim`.
    pub(crate) fn new<U: Unit<S>>(dim: usize, seq: usize, units: &[U]) -> Self {
        Self {
            dim,
            seq,
            heads: U::HEADS,
            add_connection: U::ADD,
            blocks: units.iter().map(Unit::block).collect(),
        }
    }
}

/// The buffers of one chunk, reused from chunk to chunk.
pub(crate) struct Workspace<S> {
    /// The sequences, `dim × seq·np`: the input, then each block's output.
    pub(crate) x: Vec<S>,
    /// The projections, `3·dim × seq·np`.
    y: Vec<S>,
    /// The attention's output, `dim × seq·np`.
    attended: Vec<S>,
    /// The ResNet layer's `W·A + b`, then its `tanh`.
    update: Vec<S>,
    /// One head's scores, `seq × seq × np` (`[m][n][b]`).
    scores: Vec<S>,
    /// Inputs in the chunk, padding included.
    pub(crate) padded: usize,
}

impl<S: Element> Body<S> {
    /// Empty buffers for chunks of `count` inputs, to be filled by [`Workspace::x`] (input `b`,
    /// entry `(i, t)` at `(i·seq + t)·np + b`, see [`Self::index`]).
    pub(crate) fn workspace(&self, count: usize) -> Workspace<S> {
        let padded = count.div_ceil(GROUP) * GROUP;
        let columns = self.seq * padded;
        Workspace {
            x: vec![S::zero(); self.dim * columns],
            y: vec![S::zero(); 3 * self.dim * columns],
            attended: vec![S::zero(); self.dim * columns],
            update: vec![S::zero(); self.dim * columns],
            scores: vec![S::zero(); self.seq * self.seq * padded],
            padded,
        }
    }

    /// Where entry `(i, t)` of input `b` is in [`Workspace::x`].
    pub(crate) fn index(&self, work: &Workspace<S>, i: usize, t: usize, b: usize) -> usize {
        (i * self.seq + t) * work.padded + b
    }

    /// Every block on the chunk in `work.x`, in place, with the instruction set `isa` (available).
    pub(crate) fn forward(&self, work: &mut Workspace<S>, isa: Isa) {
        let (dim, columns) = (self.dim, self.seq * work.padded);
        for block in &self.blocks {
            S::product(
                (3 * dim, dim, columns),
                &block.projections,
                dim,
                &work.x,
                columns,
                &mut work.y,
                columns,
            );
            if self.add_connection {
                work.attended.copy_from_slice(&work.x);
            } else {
                work.attended.fill(S::zero());
            }
            for head in 0..self.heads {
                self.attend(head, work, isa);
            }
            S::product(
                (dim, dim, columns),
                &block.weight,
                dim,
                &work.attended,
                columns,
                &mut work.update,
                columns,
            );
            if let Some(bias) = &block.bias {
                for (row, &b) in work.update.chunks_exact_mut(columns).zip(bias) {
                    row.iter_mut().for_each(|u| *u += b);
                }
            }
            isa.tanh_in_place(&mut work.update);
            for ((x, &a), &u) in work.x.iter_mut().zip(&work.attended).zip(&work.update) {
                *x = a + u;
            }
        }
    }

    /// Head `head`'s `V · σ(QᵀK/√dim)` added to `work.attended`.
    fn attend(&self, head: usize, work: &mut Workspace<S>, isa: Isa) {
        let sizes = Sizes {
            dh: self.dim / self.heads,
            seq: self.seq,
            np: work.padded,
        };
        let row = |block: usize, i: usize| (block * self.dim + head * sizes.dh + i) * self.seq;
        let (q, k, v) = (row(0, 0), row(1, 0), row(2, 0));
        // GML scales by the square root of the full dimension (exact in either float).
        let scale = S::one() / geomattn::Real::sqrt(S::from_double(self.dim as f64));
        let y = &work.y[..];
        let scores = &mut work.scores[..];
        let out = &mut work.attended[row(0, 0) * sizes.np..];
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `isa` is available (the caller's contract, checked by `Isa::best`).
            Isa::Avx512 => unsafe {
                scores_avx512(sizes, &y[q * sizes.np..], &y[k * sizes.np..], scale, scores)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Isa::Avx2 => unsafe {
                scores_avx2(sizes, &y[q * sizes.np..], &y[k * sizes.np..], scale, scores)
            },
            _ => head_scores(sizes, &y[q * sizes.np..], &y[k * sizes.np..], scale, scores),
        }
        isa.exp_in_place(scores);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Isa::Avx512 => unsafe { weigh_avx512(sizes, &y[v * sizes.np..], scores, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Isa::Avx2 => unsafe { weigh_avx2(sizes, &y[v * sizes.np..], scores, out) },
            _ => weigh(sizes, &y[v * sizes.np..], scores, out),
        }
    }
}

/// The sizes of one head's kernels: its width, the sequence length, the padded chunk.
#[derive(Clone, Copy)]
struct Sizes {
    dh: usize,
    seq: usize,
    np: usize,
}

/// `GROUP` lanes starting at `start` of `values`.
#[inline(always)]
fn lanes<S: Copy>(values: &[S], start: usize) -> &[S; GROUP] {
    values[start..start + GROUP]
        .try_into()
        .expect("GROUP lanes")
}

/// The scores `C[m][n] = q_m·k_n · scale` of one head for every input of the chunk, each column
/// shifted by its maximum (so that every exponent is `≤ 0`). `q` and `k` start at the head's
/// first row of `Y`.
#[inline(always)]
fn head_scores<S: Element>(sizes: Sizes, q: &[S], k: &[S], scale: S, scores: &mut [S]) {
    let Sizes { dh, seq, np } = sizes;
    let at = |i: usize, t: usize| (i * seq + t) * np;
    for g in (0..np).step_by(GROUP) {
        for n in 0..seq {
            let mut max = [S::zero(); GROUP];
            for m in 0..seq {
                let mut sum = [S::zero(); GROUP];
                for i in 0..dh {
                    let (qi, ki) = (lanes(q, at(i, m) + g), lanes(k, at(i, n) + g));
                    for l in 0..GROUP {
                        sum[l] += qi[l] * ki[l];
                    }
                }
                let c: &mut [S; GROUP] = (&mut scores[(m * seq + n) * np + g..][..GROUP])
                    .try_into()
                    .expect("GROUP lanes");
                for l in 0..GROUP {
                    c[l] = sum[l] * scale;
                    max[l] = if m == 0 || c[l] > max[l] {
                        c[l]
                    } else {
                        max[l]
                    };
                }
            }
            for m in 0..seq {
                let c = &mut scores[(m * seq + n) * np + g..][..GROUP];
                for l in 0..GROUP {
                    c[l] -= max[l];
                }
            }
        }
    }
}

/// The exponentials in `scores` normalised column by column (GML's `VectorSoftmax`), then
/// `V · σ(C)` added to `out`, the head's first row of the attention's output.
#[inline(always)]
fn weigh<S: Element>(sizes: Sizes, v: &[S], scores: &mut [S], out: &mut [S]) {
    let Sizes { dh, seq, np } = sizes;
    let at = |i: usize, t: usize| (i * seq + t) * np;
    for g in (0..np).step_by(GROUP) {
        for n in 0..seq {
            let mut sum = [S::zero(); GROUP];
            for m in 0..seq {
                let e = lanes(scores, (m * seq + n) * np + g);
                for l in 0..GROUP {
                    sum[l] += e[l];
                }
            }
            let inverse = sum.map(|s| S::one() / s);
            for m in 0..seq {
                let e = &mut scores[(m * seq + n) * np + g..][..GROUP];
                for l in 0..GROUP {
                    e[l] *= inverse[l];
                }
            }
            for i in 0..dh {
                let mut sum = [S::zero(); GROUP];
                for m in 0..seq {
                    let (vi, s) = (
                        lanes(v, at(i, m) + g),
                        lanes(scores, (m * seq + n) * np + g),
                    );
                    for l in 0..GROUP {
                        sum[l] += vi[l] * s[l];
                    }
                }
                let o = &mut out[at(i, n) + g..][..GROUP];
                for l in 0..GROUP {
                    o[l] += sum[l];
                }
            }
        }
    }
}

/// [`head_scores`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn scores_avx512<S: Element>(sizes: Sizes, q: &[S], k: &[S], scale: S, scores: &mut [S]) {
    head_scores(sizes, q, k, scale, scores);
}

/// [`head_scores`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn scores_avx2<S: Element>(sizes: Sizes, q: &[S], k: &[S], scale: S, scores: &mut [S]) {
    head_scores(sizes, q, k, scale, scores);
}

/// [`weigh`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn weigh_avx512<S: Element>(sizes: Sizes, v: &[S], scores: &mut [S], out: &mut [S]) {
    weigh(sizes, v, scores, out);
}

/// [`weigh`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn weigh_avx2<S: Element>(sizes: Sizes, v: &[S], scores: &mut [S], out: &mut [S]) {
    weigh(sizes, v, scores, out);
}
