//! Throughput: a batch of sequences computed `N` at a time, one per SIMD lane.
//!
//! [`Lanewise`] holds a layer's *lane twin*, the same layer over [`Lanes<S, N>`] with every weight
//! splatted across the lanes ([`MapScalar`]). Its [`forward_flat`](Lanewise::forward_flat) takes the
//! same flat `(D, T, B)` buffers as [`SequenceLayer::forward_flat`], packs `N` sequences into one
//! lane matrix, runs the layer's ordinary generic code once for all `N`, and unpacks the outputs. The
//! last, partial group is padded with copies of its first sequence, whose extra outputs are dropped.
//!
//! Every lane runs exactly the scalar operations in the scalar order, so the outputs are
//! **bit-identical** to [`SequenceLayer::forward_flat`] (the tests check it for every layer).
//!
//! ```
//! use geomattn::{Lanewise, SequenceLayer, SkewSymmetric, SkewVpa};
//! let layer = SkewVpa::<f32, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
//! let fast = Lanewise::<_, 16>::new(&layer);
//! let batch: Vec<f32> = (0..3 * 4 * 37).map(|i| (i as f32 * 0.37).sin()).collect();
//! let (mut lanes, mut scalar) = (vec![0.0; batch.len()], vec![0.0; batch.len()]);
//! fast.forward_flat(&batch, &mut lanes)?;
//! layer.forward_flat(&batch, &mut scalar)?;
//! assert_eq!(lanes, scalar);
//! # Ok::<(), geomattn::Error>(())
//! ```
//!
//! # Instruction sets
//! The group loop is compiled once per instruction set with
//! [`multiversion`](https://docs.rs/multiversion) (AVX-512, AVX2 with FMA, and the build's baseline)
//! and the best the processor has is chosen at run time (with `std`; without it, at compile time
//! from the target's features) on hosted x86-64; other targets (a Cortex-M, bare-metal x86-64)
//! compile it once for their own instruction set. The
//! layer's code is inlined into each version. The lane arithmetic itself is `wide`'s, whose vector
//! width is fixed at compile time (see [`crate::lanes`]): build with `-C target-cpu=native` to get
//! AVX-512 vectors (the README's throughput table gives both).

use nalgebra::SMatrix;

use crate::lanes::LaneScalar;
use crate::layer::flat_sequence_count;
use crate::product;
use crate::{Error, Lanes, MapScalar, SequenceLayer};

/// A layer's lane twin: `N` sequences per evaluation (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lanewise<L, const N: usize> {
    twin: L,
}

impl<L, const N: usize> Lanewise<L, N> {
    /// The lane twin of `layer`: every weight splatted across `N` lanes.
    pub fn new<S, Layer>(layer: &Layer) -> Self
    where
        S: LaneScalar<N>,
        Layer: MapScalar<Scalar = S, Over<Lanes<S, N>> = L>,
    {
        Self {
            twin: layer.map_scalar(Lanes::splat),
        }
    }

    /// The layer over lanes.
    pub fn twin(&self) -> &L {
        &self.twin
    }

    /// The layer applied to every sequence of a flat `(D, T, B)` buffer, `N` sequences at a time;
    /// bit-identical to [`SequenceLayer::forward_flat`].
    ///
    /// # Errors
    /// [`Error::BatchShape`] if the buffers differ in length or are not a whole number of
    /// `D·T` sequences.
    pub fn forward_flat<S, const D: usize, const T: usize>(
        &self,
        input: &[S],
        output: &mut [S],
    ) -> Result<(), Error>
    where
        S: LaneScalar<N>,
        L: SequenceLayer<Lanes<S, N>, D, T>,
    {
        flat_sequence_count(input, output, D * T)?;
        if D * T != 0 {
            forward_groups::<S, L, D, T, N>(&self.twin, input, output);
        }
        Ok(())
    }

    /// [`forward_flat`](Self::forward_flat) on every thread of the current rayon pool, in tasks of
    /// [`GROUPS_PER_TASK`] lane groups; the same outputs, bit for bit, and no allocation per
    /// sequence. Set the thread count as rayon does, with `RAYON_NUM_THREADS` or a pool's
    /// `install`:
    ///
    /// ```
    /// use geomattn::{Lanewise, SequenceLayer, SkewSymmetric, SkewVpa};
    /// let layer = SkewVpa::<f64, 3, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
    /// let fast = Lanewise::<_, 8>::new(&layer);
    /// let batch: Vec<f64> = (0..9 * 5000).map(|i| (i as f64 * 0.37).sin()).collect();
    /// let (mut parallel, mut sequential) = (vec![0.0; batch.len()], vec![0.0; batch.len()]);
    /// let two_threads = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// two_threads.install(|| fast.forward_flat_parallel(&batch, &mut parallel))?;
    /// fast.forward_flat(&batch, &mut sequential)?;
    /// assert_eq!(parallel, sequential);
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`forward_flat`](Self::forward_flat).
    #[cfg(feature = "parallel")]
    pub fn forward_flat_parallel<S, const D: usize, const T: usize>(
        &self,
        input: &[S],
        output: &mut [S],
    ) -> Result<(), Error>
    where
        S: LaneScalar<N> + Send + Sync,
        L: SequenceLayer<Lanes<S, N>, D, T> + Sync,
    {
        use rayon::prelude::{IndexedParallelIterator, ParallelIterator};
        use rayon::slice::{ParallelSlice, ParallelSliceMut};

        flat_sequence_count(input, output, D * T)?;
        if D * T != 0 {
            // Whole lane groups per task: only the last task can hold a partial group.
            let task = GROUPS_PER_TASK * N * D * T;
            input
                .par_chunks(task)
                .zip(output.par_chunks_mut(task))
                .for_each(|(z, out)| forward_groups::<S, L, D, T, N>(&self.twin, z, out));
        }
        Ok(())
    }
}

/// Lane groups per task of [`Lanewise::forward_flat_parallel`]: 64 groups of 16 sequences of
/// `d = T = 8` in f32 are 256 KiB in and out, enough work to hide rayon's cost per task
/// (about a microsecond) and small enough to keep both cores busy to the end.
pub const GROUPS_PER_TASK: usize = 64;

/// The sequences of `input` (a whole number of `D·T` sequences, `D·T > 0`) through `twin`, `N` at a
/// time, into `output`.
#[cfg_attr(
    all(target_arch = "x86_64", not(target_os = "none")),
    multiversion::multiversion(targets(
        "x86_64+avx512f+avx512vl+avx512bw+avx512dq+avx2+avx+fma+sse4.2+sse4.1+ssse3+sse3",
        "x86_64+avx2+avx+fma+sse4.2+sse4.1+ssse3+sse3",
    ))
)]
fn forward_groups<S, L, const D: usize, const T: usize, const N: usize>(
    twin: &L,
    input: &[S],
    output: &mut [S],
) where
    S: LaneScalar<N>,
    L: SequenceLayer<Lanes<S, N>, D, T>,
{
    let group = N * D * T;
    let mut inputs = input.chunks_exact(group);
    let mut outputs = output.chunks_exact_mut(group);
    for (z, out) in (&mut inputs).zip(&mut outputs) {
        forward_group::<S, L, D, T, N>(twin, z, out, N);
    }
    let rest = inputs.remainder();
    if !rest.is_empty() {
        let count = rest.len() / (D * T);
        forward_group::<S, L, D, T, N>(twin, rest, outputs.into_remainder(), count);
    }
}

/// The first `count ≤ N` sequences of `input` through `twin` into `output`.
#[inline(always)]
fn forward_group<S, L, const D: usize, const T: usize, const N: usize>(
    twin: &L,
    input: &[S],
    output: &mut [S],
    count: usize,
) where
    S: LaneScalar<N>,
    L: SequenceLayer<Lanes<S, N>, D, T>,
{
    let z = pack::<S, D, T, N>(input, count);
    let mut out = product::matrix::<Lanes<S, N>, D, T>(|_, _| Lanes::splat(S::zero()));
    twin.forward_into(z.as_view(), out.as_view_mut());
    unpack(&out, output, count);
}

/// The first `count` sequences of a flat buffer as one lane matrix: entry `e` of sequence `k` in
/// lane `k` of entry `e`; lanes from `count` on repeat sequence 0.
#[inline(always)]
fn pack<S: LaneScalar<N>, const D: usize, const T: usize, const N: usize>(
    input: &[S],
    count: usize,
) -> SMatrix<Lanes<S, N>, D, T> {
    let per_item = D * T;
    product::matrix(|i, j| {
        let e = i + D * j;
        Lanes::new(core::array::from_fn(|k| {
            let sequence = if k < count { k } else { 0 };
            input[sequence * per_item + e]
        }))
    })
}

/// The first `count` lanes of a lane matrix back into a flat buffer of sequences.
#[inline(always)]
fn unpack<S: LaneScalar<N>, const D: usize, const T: usize, const N: usize>(
    out: &SMatrix<Lanes<S, N>, D, T>,
    output: &mut [S],
    count: usize,
) {
    let per_item = D * T;
    for (e, entry) in out.as_slice().iter().enumerate() {
        for (k, lane) in entry.to_array().into_iter().enumerate().take(count) {
            output[k * per_item + e] = lane;
        }
    }
}
