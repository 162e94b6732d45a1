//! GML's older attention layer (before 2024-04), with an orthonormal activation.
//!
//! For a sequence `Z ∈ R^{D×T}` and weights `PQ, PK ∈ R^{D×D}`:
//!
//! 1. `C = (PQᵀ Z)ᵀ (PKᵀ Z) / √D`;
//! 2. `upper_triangular_asymmetrize`: keep the strict **upper** triangle of `C` and set
//!    `C[i,j] = −C[j,i]` below it (the diagonal becomes 0), a skew matrix;
//! 3. `σ(C)` with σ an [`OrthogonalMap`]: the Cayley transform (GML's
//!    `orthonormal_activation_cayley`, by default [`DefaultCayley`]) or the matrix exponential
//!    ([`crate::Exp`]), both special orthogonal;
//! 4. output `Z σ(C)`, plus `Z` with `add_connection`.
//!
//! Only the strict upper triangle of `C` is needed, `C[i,j] = z_iᵀ B z_j` for `i < j` with
//! `B = PQ PKᵀ / √D`, which the layer forms once at construction: one `D×D` product per sequence
//! instead of two (the result differs from GML's evaluation order by rounding only).
//!
//! ```
//! use geomattn::{Exp, OrthonormalAttention, SequenceLayer, nalgebra::{Matrix2, Matrix2x3}};
//! let layer = OrthonormalAttention::<f64, 2, Exp>::new(Matrix2::identity(), Matrix2::identity(), false);
//! let z = Matrix2x3::new(1.0, 0.0, 1.0,
//!                        0.0, 1.0, 1.0);
//! // σ(C) is orthogonal, so the rows of Z keep their norms.
//! let out = layer.forward(&z);
//! assert!((out.row(0).norm() - z.row(0).norm()).abs() < 1e-14);
//! # let _: Matrix2x3<f64> = out;
//! ```

use core::marker::PhantomData;

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};
use rand::Rng;

use crate::cayley::{Elimination, Generated, GramSchmidt};
use crate::correlation::{lower_correlation, skew_from_lower};
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::orthogonal::{DefaultCayley, OrthogonalMap};
use crate::scalar::{Field, MapScalar, Real};
use crate::{init, product};

/// GML's older `Attention(dim, σ; add_connection)` with `σ = Map` (default: the Cayley transform).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrthonormalAttention<S, const D: usize, Map = DefaultCayley> {
    pq: SMatrix<S, D, D>,
    pk: SMatrix<S, D, D>,
    scale: S,
    /// `(PQ PKᵀ · scale)ᵀ`, oriented for [`lower_correlation`].
    product: SMatrix<S, D, D>,
    add_connection: bool,
    map: PhantomData<Map>,
}

impl<S: Field, const D: usize, Map> OrthonormalAttention<S, D, Map> {
    /// The layer with an explicit factor instead of `1/√D`: for scalars without a square root
    /// (exact rationals).
    pub fn with_scale(
        pq: SMatrix<S, D, D>,
        pk: SMatrix<S, D, D>,
        scale: S,
        add_connection: bool,
    ) -> Self {
        Self {
            pq,
            pk,
            scale,
            product: (pk * pq.transpose()) * scale,
            add_connection,
            map: PhantomData,
        }
    }

    /// GML's `PQ`.
    pub fn pq(&self) -> &SMatrix<S, D, D> {
        &self.pq
    }

    /// GML's `PK`.
    pub fn pk(&self) -> &SMatrix<S, D, D> {
        &self.pk
    }

    /// Whether the input is added to the output.
    pub fn add_connection(&self) -> bool {
        self.add_connection
    }

    /// The same weights with another orthogonal map.
    pub fn with_map<Map2>(self) -> OrthonormalAttention<S, D, Map2> {
        OrthonormalAttention {
            pq: self.pq,
            pk: self.pk,
            scale: self.scale,
            product: self.product,
            add_connection: self.add_connection,
            map: PhantomData,
        }
    }

    /// The skew matrix `C` of one sequence after `upper_triangular_asymmetrize` (zero diagonal,
    /// `C[i,j] = −C[j,i]` for `i > j`).
    pub fn correlation<const T: usize>(&self, z: &SMatrixView<'_, S, D, T>) -> SMatrix<S, T, T> {
        // lower_correlation(z, Bᵀ)[j,i] = z_jᵀ Bᵀ z_i = C[i,j] for i < j: the upper triangle,
        // transposed.
        -skew_from_lower(&lower_correlation(z, &self.product))
    }
}

impl<S: RealField + Copy, const D: usize, Map> OrthonormalAttention<S, D, Map> {
    /// GML's layer with weights `PQ`, `PK` and the factor `1/√D`.
    pub fn new(pq: SMatrix<S, D, D>, pk: SMatrix<S, D, D>, add_connection: bool) -> Self {
        let scale = S::one() / nalgebra::convert::<f64, S>(D as f64).sqrt();
        Self::with_scale(pq, pk, scale, add_connection)
    }

    /// GML's initialisation: `PQ` and `PK` GlorotUniform, U(−√(6/2D), √(6/2D)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R, add_connection: bool) -> Self {
        let pq = init::glorot_dense(rng);
        let pk = init::glorot_dense(rng);
        Self::new(pq, pk, add_connection)
    }
}

impl<S: Field, const D: usize, const T: usize, Map: OrthogonalMap<S, T>> SequenceLayer<S, D, T>
    for OrthonormalAttention<S, D, Map>
{
    #[inline(always)]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let sigma = Map::map(&self.correlation(&z));
        product::mul_to(&z, &sigma, &mut out);
        if self.add_connection {
            for j in 0..T {
                for i in 0..D {
                    out[(i, j)] += z[(i, j)];
                }
            }
        }
    }
}

/// The same layer over another scalar, weight by weight: `PQ`, `PK`, the scale and the product
/// formed from them at construction (mapped, not formed again, so that the layer over lanes holds
/// the scalar layer's own product).
impl<S: Field, const D: usize, Map> MapScalar for OrthonormalAttention<S, D, Map> {
    type Scalar = S;
    type Over<S2: Field> = OrthonormalAttention<S2, D, Map>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        OrthonormalAttention {
            pq: self.pq.map(&mut f),
            pk: self.pk.map(&mut f),
            scale: f(self.scale),
            product: self.product.map(&mut f),
            add_connection: self.add_connection,
            map: PhantomData,
        }
    }
}

/// The lane twins with every map that needs only `+ − × ÷`.
macro_rules! lane_twins {
    ($($map:ty),*) => {$(
        impl<S: Field, const D: usize, const T: usize> LaneTwin<D, T>
            for OrthonormalAttention<S, D, $map>
        {
            type Twin<X: Real> = OrthonormalAttention<X, D, $map>;

            fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
                self.map_scalar(f)
            }
        }
    )*};
}

lane_twins!(Generated, GramSchmidt, Elimination);
