//! The symplectic structure of a sequence's phase space, and how far a map is from preserving it.
//!
//! A sequence `Z ∈ R^{2n×T}` has `q` in rows `0..n` and `p` in rows `n..2n` of every column.
//! [`crate::jacobian`] flattens `Z` column-major, so time step `t` occupies the contiguous
//! coordinates `2n·t .. 2n·(t+1)`: first its `q`, then its `p`. The structure matrix is therefore
//! block diagonal, `𝕁 = I_T ⊗ [0 I_n; −I_n 0]`, pairing `q_k` and `p_k` of the **same** time step.

use geomattn::nalgebra::DMatrix;

/// `𝕁 = I_T ⊗ [0 I_n; −I_n 0]` on `R^{2n×T}` flattened column-major.
pub fn structure_matrix(n: usize, t: usize) -> DMatrix<f64> {
    let m = 2 * n;
    let mut j = DMatrix::zeros(m * t, m * t);
    for step in 0..t {
        for k in 0..n {
            let (q, p) = (m * step + k, m * step + n + k);
            j[(q, p)] = 1.0;
            j[(p, q)] = -1.0;
        }
    }
    j
}

/// `‖Jᵀ𝕁J − 𝕁‖_max` for the Jacobian `jac` of a map of `R^{2n×T}` (as [`crate::jacobian`]
/// returns it): zero exactly when the map is symplectic at that point.
pub fn symplecticity_error(jac: &DMatrix<f64>, n: usize, t: usize) -> f64 {
    let j = structure_matrix(n, t);
    (jac.transpose() * &j * jac - j).amax()
}
