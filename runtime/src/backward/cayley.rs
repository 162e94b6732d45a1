//! The derivative of the Cayley transform, shared by every kernel that computes it.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, SMatrix};

use crate::cayley::{Elimination, Generated, GramSchmidt, LuSolve, NalgebraInverse};
use crate::orthogonal::OrthogonalMap;
use crate::product;
use crate::scalar::Field;
use crate::workspace::{Fresh, Workspace};

/// An [`OrthogonalMap`] computing the Cayley transform `Λ = (I − C)(I + C)⁻¹`, whose
/// vector-Jacobian product is therefore [`cayley_vjp`] of its own output.
///
/// The exponentials ([`crate::Exp`], [`crate::ScalingSquaring`]) compute another function and do
/// not implement it.
pub trait CayleyDifferentiable<S: Field, const T: usize>: OrthogonalMap<S, T> {}

impl<S: Field, const T: usize> CayleyDifferentiable<S, T> for Generated where
    Generated: OrthogonalMap<S, T>
{
}
impl<S: Field, const T: usize> CayleyDifferentiable<S, T> for GramSchmidt where
    GramSchmidt: OrthogonalMap<S, T>
{
}
impl<S: Field, const T: usize> CayleyDifferentiable<S, T> for Elimination where
    Elimination: OrthogonalMap<S, T>
{
}
impl<S: Field, const T: usize> CayleyDifferentiable<S, T> for LuSolve where
    LuSolve: OrthogonalMap<S, T>
{
}
impl<S: Field, const T: usize> CayleyDifferentiable<S, T> for NalgebraInverse where
    NalgebraInverse: OrthogonalMap<S, T>
{
}

/// `∂L/∂C` from `Λ = Cay(C)` and `Λ̄ = ∂L/∂Λ`: with `Λ = 2(I + C)⁻¹ − I`,
/// `dΛ = −½ (Λ + I) dC (Λ + I)`, so `C̄ = −½ (Λ + I)ᵀ Λ̄ (Λ + I)ᵀ`.
///
/// Only the skew part of `C̄` acts on a skew `C`; the full matrix is returned, and a caller whose
/// `C` is skew by construction may back-propagate it as it is.
///
/// ```
/// use geomattn::{cayley_vjp, nalgebra::Matrix2};
/// // T = 2, C = [[0, −c], [c, 0]]: Cay(C) = [[cos θ, sin θ], [−sin θ, cos θ]], θ = 2·atan(c).
/// let c = 0.5_f64;
/// let theta = 2.0 * c.atan();
/// let lambda = Matrix2::new(theta.cos(), theta.sin(), -theta.sin(), theta.cos());
/// // L = Λ[1, 0] = −sin θ, so dL/dc = −cos θ · 2/(1 + c²), shared by C[1,0] = c and C[0,1] = −c.
/// let lambda_bar = Matrix2::new(0.0, 0.0, 1.0, 0.0);
/// let c_bar = cayley_vjp(&lambda, &lambda_bar);
/// let expected = -theta.cos() * 2.0 / (1.0 + c * c);
/// assert!((c_bar[(1, 0)] - c_bar[(0, 1)] - expected).abs() < 1e-15);
/// ```
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn cayley_vjp<S: Field, const T: usize>(
    lambda: &SMatrix<S, T, T>,
    lambda_bar: &SMatrix<S, T, T>,
) -> SMatrix<S, T, T> {
    cayley_pullback(lambda, lambda_bar, &mut Fresh)
}

/// [`cayley_vjp`] for every size (nalgebra's [`Dim`]), on matrices of `workspace`: the one place
/// it is written, run by the compile-time layers ([`Fresh`]) and the engine's (its scratch).
/// `C̄ = (−½ ((Λ + I)ᵀ Λ̄)) (Λ + I)ᵀ` (halving is exact: the same bits as `(−½ (Λ + I)ᵀ) Λ̄`).
#[inline(always)]
pub(crate) fn cayley_pullback<S: Field, T: Dim, W: Workspace<S>>(
    lambda: &OMatrix<S, T, T>,
    lambda_bar: &OMatrix<S, T, T>,
    workspace: &mut W,
) -> OMatrix<S, T, T>
where
    DefaultAllocator: Allocator<T, T>,
{
    let (t, _) = lambda.shape_generic();
    let half = S::one() / (S::one() + S::one());
    let mut shifted_t = workspace.build(
        t,
        t,
        #[inline(always)]
        |i, j| {
            if i == j {
                lambda[(j, i)] + S::one()
            } else {
                lambda[(j, i)]
            }
        },
    );
    let mut left = workspace.mul(&shifted_t, lambda_bar);
    product::update(
        &mut left,
        #[inline(always)]
        |entry, _, _| -(entry * half),
    );
    let c_bar = workspace.mul(&left, &shifted_t);
    workspace.recycle_all([&mut shifted_t, &mut left]);
    c_bar
}
