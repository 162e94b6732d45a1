//! The matrix exponential of a skew-symmetric matrix: special orthogonal.
//!
//! - [`Exp`]: closed forms where they exist (`T ≤ 1` trivial, `T = 2` a rotation, `T = 3`
//!   Rodrigues' formula), [`ScalingSquaring`] otherwise.
//! - [`ScalingSquaring`]: scale `C` by `2^{−s}` until `‖C‖₁ ≤ 1`, take the diagonal Padé
//!   approximant `r₈(A) = q₈(A)⁻¹ p₈(A)`, square `s` times. For skew `A`, `q₈(A) = p₈(−A) = p₈(A)ᵀ`,
//!   so `r₈(A)` is orthogonal in exact arithmetic (a property truncated Taylor series lack), and
//!   its error is below `‖A‖₁¹⁷ · 2.2·10⁻¹⁹`. With `‖A‖₁ ≤ 1`, `q₈(A) = I + E` with `‖E‖₁ ≤ 0.65`
//!   is strictly column diagonally dominant, so elimination without pivoting is stable: no
//!   comparisons are needed beyond the choice of `s`.
//!
//! Both read only the strict upper triangle of `C` and need [`RealField`] (sines, cosines, norms).
//! Scaling and squaring answers while `ε‖C‖_F ≤ 1/32` and returns NaN beyond (see the range of
//! the maps in [`crate::orthogonal`]); within it the result is orthogonal to within a few times
//! LU's Cayley transform (a final Newton–Schulz step; 0.09 at worst just inside the edge), its
//! angles accurate to `ε‖C‖`. The closed forms (`T ≤ 3`) are orthogonal to rounding for every `C`
//! of finite norm (`tests/tests/cayley_range.rs`, up to `‖C‖_F = 0.99·MAX`).
//!
//! ```
//! use geomattn::{Exp, OrthogonalMap, ScalingSquaring};
//! use geomattn::nalgebra::Matrix2;
//! let angle = core::f64::consts::FRAC_PI_3;
//! let c = Matrix2::new(0.0, angle, -angle, 0.0);
//! let rotation = <Exp as OrthogonalMap<f64, 2>>::map(&c);
//! let half_sqrt3 = 3.0_f64.sqrt() / 2.0;
//! assert!((rotation - Matrix2::new(0.5, half_sqrt3, -half_sqrt3, 0.5)).amax() < 1e-15);
//! let pade = <ScalingSquaring as OrthogonalMap<f64, 2>>::map(&c);
//! assert!((rotation - pade).amax() < 1e-15);
//! ```

use nalgebra::{RealField, SMatrix};

use crate::cayley::solve_without_pivoting;
use crate::orthogonal::OrthogonalMap;
use crate::orthogonal::{in_range, not_a_number, skew_from_upper};

/// The exponential of a skew matrix, in closed form for `T ≤ 3` and by [`ScalingSquaring`]
/// above.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exp;

/// The exponential of a skew matrix by scaling and squaring with a degree-8 diagonal Padé
/// approximant, for every `T`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScalingSquaring;

impl<S: RealField + Copy, const T: usize> OrthogonalMap<S, T> for Exp {
    const NAME: &'static str = "exp";
    const FUNCTION: &'static str = "exp";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        match T {
            0 | 1 => SMatrix::identity(),
            2 => rotation(c),
            3 => rodrigues(c),
            _ => scaling_squaring(c),
        }
    }
}

impl<S: RealField + Copy, const T: usize> OrthogonalMap<S, T> for ScalingSquaring {
    const NAME: &'static str = "exp (scaling and squaring)";
    const FUNCTION: &'static str = "exp";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        scaling_squaring(c)
    }
}

/// `T = 2`: `exp [0 θ; −θ 0] = [cos θ  sin θ; −sin θ  cos θ]`.
fn rotation<S: RealField + Copy, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    let (sin, cos) = c[(0, 1)].sin_cos();
    let mut r = SMatrix::identity();
    r[(0, 0)] = cos;
    r[(1, 1)] = cos;
    r[(0, 1)] = sin;
    r[(1, 0)] = -sin;
    r
}

/// `T = 3`: Rodrigues' formula `exp C = I + sin θ · U + 2 sin²(θ/2) · U²` with `U = C/θ`,
/// `θ = ‖(c₁₂, c₁₃, c₂₃)‖` taken by `hypot`: no square of `C` is formed, so nothing overflows
/// while `θ` is finite, and no `1 − cos θ` cancels for small `θ`.
fn rodrigues<S: RealField + Copy, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    let theta = c[(0, 1)].hypot(c[(0, 2)]).hypot(c[(1, 2)]);
    if theta == S::zero() {
        return SMatrix::identity();
    }
    let unit = skew_from_upper(c) / theta;
    let half_sin = (theta * nalgebra::convert::<f64, S>(0.5)).sin();
    SMatrix::identity()
        + unit * theta.sin()
        + unit * unit * (half_sin * half_sin * (S::one() + S::one()))
}

/// Degree of the Padé approximant.
const PADE_DEGREE: usize = 8;
/// The largest `‖A‖₁` the approximant is used at.
const SCALED_NORM: f64 = 1.0;
/// The range of scaling and squaring, `ε‖C‖_F ≤ 1/32`: each squaring doubles the rounding error,
/// and beyond it the final Newton–Schulz step no longer brings the result back to orthogonal
/// (measured worst `‖ΛᵀΛ − I‖`: 0.28 at `1/16`, `T = 8`).
const RANGE: f64 = 1.0 / 32.0;
fn scaling_squaring<S: RealField + Copy, const T: usize>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    if !in_range(c, nalgebra::convert(RANGE)) {
        return not_a_number();
    }
    let mut a = skew_from_upper(c);
    let one_norm = a
        .column_iter()
        .map(|column| column.iter().fold(S::zero(), |sum, x| sum + x.abs()))
        .fold(S::zero(), |max, x| if x > max { x } else { max });
    let half = nalgebra::convert::<f64, S>(0.5);
    let bound = nalgebra::convert::<f64, S>(SCALED_NORM);
    let mut norm = one_norm;
    let mut squarings = 0;
    while norm > bound {
        norm *= half;
        a *= half;
        squarings += 1;
    }
    let mut r = pade(&a);
    for _ in 0..squarings {
        r = r * r;
    }
    if squarings > 0 {
        // Squaring multiplies the rounding error of r by up to 2^squarings; one Newton–Schulz
        // step, r ← r(3I − rᵀr)/2, brings the distance from orthogonality δ down to about
        // (3/4)δ² + Tε (δ ≈ 2ε‖C‖, up to about 0.3 at the edge of the range), without moving r
        // by more than δ.
        let three = nalgebra::convert::<f64, S>(3.0);
        r = (r * (SMatrix::identity() * three - r.tr_mul(&r))) * half;
    }
    r
}

/// `q(A)⁻¹ p(A)` with `p(x) = Σ b_k x^k`, `q(x) = p(−x)`, `b_k = (16−k)! 8! / (16! k! (8−k)!)`.
fn pade<S: RealField + Copy, const T: usize>(a: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    let mut coefficient = [1.0_f64; PADE_DEGREE + 1];
    for k in 0..PADE_DEGREE {
        coefficient[k + 1] = coefficient[k] * (PADE_DEGREE - k) as f64
            / ((2 * PADE_DEGREE - k) as f64 * (k + 1) as f64);
    }
    let b = |k: usize| nalgebra::convert::<f64, S>(coefficient[k]);
    let identity = SMatrix::<S, T, T>::identity();
    let a2 = a * a;
    let a4 = a2 * a2;
    let a6 = a4 * a2;
    let a8 = a4 * a4;
    let even = identity * b(0) + a2 * b(2) + a4 * b(4) + a6 * b(6) + a8 * b(8);
    let odd = a * (identity * b(1) + a2 * b(3) + a4 * b(5) + a6 * b(7));
    // q(A) is column diagonally dominant for ‖A‖₁ ≤ 1 (where scaling brings A), so no pivoting.
    solve_without_pivoting(even - odd, even + odd)
}
