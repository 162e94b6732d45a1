//! The default `f32` kernel from `T = 5`: pivot-free elimination in `f32` while `‖C‖_F < 16`,
//! where it stays within 4× of LU with partial pivoting; beyond, Gram–Schmidt computed in `f64`
//! and rounded ("wide"), within LU's error up to the overflow of `C`. Chosen lane by lane over
//! `f32` lanes.

use core::any::Any;
use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix};

use super::elimination::cayley_columns as elimination_columns;
use super::gram_schmidt::cayley_columns;
use super::polish::polished;
#[cfg(doc)]
use super::{Elimination, GramSchmidt};
use crate::isa::{LaneVector, MAX_LANES, polynomial::Polynomial};
use crate::lanes::Lanes;
use crate::product;
use crate::scalar::Field;

/// `‖C‖_F` from which the default `f32` kernel ([`Generated`](crate::Generated), `T ≥ 5`) leaves
/// [`Elimination`] in `f32` for the wide kernel: `2⁴`.
///
/// Pivot-free elimination's error in `f32` grows with `‖C‖` faster than LU's: on the outputs of
/// volume-preserving attention (`T = 5 … 8`, `D = 3`) its worst ratio to LU's `|‖ZΛ‖/‖Z‖ − 1|`
/// is 1.2 up to `‖C‖_F = 8`, 3.9 just below 16, 12 at 31 and 54 at 64. Below the bound it is the
/// fastest accurate kernel: 2.6 – 3.4× fewer instructions than nalgebra's `f32` inverse at
/// `T = 5 … 8` (callgrind), up to 1.5× fewer than Gram–Schmidt in `f32`, whose error stays within
/// 1.3× LU's there (`docs/src/numerics.md`, `docs/src/performance.md`;
/// `tests/tests/cayley_range.rs` checks both sides).
pub const NARROW_BELOW: f32 = 16.0;

/// `‖C‖_F` from which the default `f32` kernel polishes the wide kernel's result by Newton–Schulz
/// steps: `2³²`. The wide kernel's error grows like `2⁻⁵³‖C‖`; for odd `T` LU's falls back to rounding
/// from `‖C‖_F ≈ 2³⁶` (`docs/src/numerics.md`).
pub const WIDE_BELOW: f32 = 4_294_967_296.0;

/// `‖C‖_F` from which, and below which, [`scalar_kernel`] takes Gram–Schmidt in `f32`, polished:
/// `2⁴⁸` and `2⁶³`.
const F32_WINDOW: (f32, f32) = (281_474_976_710_656.0, 9_223_372_036_854_775_808.0);

/// Whether `S` is `f32` or one of the crate's vectors of `f32` lanes, having then written the
/// columns of `Cay(C)` by the default `f32` kernel into `storage` (each lane bit-identical to the
/// `f32` kernel on that lane); `false`, with `storage` untouched, for every other scalar.
///
/// The kernels are generic over [`Field`], which every type with `+ − × ÷` has through one
/// blanket implementation, so the comparison with the bound cannot be a method only some
/// scalars have: the type is compared instead (as `crate::isa::polynomial::fused_accumulate`
/// does), decided at compile time where the kernel is monomorphised.
#[inline(always)]
pub(super) fn f32_kernel<S: Field, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &mut MaybeUninit<[[S; T]; T]>,
) -> bool {
    if let (Some(c), Some(out)) = (
        downcast_ref::<SMatrix<f32, T, T>, _>(c),
        downcast_mut::<MaybeUninit<[[f32; T]; T]>, _>(storage),
    ) {
        // Written in place: returned by value, the matrix was copied twice (two `memcpy` calls,
        // 7% of the kernel's instructions at T = 6).
        scalar_kernel(c, out);
        return true;
    }
    let found = over_lanes::<Lanes<f32, 4>, S, T>(c, storage)
        || over_lanes::<Lanes<f32, 8>, S, T>(c, storage)
        || over_lanes::<Lanes<f32, 16>, S, T>(c, storage)
        || over_lanes::<Polynomial<Lanes<f32, 4>>, S, T>(c, storage);
    #[cfg(target_arch = "x86_64")]
    let found = {
        use crate::isa::x86::{F32x8, F32x16};
        found
            || over_lanes::<F32x8, S, T>(c, storage)
            || over_lanes::<F32x16, S, T>(c, storage)
            || over_lanes::<Polynomial<F32x8>, S, T>(c, storage)
            || over_lanes::<Polynomial<F32x16>, S, T>(c, storage)
    };
    found
}

/// The `f32` kernel, by `‖C‖_F` (NaN in `C` taking the last row):
///
/// | `‖C‖_F` | kernel |
/// |---|---|
/// | below `2⁴` | [`Elimination`] in `f32` |
/// | `2⁴ … 2³²` | [`wide`] |
/// | `2³² … 2⁴⁸` | [`wide`], [`polished`] |
/// | `2⁴⁸ … 2⁶³` | [`GramSchmidt`] in `f32`, [`polished`] |
/// | from `2⁶³` | [`wide`], [`polished`] |
///
/// Each kernel's error peaks where the `1`s of `I + C` are lost to rounding against `C` in its
/// precision (`‖C‖ ≈ 1/ε`); there LU's own error on the outputs of attention is large, but past
/// it, for odd `T` (where `C` is singular), LU returns to rounding (it solves for the limit
/// `Cay(C) → I` on the kernel of `C`, `−I` on its range). Each row switches before its kernel
/// leaves 3× LU's error (`docs/src/numerics.md`): the wide kernel alone reaches `7·10⁴`× LU's
/// near `‖C‖_F = 2⁶⁰`; polished, `4·10⁵`× between `2⁵¹` and `2⁶²`, where its error is of order
/// 1 (`2⁻⁵³‖C‖`) and the Newton–Schulz steps do not converge, and where `f32` Gram–Schmidt is
/// past its own peak. Not inlined: unoptimised, every copy of the lane path's dispatch would hold
/// its own copies of the three kernels (the lane path at `T = 8` overflowed a test thread's stack).
#[inline(never)]
fn scalar_kernel<const T: usize>(c: &SMatrix<f32, T, T>, out: &mut MaybeUninit<[[f32; T]; T]>) {
    let half_squared = half_squared_norm(T, |i, j| c[(i, j)]);
    let below = |norm: f32| half_squared < norm * norm / 2.0;
    if below(NARROW_BELOW) {
        elimination_columns(c, out);
        return;
    }
    let in_f32_window = !below(F32_WINDOW.0) && below(F32_WINDOW.1);
    let q = if in_f32_window {
        gram_schmidt_f32(c, out)
    } else {
        wide(c, out)
    };
    if !below(WIDE_BELOW) {
        *q = polished(SMatrix::from_array_storage(ArrayStorage(*q)))
            .data
            .0;
    }
}

/// [`scalar_kernel`] over the lanes of `P`, if `S` is `P`: elimination over whole vectors when
/// every lane is below the bound (the same operations, lane by lane, as the scalar kernel), else
/// the scalar kernel lane by lane.
///
/// Inlined when optimised, so that it compiles for the lane path's instruction set; not inlined
/// unoptimised (`debug_assertions`), where each of [`f32_kernel`]'s eight inlined copies, all
/// but one dead, would keep its own frame (the lane path's backward pass of a transformer at
/// `T = 8` overflowed a test thread's stack).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn over_lanes<P, S, const T: usize>(
    c: &SMatrix<S, T, T>,
    storage: &mut MaybeUninit<[[S; T]; T]>,
) -> bool
where
    P: LaneVector<Scalar = f32> + 'static,
    S: Field,
{
    let (Some(c), Some(out)) = (
        downcast_ref::<SMatrix<P, T, T>, _>(c),
        downcast_mut::<MaybeUninit<[[P; T]; T]>, _>(storage),
    ) else {
        return false;
    };
    if every_lane_narrow(T, |i, j| c[(i, j)]) {
        elimination_columns(c, out);
    } else {
        out.write(lane_by_lane(c).data.0);
    }
    true
}

/// [`scalar_kernel`] on each lane of `c`. Not inlined: the rare path (a lane at `‖C‖_F ≥ 16`),
/// whose copies, unoptimised, would each take their own stack in the lane path's dispatch.
#[inline(never)]
fn lane_by_lane<P: LaneVector<Scalar = f32>, const T: usize>(
    c: &SMatrix<P, T, T>,
) -> SMatrix<P, T, T> {
    let mut lanes = [SMatrix::<f32, T, T>::zeros(); MAX_LANES];
    for (entry, &vector) in c.iter().enumerate() {
        vector.for_each_lane(|k, x| lanes[k][entry] = x);
    }
    for lane in &mut lanes[..P::LANES] {
        let mut out = MaybeUninit::uninit();
        scalar_kernel(lane, &mut out);
        // SAFETY: `scalar_kernel` wrote every entry.
        *lane = SMatrix::from_array_storage(ArrayStorage(unsafe { out.assume_init() }));
    }
    product::matrix(
        #[inline(always)]
        |i, j| P::from_fn(|k| lanes[k][(i, j)]),
    )
}

/// `out` filled with `Cay(C)` by [`GramSchmidt`] in `f32`. Not inlined, as [`wide`].
#[inline(never)]
fn gram_schmidt_f32<'a, const T: usize>(
    c: &SMatrix<f32, T, T>,
    out: &'a mut MaybeUninit<[[f32; T]; T]>,
) -> &'a mut [[f32; T]; T] {
    cayley_columns(c, out)
}

/// `out` filled with `Cay(C)` by [`GramSchmidt`] in `f64`, rounded to `f32`: finite for every
/// finite `C` (its squares cannot overflow in `f64`), and within LU's error on the outputs of
/// attention while `‖C‖_F < 2³²` (`tests/tests/cayley_range.rs`). Not inlined: unoptimised, each
/// inlined copy of Gram–Schmidt's unrolled steps takes its own stack, and the lane path's own
/// frame is large.
#[inline(never)]
fn wide<'a, const T: usize>(
    c: &SMatrix<f32, T, T>,
    out: &'a mut MaybeUninit<[[f32; T]; T]>,
) -> &'a mut [[f32; T]; T] {
    let mut columns = MaybeUninit::uninit();
    let columns = cayley_columns(&c.map(f64::from), &mut columns);
    product::columns_in(
        out,
        #[inline(always)]
        |i, j| columns[j][i] as f32,
    )
}

/// Whether every lane of the skew `t × t` matrix whose strict upper triangle is `c(i, j)` has
/// `‖C‖_F` below [`NARROW_BELOW`], where the `f32` kernel takes [`Elimination`] (a lane of NaN
/// does not).
#[inline(always)]
pub(crate) fn every_lane_narrow<P: LaneVector>(t: usize, c: impl Fn(usize, usize) -> P) -> bool {
    let bound: P::Scalar = nalgebra::convert(f64::from(NARROW_BELOW * NARROW_BELOW / 2.0));
    let mut below = true;
    half_squared_norm(t, c).for_each_lane(|_, x| below &= x < bound);
    below
}

/// `‖C‖_F² / 2`: the sum of the squares of the strict upper triangle `c(i, j)` of a `t × t`
/// matrix, column by column.
#[inline(always)]
fn half_squared_norm<S: Field>(t: usize, c: impl Fn(usize, usize) -> S) -> S {
    let mut sum = S::zero();
    for j in 1..t {
        for i in 0..j {
            sum = product::accumulate(sum, c(i, j), c(i, j));
        }
    }
    sum
}

/// `x` as a `U`, if it is one.
#[inline(always)]
fn downcast_ref<U: 'static, V: 'static>(x: &V) -> Option<&U> {
    (x as &dyn Any).downcast_ref::<U>()
}

/// `x` as a `U`, mutably, if it is one.
#[inline(always)]
fn downcast_mut<U: 'static, V: 'static>(x: &mut V) -> Option<&mut U> {
    (x as &mut dyn Any).downcast_mut::<U>()
}
