//! Maps from skew-symmetric `T×T` matrices to orthogonal ones: the [`OrthogonalMap`] trait and its
//! implementors.
//!
//! Layers never call an implementation directly: they are generic over a map `Map:`
//! [`OrthogonalMap<S, T>`], a zero-sized type chosen at compile time, so a kernel specialised for
//! one `T` replaces another without changing any layer.
//!
//! | map | function | scalar | method |
//! |---|---|---|---|
//! | [`Generated`] (= [`DefaultCayley`]) | Cayley | any [`Field`] | straight-line code from `geomattn-macros` for small `T`, else [`Elimination`] |
//! | [`GramSchmidt`] | Cayley | any [`Field`] | square-root-free modified Gram–Schmidt on `I + C`, loops over `T`: accurate for every finite `C` |
//! | [`Elimination`] | Cayley | any [`Field`] | pivot-free Gauss–Jordan on `I + C`, loops over `T` (loses accuracy like `ε‖C‖²`) |
//! | [`NalgebraInverse`] | Cayley | `RealField` | `(I − C)·(I + C).try_inverse()`: the generic baseline |
//! | [`LuSolve`] | Cayley | `RealField` | LU with partial pivoting, then a solve |
//! | [`Exp`] | exponential | `RealField` | closed forms for `T ≤ 3`, else [`ScalingSquaring`] |
//! | [`ScalingSquaring`] | exponential | `RealField` | scaling and squaring with a degree-8 Padé approximant |
//!
//! The Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` (no factor ½; GML's
//! `orthonormal_activation_cayley`) is orthogonal with determinant 1, as is `exp(C)`. Every map
//! reads only the strict upper triangle of its argument (the lower one is its negative).
//!
//! ```
//! use geomattn::{Elimination, Exp, OrthogonalMap, nalgebra::Matrix2};
//! let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
//! let cayley = <Elimination as OrthogonalMap<f64, 2>>::map(&c);
//! assert!((cayley - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
//! let exp = <Exp as OrthogonalMap<f64, 2>>::map(&c);
//! assert!((exp.transpose() * exp - Matrix2::identity()).amax() < 1e-15);
//! ```

use nalgebra::SMatrix;

use crate::Field;
#[cfg(doc)]
use crate::{Elimination, Exp, Generated, GramSchmidt, LuSolve, NalgebraInverse, ScalingSquaring};

/// A map from skew-symmetric `T×T` matrices over the scalar `S` to orthogonal ones.
///
/// Implementations may read only the strict upper triangle of `c`.
pub trait OrthogonalMap<S: Field, const T: usize> {
    /// Name for reports (`"Cayley (generated)"`, `"exp"`, …).
    const NAME: &'static str;

    /// The orthogonal matrix of the skew matrix whose strict upper triangle is that of `c`.
    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T>;
}

/// The map layers use unless told otherwise: the Cayley transform by [`crate::Generated`].
pub type DefaultCayley = crate::Generated;
