//! Newton–Schulz polishing of a nearly orthogonal matrix: the default `f32` kernel's result at
//! very large `‖C‖` (see `by_norm`), and Gram–Schmidt's in other scalars of `f32`'s precision.

use nalgebra::SMatrix;

use crate::product;
use crate::scalar::{Field, ratio};

/// `q` after three Newton–Schulz steps `Λ ← Λ + Λ(I − ΛᵀΛ)/2` (the polar iteration
/// `Λ(3I − ΛᵀΛ)/2`, written as a correction) where `S` rounds as coarsely as `f32`; `q`
/// unchanged otherwise.
///
/// Each step squares the orthogonality error (`ΛᵀΛ − I = F` becomes about `−¾F²`), and is exact
/// on an exactly orthogonal `Λ` (the correction is then 0). Gram–Schmidt's error grows like
/// `ε‖C‖`, up to 0.1 in `f32` at `‖C‖ ≈ 10⁶`, and on a few inputs it falls along the sequence
/// volume-preserving attention multiplies, where LU's does not: one step leaves up to 1 900× LU's
/// `|‖ZΛ‖/‖Z‖ − 1|`, two leave under 10× (`tests/tests/cayley_range.rs`). In `f64` (and over
/// exact rationals) the error stays far below what a layer can see, and nothing is done: the
/// test below folds to a constant in both precisions, and is the same for a scalar and its lanes,
/// so the lane path stays bit-identical to the scalar one.
#[inline(always)]
pub(crate) fn polished<S: Field, const T: usize>(mut q: SMatrix<S, T, T>) -> SMatrix<S, T, T> {
    if rounds_as_coarsely_as_f32::<S>() {
        // A loop, not three nested calls: unoptimised, each inlined copy of the step keeps its
        // own `T×T` temporaries on the stack (at T = 8 over AVX-512 lanes, 4 KiB each).
        for _ in 0..3 {
            newton_schulz_step(&mut q);
        }
    }
    q
}

/// Whether `1 + 2⁻³⁰` rounds to 1 in `S`: true in `f32` (`ε = 2⁻²³`) and its lanes and dual
/// numbers, false in `f64` (`ε = 2⁻⁵²`) and over exact rationals.
#[inline(always)]
pub(crate) fn rounds_as_coarsely_as_f32<S: Field>() -> bool {
    S::one() + ratio::<S>(1, 1 << 30) == S::one()
}

/// `Λ + Λ·H`, `H = (I − ΛᵀΛ)/2`, in place; `H` overwrites `ΛᵀΛ` (unoptimised, every `T×T`
/// temporary is a frame slot of its own: the lane path at `T = 8` is near a thread's 2 MiB).
#[inline(always)]
fn newton_schulz_step<S: Field, const T: usize>(q: &mut SMatrix<S, T, T>) {
    let mut h = product::tr_mul(q, q);
    let half = S::one() / (S::one() + S::one());
    for j in 0..T {
        for i in 0..T {
            let identity = if i == j { S::one() } else { S::zero() };
            h[(i, j)] = (identity - h[(i, j)]) * half;
        }
    }
    for i in 0..T {
        // Row i of Λ, read before it is overwritten.
        let row: [S; T] = core::array::from_fn(|k| q[(i, k)]);
        for j in 0..T {
            q[(i, j)] += product::sum_of_products(
                T,
                #[inline(always)]
                |k| (row[k], h[(k, j)]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix2, Matrix3};
    use num_rational::Ratio;

    use super::*;

    #[test]
    fn only_f32_and_coarser_are_polished() {
        assert!(rounds_as_coarsely_as_f32::<f32>());
        assert!(!rounds_as_coarsely_as_f32::<f64>());
        assert!(!rounds_as_coarsely_as_f32::<Ratio<i64>>());
        assert!(rounds_as_coarsely_as_f32::<crate::lanes::Lanes<f32, 4>>());
        assert!(!rounds_as_coarsely_as_f32::<crate::lanes::Lanes<f64, 2>>());
    }

    #[test]
    fn an_exactly_orthogonal_matrix_is_unchanged() {
        let q = Matrix2::new(0.6_f32, 0.8, -0.8, 0.6);
        let mut stepped = q;
        newton_schulz_step(&mut stepped);
        assert_eq!(stepped, q);
        let r = |n, d| Ratio::<i64>::new(n, d);
        let q = Matrix3::new(
            r(1, 3),
            r(2, 3),
            r(2, 3),
            r(2, 3),
            r(1, 3),
            r(-2, 3),
            r(2, 3),
            r(-2, 3),
            r(1, 3),
        );
        let mut stepped = q;
        newton_schulz_step(&mut stepped);
        assert_eq!(stepped, q);
    }

    #[test]
    fn each_step_squares_the_orthogonality_error() {
        // A rotation by 0.3 with its first column stretched by 1 + δ: ΛᵀΛ − I ≈ 2δ in one entry.
        let (c, s) = (0.3_f64.cos(), 0.3_f64.sin());
        for delta in [1e-2, 1e-3] {
            let q = Matrix2::new(c * (1.0 + delta), -s, s * (1.0 + delta), c);
            let error = |q: &Matrix2<f64>| (q.transpose() * q - Matrix2::identity()).amax();
            let mut once = q;
            newton_schulz_step(&mut once);
            assert!(error(&q) > delta, "{}", error(&q));
            // −¾F² with F = 2δ: 3δ².
            assert!(error(&once) < 4.0 * delta * delta, "{}", error(&once));
            assert!(error(&once) > 2.0 * delta * delta, "{}", error(&once));
        }
    }

    #[test]
    fn f64_is_left_alone_and_f32_is_polished() {
        let q = Matrix2::new(1.001_f64, 0.0, 0.0, 1.0);
        assert_eq!(polished(q), q);
        let q32 = Matrix2::new(1.001_f32, 0.0, 0.0, 1.0);
        let p = polished(q32);
        assert_ne!(p, q32);
        assert!((p.transpose() * p - Matrix2::identity()).amax() < 1e-6);
    }
}
