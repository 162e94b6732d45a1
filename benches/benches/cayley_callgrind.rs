//! Instruction counts (callgrind) of one f64 Cayley transform: the generated kernel (the default)
//! against nalgebra's generic inverse (called directly, without the range check of
//! `geomattn::NalgebraInverse`), LU and the Gram–Schmidt and elimination loops: one benchmark per
//! size `T`, one id per kernel, all in one run.
//!
//! Needs valgrind and the runner of the same version as the `gungraun` library:
//!
//! ```text
//! cargo install gungraun-runner --version 0.20.0
//! cargo bench -p geomattn-benches --features callgrind --bench cayley_callgrind
//! ```

use geomattn::nalgebra::{Const, DimMin, SMatrix};
use geomattn::{Elimination, Generated, GramSchmidt, LuSolve, OrthogonalMap};
use gungraun::{library_benchmark, library_benchmark_group, main};
use std::hint::black_box;

/// A fixed skew matrix with entries of order 1.
fn skew<const T: usize>() -> SMatrix<f64, T, T> {
    SMatrix::<f64, T, T>::from_fn(|i, j| {
        if i < j {
            (j - i) as f64 / 8.0 + ((i * 7 + j * 3) % 5) as f64 / 16.0
        } else {
            0.0
        }
    })
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
fn nalgebra_inverse<const T: usize>(c: &SMatrix<f64, T, T>) -> SMatrix<f64, T, T> {
    // `c` holds only the strict upper triangle (see `skew`).
    let skew = c - c.transpose();
    let identity = SMatrix::<f64, T, T>::identity();
    let plus = identity + skew;
    plus.try_inverse().map_or_else(
        || SMatrix::from_element(f64::NAN),
        |inverse| (identity - skew) * inverse,
    )
}

#[inline(always)]
fn run<const T: usize>(kernel: Kernel, c: &SMatrix<f64, T, T>) -> SMatrix<f64, T, T>
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    match kernel {
        Kernel::Generated => <Generated as OrthogonalMap<f64, T>>::map(c),
        Kernel::NalgebraInverse => nalgebra_inverse(c),
        Kernel::LuSolve => <LuSolve as OrthogonalMap<f64, T>>::map(c),
        Kernel::GramSchmidtLoops => <GramSchmidt as OrthogonalMap<f64, T>>::map(c),
        Kernel::EliminationLoops => <Elimination as OrthogonalMap<f64, T>>::map(c),
    }
}

macro_rules! size_bench {
    ($name:ident, $t:literal) => {
        #[library_benchmark]
        #[bench::generated(args = (Kernel::Generated, skew::<$t>()))]
        #[bench::nalgebra_inverse(args = (Kernel::NalgebraInverse, skew::<$t>()))]
        #[bench::lu_solve(args = (Kernel::LuSolve, skew::<$t>()))]
        #[bench::gram_schmidt_loops(args = (Kernel::GramSchmidtLoops, skew::<$t>()))]
        #[bench::elimination_loops(args = (Kernel::EliminationLoops, skew::<$t>()))]
        fn $name(kernel: Kernel, c: SMatrix<f64, $t, $t>) -> SMatrix<f64, $t, $t> {
            black_box(run(black_box(kernel), black_box(&c)))
        }
    };
}

size_bench!(t2, 2);
size_bench!(t3, 3);
size_bench!(t4, 4);
size_bench!(t5, 5);
size_bench!(t6, 6);
size_bench!(t7, 7);
size_bench!(t8, 8);

library_benchmark_group!(name = cayley, benchmarks = [t2, t3, t4, t5, t6, t7, t8]);

main!(library_benchmark_groups = cayley);
