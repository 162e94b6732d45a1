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

mod baselines;
mod by_norm;
mod elimination;
mod generated;
mod gram_schmidt;
mod polish;

pub use baselines::{LuSolve, NalgebraInverse};
pub use by_norm::{NARROW_BELOW, WIDE_BELOW};
pub use elimination::Elimination;
pub(crate) use elimination::solve_without_pivoting;
pub use generated::Generated;
pub use gram_schmidt::GramSchmidt;
