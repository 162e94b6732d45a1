//! Plain softmax self-attention `Z ↦ Z · σ(C(Z))`, the non-geometric baseline, with a pluggable
//! correlation `C`.
//!
//! `σ` normalises each column of `C` over the first index ([`VectorSoftmax`], max-shifted), so
//! output column `j` is a convex combination `Σ_i σ(C)[i,j] z_i` of the inputs. `C` is any
//! [`Correlation`] (the table in [`crate::correlation`]: bilinear, low-rank, additive, or one of
//! the skew ones).
//!
//! ```
//! use geomattn::{Bilinear, SequenceLayer, SoftmaxAttention, nalgebra::{Matrix2, Matrix2x3}};
//! let layer = SoftmaxAttention::new(Bilinear::new(Matrix2::<f64>::zeros()));
//! // C = 0: every column of σ(C) is uniform, every output column the mean of the inputs.
//! let z = Matrix2x3::new(1.0, 2.0, 3.0,
//!                        0.0, 0.0, 3.0);
//! let out: Matrix2x3<f64> = layer.forward(&z);
//! assert!((out - Matrix2x3::new(2.0, 2.0, 2.0, 1.0, 1.0, 1.0)).amax() < 1e-15);
//! ```

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrixView, SMatrixViewMut};

use crate::SequenceLayer;
use crate::correlation::Correlation;
use crate::softmax::{Softmax, VectorSoftmax};

/// `Z ↦ Z · σ(C(Z))` with correlation `Corr` and softmax `Sm` (default: column-wise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftmaxAttention<Corr, Sm = VectorSoftmax> {
    correlation: Corr,
    softmax: PhantomData<Sm>,
}

impl<Corr> SoftmaxAttention<Corr> {
    /// The layer with the given correlation and the column-wise softmax.
    pub const fn new(correlation: Corr) -> Self {
        Self {
            correlation,
            softmax: PhantomData,
        }
    }
}

impl<Corr, Sm> SoftmaxAttention<Corr, Sm> {
    /// The same correlation with another softmax (e.g. [`crate::MatrixSoftmax`]).
    pub fn with_softmax<Sm2>(self) -> SoftmaxAttention<Corr, Sm2> {
        SoftmaxAttention {
            correlation: self.correlation,
            softmax: PhantomData,
        }
    }

    /// The correlation.
    pub fn correlation(&self) -> &Corr {
        &self.correlation
    }
}

impl<S, const D: usize, const T: usize, Corr, Sm> SequenceLayer<S, D, T>
    for SoftmaxAttention<Corr, Sm>
where
    S: RealField + Copy,
    Corr: Correlation<S, D>,
    Sm: Softmax,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut weights = self.correlation.correlation(&z);
        Sm::apply_in_place(&mut weights);
        z.mul_to(&weights, &mut out);
    }
}
