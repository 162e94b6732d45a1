//! GML's `VolumePreservingAttention(dim, seq_length; skew_sym)`: output `Z · Cay(C)`.
//!
//! Two weightings, both exactly as GML computes them:
//!
//! - [`SkewWeight`] (`skew_sym = true`): `A` skew-symmetric, `C = Zᵀ A Z`, **no** `1/√dim`. The map
//!   `Z ↦ Z·Cay(C(Z))` is volume-preserving: the determinant of its Jacobian on `R^{D×T}` is 1.
//! - [`ArbitraryWeight`] (`skew_sym = false`, GML's default): `A` dense `D×D`,
//!   `L[i,j] = z_iᵀ A z_j / √dim` for `i > j`, `C = L − Lᵀ`. `Cay(C)` is still orthogonal, so each
//!   output is an orthogonal reweighting of the inputs, but the map is **not** volume-preserving in
//!   general (its Jacobian determinant differs from ±1; the test suite checks a case).
//!
//! `T` only selects the Cayley kernel `K` (specialised per `T`); it adds no parameters.
//!
//! ```
//! use geomattn::{SequenceLayer, SkewSymmetric, VolumePreservingAttention, nalgebra::Matrix3};
//! let a = SkewSymmetric::<f64, 3>::from_packed(&[1.0, 2.0, 3.0])?;
//! let layer = VolumePreservingAttention::<f64, 3, 3, _>::skew_sym(a);
//! let z = Matrix3::new(1.0, 0.0, 1.0,
//!                      0.0, 1.0, 1.0,
//!                      1.0, 1.0, 0.0);
//! let expected = Matrix3::new(29.0, -36.0, -59.0,
//!                             -40.0, -7.0, -63.0,
//!                             -27.0, -67.0, -20.0) / 53.0;
//! assert!((layer.forward(&z) - expected).amax() < 1e-14);
//! # Ok::<(), geomattn::Error>(())
//! ```

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};
use rand::Rng;

use crate::correlation::{lower_correlation, skew_from_lower};
use crate::{Cayley, DefaultCayley, Field, SequenceLayer, SkewSymmetric, init};

/// How a volume-preserving attention layer turns a sequence into its skew correlation matrix.
pub trait Weighting<S: Field, const D: usize> {
    /// The skew-symmetric `T×T` matrix `C` of the sequence `z`.
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T>;
}

/// GML's `skew_sym = true` weighting: `C = Zᵀ A Z` with `A` skew-symmetric, unscaled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkewWeight<S, const D: usize> {
    a: SkewSymmetric<S, D>,
}

/// GML's `skew_sym = false` weighting: `L[i,j] = z_iᵀ A z_j · scale` for `i > j`, `C = L − Lᵀ`,
/// with `scale = 1/√D`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArbitraryWeight<S, const D: usize> {
    a: SMatrix<S, D, D>,
    scale: S,
}

impl<S: Field, const D: usize> SkewWeight<S, D> {
    /// The weight `A`.
    pub fn a(&self) -> &SkewSymmetric<S, D> {
        &self.a
    }
}

impl<S: Field, const D: usize> ArbitraryWeight<S, D> {
    /// The weight `A` (`D×D`, in Julia's orientation: `L[i,j] = z_iᵀ A z_j / √D`).
    pub fn a(&self) -> &SMatrix<S, D, D> {
        &self.a
    }

    /// The factor applied to `L`; GML's is `1/√D`.
    pub fn scale(&self) -> S {
        self.scale
    }
}

impl<S: Field, const D: usize> Weighting<S, D> for SkewWeight<S, D> {
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        // For skew A, z_jᵀ A z_i = −z_iᵀ A z_j, so Zᵀ A Z is L − Lᵀ with L its strict lower part.
        skew_from_lower(&lower_correlation(z, self.a.matrix()))
    }
}

impl<S: Field, const D: usize> Weighting<S, D> for ArbitraryWeight<S, D> {
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        skew_from_lower(&(lower_correlation(z, &self.a) * self.scale))
    }
}

/// Volume-preserving attention on sequences of `T` vectors in `R^D`, with weighting `W` and
/// Cayley kernel `K`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumePreservingAttention<S, const D: usize, const T: usize, W, K = DefaultCayley> {
    weight: W,
    kernel: PhantomData<(S, K)>,
}

/// `VolumePreservingAttention` with GML's `skew_sym = true` weighting.
pub type SkewVpa<S, const D: usize, const T: usize, K = DefaultCayley> =
    VolumePreservingAttention<S, D, T, SkewWeight<S, D>, K>;
/// `VolumePreservingAttention` with GML's default, arbitrary weighting.
pub type ArbitraryVpa<S, const D: usize, const T: usize, K = DefaultCayley> =
    VolumePreservingAttention<S, D, T, ArbitraryWeight<S, D>, K>;

impl<S: Field, const D: usize, const T: usize, W: Weighting<S, D>, K>
    VolumePreservingAttention<S, D, T, W, K>
{
    /// The layer's weighting.
    pub fn weight(&self) -> &W {
        &self.weight
    }

    /// The same weights with another Cayley kernel (e.g. a baseline, for comparison).
    pub fn with_kernel<K2>(self) -> VolumePreservingAttention<S, D, T, W, K2> {
        VolumePreservingAttention {
            weight: self.weight,
            kernel: PhantomData,
        }
    }

    /// The skew correlation matrix `C` of one sequence.
    pub fn correlation(&self, z: &SMatrix<S, D, T>) -> SMatrix<S, T, T> {
        self.weight.correlation(&z.as_view())
    }
}

impl<S: Field, const D: usize, const T: usize, K> SkewVpa<S, D, T, K> {
    /// GML's `skew_sym = true` layer with weight `A`.
    pub fn skew_sym(a: SkewSymmetric<S, D>) -> Self {
        Self {
            weight: SkewWeight { a },
            kernel: PhantomData,
        }
    }
}

impl<S: Field, const D: usize, const T: usize, K> SkewVpa<S, D, T, K> {
    /// The same layer over another scalar, weight by weight (see [`SkewSymmetric::map_scalar`]).
    pub fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> SkewVpa<S2, D, T, K> {
        SkewVpa::skew_sym(self.weight.a.map_scalar(f))
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, K> SkewVpa<S, D, T, K> {
    /// GML's initialisation: the `D(D−1)/2` packed entries of `A` from U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::skew_sym(SkewSymmetric::glorot(rng))
    }
}

impl<S: Field, const D: usize, const T: usize, K> ArbitraryVpa<S, D, T, K> {
    /// The arbitrary weighting with an explicit factor instead of `1/√D`: for scalars without a
    /// square root (exact rationals, where `1/√D` is rational only for square `D`).
    pub fn arbitrary_with_scale(a: SMatrix<S, D, D>, scale: S) -> Self {
        Self {
            weight: ArbitraryWeight { a, scale },
            kernel: PhantomData,
        }
    }
}

impl<S: Field, const D: usize, const T: usize, K> ArbitraryVpa<S, D, T, K> {
    /// The same layer over another scalar, weight by weight (the scale included).
    pub fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> ArbitraryVpa<S2, D, T, K> {
        let scale = f(self.weight.scale);
        ArbitraryVpa::arbitrary_with_scale(self.weight.a.map(f), scale)
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, K> ArbitraryVpa<S, D, T, K> {
    /// GML's default (`skew_sym = false`) layer with weight `A` (`D×D`), scaled by `1/√D`.
    pub fn arbitrary(a: SMatrix<S, D, D>) -> Self {
        let scale = S::one() / nalgebra::convert::<f64, S>(D as f64).sqrt();
        Self::arbitrary_with_scale(a, scale)
    }

    /// GML's initialisation: `A` from U(−√(6/2D), √(6/2D)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::arbitrary(init::glorot_dense(rng))
    }
}

impl<S, const D: usize, const T: usize, W, K> SequenceLayer<S, D, T>
    for VolumePreservingAttention<S, D, T, W, K>
where
    S: Field,
    W: Weighting<S, D>,
    K: Cayley<S, T>,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let lambda = K::cayley(&self.weight.correlation(&z));
        z.mul_to(&lambda, &mut out);
    }
}
