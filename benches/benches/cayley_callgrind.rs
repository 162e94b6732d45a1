//! Instruction counts (callgrind) of one Cayley transform, in f64 and in f32: the generated kernel
//! (the default) against nalgebra's generic inverse (called directly, without the range check of
//! `geomattn::NalgebraInverse`), LU and the Gram–Schmidt and elimination loops: one benchmark per
//! size `T`, one id per kernel, all in one run. The generated kernel and nalgebra's inverse also
//! on a large-norm input (`‖C‖_F` in the hundreds), where the default `f32` kernel from `T = 5`
//! computes in `f64`.
//!
//! Needs valgrind and the runner of the same version as the `gungraun` library:
//!
//! ```text
//! cargo install gungraun-runner --version 0.20.0
//! cargo bench -p geomattn-benches --features callgrind --bench cayley_callgrind
//! ```

use geomattn::nalgebra::{Const, DimMin, RealField, SMatrix, convert};
use geomattn::{Elimination, Generated, GramSchmidt, LuSolve, OrthogonalMap};
use gungraun::{library_benchmark, library_benchmark_group, main};
use std::hint::black_box;

/// A fixed skew matrix with entries of order 1 (exact in both precisions).
fn skew<S: RealField + Copy, const T: usize>() -> SMatrix<S, T, T> {
    SMatrix::<S, T, T>::from_fn(|i, j| {
        if i < j {
            convert((j - i) as f64 / 8.0 + ((i * 7 + j * 3) % 5) as f64 / 16.0)
        } else {
            S::zero()
        }
    })
}

/// [`skew`] times 128 (exact): `‖C‖_F` from 320 at `T = 5`, past the bound (16) where the
/// default `f32` kernel leaves elimination for Gram–Schmidt in `f64`.
fn large_skew<S: RealField + Copy, const T: usize>() -> SMatrix<S, T, T> {
    skew::<S, T>() * convert::<f64, S>(128.0)
}

/// The kernels compared; the match costs a compare and a jump, the same for every kernel.
#[derive(Clone, Copy)]
enum Kernel {
    Generated,
    NalgebraInverse,
    LuSolve,
    GramSchmidtLoops,
    EliminationLoops,
}

/// `(I − C)·(I + C).try_inverse()`, straight from nalgebra: the baseline.
#[inline(always)]
fn nalgebra_inverse<S: RealField + Copy, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    // `c` holds only the strict upper triangle (see `skew`).
    let skew = c - c.transpose();
    let identity = SMatrix::<S, T, T>::identity();
    let plus = identity + skew;
    plus.try_inverse().map_or_else(
        || SMatrix::from_element(S::zero() / S::zero()),
        |inverse| (identity - skew) * inverse,
    )
}

#[inline(always)]
fn run<S: RealField + Copy, const T: usize>(
    kernel: Kernel,
    c: &SMatrix<S, T, T>,
) -> SMatrix<S, T, T>
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
    Generated: OrthogonalMap<S, T>,
{
    match kernel {
        Kernel::Generated => <Generated as OrthogonalMap<S, T>>::map(c),
        Kernel::NalgebraInverse => nalgebra_inverse(c),
        Kernel::LuSolve => <LuSolve as OrthogonalMap<S, T>>::map(c),
        Kernel::GramSchmidtLoops => <GramSchmidt as OrthogonalMap<S, T>>::map(c),
        Kernel::EliminationLoops => <Elimination as OrthogonalMap<S, T>>::map(c),
    }
}

macro_rules! size_bench {
    ($name:ident, $scalar:ty, $t:literal) => {
        #[library_benchmark]
        #[bench::generated(args = (Kernel::Generated, skew::<$scalar, $t>()))]
        #[bench::generated_large(args = (Kernel::Generated, large_skew::<$scalar, $t>()))]
        #[bench::nalgebra_inverse(args = (Kernel::NalgebraInverse, skew::<$scalar, $t>()))]
        #[bench::nalgebra_inverse_large(args = (Kernel::NalgebraInverse, large_skew::<$scalar, $t>()))]
        #[bench::lu_solve(args = (Kernel::LuSolve, skew::<$scalar, $t>()))]
        #[bench::gram_schmidt_loops(args = (Kernel::GramSchmidtLoops, skew::<$scalar, $t>()))]
        #[bench::elimination_loops(args = (Kernel::EliminationLoops, skew::<$scalar, $t>()))]
        fn $name(kernel: Kernel, c: SMatrix<$scalar, $t, $t>) -> SMatrix<$scalar, $t, $t> {
            black_box(run(black_box(kernel), black_box(&c)))
        }
    };
}

size_bench!(t2, f64, 2);
size_bench!(t3, f64, 3);
size_bench!(t4, f64, 4);
size_bench!(t5, f64, 5);
size_bench!(t6, f64, 6);
size_bench!(t7, f64, 7);
size_bench!(t8, f64, 8);
size_bench!(t2_f32, f32, 2);
size_bench!(t3_f32, f32, 3);
size_bench!(t4_f32, f32, 4);
size_bench!(t5_f32, f32, 5);
size_bench!(t6_f32, f32, 6);
size_bench!(t7_f32, f32, 7);
size_bench!(t8_f32, f32, 8);

library_benchmark_group!(name = cayley, benchmarks = [t2, t3, t4, t5, t6, t7, t8]);
library_benchmark_group!(
    name = cayley_f32,
    benchmarks = [t2_f32, t3_f32, t4_f32, t5_f32, t6_f32, t7_f32, t8_f32]
);

main!(library_benchmark_groups = cayley, cayley_f32);
