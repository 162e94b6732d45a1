//! The two skew correlations of GML's volume-preserving attention.

use nalgebra::allocator::Allocator;
use nalgebra::{
    DefaultAllocator, Dim, Matrix, OMatrix, RawStorage, RawStorageMut, RealField, SMatrix,
    SMatrixView,
};
use rand::Rng;

use super::{Correlation, SkewCorrelation, lower_correlation, lower_entry, skew_of_lower_in_place};
use crate::packed::SkewSymmetric;
use crate::scalar::{Field, MapScalar};
use crate::{init, product};

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
    /// The weighting with the skew matrix `A`.
    pub const fn new(a: SkewSymmetric<S, D>) -> Self {
        Self { a }
    }

    /// The weight `A`.
    pub fn a(&self) -> &SkewSymmetric<S, D> {
        &self.a
    }

    /// Adds `m` at `A`'s packed positions: the weighting as a gradient accumulator (see
    /// [`crate::backward`]).
    #[inline(always)]
    pub(crate) fn accumulate(&mut self, m: &SMatrix<S, D, D>) {
        self.a.add_packed_from(m);
    }
}

impl<S: RealField + Copy, const D: usize> SkewWeight<S, D> {
    /// GML's initialisation: the `D(D−1)/2` packed entries of `A` from U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(SkewSymmetric::glorot(rng))
    }
}

impl<S: Field, const D: usize> ArbitraryWeight<S, D> {
    /// The weighting with an explicit factor instead of `1/√D`: for scalars without a square root
    /// (exact rationals, where `1/√D` is rational only for square `D`).
    pub const fn with_scale(a: SMatrix<S, D, D>, scale: S) -> Self {
        Self { a, scale }
    }

    /// The weight `A` (`D×D`, in Julia's orientation: `L[i,j] = z_iᵀ A z_j / √D`).
    pub fn a(&self) -> &SMatrix<S, D, D> {
        &self.a
    }

    /// The factor applied to `L`; GML's is `1/√D`.
    pub fn scale(&self) -> S {
        self.scale
    }

    /// Adds `m` to `A`: the weighting as a gradient accumulator (see [`crate::backward`]).
    #[inline(always)]
    pub(crate) fn accumulate(&mut self, m: &SMatrix<S, D, D>) {
        product::update(
            &mut self.a,
            #[inline(always)]
            |entry, i, j| entry + m[(i, j)],
        );
    }
}

impl<S: RealField + Copy, const D: usize> ArbitraryWeight<S, D> {
    /// GML's weighting with weight `A` (`D×D`), scaled by `1/√D`.
    pub fn new(a: SMatrix<S, D, D>) -> Self {
        Self::with_scale(a, gml_scale(D))
    }

    /// GML's initialisation: `A` from U(−√(6/2D), √(6/2D)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(init::glorot_dense(rng))
    }
}

/// GML's factor `1/√dim` of the arbitrary weighting.
pub(crate) fn gml_scale<S: RealField + Copy>(dim: usize) -> S {
    S::one() / nalgebra::convert::<f64, S>(dim as f64).sqrt()
}

/// `C = Zᵀ A Z` for a skew-symmetric `A` (given densely): [`SkewWeight`]'s correlation, for
/// every size (nalgebra's [`Dim`]: the same sums as the compiled layer's, [`lower_correlation`]).
pub fn skew_sym_correlation<S, D: Dim, T: Dim, SZ>(
    z: &Matrix<S, D, T, SZ>,
    a: &OMatrix<S, D, D>,
) -> OMatrix<S, T, T>
where
    S: Field,
    SZ: RawStorage<S, D, T>,
    DefaultAllocator: Allocator<D, D> + Allocator<D, T> + Allocator<T, T>,
{
    let (d, t) = z.shape_generic();
    let mut c = Matrix::zeros_generic(t, t);
    correlation_to(z, a, None, &mut Matrix::zeros_generic(d, t), &mut c);
    c
}

/// `C = L − Lᵀ` with `L[i,j] = z_iᵀ A z_j · scale` for `i > j`: [`ArbitraryWeight`]'s
/// correlation for every size (the same sums as the compiled layer's, [`lower_correlation`]).
pub fn arbitrary_correlation<S, D: Dim, T: Dim, SZ>(
    z: &Matrix<S, D, T, SZ>,
    a: &OMatrix<S, D, D>,
    scale: S,
) -> OMatrix<S, T, T>
where
    S: Field,
    SZ: RawStorage<S, D, T>,
    DefaultAllocator: Allocator<D, D> + Allocator<D, T> + Allocator<T, T>,
{
    let (d, t) = z.shape_generic();
    let mut c = Matrix::zeros_generic(t, t);
    correlation_to(z, a, Some(scale), &mut Matrix::zeros_generic(d, t), &mut c);
    c
}

/// [`skew_sym_correlation`] (no `scale`) or [`arbitrary_correlation`] written into `c`, with
/// `az` to hold `A Z`: [`lower_correlation`]'s sums ([`lower_entry`]), then
/// [`skew_of_lower_in_place`].
#[inline(always)]
fn correlation_to<S, D: Dim, T: Dim, SZ, SAZ, SC>(
    z: &Matrix<S, D, T, SZ>,
    a: &OMatrix<S, D, D>,
    scale: Option<S>,
    az: &mut Matrix<S, D, T, SAZ>,
    c: &mut Matrix<S, T, T, SC>,
) where
    S: Field,
    SZ: RawStorage<S, D, T>,
    SAZ: RawStorageMut<S, D, T>,
    SC: RawStorageMut<S, T, T>,
    DefaultAllocator: Allocator<D, D>,
{
    product::mul_to(a, z, az);
    for j in 0..z.ncols() {
        for i in j + 1..z.ncols() {
            c[(i, j)] = lower_entry(z, az, i, j);
        }
    }
    skew_of_lower_in_place(c, scale);
}

impl<S: Field, const D: usize> Correlation<S, D> for SkewWeight<S, D> {
    #[inline(always)]
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        // For skew A, z_jᵀ A z_i = −z_iᵀ A z_j, so Zᵀ A Z is L − Lᵀ with L its strict lower part.
        let mut c = lower_correlation(z, self.a.matrix());
        skew_of_lower_in_place(&mut c, None);
        c
    }
}

impl<S: Field, const D: usize> Correlation<S, D> for ArbitraryWeight<S, D> {
    #[inline(always)]
    fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        let mut c = lower_correlation(z, &self.a);
        skew_of_lower_in_place(&mut c, Some(self.scale));
        c
    }
}

/// The same weighting over another scalar, entry by entry.
impl<S: Field, const D: usize> MapScalar for SkewWeight<S, D> {
    type Scalar = S;
    type Over<S2: Field> = SkewWeight<S2, D>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> SkewWeight<S2, D> {
        SkewWeight::new(self.a.map_scalar(f))
    }
}

/// The same weighting over another scalar, entry by entry (the scale included).
impl<S: Field, const D: usize> MapScalar for ArbitraryWeight<S, D> {
    type Scalar = S;
    type Over<S2: Field> = ArbitraryWeight<S2, D>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> ArbitraryWeight<S2, D> {
        let scale = f(self.scale);
        ArbitraryWeight::with_scale(self.a.map(f), scale)
    }
}

impl<S: Field, const D: usize> SkewCorrelation<S, D> for SkewWeight<S, D> {}
impl<S: Field, const D: usize> SkewCorrelation<S, D> for ArbitraryWeight<S, D> {}
