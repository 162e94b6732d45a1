//! GML's `VolumePreservingAttention(dim, seq_length; skew_sym)`: output `Z · Cay(C)`.
//!
//! Two weightings (the skew [`crate::correlation`]s), both exactly as GML computes them:
//!
//! - [`SkewWeight`] (`skew_sym = true`): `A` skew-symmetric, `C = Zᵀ A Z`, **no** `1/√dim`. The map
//!   `Z ↦ Z·Cay(C(Z))` is volume-preserving: the determinant of its Jacobian on `R^{D×T}` is 1.
//! - [`ArbitraryWeight`] (`skew_sym = false`, GML's default): `A` dense `D×D`,
//!   `L[i,j] = z_iᵀ A z_j / √dim` for `i > j`, `C = L − Lᵀ`. `Cay(C)` is still orthogonal, so each
//!   output is an orthogonal reweighting of the inputs, but the map is **not** volume-preserving in
//!   general (its Jacobian determinant differs from ±1; the test suite checks a case).
//!
//! `T` only selects the orthogonal map `Map` (a Cayley kernel specialised per `T` by default); it
//! adds no parameters.
//!
//! On unnormalised sequences `C` grows like `|z|²‖A‖` (entries of `Z` about 300 give `‖C‖` up to
//! `10⁶`), and the rounding of `Λ` with it. The default map stays as accurate as LU with partial
//! pivoting there (orthogonal to rounding for `T ≤ 4`; about 3× LU's `‖ΛᵀΛ − I‖` and
//! `|‖ZΛ‖/‖Z‖ − 1|` beyond, `f32`, both weightings: `tests/tests/cayley_range.rs`), keeps smooth
//! sequences, which lie in the range of `C`, norm-preserving to rounding as LU does, and gives a
//! finite output while `‖C‖_F²` is finite (`f32`: `‖C‖_F < 1.8·10¹⁹`); beyond, NaN, which
//! [`SequenceLayer::forward_checked`] reports.
//!
//! ```
//! use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::Matrix3};
//! let a = SkewSymmetric::<f64, 3>::from_packed(&[1.0, 2.0, 3.0])?;
//! let layer = SkewVpa::<f64, 3, 3>::skew_sym(a);
//! let z = Matrix3::new(1.0, 0.0, 1.0,
//!                      0.0, 1.0, 1.0,
//!                      1.0, 1.0, 0.0);
//! let expected = Matrix3::new(29.0, -36.0, -59.0,
//!                             -40.0, -7.0, -63.0,
//!                             -27.0, -67.0, -20.0) / 53.0;
//! assert!((layer.forward(&z) - expected).amax() < 1e-14);
//! # Ok::<(), geomattn::Error>(())
//! ```

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};
use rand::Rng;

use crate::cayley::{Elimination, Generated, GramSchmidt};
use crate::correlation::{ArbitraryWeight, SkewCorrelation, SkewWeight};
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::orthogonal::{DefaultCayley, OrthogonalMap};
use crate::packed::SkewSymmetric;
use crate::scalar::{Field, MapScalar, Real};

/// Volume-preserving attention on sequences of `T` vectors in `R^D`, with the skew correlation
/// `Corr` and the orthogonal map `Map` (by default the Cayley kernel [`DefaultCayley`]).
///
/// Construct it through the aliases [`SkewVpa`] and [`ArbitraryVpa`], naming the scalar and the
/// sizes (`SkewVpa::<f64, 3, 4>::skew_sym(a)`); name the map fourth to change it
/// (`SkewVpa::<f64, 3, 4, LuSolve>`), or switch it with [`with_map`](Self::with_map).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VolumePreservingAttention<S, const D: usize, const T: usize, Corr, Map = DefaultCayley> {
    weight: Corr,
    map: PhantomData<(S, Map)>,
}

/// `VolumePreservingAttention` with GML's `skew_sym = true` weighting.
pub type SkewVpa<S, const D: usize, const T: usize, Map = DefaultCayley> =
    VolumePreservingAttention<S, D, T, SkewWeight<S, D>, Map>;
/// `VolumePreservingAttention` with GML's default, arbitrary weighting.
pub type ArbitraryVpa<S, const D: usize, const T: usize, Map = DefaultCayley> =
    VolumePreservingAttention<S, D, T, ArbitraryWeight<S, D>, Map>;

impl<S: Field, const D: usize, const T: usize, Corr: SkewCorrelation<S, D>, Map>
    VolumePreservingAttention<S, D, T, Corr, Map>
{
    /// The layer with the given weighting.
    pub const fn new(weight: Corr) -> Self {
        Self {
            weight,
            map: PhantomData,
        }
    }

    /// The layer's weighting.
    pub fn weight(&self) -> &Corr {
        &self.weight
    }

    /// The weighting, to accumulate a gradient in (see [`crate::backward`]).
    pub(crate) fn weight_mut(&mut self) -> &mut Corr {
        &mut self.weight
    }

    /// The same weights with another orthogonal map (e.g. a baseline kernel, for comparison).
    pub fn with_map<Map2>(self) -> VolumePreservingAttention<S, D, T, Corr, Map2> {
        VolumePreservingAttention::new(self.weight)
    }

    /// The skew correlation matrix `C` of one sequence.
    pub fn correlation(&self, z: &SMatrix<S, D, T>) -> SMatrix<S, T, T> {
        self.weight.correlation(&z.as_view())
    }
}

impl<S: Field, const D: usize, const T: usize, Map> SkewVpa<S, D, T, Map> {
    /// GML's `skew_sym = true` layer with weight `A`.
    pub const fn skew_sym(a: SkewSymmetric<S, D>) -> Self {
        Self::new(SkewWeight::new(a))
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, Map> SkewVpa<S, D, T, Map> {
    /// GML's initialisation: the `D(D−1)/2` packed entries of `A` from U(−√(6/L), √(6/L)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(SkewWeight::glorot(rng))
    }
}

impl<S: Field, const D: usize, const T: usize, Map> ArbitraryVpa<S, D, T, Map> {
    /// The arbitrary weighting with an explicit factor instead of `1/√D`: for scalars without a
    /// square root (exact rationals, where `1/√D` is rational only for square `D`).
    pub const fn arbitrary_with_scale(a: SMatrix<S, D, D>, scale: S) -> Self {
        Self::new(ArbitraryWeight::with_scale(a, scale))
    }
}

impl<S: RealField + Copy, const D: usize, const T: usize, Map> ArbitraryVpa<S, D, T, Map> {
    /// GML's default (`skew_sym = false`) layer with weight `A` (`D×D`), scaled by `1/√D`.
    pub fn arbitrary(a: SMatrix<S, D, D>) -> Self {
        Self::new(ArbitraryWeight::new(a))
    }

    /// GML's initialisation: `A` from U(−√(6/2D), √(6/2D)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::new(ArbitraryWeight::glorot(rng))
    }
}

impl<S, const D: usize, const T: usize, Corr, Map> SequenceLayer<S, D, T>
    for VolumePreservingAttention<S, D, T, Corr, Map>
where
    S: Field,
    Corr: SkewCorrelation<S, D>,
    Map: OrthogonalMap<S, T>,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        Map::multiply_to(&z, &self.weight.correlation(&z), &mut out);
    }
}

impl<S: Field, const D: usize, const T: usize, Map> MapScalar for SkewVpa<S, D, T, Map> {
    type Scalar = S;
    type Over<S2: Field> = SkewVpa<S2, D, T, Map>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> SkewVpa<S2, D, T, Map> {
        SkewVpa::new(self.weight.map_scalar(f))
    }
}

impl<S: Field, const D: usize, const T: usize, Map> MapScalar for ArbitraryVpa<S, D, T, Map> {
    type Scalar = S;
    type Over<S2: Field> = ArbitraryVpa<S2, D, T, Map>;

    fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> ArbitraryVpa<S2, D, T, Map> {
        ArbitraryVpa::new(self.weight.map_scalar(f))
    }
}

/// The lane twins of both weightings, with every map that needs only `+ − × ÷`.
macro_rules! lane_twins {
    ($($layer:ident<$map:ty>),* $(,)?) => {$(
        impl<S: Field, const D: usize, const T: usize> LaneTwin<D, T> for $layer<S, D, T, $map> {
            type Twin<X: Real> = $layer<X, D, T, $map>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

lane_twins!(
    SkewVpa<Generated>,
    SkewVpa<GramSchmidt>,
    SkewVpa<Elimination>,
    ArbitraryVpa<Generated>,
    ArbitraryVpa<GramSchmidt>,
    ArbitraryVpa<Elimination>,
);
