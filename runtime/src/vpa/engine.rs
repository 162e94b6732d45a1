//! GML's volume-preserving attention at run-time sizes.

use nalgebra::{DMatrix, RealField};

use super::backward::correlation_pullback;
use crate::backward::cayley_pullback;
use crate::correlation::{gml_scale, skew_of_lower_in_place};
use crate::engine::backward::transpose;
use crate::engine::{Backward, Element, Forward, Scratch, cayley, matrix, mul, tr_mul};
use crate::error::Error;
use crate::packed::{PackedLayout, Skew, dense_from_packed};
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

/// `out = Z Λ`, `Λ = Cay(C)`: `Z̄ = Ō Λᵀ`, plus the correlation's share through
/// `C̄ = cayley_vjp(Λ, Zᵀ Ō)`, by the compile-time layer's kernels (`cayley_pullback`,
/// `correlation_pullback`) on the scratch.
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
            Weighting::Skew(a) => (a, None),
            Weighting::Arbitrary(a, scale) => (a, Some(*scale)),
        };
        let c = self.correlation_unchecked(z, scratch);
        let mut lambda = scratch.zeros(self.seq, self.seq);
        lambda.fill_with_identity();
        cayley::product(&mut lambda, &c, scratch);
        scratch.recycle(c);
        let lambda_bar = tr_mul(z, &*bar, scratch);
        let c_bar = cayley_pullback(&lambda, &lambda_bar, scratch);
        scratch.recycle(lambda_bar);
        let lambda_t = transpose(&lambda, scratch);
        scratch.recycle(lambda);
        let mut z_bar = mul(&*bar, &lambda_t, scratch);
        scratch.recycle(lambda_t);
        let a_bar = correlation_pullback(a, scale, (z, &c_bar), &mut z_bar, scratch);
        scratch.replace(bar, z_bar);
        // `Ā` entry by entry (column-major, as the arbitrary `A` is stored), or at the skew
        // `A`'s packed positions.
        match &self.weight {
            Weighting::Skew(_) => {
                for ((i, j), g) in Skew::positions(a.nrows()).zip(gradient.iter_mut()) {
                    *g += a_bar[(i, j)];
                }
            }
            Weighting::Arbitrary(..) => {
                for (g, entry) in gradient.iter_mut().zip(a_bar.iter()) {
                    *g += *entry;
                }
            }
        }
        for m in [c_bar, a_bar] {
            scratch.recycle(m);
        }
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

#[cfg(test)]
mod tests {
    use std::vec;
    use std::vec::Vec;

    use nalgebra::SMatrix;

    use super::*;
    use crate::backward::Backward as _;
    use crate::engine::sample::{dynamic, values};
    use crate::packed::SkewSymmetric;
    use crate::vpa::{ArbitraryVpa, SkewVpa};

    /// The engine's backward pass (its scratch used twice) and its gradient's packed order
    /// against the compile-time layer's, bit for bit, for both weightings.
    fn same_bits<const D: usize, const T: usize>() {
        let (z, out_bar) = (values::<D, T>(1.1), values::<D, T>(2.9));
        let a: SMatrix<f64, D, D> = values(0.3);
        let packed: Vec<f64> = Skew::positions(D).map(|(i, j)| a[(i, j)]).collect();
        let skew = SkewVpa::<f64, D, T>::skew_sym(SkewSymmetric::from_packed(&packed).unwrap());
        let mut skew_gradient = skew.zero_gradient();
        let skew_bar = skew.backward(&z, &out_bar, &mut skew_gradient);
        let mut expected = vec![0.0; packed.len()];
        skew_gradient
            .weight()
            .a()
            .write_packed(&mut expected)
            .unwrap();
        let arbitrary = ArbitraryVpa::<f64, D, T>::arbitrary(a);
        let mut arbitrary_gradient = arbitrary.zero_gradient();
        let arbitrary_bar = arbitrary.backward(&z, &out_bar, &mut arbitrary_gradient);
        let engines = [
            VolumePreservingAttention::skew_sym(D, T, &packed).unwrap(),
            VolumePreservingAttention::arbitrary(D, T, a.as_slice()).unwrap(),
        ];
        let expected = [
            (skew_bar, expected),
            (
                arbitrary_bar,
                arbitrary_gradient.weight().a().as_slice().to_vec(),
            ),
        ];
        let mut scratch = Scratch::new();
        for (engine, (z_bar, gradient)) in engines.iter().zip(&expected) {
            for run in 0..2 {
                let mut bar = dynamic(&out_bar);
                let mut found = vec![0.0; gradient.len()];
                engine.backward_in_place(&dynamic(&z), &mut bar, &mut found, &mut scratch);
                assert_eq!(bar.as_slice(), z_bar.as_slice(), "{D}×{T}, run {run}");
                assert_eq!(&found, gradient, "{D}×{T}, run {run}");
            }
        }
    }

    #[test]
    fn the_backward_pass_is_the_compiled_layers_bit_for_bit() {
        same_bits::<2, 1>();
        same_bits::<2, 3>();
        same_bits::<3, 4>();
        same_bits::<4, 2>();
        same_bits::<5, 4>();
    }
}
