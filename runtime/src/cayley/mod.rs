//! The Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` of a skew-symmetric `C` (no factor ½): five
//! kernels implementing [`crate::OrthogonalMap`] (the table in [`crate::orthogonal`]).
//!
//! Why no pivoting is needed: for skew `C`, `(I + C)ᵀ(I + C) = I + CᵀC`, so every leading block
//! `I + C_k` has `det ≥ 1`; each pivot of the elimination is a ratio of two such determinants and
//! is at least 1 in exact arithmetic.
//!
//! ```
//! use geomattn::{Elimination, OrthogonalMap, nalgebra::Matrix2};
//! use num_rational::Ratio;
//! // Exact in rational arithmetic: every kernel needs only + − × ÷.
//! let r = |n, d| Ratio::<i64>::new(n, d);
//! let c = Matrix2::new(r(0, 1), r(-1, 2), r(1, 2), r(0, 1));
//! let q = <Elimination as OrthogonalMap<_, 2>>::map(&c);
//! assert_eq!(q, Matrix2::new(r(3, 5), r(4, 5), r(-4, 5), r(3, 5)));
//! ```

/// `for k in 0..T` (the steps of Gram–Schmidt and of elimination), with the body repeated for
/// `k = 0 … 11`, each copy for its `k` written out: the optimiser does not unroll a loop over `k`
/// whose body holds loops of length `k`, and those then run with a counter (2.2× the
/// instructions at `T = 4`); unrolled, each is of known length, vectorised. Beyond 12, a plain
/// loop. Unoptimised (`debug_assertions`), a plain loop
/// throughout: the same operations in the same order, without twelve copies of the body's stack
/// (at `T = 8` the lane path's frame, with its own copy, neared a test thread's 2 MiB).
macro_rules! for_each_k {
    ($k:ident in 0..$t:ident $body:block) => {
        #[cfg(not(debug_assertions))]
        {
            for_each_k!(@unrolled $k $t $body; 0 1 2 3 4 5 6 7 8 9 10 11);
            for $k in 12..$t $body
        }
        #[cfg(debug_assertions)]
        for $k in 0..$t $body
    };
    (@unrolled $k:ident $t:ident $body:block; $($n:literal)*) => {$(
        if $n < $t {
            let $k: usize = $n;
            $body
        }
    )*};
}

mod baselines;
mod by_norm;
mod elimination;
mod generated;
mod gram_schmidt;
mod polish;

pub use baselines::{LuSolve, NalgebraInverse};
pub(crate) use by_norm::every_lane_narrow;
pub use by_norm::{NARROW_BELOW, WIDE_BELOW};
pub use elimination::Elimination;
pub(crate) use elimination::{cayley_columns_at, solve_without_pivoting};
pub use generated::Generated;
pub use gram_schmidt::GramSchmidt;
