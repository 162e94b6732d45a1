//! The instruction sets the lane path ([`crate::Lanewise`]) runs on, chosen when the program runs.
//!
//! A default `cargo build --release` targets the baseline of its architecture (SSE2 on x86-64),
//! yet the machine that runs it may have AVX2 or AVX-512. [`Isa::best`] asks the processor (with
//! `std`; without it, the target's compile-time features decide) and [`crate::Lanewise`] runs its
//! batch loop, with the layer's code inlined into it, compiled for that instruction set, over that
//! instruction set's own vectors:
//!
//! | [`Isa`] | lanes of f32 | lanes of f64 | vector registers |
//! |---|---|---|---|
//! | [`Avx512`](Isa::Avx512) (F, VL, DQ) | 16 | 8 | 32 |
//! | [`Avx2`](Isa::Avx2) | 8 | 4 | 16 |
//! | [`Portable`](Isa::Portable) | 4 | 2 | (the build's baseline: SSE2, NEON, or scalar code) |
//!
//! Every instruction set computes every lane with the scalar operations in the scalar order, so
//! the outputs are bit-identical whichever runs (the tests run each one the machine has). Fused
//! multiply-add is not used: it would round differently from the scalar path. The exception is
//! the opt-in [`crate::VectorFunctions`], whose polynomial `exp` and `tanh` and matrix products
//! fuse on AVX2 and AVX-512 and are within a stated error instead of bit-identical.
//!
//! ```
//! use geomattn::Isa;
//! let isa = Isa::best();
//! assert!(isa.is_available() && Isa::Portable.is_available());
//! assert_eq!(Isa::Portable.lanes::<f32>(), 4);
//! println!("the lane path runs on {isa:?}: {} sequences of f32 at a time", isa.lanes::<f32>());
//! ```

pub use products::LaneMatrix;
pub use residual::ResidualStep;
pub use residual_backward::ResidualLayer;

use crate::lanes::Lanes;
use crate::scalar::Real;

mod cayley_product;
pub(crate) mod polynomial;
mod products;
mod residual;
mod residual_backward;
mod slices;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

/// An instruction set of the lane path (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// AVX-512 on x86-64 (F, VL and DQ): 512-bit vectors, 32 registers.
    Avx512,
    /// AVX2 on x86-64: 256-bit vectors, 16 registers.
    Avx2,
    /// The build's own baseline vectors, through `wide`: SSE2 on x86-64, NEON on AArch64, plain
    /// scalar code on targets without vectors (a Cortex-M4F). Always available.
    Portable,
}

impl Isa {
    /// Every instruction set, best first.
    pub const ALL: [Isa; 3] = [Isa::Avx512, Isa::Avx2, Isa::Portable];

    /// Whether [`Lanewise::forward_flat_compact`](crate::Lanewise::forward_flat_compact) is
    /// compiled for this instruction set: AVX-512 and AVX2 on x86-64, not its portable SSE2
    /// vectors (which every x86-64 processor since 2013 surpasses with AVX2); the portable
    /// vectors elsewhere.
    ///
    /// ```
    /// use geomattn::Isa;
    /// assert_eq!(Isa::Portable.is_compact(), !cfg!(target_arch = "x86_64"));
    /// ```
    pub const fn is_compact(self) -> bool {
        match self {
            Isa::Avx512 | Isa::Avx2 => true,
            Isa::Portable => !cfg!(target_arch = "x86_64"),
        }
    }

    /// The best instruction set this processor has.
    pub fn best() -> Isa {
        Isa::ALL
            .into_iter()
            .find(|isa| isa.is_available())
            .unwrap_or(Isa::Portable)
    }

    /// Whether this processor has the instruction set: asked at run time with `std` on x86-64
    /// (the answer is cached by the standard library), decided by the target's compile-time
    /// features without it.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Avx512 => x86_has!("avx512f", "avx512vl", "avx512dq", "avx2", "avx", "fma"),
            Isa::Avx2 => x86_has!("avx2", "avx", "fma"),
            Isa::Portable => true,
        }
    }

    /// Sequences per lane group: the number of `S` in one vector of this instruction set.
    pub fn lanes<S: BatchScalar>(self) -> usize {
        self.vector_bytes() / core::mem::size_of::<S>()
    }

    /// The width of one vector.
    const fn vector_bytes(self) -> usize {
        match self {
            Isa::Avx512 => 64,
            Isa::Avx2 => 32,
            Isa::Portable => 16,
        }
    }
}

/// Whether the processor has every one of the x86 target features named.
macro_rules! x86_has {
    ($($feature:tt),+) => {{
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        let has = true $(&& std::is_x86_feature_detected!($feature))+;
        #[cfg(all(target_arch = "x86_64", not(feature = "std")))]
        let has = true $(&& cfg!(target_feature = $feature))+;
        #[cfg(not(target_arch = "x86_64"))]
        let has = false;
        has
    }};
}
use x86_has;

/// A scalar the lane path batches: `f32` or `f64` (sealed: the vector types behind it are the
/// crate's own).
pub trait BatchScalar: Real + sealed::Vectors {}

impl BatchScalar for f32 {}
impl BatchScalar for f64 {}

pub(crate) mod sealed {
    use nalgebra::ComplexField;
    use num_traits::Zero;

    use super::polynomial::ElementaryScalar;
    use crate::scalar::Real;

    /// The vector types of a [`super::BatchScalar`], one per instruction set.
    pub trait Vectors: Sized {
        /// `wide`'s baseline vector (16 bytes).
        type Portable: LaneVector<Scalar = Self>;
        /// An AVX2 vector (32 bytes).
        #[cfg(target_arch = "x86_64")]
        type Avx2: LaneVector<Scalar = Self>;
        /// An AVX-512 vector (64 bytes).
        #[cfg(target_arch = "x86_64")]
        type Avx512: LaneVector<Scalar = Self>;
    }

    /// One vector of lanes of a [`super::BatchScalar`]: what the lane path packs sequences into.
    pub trait LaneVector: Real {
        /// The scalar of one lane.
        type Scalar: ElementaryScalar;
        /// The number of lanes.
        const LANES: usize;
        /// Whether [`transpose`](Self::transpose) shuffles whole registers: if not, the lane path
        /// packs sequences lane by lane instead, which is then faster.
        const SHUFFLES: bool = false;

        /// `x` in every lane.
        fn splat(x: Self::Scalar) -> Self;

        /// Lane `k` set to `f(k)`.
        fn from_fn(f: impl FnMut(usize) -> Self::Scalar) -> Self;

        /// `f(k, lane k)` for every lane `k`.
        fn for_each_lane(self, f: impl FnMut(usize, Self::Scalar));

        /// The vector of the first `LANES` values of `values`.
        ///
        /// # Panics
        /// If `values` is shorter (the lane path never calls it so).
        #[inline(always)]
        fn load(values: &[Self::Scalar]) -> Self {
            Self::from_fn(|k| values[k])
        }

        /// The lanes into the first `LANES` places of `out`.
        ///
        /// # Panics
        /// If `out` is shorter (the lane path never calls it so).
        #[inline(always)]
        fn store(self, out: &mut [Self::Scalar]) {
            self.for_each_lane(|k, x| out[k] = x);
        }

        /// The vector of the `LANES` values of `values` from `at`, without a bounds check: for
        /// kernels that checked their whole buffers once.
        ///
        /// # Safety
        /// `at + LANES ≤ values.len()`.
        #[inline(always)]
        unsafe fn load_at(values: &[Self::Scalar], at: usize) -> Self {
            debug_assert!(at + Self::LANES <= values.len());
            // SAFETY: every index is below `at + LANES`, in bounds by the caller's promise.
            Self::from_fn(|k| unsafe { *values.get_unchecked(at + k) })
        }

        /// The lanes into the `LANES` places of `out` from `at`, without a bounds check.
        ///
        /// # Safety
        /// `at + LANES ≤ out.len()`.
        #[inline(always)]
        unsafe fn store_at(self, out: &mut [Self::Scalar], at: usize) {
            debug_assert!(at + Self::LANES <= out.len());
            // SAFETY: as in `load_at`.
            self.for_each_lane(|k, x| unsafe { *out.get_unchecked_mut(at + k) = x });
        }

        /// `block`, `LANES` vectors, transposed as a `LANES × LANES` matrix: lane `j` of vector
        /// `i` moves to lane `i` of vector `j`. This version moves lane by lane; the AVX vectors
        /// shuffle whole registers.
        ///
        /// # Panics
        /// If `block` does not hold `LANES` vectors (the lane path never calls it so).
        #[inline(always)]
        fn transpose(block: &mut [Self]) {
            let mut rows = [Self::zero(); super::MAX_LANES];
            rows[..Self::LANES].copy_from_slice(block);
            for (j, column) in block.iter_mut().enumerate() {
                let mut lanes = [Self::Scalar::zero(); super::MAX_LANES];
                for (i, row) in rows[..Self::LANES].iter().enumerate() {
                    row.for_each_lane(|k, x| {
                        if k == j {
                            lanes[i] = x;
                        }
                    });
                }
                *column = Self::from_fn(|i| lanes[i]);
            }
        }

        // The primitives of the polynomial `exp` and `tanh` ([`super::polynomial`]). These
        // versions work lane by lane; the AVX vectors use one instruction or a few each.

        /// `f(lane k)` in lane `k`.
        #[inline(always)]
        fn map_lanes(self, mut f: impl FnMut(Self::Scalar) -> Self::Scalar) -> Self {
            let mut lanes = [Self::Scalar::zero(); super::MAX_LANES];
            self.for_each_lane(|k, x| lanes[k] = x);
            Self::from_fn(|k| f(lanes[k]))
        }

        /// `f(lane k of self, lane k of other)` in lane `k`.
        #[inline(always)]
        fn zip_lanes(
            self,
            other: Self,
            mut f: impl FnMut(Self::Scalar, Self::Scalar) -> Self::Scalar,
        ) -> Self {
            let mut lanes = [Self::Scalar::zero(); super::MAX_LANES];
            other.for_each_lane(|k, x| lanes[k] = x);
            let mut k = 0;
            self.map_lanes(|x| {
                k += 1;
                f(x, lanes[k - 1])
            })
        }

        /// `self · b + c`: fused (one rounding) on the AVX vectors, two roundings here.
        #[inline(always)]
        fn mul_add(self, b: Self, c: Self) -> Self {
            self * b + c
        }

        /// The nearest integer of every lane (either one at a tie).
        #[inline(always)]
        fn round(self) -> Self {
            self.map_lanes(ComplexField::round)
        }

        /// Every lane clamped to `[low, high]`; a NaN lane becomes either bound.
        #[inline(always)]
        fn clamp(self, low: Self::Scalar, high: Self::Scalar) -> Self {
            self.map_lanes(|x| {
                let x = if x > low { x } else { low };
                if x < high { x } else { high }
            })
        }

        /// `self · 2ⁿ` for integral `n` with `|n|` at most twice the largest exponent, rounded
        /// once (to a subnormal, zero or infinity where the product is one).
        #[inline(always)]
        fn times_pow2(self, n: Self) -> Self {
            self.zip_lanes(n, ElementaryScalar::times_pow2)
        }

        /// `|self|`, lane by lane.
        #[inline(always)]
        fn abs(self) -> Self {
            self.map_lanes(ComplexField::abs)
        }

        /// `|self|` with the sign bit of `sign`, lane by lane.
        #[inline(always)]
        fn with_sign_of(self, sign: Self) -> Self {
            self.zip_lanes(sign, ElementaryScalar::with_sign_of)
        }

        /// `then` in the lanes where `self < bound`, `otherwise` in the others (NaN included).
        #[inline(always)]
        fn below(self, bound: Self::Scalar, then: Self, otherwise: Self) -> Self {
            let mut below = [false; super::MAX_LANES];
            self.for_each_lane(|k, x| below[k] = x < bound);
            let mut k = 0;
            then.zip_lanes(otherwise, |t, o| {
                k += 1;
                if below[k - 1] { t } else { o }
            })
        }

        /// `self`, except `x` in the lanes where `x` is NaN.
        #[inline(always)]
        fn unless_nan(self, x: Self) -> Self {
            self.zip_lanes(x, |y, x| if ElementaryScalar::is_nan(x) { x } else { y })
        }
    }
}

pub(crate) use sealed::LaneVector;

/// The most lanes of any vector type (16 f32 in AVX-512).
pub(crate) const MAX_LANES: usize = 16;

impl sealed::Vectors for f32 {
    type Portable = Lanes<f32, 4>;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = x86::F32x8;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = x86::F32x16;
}

impl sealed::Vectors for f64 {
    type Portable = Lanes<f64, 2>;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = x86::F64x4;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = x86::F64x8;
}

impl<S, const N: usize> LaneVector for Lanes<S, N>
where
    S: crate::lanes::LaneScalar<N> + polynomial::ElementaryScalar,
{
    type Scalar = S;
    const LANES: usize = N;

    #[inline(always)]
    fn splat(x: S) -> Self {
        Lanes::splat(x)
    }

    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> S) -> Self {
        Lanes::new(core::array::from_fn(f))
    }

    #[inline(always)]
    fn for_each_lane(self, mut f: impl FnMut(usize, S)) {
        for (k, x) in self.to_array().into_iter().enumerate() {
            f(k, x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_instruction_set_is_available_and_portable_always_is() {
        assert!(Isa::best().is_available());
        assert!(Isa::Portable.is_available());
        let best = Isa::ALL.iter().position(|&isa| isa == Isa::best()).unwrap();
        assert!(Isa::ALL[..best].iter().all(|isa| !isa.is_available()));
    }

    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    #[test]
    fn the_portable_transpose_is_the_matrix_transpose() {
        x86::tests::transpose_is_the_matrix_transpose::<Lanes<f32, 4>>();
        x86::tests::transpose_is_the_matrix_transpose::<Lanes<f64, 2>>();
        x86::tests::transpose_is_the_matrix_transpose::<Lanes<f32, 16>>();
    }

    #[test]
    fn the_lane_counts_are_those_of_the_vector_types() {
        fn lanes<V: LaneVector>() -> usize {
            assert_eq!(
                core::mem::size_of::<V>(),
                V::LANES * core::mem::size_of::<V::Scalar>()
            );
            V::LANES
        }
        assert_eq!(
            Isa::Portable.lanes::<f32>(),
            lanes::<<f32 as sealed::Vectors>::Portable>()
        );
        assert_eq!(
            Isa::Portable.lanes::<f64>(),
            lanes::<<f64 as sealed::Vectors>::Portable>()
        );
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(Isa::Avx2.lanes::<f32>(), lanes::<x86::F32x8>());
            assert_eq!(Isa::Avx2.lanes::<f64>(), lanes::<x86::F64x4>());
            assert_eq!(Isa::Avx512.lanes::<f32>(), lanes::<x86::F32x16>());
            assert_eq!(Isa::Avx512.lanes::<f64>(), lanes::<x86::F64x8>());
        }
    }
}
