//! Many small matrix products at once, one per SIMD lane, over flat buffers: the attention heads
//! of `geomattn-networks`'s batched classifier, whose inputs lie side by side in memory (the inputs
//! innermost), so that a run of `lanes` values holds one entry for `lanes` inputs.
//!
//! ```
//! use geomattn::{Isa, LaneMatrix};
//! // Two 2×2 products, A·B with A = [[1, 2], [3, 4]] and [[0, 1], [1, 0]], B = I and 2I:
//! // entry (r, c) of each matrix is the run of 2 values at 4·r + 2·c, one value per product.
//! let a = [1.0_f64, 0.0, 2.0, 1.0, 3.0, 1.0, 4.0, 0.0];
//! let b = [1.0_f64, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0];
//! let mut c = [0.0_f64; 8];
//! let at = LaneMatrix { rows: 2, columns: 2, row: 4, column: 2 };
//! Isa::Portable.lane_products(2, (&a, at), (&b, at), (&mut c, at), false);
//! assert_eq!(c, [1.0, 0.0, 2.0, 2.0, 3.0, 2.0, 4.0, 0.0]);
//! ```

use super::sealed::LaneVector;
use super::{BatchScalar, Isa};

/// Where a matrix of lane runs lies in a flat buffer: entry `(r, c)` is the run of values that
/// starts at `r · row + c · column` (one value per lane, see [`Isa::lane_products`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneMatrix {
    /// The number of rows.
    pub rows: usize,
    /// The number of columns.
    pub columns: usize,
    /// The distance from an entry to the one below it.
    pub row: usize,
    /// The distance from an entry to the one on its right.
    pub column: usize,
}

impl LaneMatrix {
    /// Where entry `(r, c)` starts.
    #[inline(always)]
    fn at(self, r: usize, c: usize) -> usize {
        r * self.row + c * self.column
    }

    /// Whether every run of `lanes` values of the matrix lies inside a buffer of `len`.
    fn fits(self, lanes: usize, len: usize) -> bool {
        self.rows == 0
            || self.columns == 0
            || self
                .at(self.rows - 1, self.columns - 1)
                .checked_add(lanes)
                .is_some_and(|end| end <= len)
    }
}

impl Isa {
    /// `C = A · B` in every lane `l < lanes`: `c[(r, k) + l] = Σⱼ a[(r, j) + l] · b[(j, k) + l]`,
    /// added to what `c` holds if `accumulate`, each entry where its [`LaneMatrix`] puts it.
    /// On AVX2 and AVX-512 the sums are fused multiply-adds, summed over `j` in order.
    ///
    /// # Panics
    /// If the sizes do not chain (`A` of `m × n`, `B` of `n × p`, `C` of `m × p`), if `lanes` is
    /// not a multiple of this instruction set's lanes ([`Isa::lanes`]), if a matrix does not fit
    /// its buffer, or if this processor does not have the instruction set.
    #[inline]
    pub fn lane_products<S: BatchScalar>(
        self,
        lanes: usize,
        a: (&[S], LaneMatrix),
        b: (&[S], LaneMatrix),
        c: (&mut [S], LaneMatrix),
        accumulate: bool,
    ) {
        let (am, bm, cm) = (a.1, b.1, c.1);
        assert!(
            am.columns == bm.rows && am.rows == cm.rows && bm.columns == cm.columns,
            "the sizes do not chain: {am:?} · {bm:?} into {cm:?}"
        );
        assert!(
            lanes.is_multiple_of(self.lanes::<S>()),
            "{lanes} lanes are not whole vectors of {self:?}"
        );
        assert!(
            am.fits(lanes, a.0.len()) && bm.fits(lanes, b.0.len()) && cm.fits(lanes, c.0.len()),
            "a matrix does not fit its buffer"
        );
        assert!(
            self.is_available(),
            "{self:?} is not available on this processor"
        );
        let products = Products {
            lanes,
            a,
            b,
            accumulate,
        };
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX-512 (F, VL, DQ), AVX2 and FMA: checked above.
            Isa::Avx512 => unsafe { products_avx512(products, c) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has AVX2 and FMA: checked above.
            Isa::Avx2 => unsafe { products_avx2(products, c) },
            _ => products_in::<S::Portable>(products, c),
        }
    }
}

/// The arguments of [`Isa::lane_products`] but the output, checked.
#[derive(Clone, Copy)]
struct Products<'a, S> {
    lanes: usize,
    a: (&'a [S], LaneMatrix),
    b: (&'a [S], LaneMatrix),
    accumulate: bool,
}

/// [`products_in`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn products_avx512<S: BatchScalar>(products: Products<'_, S>, c: (&mut [S], LaneMatrix)) {
    products_in::<S::Avx512>(products, c);
}

/// [`products_in`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn products_avx2<S: BatchScalar>(products: Products<'_, S>, c: (&mut [S], LaneMatrix)) {
    products_in::<S::Avx2>(products, c);
}

/// The products, one vector of lanes at a time, in tiles of 2 × 4 entries of `C` (fewer at the
/// edges): eight independent sums hide the latency of each multiply-add, and each vector loaded
/// serves two or four of them (measured: 2 × 4 about 5 % faster than 2 × 2 over the whole
/// classifier).
#[inline(always)]
fn products_in<V: LaneVector>(p: Products<'_, V::Scalar>, c: (&mut [V::Scalar], LaneMatrix)) {
    let (out, cm) = c;
    if small::<V>(p, out, cm) {
        return;
    }
    // Counted loops (a `step_by` cost more than the sums of a 3 × 3 product).
    for lane in (0..p.lanes / V::LANES).map(|v| v * V::LANES) {
        for r in (0..cm.rows.div_ceil(2)).map(|t| 2 * t) {
            for k in (0..cm.columns.div_ceil(4)).map(|t| 4 * t) {
                let at = (lane, r, k);
                match (cm.rows - r, cm.columns - k) {
                    (1, 1) => tile::<V, 1, 1>(p, out, cm, at),
                    (1, 2) => tile::<V, 1, 2>(p, out, cm, at),
                    (1, 3) => tile::<V, 1, 3>(p, out, cm, at),
                    (1, _) => tile::<V, 1, 4>(p, out, cm, at),
                    (_, 1) => tile::<V, 2, 1>(p, out, cm, at),
                    (_, 2) => tile::<V, 2, 2>(p, out, cm, at),
                    (_, 3) => tile::<V, 2, 3>(p, out, cm, at),
                    _ => tile::<V, 2, 4>(p, out, cm, at),
                }
            }
        }
    }
}

/// The largest size of every side of a product with its own kernel ([`unrolled`]).
const MAX_UNROLLED: usize = 4;

/// The product by the kernel of its sizes if none is larger than [`MAX_UNROLLED`] (a jump on
/// the sizes, then every loop unrolled): whether it was.
#[inline(always)]
fn small<V: LaneVector>(p: Products<'_, V::Scalar>, out: &mut [V::Scalar], cm: LaneMatrix) -> bool {
    /// `$body` with the constant `$name` equal to `$size`, if that is 1 to 4.
    macro_rules! by_size {
        ($size:expr, $name:ident => $body:expr) => {
            by_size!(@ $size, $name => $body; 1 2 3 4)
        };
        (@ $size:expr, $name:ident => $body:expr; $($k:literal)*) => {
            match $size {
                $($k => {
                    const $name: usize = $k;
                    $body
                })*
                _ => false,
            }
        };
    }
    const { assert!(MAX_UNROLLED == 4) };
    by_size!(cm.rows, M => by_size!(p.a.1.columns, N => by_size!(cm.columns, P => {
        unrolled::<V, M, N, P>(p, out, cm);
        true
    })))
}

/// `C = A·B` (plus `C`) for `A` of `M × N` and `B` of `N × P`, one vector of lanes at a time,
/// every loop of known length.
#[inline(always)]
fn unrolled<V: LaneVector, const M: usize, const N: usize, const P: usize>(
    p: Products<'_, V::Scalar>,
    out: &mut [V::Scalar],
    cm: LaneMatrix,
) {
    let ((a, am), (b, bm)) = (p.a, p.b);
    for lane in (0..p.lanes / V::LANES).map(|v| v * V::LANES) {
        // SAFETY: every entry of A, B and C, whose runs fit their buffers.
        let left: [[V; N]; M] = core::array::from_fn(|i| {
            core::array::from_fn(|j| unsafe { V::load_at(a, am.at(i, j) + lane) })
        });
        let right: [[V; P]; N] = core::array::from_fn(|j| {
            core::array::from_fn(|k| unsafe { V::load_at(b, bm.at(j, k) + lane) })
        });
        for (i, left) in left.iter().enumerate() {
            for k in 0..P {
                let at = cm.at(i, k) + lane;
                let mut sum = if p.accumulate {
                    // SAFETY: as above.
                    unsafe { V::load_at(out, at) }
                } else {
                    V::zero()
                };
                for (x, right) in left.iter().zip(&right) {
                    sum = x.mul_add(right[k], sum);
                }
                // SAFETY: as above.
                unsafe { sum.store_at(out, at) };
            }
        }
    }
}

/// The `R × C` entries of `C` from `(r, k)`, in the vector of lanes from `lane`: every run it
/// reads and writes lies in its buffer, as [`Isa::lane_products`] checked ([`LaneMatrix::fits`]
/// with `lane + V::LANES ≤ lanes`), so its loads and stores are unchecked (their checks were
/// most of a small product's instructions).
#[inline(always)]
fn tile<V: LaneVector, const R: usize, const C: usize>(
    p: Products<'_, V::Scalar>,
    out: &mut [V::Scalar],
    cm: LaneMatrix,
    (lane, r, k): (usize, usize, usize),
) {
    let ((a, am), (b, bm)) = (p.a, p.b);
    let mut sums = [[V::zero(); C]; R];
    if p.accumulate {
        for (i, sums) in sums.iter_mut().enumerate() {
            for (j, sum) in sums.iter_mut().enumerate() {
                // SAFETY: (r + i, k + j) is an entry of C, whose runs fit `out`.
                *sum = unsafe { V::load_at(out, cm.at(r + i, k + j) + lane) };
            }
        }
    }
    for j in 0..am.columns {
        // SAFETY: (r + i, j) is an entry of A, (j, k + i) one of B, whose runs fit their buffers.
        let left: [V; R] =
            core::array::from_fn(|i| unsafe { V::load_at(a, am.at(r + i, j) + lane) });
        let right: [V; C] =
            core::array::from_fn(|i| unsafe { V::load_at(b, bm.at(j, k + i) + lane) });
        for (sums, x) in sums.iter_mut().zip(left) {
            for (sum, y) in sums.iter_mut().zip(right) {
                *sum = x.mul_add(y, *sum);
            }
        }
    }
    for (i, sums) in sums.iter().enumerate() {
        for (j, sum) in sums.iter().enumerate() {
            // SAFETY: as for the loads of C above.
            unsafe { sum.store_at(out, cm.at(r + i, k + j) + lane) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Products of every size up to one past the unrolled kernels' ([`MAX_UNROLLED`]), and a
    /// few larger ones, on every instruction set of the machine, against the sums of the
    /// definition (in f64, exact for these small integers), accumulated or not.
    #[test]
    fn every_small_size_on_every_isa_is_the_definition() {
        let lanes = 16;
        let up_to = 1..=MAX_UNROLLED + 1;
        let small = up_to.clone().flat_map(|m| {
            let up_to = up_to.clone();
            up_to
                .clone()
                .flat_map(move |n| up_to.clone().map(move |p| (m, n, p)))
        });
        let sizes: std::vec::Vec<_> = small.chain([(5, 7, 3), (7, 16, 16), (2, 9, 6)]).collect();
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_available()) {
            for &(m, n, p) in &sizes {
                // A row-major, B column-major, C with a gap after each row: every stride used.
                let am = LaneMatrix {
                    rows: m,
                    columns: n,
                    row: n * lanes,
                    column: lanes,
                };
                let bm = LaneMatrix {
                    rows: n,
                    columns: p,
                    row: lanes,
                    column: n * lanes,
                };
                let cm = LaneMatrix {
                    rows: m,
                    columns: p,
                    row: (p + 1) * lanes,
                    column: lanes,
                };
                #[allow(clippy::cast_precision_loss)]
                let value = |i: usize| ((i * 7 + 3) % 11) as f32 - 5.0;
                let a: [f32; 4096] = core::array::from_fn(value);
                let b: [f32; 4096] = core::array::from_fn(|i| value(i + 5));
                let (a, b) = (&a[..m * n * lanes], &b[..n * p * lanes]);
                for accumulate in [false, true] {
                    let before: [f32; 4096] = core::array::from_fn(|i| value(i + 1));
                    let mut c = before;
                    let c = &mut c[..m * (p + 1) * lanes];
                    isa.lane_products(lanes, (a, am), (b, bm), (&mut *c, cm), accumulate);
                    for (r, k, l) in (0..m)
                        .flat_map(|r| (0..p).flat_map(move |k| (0..lanes).map(move |l| (r, k, l))))
                    {
                        let at = cm.at(r, k) + l;
                        let start = if accumulate {
                            f64::from(before[at])
                        } else {
                            0.0
                        };
                        let sum = (0..n).fold(start, |s, j| {
                            s + f64::from(a[am.at(r, j) + l]) * f64::from(b[bm.at(j, k) + l])
                        });
                        assert_eq!(
                            f64::from(c[at]),
                            sum,
                            "{isa:?} {m}×{n}·{n}×{p} ({r}, {k}) lane {l}"
                        );
                    }
                    // The gaps between C's rows are left alone.
                    for r in 0..m {
                        let gap = cm.at(r, p)..cm.at(r, p) + lanes;
                        assert_eq!(c[gap.clone()], before[gap]);
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "the sizes do not chain")]
    fn sizes_that_do_not_chain_panic() {
        let at = |rows, columns| LaneMatrix {
            rows,
            columns,
            row: columns * 4,
            column: 4,
        };
        let (a, b, mut c) = ([0.0_f64; 24], [0.0_f64; 24], [0.0_f64; 24]);
        Isa::Portable.lane_products(4, (&a, at(2, 3)), (&b, at(2, 3)), (&mut c, at(2, 3)), false);
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_buffer_too_short_panics() {
        let at = LaneMatrix {
            rows: 2,
            columns: 2,
            row: 8,
            column: 4,
        };
        let (a, b, mut c) = ([0.0_f64; 16], [0.0_f64; 15], [0.0_f64; 16]);
        Isa::Portable.lane_products(4, (&a, at), (&b, at), (&mut c, at), false);
    }

    #[test]
    #[should_panic(expected = "not whole vectors")]
    fn lanes_that_are_not_whole_vectors_panic() {
        let at = LaneMatrix {
            rows: 1,
            columns: 1,
            row: 3,
            column: 3,
        };
        let (a, b, mut c) = ([0.0_f32; 3], [0.0_f32; 3], [0.0_f32; 3]);
        Isa::Portable.lane_products(3, (&a, at), (&b, at), (&mut c, at), false);
    }
}
