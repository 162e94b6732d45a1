//! The ground truth of GML's rigid-body networks: the free rigid body integrated with the
//! implicit midpoint rule.
//!
//! With angular momentum `z ∈ R³` and principal moments of inertia `I = (2, 1, 2/3)`, Euler's
//! equations `ż = z × ω`, `ω_i = z_i / I_i`, read
//!
//! ```text
//! ż₁ = (1/I₃ − 1/I₂) z₂ z₃ = ½ z₂ z₃
//! ż₂ = (1/I₁ − 1/I₃) z₃ z₁ = −z₃ z₁
//! ż₃ = (1/I₂ − 1/I₁) z₁ z₂ = ½ z₁ z₂
//! ```
//!
//! They conserve `|z|²` (the coefficients are `z`-weighted by a cross product) and the energy
//! `Σ z_i² / (2 I_i)` (`½·½ − 1·1 + ½·(3/2) = 0`). Both are quadratic, so the implicit midpoint
//! rule conserves them exactly too, up to the solver's rounding.
//!
//! ```
//! use geomattn_networks::rigid_body::{H, initial_state, step};
//! let z0 = initial_state(1.1);
//! let z1 = step(&z0, H);
//! assert!((z1.norm() - z0.norm()).abs() < 1e-15);
//! ```

use geomattn::nalgebra::{Matrix3, Vector3};

/// The time step GML's training data were integrated with.
pub const H: f64 = 0.2;

/// The coefficients `(A, B, C)` of `ż = (A z₂z₃, B z₃z₁, C z₁z₂)`.
pub const COEFFICIENTS: [f64; 3] = [0.5, -1.0, 0.5];

/// The moments of inertia the coefficients come from.
pub const INERTIA: [f64; 3] = [2.0, 1.0, 2.0 / 3.0];

/// The vector field.
pub fn vector_field(z: &Vector3<f64>) -> Vector3<f64> {
    let [a, b, c] = COEFFICIENTS;
    Vector3::new(a * z[1] * z[2], b * z[2] * z[0], c * z[0] * z[1])
}

/// The energy `Σ z_i² / (2 I_i)`.
pub fn energy(z: &Vector3<f64>) -> f64 {
    z.iter().zip(INERTIA).map(|(x, i)| x * x / (2.0 * i)).sum()
}

/// The initial state `(0, sin θ, cos θ)` on the unit sphere, as in GML's tutorial.
pub fn initial_state(theta: f64) -> Vector3<f64> {
    Vector3::new(0.0, theta.sin(), theta.cos())
}

/// One implicit midpoint step `z' = z + h f((z + z')/2)`, solved by Newton's method to machine
/// precision.
pub fn step(z: &Vector3<f64>, h: f64) -> Vector3<f64> {
    let [a, b, c] = COEFFICIENTS;
    let mut next = z + h * vector_field(z);
    for _ in 0..50 {
        let m = (z + next) / 2.0;
        let residual = next - z - h * vector_field(&m);
        // d residual / d next = I − (h/2) f'(m).
        let jacobian = Matrix3::identity()
            - (h / 2.0)
                * Matrix3::new(
                    0.0,
                    a * m[2],
                    a * m[1],
                    b * m[2],
                    0.0,
                    b * m[0],
                    c * m[1],
                    c * m[0],
                    0.0,
                );
        let Some(delta) = jacobian.lu().solve(&residual) else {
            break;
        };
        next -= delta;
        if delta.amax() <= f64::EPSILON * next.amax() {
            break;
        }
    }
    next
}

/// Writes the trajectory `z₀, z₁, …` (one state per slot, `out[0] = z0`) with step `h`.
pub fn trajectory(z0: &Vector3<f64>, h: f64, out: &mut [Vector3<f64>]) {
    let mut z = *z0;
    for slot in out {
        *slot = z;
        z = step(&z, h);
    }
}
