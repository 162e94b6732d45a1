//! The Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` of a skew-symmetric `C` (no factor ½).
//!
//! Layers never call an implementation directly: they are generic over a kernel `K:`
//! [`Cayley<S, T>`], a zero-sized type chosen at compile time, so a specialised implementation for
//! a given `T` replaces another without changing any layer. The kernels here:
//!
//! | kernel | scalar | method |
//! |---|---|---|
//! | [`Generated`] (default) | any [`Field`] | straight-line code from `geomattn-macros` for `T ≤ 8`, else [`Elimination`] |
//! | [`Elimination`] | any [`Field`] | pivot-free Gauss–Jordan on `I + C`, loops over `T` |
//! | [`NalgebraInverse`] | `RealField` | `(I − C)·(I + C).try_inverse()`: the generic baseline |
//! | [`LuSolve`] | `RealField` | LU with partial pivoting, then a solve |
//!
//! Why no pivoting is needed: for skew `C`, `(I + C)ᵀ(I + C) = I + CᵀC`, so every leading block
//! `I + C_k` has `det ≥ 1`; each pivot of the elimination is a ratio of two such determinants and
//! is at least 1 in exact arithmetic.
//!
//! ```
//! use geomattn::{Cayley, Elimination, nalgebra::Matrix2};
//! use num_rational::Ratio;
//! // Exact in rational arithmetic: every kernel needs only + − × ÷.
//! let r = |n, d| Ratio::<i64>::new(n, d);
//! let c = Matrix2::new(r(0, 1), r(-1, 2), r(1, 2), r(0, 1));
//! let q = <Elimination as Cayley<_, 2>>::cayley(&c);
//! assert_eq!(q, Matrix2::new(r(3, 5), r(4, 5), r(-4, 5), r(3, 5)));
//! ```

mod baselines;
mod elimination;
mod generated;

pub use baselines::{LuSolve, NalgebraInverse};
pub use elimination::Elimination;
pub(crate) use elimination::solve_without_pivoting;
pub use generated::Generated;

use nalgebra::SMatrix;

use crate::Field;

/// A Cayley transform for `T×T` skew-symmetric matrices over the scalar `S`.
///
/// Implementations may read only the strict upper triangle of `c` (the lower one is its negative).
pub trait Cayley<S: Field, const T: usize> {
    /// `(I − C)(I + C)⁻¹`, an orthogonal matrix with determinant 1.
    fn cayley(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T>;
}

/// The kernel layers use unless told otherwise.
pub type DefaultCayley = Generated;
