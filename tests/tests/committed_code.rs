//! The committed expansions `codegen/gen/cayley_T.rs` are valid Rust against `geomattn`, compute
//! `Cay(C)` (exactly in rationals, to rounding against `LuSolve` in f64), and agree with what
//! `geomattn::cayley!(T)` computes. That they are byte for byte the current expansion is checked
//! by `geomattn-codegen`'s test `generated_files`, which also fails if a size is added to or
//! removed from `codegen/gen/`.
//!
//! (Here rather than in `geomattn-macros`' own tests: as a dev-dependency of a proc-macro crate,
//! `geomattn` and everything below it were compiled a second time for the host, with other
//! features: 35 s of CPU in a cold `cargo test --workspace`.)

// The committed files declare their steps in tuples of up to 256 `S` (see `emit`); included
// here, they are linted as this module's code.
#![allow(clippy::type_complexity)]

use geomattn::nalgebra::{Const, DimMin, SMatrix};
use geomattn::{LuSolve, OrthogonalMap};
use num_rational::Ratio;

include!("../../codegen/gen/cayley_1.rs");
include!("../../codegen/gen/cayley_2.rs");
include!("../../codegen/gen/cayley_3.rs");
include!("../../codegen/gen/cayley_4.rs");
include!("../../codegen/gen/cayley_5.rs");
include!("../../codegen/gen/cayley_6.rs");
include!("../../codegen/gen/cayley_7.rs");
include!("../../codegen/gen/cayley_8.rs");

type Q = Ratio<i128>;

/// A skew matrix with varied small entries `(k mod 7 − 3) / (k mod 3 + 1)` above the diagonal
/// (small, so that i128 holds every intermediate; an overflow panics in this debug build).
fn skew<const T: usize>(seed: i128) -> SMatrix<Q, T, T> {
    SMatrix::from_fn(|i, j| {
        let (a, b) = (i.min(j) as i128, i.max(j) as i128);
        let k = seed + 3 * a + 5 * b;
        let x = Q::new(k % 7 - 3, k % 3 + 1);
        match i.cmp(&j) {
            core::cmp::Ordering::Less => x,
            core::cmp::Ordering::Greater => -x,
            core::cmp::Ordering::Equal => Q::from(0),
        }
    })
}

fn to_f64<const T: usize>(c: &SMatrix<Q, T, T>) -> SMatrix<f64, T, T> {
    c.map(|x| *x.numer() as f64 / *x.denom() as f64)
}

fn check<const T: usize>(
    committed: fn(&SMatrix<Q, T, T>) -> SMatrix<Q, T, T>,
    committed_f64: fn(&SMatrix<f64, T, T>) -> SMatrix<f64, T, T>,
    macro_f64: fn(&SMatrix<f64, T, T>) -> SMatrix<f64, T, T>,
) where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let identity = SMatrix::<Q, T, T>::identity();
    for seed in 0..4 {
        let c = skew::<T>(seed);
        assert_eq!(
            (identity + c) * committed(&c),
            identity - c,
            "T = {T}, seed {seed}: (I + C)·Cay(C) = I − C, exactly"
        );
        let c = to_f64(&c);
        let (ours, lu) = (
            committed_f64(&c),
            <LuSolve as OrthogonalMap<f64, T>>::map(&c),
        );
        assert!((ours - lu).amax() < 1e-12, "T = {T}: {ours} vs LU {lu}");
        assert_eq!(ours, macro_f64(&c), "T = {T}: the macro computes the same");
    }
}

#[test]
fn committed_expansions_compute_the_cayley_transform() {
    check::<1>(cayley_1, cayley_1, geomattn::cayley!(1));
    check::<2>(cayley_2, cayley_2, geomattn::cayley!(2));
    check::<3>(cayley_3, cayley_3, geomattn::cayley!(3));
    check::<4>(cayley_4, cayley_4, geomattn::cayley!(4));
    check::<5>(cayley_5, cayley_5, geomattn::cayley!(5));
    check::<6>(cayley_6, cayley_6, geomattn::cayley!(6));
    check::<7>(cayley_7, cayley_7, geomattn::cayley!(7));
    check::<8>(cayley_8, cayley_8, geomattn::cayley!(8));
}
