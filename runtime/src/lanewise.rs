//! Throughput: a batch of sequences computed several at a time, one per SIMD lane.
//!
//! [`Lanewise`] runs a layer over a flat `(D, T, B)` batch, the buffers of
//! [`SequenceLayer::forward_flat`]. It packs as many sequences as one vector of the processor holds
//! (16 of f32 with AVX-512, see [`Isa`]) into one matrix of lane vectors, runs the layer's ordinary
//! generic code once for all of them, over the layer's *lane twin* (the same layer with every
//! weight splatted across the lanes, [`LaneTwin`]), and unpacks the outputs. The last, partial
//! group is padded with copies of its first sequence, whose extra outputs are dropped.
//!
//! Every lane runs exactly the scalar operations in the scalar order, so the outputs are
//! **bit-identical** to [`SequenceLayer::forward_flat`] on every instruction set (the tests check
//! it for every layer and every instruction set the machine has).
//!
//! ```
//! use geomattn::{Lanewise, SequenceLayer, SkewSymmetric, SkewVpa};
//! let layer = SkewVpa::<f32, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
//! let fast = Lanewise::new(layer);
//! let batch: Vec<f32> = (0..3 * 4 * 37).map(|i| (i as f32 * 0.37).sin()).collect();
//! let (mut lanes, mut scalar) = (vec![0.0; batch.len()], vec![0.0; batch.len()]);
//! fast.forward_flat(&batch, &mut lanes)?;
//! layer.forward_flat(&batch, &mut scalar)?;
//! assert_eq!(lanes, scalar);
//! # Ok::<(), geomattn::Error>(())
//! ```
//!
//! # Instruction sets
//! [`Lanewise::new`] takes the best instruction set of the processor ([`Isa::best`]);
//! [`Lanewise::on`] a given one. The batch loop is compiled once per instruction set, with the
//! layer's forward pass inlined into it (the layers' forward passes are `#[inline(always)]` for
//! this), over that instruction set's own vector type: a default `cargo build --release` uses
//! AVX-512 on a processor that has it, and still runs on any x86-64.
//!
//! Only where optimised (`cfg(not(debug_assertions))`): in a build with debug assertions (`cargo
//! test`), the compile-time layers' functions and this loop's are left to the compiler, each a
//! function of its own, the same operations in the same order (the same bits). Inlined there,
//! every batch loop was one function of tens of thousands of lines of LLVM IR, unoptimised: these
//! loops were half of the test binary's IR.
//!
//! # Stack
//! Each call builds the lane twin once, on the stack: the layer's weights times the lane count
//! (16 for f32 with AVX-512), besides one group's sequences. That is a few kilobytes to a few
//! hundred for GML's integrators, but 9.6 MB for GML's MNIST classifier body in f64 (1.2 MB of
//! weights, 8 lanes): run a network that large on a thread with a larger stack (the test
//! `gml_large` does, with 256 MiB in a debug build).
//!
//! # Packing
//! A whole group of sequences is a `LANES × D·T` matrix whose rows are the sequences; on AVX2 and
//! AVX-512 it is loaded row by row and transposed `LANES × LANES` block by block in registers
//! (16×16 for f32 with AVX-512), and the outputs go back the same way. The portable vectors and
//! the last, partial group are packed lane by lane. The next group's inputs, and the output it
//! will overwrite, are prefetched while a group computes.

mod backward;

use core::marker::PhantomData;

use nalgebra::SMatrix;
use num_traits::Zero;

use crate::error::Error;
use crate::isa::Isa;
use crate::isa::polynomial::Polynomial;
use crate::isa::{BatchScalar, LaneVector, MAX_LANES, sealed::Vectors};
use crate::layer::SequenceLayer;
use crate::layer::flat_sequence_count;
use crate::product;
use crate::scalar::{MapScalar, Real};

/// A layer that can be rebuilt over any [`Real`] scalar and is then a [`SequenceLayer`] over it:
/// what [`Lanewise`] needs to run the layer over lane vectors.
///
/// ```
/// use geomattn::{LaneTwin, Lanes, SequenceLayer, SkewSymmetric, SkewVpa};
/// let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
/// let twin = LaneTwin::<2, 3>::twin(&layer, Lanes::<f64, 2>::splat);
/// let z = nalgebra::SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + 2 * j) as f64);
/// let lanes = twin.forward(&z.map(Lanes::splat));
/// assert_eq!(lanes.map(|x| x.lane(1)), layer.forward(&z));
/// # Ok::<(), geomattn::Error>(())
/// ```
pub trait LaneTwin<const D: usize, const T: usize>: MapScalar {
    /// The same layer over the scalar `X`.
    type Twin<X: Real>: SequenceLayer<X, D, T>;

    /// The same layer with every weight `w` replaced by `f(w)`.
    fn twin<X: Real>(&self, f: impl FnMut(Self::Scalar) -> X) -> Self::Twin<X>;
}

/// A layer run over a batch several sequences at a time (see the [module docs](self)), with the
/// exponential, `tanh` and products of [`ScalarFunctions`] (bit-identical to the scalar path, the
/// default) or of [`VectorFunctions`] (faster, within a stated error).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lanewise<L, F = ScalarFunctions> {
    layer: L,
    /// Available on this processor: checked by every constructor.
    isa: Isa,
    functions: PhantomData<F>,
}

impl<L> Lanewise<L> {
    /// `layer` on the best instruction set of this processor, [`Isa::best`].
    pub fn new(layer: L) -> Self {
        Self {
            layer,
            isa: Isa::best(),
            functions: PhantomData,
        }
    }

    /// `layer` on the instruction set `isa`, or `None` if this processor does not have it.
    ///
    /// ```
    /// use geomattn::{Isa, Lanewise, SkewVpa};
    /// let layer = SkewVpa::<f64, 3, 3>::glorot(&mut rand::rngs::SmallRng::seed_from_u64(1));
    /// # use rand::SeedableRng;
    /// assert!(Lanewise::on(Isa::Portable, layer).is_some());
    /// assert_eq!(Lanewise::on(Isa::Avx512, layer).is_some(), Isa::Avx512.is_available());
    /// ```
    pub fn on(isa: Isa, layer: L) -> Option<Self> {
        isa.is_available().then_some(Self {
            layer,
            isa,
            functions: PhantomData,
        })
    }

    /// The same, with the vectorised `exp` and `tanh` and the fused products of
    /// [`VectorFunctions`]: no longer bit-identical to the scalar path, but within the error
    /// bounds stated there.
    ///
    /// ```
    /// use geomattn::{AddConnection, Lanewise, MultiHeadAttention, SequenceLayer};
    /// # use rand::SeedableRng;
    /// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    /// let layer = MultiHeadAttention::<f32, 4, 2, 2, AddConnection>::glorot(&mut rng);
    /// let fast = Lanewise::new(layer).vector_functions();
    /// let batch: Vec<f32> = (0..4 * 3 * 37).map(|i| (i as f32 * 0.37).sin()).collect();
    /// let (mut lanes, mut scalar) = (vec![0.0_f32; batch.len()], vec![0.0; batch.len()]);
    /// fast.forward_flat::<4, 3>(&batch, &mut lanes)?;
    /// SequenceLayer::<f32, 4, 3>::forward_flat(&layer, &batch, &mut scalar)?;
    /// let close = |(a, b): (&f32, &f32)| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    /// assert!(lanes.iter().zip(&scalar).all(close));
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    pub fn vector_functions(self) -> Lanewise<L, VectorFunctions> {
        Lanewise {
            layer: self.layer,
            isa: self.isa,
            functions: PhantomData,
        }
    }
}

impl<L, F: Functions> Lanewise<L, F> {
    /// The layer.
    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// The instruction set the batch runs on.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The layer applied to every sequence of a flat `(D, T, B)` buffer, [`Isa::lanes`]
    /// sequences at a time; bit-identical to [`SequenceLayer::forward_flat`].
    ///
    /// # Errors
    /// [`Error::BatchShape`] if the buffers differ in length or are not a whole number of
    /// `D·T` sequences.
    pub fn forward_flat<const D: usize, const T: usize>(
        &self,
        input: &[L::Scalar],
        output: &mut [L::Scalar],
    ) -> Result<(), Error>
    where
        L: LaneTwin<D, T>,
        L::Scalar: BatchScalar,
    {
        flat_sequence_count(input, output, D * T)?;
        if D * T != 0 {
            self.forward_groups::<D, T>(input, output);
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
    /// let fast = Lanewise::new(layer);
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
    pub fn forward_flat_parallel<const D: usize, const T: usize>(
        &self,
        input: &[L::Scalar],
        output: &mut [L::Scalar],
    ) -> Result<(), Error>
    where
        L: LaneTwin<D, T> + Sync,
        L::Scalar: BatchScalar + Send + Sync,
    {
        use rayon::prelude::{IndexedParallelIterator, ParallelIterator};
        use rayon::slice::{ParallelSlice, ParallelSliceMut};

        flat_sequence_count(input, output, D * T)?;
        if D * T != 0 {
            // Whole lane groups per task: only the last task can hold a partial group.
            let task = GROUPS_PER_TASK * self.isa.lanes::<L::Scalar>() * D * T;
            input
                .par_chunks(task)
                .zip(output.par_chunks_mut(task))
                .for_each(|(z, out)| self.forward_groups::<D, T>(z, out));
        }
        Ok(())
    }

    /// [`forward_flat`](Self::forward_flat) with the batch loop compiled only for the instruction
    /// sets that [`Isa::is_compact`]: on x86-64 AVX-512 and AVX2, not the portable vectors, two
    /// thirds of the machine code per layer type, for a program that compiles the lane path for
    /// many of them (`geomattn-networks`'s grid of sizes). `None`, with nothing written, if `self`
    /// runs on another instruction set (a processor without AVX2 on x86-64).
    ///
    /// ```
    /// use geomattn::{Lanewise, SequenceLayer, SkewSymmetric, SkewVpa};
    /// let layer = SkewVpa::<f32, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
    /// let batch: Vec<f32> = (0..3 * 4 * 37).map(|i| (i as f32 * 0.37).sin()).collect();
    /// let (mut lanes, mut scalar) = (vec![0.0; batch.len()], vec![0.0; batch.len()]);
    /// layer.forward_flat(&batch, &mut scalar)?;
    /// let fast = Lanewise::new(layer);
    /// match fast.forward_flat_compact(&batch, &mut lanes) {
    ///     Some(done) => {
    ///         done?;
    ///         assert_eq!(lanes, scalar);
    ///     }
    ///     None => assert!(!fast.isa().is_compact()),
    /// }
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`forward_flat`](Self::forward_flat).
    pub fn forward_flat_compact<const D: usize, const T: usize>(
        &self,
        input: &[L::Scalar],
        output: &mut [L::Scalar],
    ) -> Option<Result<(), Error>>
    where
        L: LaneTwin<D, T>,
        L::Scalar: BatchScalar,
    {
        if !self.isa.is_compact() {
            return None;
        }
        Some(flat_sequence_count(input, output, D * T).map(|_| {
            if D * T == 0 {
                return;
            }
            match self.isa {
                // SAFETY: `self.isa` is available on this processor (checked when `self` was
                // built).
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { groups_avx512::<F, L, D, T>(&self.layer, input, output) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { groups_avx2::<F, L, D, T>(&self.layer, input, output) },
                // Not compact on x86-64 (returned above).
                #[cfg(target_arch = "x86_64")]
                Isa::Portable => {}
                #[cfg(not(target_arch = "x86_64"))]
                _ => groups::<F::Vector<<L::Scalar as Vectors>::Portable>, L, D, T>(
                    &self.layer,
                    input,
                    output,
                ),
            }
        }))
    }

    /// The sequences of `input` (a whole number of `D·T` sequences, `D·T > 0`) into `output`, on
    /// the instruction set of `self`.
    fn forward_groups<const D: usize, const T: usize>(
        &self,
        input: &[L::Scalar],
        output: &mut [L::Scalar],
    ) where
        L: LaneTwin<D, T>,
        L::Scalar: BatchScalar,
    {
        match self.isa {
            // SAFETY: `self.isa` is available on this processor (checked when `self` was built).
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { groups_avx512::<F, L, D, T>(&self.layer, input, output) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { groups_avx2::<F, L, D, T>(&self.layer, input, output) },
            _ => groups::<F::Vector<<L::Scalar as Vectors>::Portable>, L, D, T>(
                &self.layer,
                input,
                output,
            ),
        }
    }
}

/// How [`Lanewise`] computes the exponential (softmaxes) and `tanh` (activations) of a vector,
/// and the sums of its matrix products: [`ScalarFunctions`] or [`VectorFunctions`].
pub trait Functions: Copy + core::fmt::Debug + PartialEq + Default + Send + Sync + 'static {
    /// The lane vector `V` with these functions.
    #[doc(hidden)]
    type Vector<V: LaneVector>: LaneVector<Scalar = V::Scalar>;
}

/// `exp` and `tanh` through the scalar functions (the platform's `libm`), lane by lane, and products
/// with a separate multiply and add: every output bit-identical to the scalar path. The default of
/// [`Lanewise`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScalarFunctions;

impl Functions for ScalarFunctions {
    type Vector<V: LaneVector> = V;
}

/// `exp` and `tanh` as polynomials on whole vectors (range reduction, a Taylor polynomial,
/// scaling by `2ⁿ`; fused multiply-adds on AVX2 and AVX-512), and the matrix products accumulated
/// with fused multiply-adds on AVX2 and AVX-512 (`sum + a·b` rounded once instead of twice),
/// opted into with [`Lanewise::vector_functions`]. Everything else stays the scalar path's
/// operations; on the portable vectors only the functions differ.
///
/// Their largest error, in units in the last place (ulp) of the exact result, measured by the
/// crate's tests on every instruction set of the test machine over a sweep of 2·10⁵ points of
/// the whole range, 6 000 magnitudes from `10⁻³⁰` to `1` and the special values (f32 against
/// the f64 functions, f64 against the platform's f64 functions); the tests fail above the bound:
///
/// | function | f32 | f64 | bound tested |
/// |---|---|---|---|
/// | `exp`, AVX2 / AVX-512 (fused) | 0.86 ulp | 1.0 ulp | 1.25 ulp |
/// | `exp`, portable (not fused) | 1.16 ulp | 1.0 ulp | 1.25 ulp |
/// | `tanh`, AVX2 / AVX-512 (fused) | 5.26 ulp | 3.0 ulp | 7 ulp (f32), 3.5 ulp (f64) |
/// | `tanh`, portable (not fused) | 6.85 ulp | 3.0 ulp | 7 ulp (f32), 3.5 ulp (f64) |
///
/// (`tanh` in f32: measured over every `f32` below the point where it rounds to `1`, by
/// `scripts/tanh_rational.py`; it is a rational function there, the form XLA gives JAX's.)
/// Subnormal results of `exp` count in units of the least subnormal. The scalar functions are
/// within 1 ulp themselves. NaN gives NaN, `exp(−∞) = 0`, `exp(∞) = ∞`, `tanh(±∞) = ±1`,
/// `tanh(−0) = −0`, as in the scalar functions.
///
/// A layer's output then differs from the scalar path by these errors and the fused products'
/// roundings, propagated through the layer. `tests/tests/vector_functions.rs` bounds the
/// difference for volume-preserving attention (which differs by its fused products only), MHA,
/// symplectic attention, softmax attention, the ResNet layer, the SympNet stacks and GML's
/// rigid-body transformers: within `64 ε·max(|y|, 1)` for inputs up to order one (measured: at
/// most 8 ε, skew VPA at d = T = 8); for larger inputs, where the layer's own f32 rounding error
/// grows with its scores (to 10⁵ ε for skew VPA at inputs of 30, whose `C` is then of order
/// 10³), no more than four times that error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorFunctions;

impl Functions for VectorFunctions {
    type Vector<V: LaneVector> = Polynomial<V>;
}

/// Lane groups per task of `Lanewise::forward_flat_parallel` (feature `parallel`): 64 groups of 16 sequences of
/// `d = T = 8` in f32 are 256 KiB in and out, enough work to hide rayon's cost per task
/// (about a microsecond) and small enough to keep both cores busy to the end.
pub const GROUPS_PER_TASK: usize = 64;

/// [`groups`] over AVX-512 vectors, compiled for AVX-512. (Half-width vectors, which AVX-512 also
/// gives 32 registers, were measured as the alternative where a sequence's matrices no longer fit
/// the registers: no faster at d = T = 5 and 8 in f32, slower in f64.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn groups_avx512<F: Functions, L, const D: usize, const T: usize>(
    layer: &L,
    input: &[L::Scalar],
    output: &mut [L::Scalar],
) where
    L: LaneTwin<D, T>,
    L::Scalar: BatchScalar,
{
    groups::<F::Vector<<L::Scalar as Vectors>::Avx512>, L, D, T>(layer, input, output);
}

/// [`groups`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn groups_avx2<F: Functions, L, const D: usize, const T: usize>(
    layer: &L,
    input: &[L::Scalar],
    output: &mut [L::Scalar],
) where
    L: LaneTwin<D, T>,
    L::Scalar: BatchScalar,
{
    groups::<F::Vector<<L::Scalar as Vectors>::Avx2>, L, D, T>(layer, input, output);
}

/// The sequences of `input` through the lane twin of `layer` over `V`, `V::LANES` at a time.
///
/// Where a sequence has more entries than the processor has vector registers (32), the lane
/// matrices of a group's inputs and outputs are built once per call and overwritten by every
/// group: built per group, each was a 4 KiB `memset` at d = T = 8 in f32 (and its return a
/// `memcpy`), together 15 % of the layer's time in cache. Smaller ones are built per group, which
/// lets them live in registers (reused, they made d = T = 5 5 % slower). The inputs and outputs
/// [`PREFETCH_BYTES`] ahead are prefetched into the cache while a group computes.
#[cfg_attr(not(debug_assertions), inline(always))]
fn groups<V, L, const D: usize, const T: usize>(
    layer: &L,
    input: &[L::Scalar],
    output: &mut [L::Scalar],
) where
    V: LaneVector<Scalar = L::Scalar>,
    L: LaneTwin<D, T>,
{
    let twin = layer.twin(V::splat);
    let group = V::LANES * D * T;
    let ahead = PREFETCH_BYTES.div_ceil(group * core::mem::size_of::<L::Scalar>());
    let mut reused = [zeros::<V, D, T>(), zeros::<V, D, T>()];
    let whole = input.len() / group;
    for index in 0..whole {
        let later = (index + ahead) * group;
        if let (Some(inputs), Some(outputs)) = (input.get(later..), output.get(later..)) {
            prefetch(&inputs[..group.min(inputs.len())]);
            prefetch(&outputs[..group.min(outputs.len())]);
        }
        let this = index * group..(index + 1) * group;
        let (sequences, results) = (&input[this.clone()], &mut output[this]);
        forward_group(&twin, sequences, results, V::LANES, &mut reused);
    }
    let rest = whole * group..input.len();
    if !rest.is_empty() {
        let count = rest.len() / (D * T);
        let (sequences, results) = (&input[rest.clone()], &mut output[rest]);
        forward_group(&twin, sequences, results, count, &mut reused);
    }
}

/// The lane matrix of zeros.
#[cfg_attr(not(debug_assertions), inline(always))]
fn zeros<V: LaneVector, const D: usize, const T: usize>() -> SMatrix<V, D, T> {
    product::matrix(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |_, _| V::zero(),
    )
}

/// The vector registers of AVX-512 (AVX2 has 16): the lane matrices of sequences with more entries
/// cannot stay in registers.
const VECTOR_REGISTERS: usize = 32;

/// How far ahead of the group being computed [`groups`] prefetches its inputs and its outputs. The
/// hardware's own prefetcher does not follow the rows of a group, read and written 64 bytes at a
/// time at a stride of one sequence. Measured at B = 10⁵ (data far larger than the caches), skew
/// VPA in f32 on AVX-512, one 4 KiB group ahead:
///
/// - the inputs: 76 → 63 ns per sequence at d = T = 8, 15 → 11–12 ns at d = T = 5;
/// - and the outputs too (each store had waited for its cache line to be read), measured against
///   the inputs alone side by side: 150 → 89 ns at d = T = 8 (f64: 320 → 197), where the same
///   batch in the cache takes 50–58 ns; no change at d = T ≤ 5 in f32 (f64 at 5: 37 → 31.5). Two
///   or four groups ahead were slower (95 and 93 ns against 77–82 in that run), and so was an
///   added prefetch into L2 four groups ahead (92 against 86); `prefetchw` for the outputs was
///   no faster (88 against 86).
///
/// In the cache the input prefetch cost nothing measurable; the output prefetch was not measured
/// there.
const PREFETCH_BYTES: usize = 4096;

/// Asks the processor to bring `values` into its caches (x86-64; nothing elsewhere).
#[cfg_attr(not(debug_assertions), inline(always))]
fn prefetch<S>(values: &[S]) {
    #[cfg(target_arch = "x86_64")]
    for line in values.iter().step_by(64 / core::mem::size_of::<S>().max(1)) {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint that never faults and reads nothing architecturally; the
        // address is that of an element of `values`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(core::ptr::from_ref(line).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

/// The first `count ≤ LANES` sequences of `input` through `twin` into `output`, by way of the lane
/// matrices `reused` (overwritten) if a sequence has more entries than [`VECTOR_REGISTERS`], of new
/// ones otherwise.
#[cfg_attr(not(debug_assertions), inline(always))]
fn forward_group<V: LaneVector, L: SequenceLayer<V, D, T>, const D: usize, const T: usize>(
    twin: &L,
    input: &[V::Scalar],
    output: &mut [V::Scalar],
    count: usize,
    reused: &mut [SMatrix<V, D, T>; 2],
) {
    let mut fresh;
    let [z, out] = if D * T > VECTOR_REGISTERS {
        reused
    } else {
        fresh = [zeros(), zeros()];
        &mut fresh
    };
    if count == V::LANES && V::SHUFFLES {
        pack(input, z);
        twin.forward_into(z.as_view(), out.as_view_mut());
        unpack(out, output);
    } else {
        pack_partial(input, count, Padding::FirstSequence, z);
        twin.forward_into(z.as_view(), out.as_view_mut());
        unpack_partial(out, output, count);
    }
}

/// `LANES` sequences of a flat buffer into one lane matrix (entry `e` of sequence `k` in lane `k`
/// of entry `e`): `LANES × LANES` blocks of the `LANES × D·T` matrix whose rows are the sequences,
/// loaded row by row and transposed in registers.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack<V: LaneVector, const D: usize, const T: usize>(
    input: &[V::Scalar],
    z: &mut SMatrix<V, D, T>,
) {
    let (lanes, per_item) = (V::LANES, D * T);
    let mut block = [V::zero(); MAX_LANES];
    let block = &mut block[..lanes];
    for_each_block(
        per_item,
        lanes,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |start, width| {
            for (k, row) in block.iter_mut().enumerate() {
                let sequence = &input[k * per_item + start..][..width];
                *row = if width == lanes {
                    V::load(sequence)
                } else {
                    let mut padded = [V::Scalar::zero(); MAX_LANES];
                    padded[..width].copy_from_slice(sequence);
                    V::load(&padded)
                };
            }
            V::transpose(block);
            z.as_mut_slice()[start..start + width].copy_from_slice(&block[..width]);
        },
    );
}

/// `f(start, width)` for each block of `lanes` entries of a sequence of `per_item`: the whole
/// blocks in a loop, then the partial one, whose width is then a constant once inlined. With a
/// width known only at run time its copies were calls to `memcpy`, each spilling every vector
/// register around it: 30 calls per lane group at d = T = 5 with AVX-512.
#[cfg_attr(not(debug_assertions), inline(always))]
fn for_each_block(per_item: usize, lanes: usize, mut f: impl FnMut(usize, usize)) {
    let whole = per_item - per_item % lanes;
    for start in (0..whole).step_by(lanes) {
        f(start, lanes);
    }
    if whole < per_item {
        f(whole, per_item - whole);
    }
}

/// A lane matrix of `LANES` sequences back into a flat buffer: [`pack`] reversed.
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack<V: LaneVector, const D: usize, const T: usize>(
    out: &SMatrix<V, D, T>,
    output: &mut [V::Scalar],
) {
    let (lanes, per_item) = (V::LANES, D * T);
    let mut block = [V::zero(); MAX_LANES];
    let block = &mut block[..lanes];
    for_each_block(
        per_item,
        lanes,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |start, width| {
            block[..width].copy_from_slice(&out.as_slice()[start..start + width]);
            block[width..].fill(V::zero());
            V::transpose(block);
            for (k, row) in block.iter().enumerate() {
                let sequence = &mut output[k * per_item + start..][..width];
                if width == lanes {
                    row.store(sequence);
                } else {
                    let mut padded = [V::Scalar::zero(); MAX_LANES];
                    row.store(&mut padded);
                    sequence.copy_from_slice(&padded[..width]);
                }
            }
        },
    );
}

/// What the lanes of a partial group past its sequences hold.
#[derive(Clone, Copy)]
enum Padding {
    /// Copies of the group's first sequence (inputs: every padded lane computes as a real one).
    FirstSequence,
    /// Zeros (cotangents: a padded lane then adds nothing to a gradient).
    Zeros,
}

/// The first `count ≤ LANES` sequences of a flat buffer into one lane matrix, lane by lane; lanes
/// from `count` on hold the `padding`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack_partial<V: LaneVector, const D: usize, const T: usize>(
    input: &[V::Scalar],
    count: usize,
    padding: Padding,
    z: &mut SMatrix<V, D, T>,
) {
    let per_item = D * T;
    for (e, entry) in z.as_mut_slice().iter_mut().enumerate() {
        *entry = V::from_fn(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |k| match (k < count, padding) {
                (true, _) => input[k * per_item + e],
                (false, Padding::FirstSequence) => input[e],
                (false, Padding::Zeros) => V::Scalar::zero(),
            },
        );
    }
}

/// The first `count` lanes of a lane matrix back into a flat buffer of sequences, lane by lane.
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack_partial<V: LaneVector, const D: usize, const T: usize>(
    out: &SMatrix<V, D, T>,
    output: &mut [V::Scalar],
    count: usize,
) {
    let per_item = D * T;
    for (e, entry) in out.as_slice().iter().enumerate() {
        entry.for_each_lane(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |k, x| {
                if k < count {
                    output[k * per_item + e] = x;
                }
            },
        );
    }
}
