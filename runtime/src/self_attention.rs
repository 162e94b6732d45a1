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

use nalgebra::{SMatrixView, SMatrixViewMut};

use crate::activation::{Identity, Tanh};
use crate::correlation::Correlation;
use crate::correlation::{Additive, ArbitraryWeight, Bilinear, LowRank, SkewWeight};
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::product;
use crate::scalar::{Field, MapScalar, Real};
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
    S: Real,
    Corr: Correlation<S, D>,
    Sm: Softmax,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut weights = self.correlation.correlation(&z);
        Sm::apply_in_place(&mut weights);
        product::mul_to(&z, &weights, &mut out);
    }
}

/// The same layer over another scalar, weight by weight.
impl<Corr: MapScalar, Sm> MapScalar for SoftmaxAttention<Corr, Sm> {
    type Scalar = Corr::Scalar;
    type Over<S2: Field> = SoftmaxAttention<Corr::Over<S2>, Sm>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2> {
        SoftmaxAttention {
            correlation: self.correlation.map_scalar(f),
            softmax: PhantomData,
        }
    }
}

/// The lane twins of every correlation (with GML's activations for the additive one) and every
/// softmax.
macro_rules! lane_twins {
    ($([$($params:tt)*] $corr:ident<$($args:tt),*>),* $(,)?) => {$(
        impl<S: Field, const D: usize, const T: usize, $($params)* Sm: Softmax> LaneTwin<D, T>
            for SoftmaxAttention<$corr<S, $($args),*>, Sm>
        {
            type Twin<X: Real> = SoftmaxAttention<$corr<X, $($args),*>, Sm>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

lane_twins!(
    [] Bilinear<D>,
    [const RANK: usize,] LowRank<D, RANK>,
    [const HIDDEN: usize,] Additive<D, HIDDEN, Tanh>,
    [const HIDDEN: usize,] Additive<D, HIDDEN, Identity>,
    [] SkewWeight<D>,
    [] ArbitraryWeight<D>,
);
