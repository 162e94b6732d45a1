//! `Z ← Z·Cay(C)` for many small sequences at once, one per SIMD lane, on the processor's own
//! vectors: the volume-preserving attention of the engine's throughput batches
//! ([`crate::engine::FastLanes`]), whose Cayley transform otherwise runs on the build's baseline
//! vectors (`wide`'s SSE2 on x86-64: four registers per vector of 16 `f32`).
//!
//! ```
//! use geomattn::Isa;
//! let isa = Isa::best();
//! let lanes = isa.lanes::<f64>();
//! let runs = |values: &[f64]| -> Vec<f64> { values.iter().flat_map(|&v| vec![v; lanes]).collect() };
//! // C = [[0, 1/2], [−1/2, 0]] (column-major): Cay(C) = [[0.6, −0.8], [0.8, 0.6]].
//! let c = runs(&[0.0, -0.5, 0.5, 0.0]);
//! // Z = [1, 0] (one row, two columns).
//! let mut z = runs(&[1.0, 0.0]);
//! assert!(isa.cayley_product_in_place(lanes, 2, &c, &mut z));
//! let row: Vec<f64> = z.chunks(lanes).map(|run| run[0]).collect();
//! assert!((row[0] - 0.6).abs() < 1e-15 && (row[1] + 0.8).abs() < 1e-15);
//! ```

use nalgebra::SMatrix;

use super::sealed::LaneVector;
use super::{BatchScalar, Isa};
use crate::cayley::{Generated, cayley_columns_at, every_lane_narrow};
use crate::orthogonal::OrthogonalMap;

/// The longest sequence with a closed form ([`Generated`]'s).
const MAX_CLOSED: usize = 4;

/// The longest sequence with a kernel here: from 5, pivot-free elimination over whole vectors
/// while every lane's `‖C‖_F` is below [`NARROW_BELOW`](crate::cayley::NARROW_BELOW) (where
/// [`Generated`]'s `f32` kernel takes that elimination too; beyond, it chooses lane by lane by
/// `‖C‖`, as only the lanes of `f32` themselves can).
const MAX_SEQ: usize = 16;

impl Isa {
    /// `Z ← Z·Cay(C)` in every lane `l < lanes`, for the skew `C` (`seq × seq`, its strict upper
    /// triangle read, as [`Generated`] reads it) and `Z` (`dim × seq`), if `seq ≤ 16` and this
    /// instruction set computes on whole vectors ([`Isa::is_compact`]), and from `seq = 5` every
    /// lane's `‖C‖_F` is below [`NARROW_BELOW`](crate::cayley::NARROW_BELOW); `false` (and `Z`
    /// untouched) otherwise. Both column-major, each entry a run of `lanes` values.
    ///
    /// `Cay(C)` is [`Generated`]'s closed form up to `seq = 4`, operation for operation; from 5,
    /// pivot-free elimination, which [`Generated`]'s `f32` kernel takes below that bound, operation
    /// for operation, in a loop over `seq` (one copy of the code for every length, where
    /// [`Generated`] unrolls one per length). Each entry of the product is the fused
    /// multiply-adds of [`Isa::lane_products`] (over the sequence in order, from zero): each
    /// lane's values those of the two steps one after the other.
    ///
    /// # Panics
    /// If `lanes` is not a multiple of this instruction set's lanes ([`Isa::lanes`]), if the
    /// buffers' lengths do not fit `seq` (`z` a whole number of rows), or if this processor
    /// does not have the instruction set.
    pub fn cayley_product_in_place<S: BatchScalar>(
        self,
        lanes: usize,
        seq: usize,
        c: &[S],
        z: &mut [S],
    ) -> bool {
        assert!(
            lanes.is_multiple_of(self.lanes::<S>()),
            "{lanes} lanes are not whole vectors of {self:?}"
        );
        assert!(
            seq > 0 && c.len() == seq * seq * lanes && z.len().is_multiple_of(seq * lanes),
            "C of {} and Z of {} values are not those of sequences of {seq} in {lanes} lanes",
            c.len(),
            z.len()
        );
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        if !self.is_compact() || seq > MAX_SEQ {
            return false;
        }
        let product = Product { lanes, seq, c };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { cayley_avx512(product, z) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { cayley_avx2(product, z) },
            // Not compact on x86-64 (`wide`'s SSE2 pairs): refused above, and not compiled.
            #[cfg(target_arch = "x86_64")]
            Isa::Portable => false,
            #[cfg(not(target_arch = "x86_64"))]
            _ => by_seq::<S::Portable>(product, z),
        }
    }
}

/// The arguments of [`Isa::cayley_product_in_place`] but `Z`, checked.
#[derive(Clone, Copy)]
struct Product<'a, S> {
    lanes: usize,
    seq: usize,
    c: &'a [S],
}

/// [`by_seq`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn cayley_avx512<S: BatchScalar>(product: Product<'_, S>, z: &mut [S]) -> bool {
    by_seq::<S::Avx512>(product, z)
}

/// [`by_seq`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn cayley_avx2<S: BatchScalar>(product: Product<'_, S>, z: &mut [S]) -> bool {
    by_seq::<S::Avx2>(product, z)
}

/// The kernel of the sequence's length (a jump on it; up to 4 every loop over it unrolled, then
/// elimination in storage of 8 or 16 columns): whether it ran.
#[inline(always)]
fn by_seq<V: LaneVector>(product: Product<'_, V::Scalar>, z: &mut [V::Scalar]) -> bool {
    match product.seq {
        1 => cayley::<V, 1>(product, z),
        2 => cayley::<V, 2>(product, z),
        3 => cayley::<V, 3>(product, z),
        4 => cayley::<V, 4>(product, z),
        5..=8 => return eliminated::<V, 8>(product, z),
        _ => return eliminated::<V, MAX_SEQ>(product, z),
    }
    true
}

/// `Z ← Z·Cay(C)` for sequences of `T`, one vector of lanes at a time: `Cay(C)` held while
/// each row of `Z` is multiplied by it.
#[inline(always)]
fn cayley<V: LaneVector, const T: usize>(product: Product<'_, V::Scalar>, z: &mut [V::Scalar]) {
    const { assert!(T <= MAX_CLOSED) };
    let (lanes, c) = (product.lanes, product.c);
    assert!(c.len() == T * T * lanes && z.len().is_multiple_of(T * lanes));
    let dim = z.len() / (T * lanes);
    for lane in (0..lanes / V::LANES).map(|v| v * V::LANES) {
        // SAFETY: entry (i, j) of C is run j·T + i of T² runs of `lanes`, and
        // lane + LANES ≤ lanes (asserted above).
        let c = SMatrix::<V, T, T>::from_fn(|i, j| unsafe {
            V::load_at(c, (j * T + i) * lanes + lane)
        });
        let q = <Generated as OrthogonalMap<V, T>>::map(&c);
        for i in 0..dim {
            // SAFETY: entry (i, k) of Z is run k·dim + i of its dim·T runs (asserted above).
            let row: [V; T] =
                core::array::from_fn(|k| unsafe { V::load_at(z, (k * dim + i) * lanes + lane) });
            for k in 0..T {
                let mut sum = V::zero();
                for (j, x) in row.iter().enumerate() {
                    sum = x.mul_add(q[(j, k)], sum);
                }
                // SAFETY: as for the loads of the row.
                unsafe { sum.store_at(z, (k * dim + i) * lanes + lane) };
            }
        }
    }
}

/// `Z ← Z·Cay(C)` for sequences of 5 to `M` by [`cayley_columns_at`] over whole vectors, then
/// the fused product, if every lane's `‖C‖_F` is below
/// [`NARROW_BELOW`](crate::cayley::NARROW_BELOW) (decided as [`Generated`]'s `f32` kernel decides
/// it over lanes: `every_lane_narrow`); `false`, `Z` untouched, if one is not or is NaN.
#[inline(always)]
fn eliminated<V: LaneVector, const M: usize>(
    product: Product<'_, V::Scalar>,
    z: &mut [V::Scalar],
) -> bool {
    let (lanes, t, c) = (product.lanes, product.seq, product.c);
    assert!(t <= M && c.len() == t * t * lanes && z.len().is_multiple_of(t * lanes));
    let dim = z.len() / (t * lanes);
    let vectors = (0..lanes / V::LANES).map(|v| v * V::LANES);
    // SAFETY (every load and store below): entry (i, j) of C is run j·t + i of its t² runs of
    // `lanes`, entry (i, k) of Z run k·dim + i of its dim·t runs, and lane + LANES ≤ lanes
    // (asserted above).
    let entry = |lane: usize| {
        move |i: usize, j: usize| unsafe { V::load_at(c, (j * t + i) * lanes + lane) }
    };
    if !vectors
        .clone()
        .all(|lane| every_lane_narrow(t, entry(lane)))
    {
        return false;
    }
    let mut q = [[V::zero(); M]; M];
    for lane in vectors {
        cayley_columns_at(t, entry(lane), &mut q);
        for i in 0..dim {
            let mut row = [V::zero(); M];
            for (k, x) in row[..t].iter_mut().enumerate() {
                *x = unsafe { V::load_at(z, (k * dim + i) * lanes + lane) };
            }
            for (k, column) in q[..t].iter().enumerate() {
                let mut sum = V::zero();
                for (x, q) in row[..t].iter().zip(column) {
                    sum = x.mul_add(*q, sum);
                }
                unsafe { sum.store_at(z, (k * dim + i) * lanes + lane) };
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;
    use crate::cayley::NARROW_BELOW;
    use crate::isa::LaneMatrix;

    /// One value of order one for each index.
    #[allow(clippy::cast_precision_loss)]
    fn values(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| (((i * 5 + seed * 11) % 19) as f32 - 9.0) / 6.0)
            .collect()
    }

    /// Every length up to one past the longest kernel, several dimensions, on every instruction
    /// set of the machine: bit for bit `Generated` on each lane's `C` (over `f32`, as the
    /// engine's exact lanes compute it: from 5, below `NARROW_BELOW`, its elimination) and then
    /// the product of `Isa::lane_products`, or `false` and `Z` untouched.
    #[test]
    fn the_fused_product_is_the_transform_then_the_product() {
        let lanes = 16;
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for seq in 1..=MAX_SEQ + 1 {
                for dim in [1, 3, 5] {
                    let c = values(seq * seq * lanes, seq);
                    // Of order one, `‖C‖_F` below `NARROW_BELOW` at every length.
                    let c: Vec<f32> = c.iter().map(|x| x / 2.0).collect();
                    let before = values(dim * seq * lanes, dim);
                    let mut z = before.clone();
                    let fused = isa.cayley_product_in_place(lanes, seq, &c, &mut z);
                    assert_eq!(
                        fused,
                        isa.is_compact() && seq <= MAX_SEQ,
                        "{isa:?} seq {seq}"
                    );
                    if !fused {
                        assert_eq!(z, before);
                        continue;
                    }
                    // Each lane's Cay(C) in f32, its entries in runs of `lanes` as C's.
                    let mut q = std::vec![0.0_f32; c.len()];
                    for lane in 0..lanes {
                        let c = nalgebra::DMatrix::from_fn(seq, seq, |i, j| {
                            c[(j * seq + i) * lanes + lane]
                        });
                        let q_lane = by_length(&c);
                        for (at, value) in q_lane.iter().enumerate() {
                            q[at * lanes + lane] = *value;
                        }
                    }
                    let at = |rows, columns| LaneMatrix {
                        rows,
                        columns,
                        row: lanes,
                        column: rows * lanes,
                    };
                    let mut expected = std::vec![0.0; before.len()];
                    isa.lane_products(
                        lanes,
                        (&before, at(dim, seq)),
                        (&q, at(seq, seq)),
                        (&mut expected, at(dim, seq)),
                        false,
                    );
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&z), bits(&expected), "{isa:?} seq {seq} dim {dim}");
                }
            }
        }
    }

    /// `Generated`'s `Cay(C)` in f32 at `C`'s length, column-major: from 5, below `NARROW_BELOW`,
    /// its elimination, as `cayley_columns_at` computes it (bit for bit: its own test).
    fn by_length(c: &nalgebra::DMatrix<f32>) -> Vec<f32> {
        fn at<const T: usize>(c: &nalgebra::DMatrix<f32>) -> Vec<f32> {
            let c = SMatrix::<f32, T, T>::from_fn(|i, j| c[(i, j)]);
            <Generated as OrthogonalMap<f32, T>>::map(&c)
                .as_slice()
                .to_vec()
        }
        match c.nrows() {
            1 => at::<1>(c),
            2 => at::<2>(c),
            3 => at::<3>(c),
            4 => at::<4>(c),
            t => {
                let mut columns = [[0.0; MAX_SEQ]; MAX_SEQ];
                cayley_columns_at(t, |i, j| c[(i, j)], &mut columns);
                columns[..t]
                    .iter()
                    .flat_map(|column| &column[..t])
                    .copied()
                    .collect()
            }
        }
    }

    /// From `seq = 5`, one lane whose `‖C‖_F` is at `NARROW_BELOW` or NaN (where `Generated`'s
    /// `f32` kernel leaves elimination): `false` and `Z` untouched, on every instruction set.
    #[test]
    fn a_lane_beyond_the_elimination_s_bound_is_left_to_the_scalar_kernel() {
        let (lanes, seq, dim) = (16, 6, 2);
        for isa in Isa::ALL
            .into_iter()
            .filter(|isa| isa.is_available() && isa.is_compact())
        {
            for (lane, value) in [(0, NARROW_BELOW / 2.0_f32.sqrt()), (15, f32::NAN)] {
                let mut c: Vec<f32> = values(seq * seq * lanes, 1)
                    .iter()
                    .map(|x| x / 8.0)
                    .collect();
                // Entry (0, 1) alone: Σ_{i<j} C_ij² ≥ NARROW_BELOW² / 2 in that lane.
                c[seq * lanes + lane] = value;
                let before = values(dim * seq * lanes, 2);
                let mut z = before.clone();
                assert!(
                    !isa.cayley_product_in_place(lanes, seq, &c, &mut z),
                    "{isa:?}"
                );
                assert_eq!(z, before);
                c[seq * lanes + lane] = 0.0;
                assert!(
                    isa.cayley_product_in_place(lanes, seq, &c, &mut z),
                    "{isa:?}"
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "are not those of sequences")]
    fn a_correlation_of_another_length_panics() {
        let (c, mut z) = ([0.0_f64; 8], [0.0_f64; 4]);
        Isa::Portable.cayley_product_in_place(2, 2, &c[..6], &mut z);
    }
}
