//! The first window of the rollout, z₀ = (0, sin 1.1, cos 1.1) and the next two states of
//! the rigid body's implicit midpoint rule (h = 0.2), computed in `f64` and rounded to `f32`.
//! Written by the host test `tests/tests/cortex_m.rs` (`GEOMATTN_BLESS=1`), which checks it.

/// z₀, z₁, z₂, one state a row.
pub const INITIAL_WINDOW: [[f32; 3]; 3] = [
    [0.0, 0.89120734, 0.45359612],
    [0.04046329, 0.8893683, 0.4553973],
    [0.08107695, 0.8838007, 0.4607851],
];
