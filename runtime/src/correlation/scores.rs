//! The general (not skew) correlations of softmax attention: bilinear, low-rank and additive.
//!
//! [`LowRank`] never forms `W`: it multiplies `Z` by the two `D×RANK` factors, which is cheaper
//! than the dense form whenever `2·RANK < D`.

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SVector};
use rand::Rng;

use super::Correlation;
use crate::activation::{Activation, Tanh};
use crate::scalar::{Field, MapScalar};
use crate::{init, product};

/// `C = Zᵀ W Z` with `W` dense `D×D` (no scaling).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bilinear<S, const D: usize> {
    w: SMatrix<S, D, D>,
}

/// `C = (W_Uᵀ Z)ᵀ (W_Vᵀ Z)`: the bilinear form of `W = W_U W_Vᵀ`, rank at most `RANK`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowRank<S, const D: usize, const RANK: usize> {
    u: SMatrix<S, D, RANK>,
    v: SMatrix<S, D, RANK>,
}

/// `C[i,j] = vᵀ σ(W z_i + U z_j)` with `W, U ∈ R^{HIDDEN×D}`, `v ∈ R^HIDDEN` (Bahdanau's additive
/// score; `W` acts on the row index as `PQ` does in GML's `C = QᵀK`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Additive<S, const D: usize, const HIDDEN: usize, Act = Tanh> {
    w: SMatrix<S, HIDDEN, D>,
    u: SMatrix<S, HIDDEN, D>,
    v: SVector<S, HIDDEN>,
    activation: PhantomData<Act>,
}

impl<S: Field, const D: usize> Bilinear<S, D> {
    /// The correlation with weight `W`.
    pub const fn new(w: SMatrix<S, D, D>) -> Self {
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

impl<S: Field, const D: usize, const RANK: usize> LowRank<S, D, RANK> {
    /// The correlation of `W = W_U W_Vᵀ`, from the factors `W_U` and `W_V` (`D×RANK` each).
    pub const fn new(u: SMatrix<S, D, RANK>, v: SMatrix<S, D, RANK>) -> Self {
        Self { u, v }
    }

    /// The dense `W = W_U W_Vᵀ` (for comparison; the layer never forms it).
    pub fn dense(&self) -> Bilinear<S, D> {
        Bilinear::new(self.u * self.v.transpose())
    }
}

impl<S: RealField + Copy, const D: usize, const RANK: usize> LowRank<S, D, RANK> {
    /// Both factors GlorotUniform, U(−√(6/(D+RANK)), √(6/(D+RANK))).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let u = init::glorot_dense(rng);
        Self::new(u, init::glorot_dense(rng))
    }
}

impl<S: Field, const D: usize, const HIDDEN: usize, Act> Additive<S, D, HIDDEN, Act> {
    /// The correlation `vᵀ σ(W z_i + U z_j)`.
    pub const fn new(
        w: SMatrix<S, HIDDEN, D>,
        u: SMatrix<S, HIDDEN, D>,
        v: SVector<S, HIDDEN>,
    ) -> Self {
        Self {
            w,
            u,
            v,
            activation: PhantomData,
        }
    }
}

impl<S: RealField + Copy, const D: usize, const HIDDEN: usize, Act> Additive<S, D, HIDDEN, Act> {
    /// `W`, `U` GlorotUniform (U(−√(6/(HIDDEN+D)), …)) and `v` from U(−√(6/HIDDEN), √(6/HIDDEN)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let w = init::glorot_dense(rng);
        let u = init::glorot_dense(rng);
        let bound = init::glorot_bound::<S>(HIDDEN);
        Self::new(w, u, SVector::from_fn(|_, _| init::uniform(rng, bound)))
    }
}

impl<S: Field, const D: usize> Correlation<S, D> for Bilinear<S, D> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        product::tr_mul(z, &product::mul(&self.w, z))
    }
}

impl<S: Field, const D: usize, const RANK: usize> Correlation<S, D> for LowRank<S, D, RANK> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        let u = product::tr_mul(&self.u, z);
        product::tr_mul(&u, &product::tr_mul(&self.v, z))
    }
}

impl<S: Field, const D: usize, const HIDDEN: usize, Act: Activation<S>> Correlation<S, D>
    for Additive<S, D, HIDDEN, Act>
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        let rows = product::mul(&self.w, z);
        let columns = product::mul(&self.u, z);
        product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, j| {
                let mut sum = S::zero();
                for h in 0..HIDDEN {
                    sum += self.v[h] * Act::apply(rows[(h, i)] + columns[(h, j)]);
                }
                sum
            },
        )
    }
}

/// The same correlation over another scalar, entry by entry.
impl<S: Field, const D: usize> MapScalar for Bilinear<S, D> {
    type Scalar = S;
    type Over<S2: Field> = Bilinear<S2, D>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> Bilinear<S2, D> {
        Bilinear::new(self.w.map(f))
    }
}

/// The same correlation over another scalar, entry by entry.
impl<S: Field, const D: usize, const RANK: usize> MapScalar for LowRank<S, D, RANK> {
    type Scalar = S;
    type Over<S2: Field> = LowRank<S2, D, RANK>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> LowRank<S2, D, RANK> {
        let u = self.u.map(&mut f);
        LowRank::new(u, self.v.map(f))
    }
}

/// The same correlation over another scalar, entry by entry.
impl<S: Field, const D: usize, const HIDDEN: usize, Act> MapScalar for Additive<S, D, HIDDEN, Act> {
    type Scalar = S;
    type Over<S2: Field> = Additive<S2, D, HIDDEN, Act>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        let w = self.w.map(&mut f);
        let u = self.u.map(&mut f);
        Additive::new(w, u, self.v.map(f))
    }
}
