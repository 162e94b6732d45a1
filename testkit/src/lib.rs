//! Shared test material of geomattn, in one crate so that the integration tests (`tests/`), the
//! codegen tests and the command-line report all use the same definitions:
//!
//! - exact rationals ([`Q`], [`q`], [`q_matrix`]), for the exact vectors: every layer that needs
//!   only `+ − × ÷` is generic over [`geomattn::Field`] and runs on them unchanged;
//! - exact Jacobians through dual numbers ([`jacobian`]), and the dual-number check of the
//!   backward passes ([`backward_check`]);
//! - seeded random matrices ([`random_skew`], [`random_matrix`]), a seeded generator that
//!   depends on nothing but its seed ([`seeded`]), and [`orthogonality_error`],
//!   and the sweep of an orthogonal map's accuracy over the norms of `C` ([`sweep`]);
//! - the symplectic structure of a sequence's phase space ([`symplectic`]), and files of
//!   symplectic transformers in GML's layout ([`gml_layout`], written with `hdf5-pure`, the
//!   runtime's HDF5 crate, in Float32 or Float64), with a reference computation of them from
//!   CONVENTIONS.md's formulas on `DMatrix` ([`gml_reference`]);
//! - the exact Cayley vectors of CONVENTIONS.md, one definition each ([`conventions`]), and one
//!   exact reference Cayley transform, generic over the field ([`exact`]), for the runtime's
//!   kernels (on [`Q`] in nalgebra matrices) and the codegen's programs (on `BigRational` in
//!   `Vec`s) alike;
//! - the check every lane twin is held to, the lane path bit-identical to the scalar path on
//!   every instruction set of the machine ([`lanes`]);
//! - the ground truth of GML's rigid-body networks, the free rigid body integrated with the
//!   implicit midpoint rule ([`rigid_body`]), and the GML fixture files ([`fixture`]).
//!
//! Dual numbers come from `num-dual` (a maintained forward-mode AD crate) rather than a
//! hand-written type: every layer is generic over [`geomattn::Field`], so running it on
//! `Dual64` gives Jacobian columns that are exact up to floating-point rounding, with no
//! finite-difference step to tune.
//!
//! Nothing here is part of geomattn's API; the crate is not published.

pub mod backward_check;
pub mod conventions;
pub mod exact;
pub mod exact_dual;
pub mod gml_chain;
pub mod gml_layout;
pub mod gml_reference;
pub mod hdf5_mutation;
pub mod lanes;
pub use geomattn_networks::rigid_body;
pub mod seeded;
pub mod sweep;
pub mod symplectic;

use geomattn::nalgebra::{DMatrix, SMatrix};
use num_dual::Dual64;
use rand::Rng;
use std::path::{Path, PathBuf};

/// Exact rationals for the exact test vectors.
pub type Q = num_rational::Ratio<i128>;

/// `n/d` as a [`Q`].
pub fn q(n: i128, d: i128) -> Q {
    Q::new(n, d)
}

/// A matrix of [`Q`] from integer numerators over a common denominator, given row by row.
pub fn q_matrix<const R: usize, const C: usize>(
    rows: [[i128; C]; R],
    denominator: i128,
) -> SMatrix<Q, R, C> {
    SMatrix::from_fn(|i, j| q(rows[i][j], denominator))
}

/// The Jacobian of `f: R^{R×C} → R^{R2×C2}` at `z`, with inputs and outputs flattened
/// column-major (Julia's and nalgebra's order), by forward-mode dual numbers, one pass per input:
/// the reference the backward passes (and `geomattn check`, which builds its Jacobians from them)
/// are held to.
///
/// ```
/// use geomattn::nalgebra::{DMatrix, Vector2};
/// // f(x, y) = (x·y, x + y): J = [[y, x], [1, 1]].
/// let jac = geomattn_testkit::jacobian(
///     |z: &Vector2<_>| Vector2::new(z[0] * z[1], z[0] + z[1]),
///     &Vector2::new(2.0, 3.0),
/// );
/// assert_eq!(jac, DMatrix::from_row_slice(2, 2, &[3.0, 2.0, 1.0, 1.0]));
/// ```
pub fn jacobian<const R: usize, const C: usize, const R2: usize, const C2: usize>(
    f: impl Fn(&SMatrix<Dual64, R, C>) -> SMatrix<Dual64, R2, C2>,
    z: &SMatrix<f64, R, C>,
) -> DMatrix<f64> {
    let mut jac = DMatrix::zeros(R2 * C2, R * C);
    for input in 0..R * C {
        let seeded = SMatrix::<Dual64, R, C>::from_fn(|i, j| {
            let x = Dual64::from_re(z[(i, j)]);
            if i + R * j == input {
                x.derivative()
            } else {
                x
            }
        });
        let out = f(&seeded);
        for (row, value) in out.iter().enumerate() {
            jac[(row, input)] = value.eps;
        }
    }
    jac
}

/// A skew-symmetric `T×T` matrix with entries uniform in `(−scale, scale)`.
pub fn random_skew<const T: usize>(rng: &mut impl Rng, scale: f64) -> SMatrix<f64, T, T> {
    let mut c = SMatrix::<f64, T, T>::zeros();
    for j in 0..T {
        for i in 0..j {
            let x = scale * (2.0 * unit(rng) - 1.0);
            c[(i, j)] = x;
            c[(j, i)] = -x;
        }
    }
    c
}

/// A matrix with entries uniform in `(−1, 1)`.
pub fn random_matrix<const R: usize, const C: usize>(rng: &mut impl Rng) -> SMatrix<f64, R, C> {
    SMatrix::from_fn(|_, _| 2.0 * unit(rng) - 1.0)
}

/// Uniform in `[0, 1)` from 53 random bits.
pub fn unit(rng: &mut impl Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
}

/// `‖QᵀQ − I‖_max`: how far `Q` is from orthogonal.
pub fn orthogonality_error<const T: usize>(q: &SMatrix<f64, T, T>) -> f64 {
    (q.transpose() * q - SMatrix::<f64, T, T>::identity()).amax()
}

/// The path of the GML fixture `name` (GML 0.4.8 networks in HDF5).
///
/// Every GML network the project uses ships with the repository, in `fixtures/gml/` (with GML's
/// licence and provenance): a fresh clone reads nothing from beside it.
///
/// ```
/// let path = geomattn_testkit::fixture("transformer_rigid_body_nn_vpt.h5");
/// assert!(path.ends_with("fixtures/gml/transformer_rigid_body_nn_vpt.h5") && path.is_file());
/// ```
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/gml")
        .join(name)
}
