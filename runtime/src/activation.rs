//! The element-wise activations GML's layers use, as zero-sized marker types.
//!
//! A layer takes its activation as a type parameter `Act: Activation<S>`, so the choice is made at
//! compile time and costs nothing: `Identity` compiles away, `Tanh` is one call per entry.
//!
//! | type | GML | scalar |
//! |---|---|---|
//! | [`Identity`] | `identity` | any (exact rationals included) |
//! | [`Tanh`] | `tanh` | [`nalgebra::RealField`] |
//!
//! ```
//! use geomattn::{Activation, Identity, Tanh};
//! assert_eq!(<Identity as Activation<f64>>::apply(-3.5), -3.5);
//! // Saturates instead of overflowing, and keeps tiny inputs exact.
//! assert_eq!(<Tanh as Activation<f64>>::apply(1e300), 1.0);
//! assert_eq!(<Tanh as Activation<f64>>::apply(-800.0), -1.0);
//! assert_eq!(<Tanh as Activation<f64>>::apply(1e-300), 1e-300);
//! ```

use nalgebra::SMatrix;

use crate::Real;

/// A scalar function applied entry by entry.
pub trait Activation<S> {
    /// GML's name of the function.
    const NAME: &'static str;

    /// The function at one scalar.
    fn apply(x: S) -> S;

    /// The function applied to every entry of a matrix (or vector).
    #[inline(always)]
    fn apply_matrix<const ROWS: usize, const COLS: usize>(
        m: SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>
    where
        S: nalgebra::Scalar,
    {
        let mut m = m;
        for x in m.iter_mut() {
            *x = Self::apply(x.clone());
        }
        m
    }
}

/// `x ↦ x`: GML's `identity`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Identity;

/// `x ↦ tanh x`: GML's `tanh`, through `RealField::tanh` (accurate, and saturating to ±1 rather
/// than overflowing for large `|x|`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tanh;

impl<S> Activation<S> for Identity {
    const NAME: &'static str = "identity";

    #[inline(always)]
    fn apply(x: S) -> S {
        x
    }

    #[inline(always)]
    fn apply_matrix<const ROWS: usize, const COLS: usize>(
        m: SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>
    where
        S: nalgebra::Scalar,
    {
        m
    }
}

impl<S: Real> Activation<S> for Tanh {
    const NAME: &'static str = "tanh";

    #[inline(always)]
    fn apply(x: S) -> S {
        x.tanh()
    }
}
