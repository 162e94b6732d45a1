//! Plain softmax self-attention `Z ↦ Z · σ(C(Z))`, the non-geometric baseline, with a pluggable
//! correlation `C`.
//!
//! `σ` normalises each column of `C` over the first index ([`VectorSoftmax`], max-shifted), so
//! output column `j` is a convex combination `Σ_i σ(C)[i,j] z_i` of the inputs. The correlations,
//! all `T×T` with `C[i,j]` pairing row `i` with column `j`:
//!
//! | type | `C[i,j]` | cost per sequence |
//! |---|---|---|
//! | [`Bilinear`] | `z_iᵀ W z_j`, `C = Zᵀ W Z` | `D²T + DT²` |
//! | [`LowRank`] | `(W_Uᵀ z_i) · (W_Vᵀ z_j)`, i.e. `W = W_U W_Vᵀ` of rank `K` | `2DKT + KT²` |
//! | [`Additive`] | `vᵀ σ(W z_i + U z_j)` (σ = tanh by default) | `2HDT + HT²` |
//!
//! [`LowRank`] never forms `W`: it multiplies `Z` by the two `D×K` factors, which is cheaper
//! than the dense form whenever `2K < D`.
//!
//! ```
//! use geomattn::self_attention::{Bilinear, SoftmaxAttention};
//! use geomattn::{SequenceLayer, nalgebra::{Matrix2, Matrix2x3}};
//! let layer = SoftmaxAttention::new(Bilinear::new(Matrix2::<f64>::zeros()));
//! // C = 0: every column of σ(C) is uniform, every output column the mean of the inputs.
//! let z = Matrix2x3::new(1.0, 2.0, 3.0,
//!                        0.0, 0.0, 3.0);
//! let out: Matrix2x3<f64> = layer.forward(&z);
//! assert!((out - Matrix2x3::new(2.0, 2.0, 2.0, 1.0, 1.0, 1.0)).amax() < 1e-15);
//! ```

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use rand::Rng;

use crate::activation::{Activation, Tanh};
use crate::softmax::{Softmax, VectorSoftmax};
use crate::{Field, SequenceLayer, init};

/// How an attention layer scores every pair of time steps of a sequence.
pub trait Correlation<S: Field, const D: usize> {
    /// The `T×T` matrix `C` of the sequence `z`.
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T>;
}

/// `C = Zᵀ W Z` with `W` dense `D×D` (no scaling).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bilinear<S, const D: usize> {
    w: SMatrix<S, D, D>,
}

/// `C = (W_Uᵀ Z)ᵀ (W_Vᵀ Z)`: the bilinear form of `W = W_U W_Vᵀ`, rank at most `K`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowRank<S, const D: usize, const K: usize> {
    u: SMatrix<S, D, K>,
    v: SMatrix<S, D, K>,
}

/// `C[i,j] = vᵀ σ(W z_i + U z_j)` with `W, U ∈ R^{H×D}`, `v ∈ R^H` (Bahdanau's additive score;
/// `W` acts on the row index as `PQ` does in GML's `C = QᵀK`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Additive<S, const D: usize, const H: usize, A = Tanh> {
    w: SMatrix<S, H, D>,
    u: SMatrix<S, H, D>,
    v: SVector<S, H>,
    activation: PhantomData<A>,
}

impl<S: Field, const D: usize> Bilinear<S, D> {
    /// The correlation with weight `W`.
    pub fn new(w: SMatrix<S, D, D>) -> Self {
        Self { w }
    }

    /// The weight `W`.
    pub fn w(&self) -> &SMatrix<S, D, D> {
        &self.w
    }
}

impl<S: RealField + Copy, const D: usize> Bilinear<S, D> {
    /// `W` GlorotUniform, U(−√(6/2D), √(6/2D)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(init::glorot_dense(rng))
    }
}

impl<S: Field, const D: usize, const K: usize> LowRank<S, D, K> {
    /// The correlation of `W = W_U W_Vᵀ`, from the factors `W_U` and `W_V` (`D×K` each).
    pub fn new(u: SMatrix<S, D, K>, v: SMatrix<S, D, K>) -> Self {
        Self { u, v }
    }

    /// The dense `W = W_U W_Vᵀ` (for comparison; the layer never forms it).
    pub fn dense(&self) -> Bilinear<S, D> {
        Bilinear::new(self.u * self.v.transpose())
    }
}

impl<S: RealField + Copy, const D: usize, const K: usize> LowRank<S, D, K> {
    /// Both factors GlorotUniform, U(−√(6/(D+K)), √(6/(D+K))).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let u = init::glorot_dense(rng);
        Self::new(u, init::glorot_dense(rng))
    }
}

impl<S: Field, const D: usize, const H: usize, A> Additive<S, D, H, A> {
    /// The correlation `vᵀ σ(W z_i + U z_j)`.
    pub fn new(w: SMatrix<S, H, D>, u: SMatrix<S, H, D>, v: SVector<S, H>) -> Self {
        Self {
            w,
            u,
            v,
            activation: PhantomData,
        }
    }
}

impl<S: RealField + Copy, const D: usize, const H: usize, A> Additive<S, D, H, A> {
    /// `W`, `U` GlorotUniform (U(−√(6/(H+D)), …)) and `v` from U(−√(6/H), √(6/H)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let w = init::glorot_dense(rng);
        let u = init::glorot_dense(rng);
        let bound = init::glorot_bound::<S>(H);
        Self::new(w, u, SVector::from_fn(|_, _| init::uniform(rng, bound)))
    }
}

impl<S: Field, const D: usize> Correlation<S, D> for Bilinear<S, D> {
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        z.tr_mul(&(self.w * z))
    }
}

impl<S: Field, const D: usize, const K: usize> Correlation<S, D> for LowRank<S, D, K> {
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        (self.u.tr_mul(z)).tr_mul(&self.v.tr_mul(z))
    }
}

impl<S: Field, const D: usize, const H: usize, A: Activation<S>> Correlation<S, D>
    for Additive<S, D, H, A>
{
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        let rows = self.w * z;
        let columns = self.u * z;
        SMatrix::from_fn(|i, j| {
            (0..H).fold(S::zero(), |sum, h| {
                sum + self.v[h] * A::apply(rows[(h, i)] + columns[(h, j)])
            })
        })
    }
}

/// `Z ↦ Z · σ(C(Z))` with correlation `C` and softmax `σ` (default: column-wise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftmaxAttention<C, Sm = VectorSoftmax> {
    correlation: C,
    softmax: PhantomData<Sm>,
}

impl<C> SoftmaxAttention<C> {
    /// The layer with the given correlation and the column-wise softmax.
    pub fn new(correlation: C) -> Self {
        Self {
            correlation,
            softmax: PhantomData,
        }
    }
}

impl<C, Sm> SoftmaxAttention<C, Sm> {
    /// The same correlation with another softmax (e.g. [`crate::MatrixSoftmax`]).
    pub fn with_softmax<Sm2>(self) -> SoftmaxAttention<C, Sm2> {
        SoftmaxAttention {
            correlation: self.correlation,
            softmax: PhantomData,
        }
    }

    /// The correlation.
    pub fn correlation(&self) -> &C {
        &self.correlation
    }
}

impl<S, const D: usize, const T: usize, C, Sm> SequenceLayer<S, D, T> for SoftmaxAttention<C, Sm>
where
    S: RealField + Copy,
    C: Correlation<S, D>,
    Sm: Softmax,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut weights = self.correlation.correlation(&z);
        Sm::apply_in_place(&mut weights);
        z.mul_to(&weights, &mut out);
    }
}
