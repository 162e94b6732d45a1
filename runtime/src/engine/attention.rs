//! GML's volume-preserving attention at run-time sizes.

use nalgebra::{DMatrix, RealField};

use super::backward::{column_major, dot_rows, transpose};
use super::{Backward, Element, Forward, Scratch, cayley, matrix, mul, tr_mul};
use crate::correlation::{gml_scale, skew_of_lower_in_place};
use crate::error::Error;
use crate::packed::{PackedLayout, Skew, add_folded, dense_from_packed};
use crate::scalar::{Field, MapScalar};

/// GML's `VolumePreservingAttention(dim, seq_length; skew_sym)`: `Z ↦ Z·Cay(C(Z))`, the
/// compile-time [`crate::VolumePreservingAttention`] with its default Cayley kernel, whose
/// correlations it runs.
#[derive(Debug, Clone)]
pub struct VolumePreservingAttention<S> {
    weight: Weighting<S>,
    seq: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Weighting<S> {
    /// `skew_sym = true`: `C = Zᵀ A Z`.
    Skew(DMatrix<S>),
    /// `skew_sym = false`: `C = L − Lᵀ`, `L` the strict lower part of `Zᵀ A Z / √dim`.
    Arbitrary(DMatrix<S>, S),
}

impl<S: Field + RealField> VolumePreservingAttention<S> {
    /// GML's `skew_sym = true` layer on sequences of length `seq`, from `A`'s packed entries
    /// (GML's `SkewSymMatrix` vector `S`).
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `a` does not have `dim(dim−1)/2` entries.
    pub fn skew_sym(dim: usize, seq: usize, a: &[S]) -> Result<Self, Error> {
        let a = dense_from_packed::<S, Skew>(dim, a)?;
        Ok(Self::with(Weighting::Skew(a), seq))
    }

    /// GML's default (`skew_sym = false`) layer on sequences of length `seq`, from `A` (`dim×dim`,
    /// column-major, as Julia stores it), scaled by `1/√dim`.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `a` does not have `dim²` entries.
    pub fn arbitrary(dim: usize, seq: usize, a: &[S]) -> Result<Self, Error> {
        let a = matrix("A", dim, dim, a)?;
        Ok(Self::with(Weighting::Arbitrary(a, gml_scale(dim)), seq))
    }

    fn with(weight: Weighting<S>, seq: usize) -> Self {
        Self { weight, seq }
    }

    /// The skew `seq×seq` correlation matrix `C` of `z`.
    ///
    /// # Errors
    /// [`Error::SequenceShape`] if `z` is not `dim×seq`.
    pub fn correlation(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error> {
        self.check_shape(z)?;
        Ok(self.correlation_unchecked(z, &mut Scratch::new()))
    }

    /// The orthogonal `seq×seq` matrix `Cay(C)` of the skew `C` (its strict upper triangle).
    ///
    /// # Errors
    /// [`Error::SequenceShape`] if `c` is not `seq×seq`.
    pub fn cayley(&self, c: &DMatrix<S>) -> Result<DMatrix<S>, Error> {
        if c.shape() != (self.seq, self.seq) {
            return Err(Error::SequenceShape {
                layer: "Cay",
                expected_rows: self.seq,
                expected_cols: self.seq,
                found_rows: c.nrows(),
                found_cols: c.ncols(),
            });
        }
        let mut q = DMatrix::identity(self.seq, self.seq);
        cayley::product(&mut q, c, &mut Scratch::new());
        Ok(q)
    }
}

impl<S: Element> VolumePreservingAttention<S> {
    /// The correlation of `z`, on a buffer of `scratch`.
    fn correlation_unchecked(&self, z: &DMatrix<S>, scratch: &mut Scratch<S>) -> DMatrix<S> {
        let (a, scale) = match &self.weight {
            Weighting::Skew(a) => (a, None),
            Weighting::Arbitrary(a, scale) => (a, Some(*scale)),
        };
        // `Zᵀ (A Z)` whole (the products of the scalar), its strict lower part the correlation's
        // sums in their order.
        let az = mul(a, z, scratch);
        let mut c = tr_mul(z, &az, scratch);
        scratch.recycle(az);
        skew_of_lower_in_place(&mut c, scale);
        c
    }
}

impl<S: Element> Forward<S> for VolumePreservingAttention<S> {
    fn name(&self) -> &'static str {
        "VolumePreservingAttention"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        let a = match &self.weight {
            Weighting::Skew(a) | Weighting::Arbitrary(a, _) => a,
        };
        (a.nrows(), Some(self.seq))
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let c = self.correlation_unchecked(z, scratch);
        cayley::product(z, &c, scratch);
        scratch.recycle(c);
    }
}

/// `out = Z Λ`, `Λ = Cay(C)`: `Z̄ = Ō Λᵀ`, and through `C̄ = −½ (Λ + I)ᵀ (Zᵀ Ō) (Λ + I)ᵀ`
/// (the derivative of `Λ = 2(I + C)⁻¹ − I`), the correlation's share. Both weightings build
/// `C = L − Lᵀ` from `L = s·(Zᵀ A Z)` below the diagonal (`s = 1` for the skew one), so with
/// `M̄ = s·(C̄ − C̄ᵀ)` below the diagonal: `Z̄ += A Z M̄ᵀ + Aᵀ Z M̄` and `∂L/∂A = Z M̄ Zᵀ`, whose
/// packed entries for a skew `A` are `(G − Gᵀ)` at their positions, `G = Z M̄ Zᵀ`.
impl<S: Element> Backward<S> for VolumePreservingAttention<S> {
    fn parameter_count(&self) -> usize {
        match &self.weight {
            Weighting::Skew(a) => Skew::packed_len(a.nrows()),
            Weighting::Arbitrary(a, _) => a.len(),
        }
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let (a, scale) = match &self.weight {
            Weighting::Skew(a) => (a, S::one()),
            Weighting::Arbitrary(a, scale) => (a, *scale),
        };
        let c = self.correlation_unchecked(z, scratch);
        let mut lambda = scratch.zeros(self.seq, self.seq);
        lambda.fill_with_identity();
        cayley::product(&mut lambda, &c, scratch);
        scratch.recycle(c);
        // Λ̄ = Zᵀ Ō, then Z̄ = Ō Λᵀ.
        let lambda_bar = tr_mul(z, &*bar, scratch);
        let mut shifted = transpose(&lambda, scratch);
        scratch.recycle(lambda);
        let z_bar = mul(&*bar, &shifted, scratch);
        scratch.replace(bar, z_bar);
        // C̄ = −½ P Λ̄ P with P = (Λ + I)ᵀ; M̄ = s·(C̄ − C̄ᵀ) below the diagonal.
        for i in 0..self.seq {
            shifted[(i, i)] += S::one();
        }
        let left = mul(&shifted, &lambda_bar, scratch);
        scratch.recycle(lambda_bar);
        let c_bar = mul(&left, &shifted, scratch);
        scratch.recycle(left);
        let minus_half = -(S::one() / (S::one() + S::one()));
        let mut m_bar = shifted;
        for j in 0..self.seq {
            for i in 0..self.seq {
                m_bar[(i, j)] = if i > j {
                    (c_bar[(i, j)] - c_bar[(j, i)]) * minus_half * scale
                } else {
                    S::zero()
                };
            }
        }
        scratch.recycle(c_bar);
        // Z̄ += A (Z M̄ᵀ) + Aᵀ (Z M̄).
        let m_bar_t = transpose(&m_bar, scratch);
        let z_m = mul(z, &m_bar, scratch);
        let z_m_t = mul(z, &m_bar_t, scratch);
        scratch.recycle(m_bar);
        scratch.recycle(m_bar_t);
        let from_transposed = mul(a, &z_m_t, scratch);
        let from_own = tr_mul(a, &z_m, scratch);
        *bar += &from_transposed;
        *bar += &from_own;
        scratch.recycle(from_transposed);
        scratch.recycle(from_own);
        scratch.recycle(z_m_t);
        // ∂L/∂A = (Z M̄) Zᵀ, packed as the weighting holds A.
        match &self.weight {
            Weighting::Skew(_) => {
                add_folded::<S, Skew>(a.nrows(), |i, j| dot_rows(&z_m, i, z, j), gradient);
            }
            Weighting::Arbitrary(..) => {
                for ((i, j), g) in column_major(a.nrows(), a.ncols()).zip(gradient.iter_mut()) {
                    *g += dot_rows(&z_m, i, z, j);
                }
            }
        }
        scratch.recycle(z_m);
    }
}

impl<S: Field> MapScalar for VolumePreservingAttention<S> {
    type Scalar = S;
    type Over<X: Field> = VolumePreservingAttention<X>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(S) -> X) -> Self::Over<X> {
        let weight = match &self.weight {
            Weighting::Skew(a) => Weighting::Skew(a.map(&mut f)),
            Weighting::Arbitrary(a, scale) => Weighting::Arbitrary(a.map(&mut f), f(*scale)),
        };
        VolumePreservingAttention {
            weight,
            seq: self.seq,
        }
    }
}
