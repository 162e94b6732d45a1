//! Instruction counts (callgrind) of one sequence's backward pass of volume-preserving attention
//! against its forward pass, f64, `D = 3`, both weightings, with the default Cayley kernel: the
//! ratio issue 25 bounds (backward ≤ 3× forward).
//!
//! ```text
//! cargo bench -p geomattn-benches --features callgrind --bench backward_callgrind
//! ```

use geomattn::nalgebra::SMatrix;
use geomattn::{ArbitraryVpa, Backward, SequenceLayer, SkewSymmetric, SkewVpa};
use gungraun::{library_benchmark, library_benchmark_group, main};
use std::hint::black_box;

/// A fixed sequence with entries of order 1.
fn sequence<const T: usize>() -> SMatrix<f64, 3, T> {
    SMatrix::from_fn(|i, j| ((i * 5 + j * 3) % 7) as f64 / 4.0 - 0.75)
}

fn skew<const T: usize>() -> SkewVpa<f64, 3, T> {
    SkewVpa::skew_sym(SkewSymmetric::from_packed(&[0.3, -0.5, 0.2]).expect("3 packed entries"))
}

fn arbitrary<const T: usize>() -> ArbitraryVpa<f64, 3, T> {
    ArbitraryVpa::arbitrary(SMatrix::from_fn(|i, j| {
        ((i * 3 + j) % 5) as f64 / 5.0 - 0.4
    }))
}

macro_rules! size_bench {
    ($forward:ident, $backward:ident, $t:literal) => {
        #[library_benchmark]
        #[bench::skew(args = (skew::<$t>(), sequence::<$t>()))]
        fn $forward(layer: SkewVpa<f64, 3, $t>, z: SMatrix<f64, 3, $t>) -> SMatrix<f64, 3, $t> {
            black_box(black_box(&layer).forward(black_box(&z)))
        }

        #[library_benchmark]
        #[bench::skew(args = (skew::<$t>(), sequence::<$t>()))]
        fn $backward(layer: SkewVpa<f64, 3, $t>, z: SMatrix<f64, 3, $t>) -> SMatrix<f64, 3, $t> {
            let mut gradient = layer.zero_gradient();
            let z_bar = black_box(&layer).backward(black_box(&z), black_box(&z), &mut gradient);
            black_box(gradient);
            black_box(z_bar)
        }
    };
}

macro_rules! arbitrary_bench {
    ($forward:ident, $backward:ident, $t:literal) => {
        #[library_benchmark]
        #[bench::arbitrary(args = (arbitrary::<$t>(), sequence::<$t>()))]
        fn $forward(
            layer: ArbitraryVpa<f64, 3, $t>,
            z: SMatrix<f64, 3, $t>,
        ) -> SMatrix<f64, 3, $t> {
            black_box(black_box(&layer).forward(black_box(&z)))
        }

        #[library_benchmark]
        #[bench::arbitrary(args = (arbitrary::<$t>(), sequence::<$t>()))]
        fn $backward(
            layer: ArbitraryVpa<f64, 3, $t>,
            z: SMatrix<f64, 3, $t>,
        ) -> SMatrix<f64, 3, $t> {
            let mut gradient = layer.zero_gradient();
            let z_bar = black_box(&layer).backward(black_box(&z), black_box(&z), &mut gradient);
            black_box(gradient);
            black_box(z_bar)
        }
    };
}

size_bench!(skew_forward_t3, skew_backward_t3, 3);
size_bench!(skew_forward_t4, skew_backward_t4, 4);
size_bench!(skew_forward_t5, skew_backward_t5, 5);
size_bench!(skew_forward_t8, skew_backward_t8, 8);
arbitrary_bench!(arbitrary_forward_t3, arbitrary_backward_t3, 3);
arbitrary_bench!(arbitrary_forward_t8, arbitrary_backward_t8, 8);

library_benchmark_group!(
    name = backward,
    benchmarks = [
        skew_forward_t3,
        skew_backward_t3,
        skew_forward_t4,
        skew_backward_t4,
        skew_forward_t5,
        skew_backward_t5,
        skew_forward_t8,
        skew_backward_t8,
        arbitrary_forward_t3,
        arbitrary_backward_t3,
        arbitrary_forward_t8,
        arbitrary_backward_t8
    ]
);

main!(library_benchmark_groups = backward);
