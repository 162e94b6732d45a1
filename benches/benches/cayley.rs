//! Time per Cayley transform: the generated kernel (and each strategy of `cayley!`) against
//! nalgebra's generic inverse (called directly, without the range check of
//! `geomattn::NalgebraInverse`), LU and the Gram–Schmidt and elimination loops, `T = 2 … 8`, f32
//! and f64.
//!
//! `cargo bench -p geomattn-benches --bench cayley`; `cargo test --benches` runs each once.

use divan::Bencher;
use geomattn::cayley;
use geomattn::nalgebra::RealField;
use geomattn::nalgebra::SMatrix;
use geomattn::{Elimination, Generated, GramSchmidt, LuSolve, OrthogonalMap};

fn main() {
    divan::main();
}

/// A fixed skew matrix with entries of order 1.
fn skew<S: geomattn::Field + From<f32>, const T: usize>() -> SMatrix<S, T, T> {
    SMatrix::from_fn(|i, j| {
        S::from(((i * 7 + j * 3) % 5) as f32 / 4.0 - 0.5 + (j as f32 - i as f32) / 8.0)
    })
}

/// `(I − C)·(I + C).try_inverse()`, straight from nalgebra: the baseline.
fn nalgebra_inverse<S: RealField + Copy, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    // The skew matrix of the strict upper triangle, as every kernel reads it.
    let skew = SMatrix::<S, T, T>::from_fn(|i, j| match i.cmp(&j) {
        core::cmp::Ordering::Less => c[(i, j)],
        core::cmp::Ordering::Greater => -c[(j, i)],
        core::cmp::Ordering::Equal => S::zero(),
    });
    let identity = SMatrix::<S, T, T>::identity();
    (identity + skew).try_inverse().map_or_else(
        || SMatrix::from_element(S::zero() / S::zero()),
        |inverse| (identity - skew) * inverse,
    )
}

fn run<S: geomattn::Field + From<f32>, const T: usize>(
    bencher: Bencher,
    kernel: impl Fn(&SMatrix<S, T, T>) -> SMatrix<S, T, T>,
) {
    let c = skew::<S, T>();
    bencher.bench_local(|| kernel(divan::black_box(&c)));
}

macro_rules! sizes {
    ($($module:ident: $t:literal),*) => {$(
        mod $module {
            use super::*;

            #[divan::bench(types = [f32, f64])]
            fn generated<S: geomattn::Field + From<f32>>(b: Bencher)
            where
                Generated: OrthogonalMap<S, $t>,
            {
                run::<S, $t>(b, <Generated as OrthogonalMap<S, $t>>::map);
            }

            #[divan::bench(types = [f32, f64])]
            fn strategy_elimination<S: geomattn::Field + From<f32>>(b: Bencher) {
                run::<S, $t>(b, cayley!($t, strategy = elimination));
            }

            #[divan::bench(types = [f32, f64])]
            fn strategy_symbolic<S: geomattn::Field + From<f32>>(b: Bencher) {
                run::<S, $t>(b, cayley!($t, strategy = symbolic));
            }

            #[divan::bench(types = [f32, f64])]
            fn strategy_gram_schmidt<S: geomattn::Field + From<f32>>(b: Bencher) {
                run::<S, $t>(b, cayley!($t, strategy = gram_schmidt));
            }

            #[divan::bench(types = [f32, f64])]
            fn nalgebra_inverse<S: geomattn::Field + From<f32> + RealField>(b: Bencher) {
                run::<S, $t>(b, super::nalgebra_inverse::<S, $t>);
            }

            #[divan::bench(types = [f32, f64])]
            fn lu_solve<S: geomattn::Field + From<f32> + geomattn::nalgebra::RealField>(b: Bencher) {
                run::<S, $t>(b, <LuSolve as OrthogonalMap<S, $t>>::map);
            }

            #[divan::bench(types = [f32, f64])]
            fn gram_schmidt_loops<S: geomattn::Field + From<f32>>(b: Bencher) {
                run::<S, $t>(b, <GramSchmidt as OrthogonalMap<S, $t>>::map);
            }

            #[divan::bench(types = [f32, f64])]
            fn elimination_loops<S: geomattn::Field + From<f32>>(b: Bencher) {
                run::<S, $t>(b, <Elimination as OrthogonalMap<S, $t>>::map);
            }
        }
    )*};
}

sizes!(t2: 2, t3: 3, t4: 4, t5: 5, t6: 6, t7: 7, t8: 8);
