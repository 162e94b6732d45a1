//! GML's `MultiHeadAttention(dim, n_heads; Stiefel, add_connection)`.
//!
//! `H` heads of width `DH` on sequences in `R^D`, `D = H·DH`. Per head `h`, with weights
//! `PQ_h, PK_h, PV_h ∈ R^{D×DH}` used transposed:
//!
//! ```text
//! Q = PQ_hᵀ Z,  K = PK_hᵀ Z,  V = PV_hᵀ Z,  C = Qᵀ K / √D,  O_h = V · σ(C)
//! ```
//!
//! with `σ` = [`VectorSoftmax`] (each column normalised over the first index) and `√D` the square
//! root of the **full** dimension, as GML computes it (its prose says `√(D/H)`; the code is what
//! trained weights expect). The output stacks the heads in head order (head `h` → rows
//! `h·DH … (h+1)·DH − 1`), with no output projection, plus `Z` if `add_connection`.
//!
//! `D = H·DH` is checked at compile time: a layer whose `D` is not `H` times its head width (or
//! with no head) does not build, so GML's `dim % n_heads != 0` cannot be represented:
//!
//! ```compile_fail
//! use geomattn::{Head, MultiHeadAttention, NoConnection};
//! use geomattn::nalgebra::SMatrix;
//! let w = SMatrix::<f64, 5, 2>::zeros();
//! // dim = 5 is not 2 heads of width 2.
//! let _ = MultiHeadAttention::<f64, 5, 2, 2, NoConnection>::new([Head::new(w, w, w); 2]);
//! ```
//!
//! `Stiefel = true` in GML keeps each weight on the Stiefel manifold (orthonormal columns).
//! [`MultiHeadAttention::stiefel`] checks this on construction, and
//! [`project_to_stiefel`] maps a weight that drifted back onto the manifold.
//!
//! ```
//! use geomattn::{Head, MultiHeadAttention, NoConnection, Stiefel};
//! use geomattn::{SequenceLayer, nalgebra::{SMatrix, Matrix2x3}};
//! // Two heads of width 1 on R²: head 0 reads the first coordinate, head 1 the second.
//! let e0 = SMatrix::<f64, 2, 1>::new(1.0, 0.0);
//! let e1 = SMatrix::<f64, 2, 1>::new(0.0, 1.0);
//! let heads = [Head::new(e0, e0, e0), Head::new(e1, e1, e1)];
//! let layer = MultiHeadAttention::<f64, 2, 2, 1, NoConnection, Stiefel>::stiefel(heads)?;
//! // Head 1 sees only zeros, so its softmax is uniform and it outputs the mean, 0.
//! let z = Matrix2x3::new(1.0, 0.0, 0.0,
//!                        0.0, 0.0, 0.0);
//! let out = layer.forward(&z);
//! assert_eq!(out.row(1).amax(), 0.0);
//! // Head 0, column 0: C[m,0] = z_m·z_0/√2 = (1/√2, 0, 0) → weight e^{1/√2}/(e^{1/√2} + 2) on v_0 = 1.
//! let w = (0.5_f64.sqrt()).exp();
//! assert!((out[(0, 0)] - w / (w + 2.0)).abs() < 1e-15);
//! # Ok::<(), geomattn::Error>(())
//! ```

pub(crate) mod backward;
mod embed;
#[cfg(feature = "std")]
pub(crate) mod engine;
pub(crate) mod schema;

use core::marker::PhantomData;

use nalgebra::allocator::Allocator;
use nalgebra::{
    Const, DefaultAllocator, Dim, DimMin, OMatrix, RealField, SMatrix, SMatrixView, SMatrixViewMut,
};
use rand::Rng;

use crate::error::Error;
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::packed::matrix_from_slice;
use crate::scalar::ratio;
use crate::scalar::{Field, MapScalar, Real};
use crate::schema::Kind;
use crate::softmax::{Softmax, VectorSoftmax, applied};
use crate::workspace::{Fresh, Workspace};
use crate::{init, product};

/// The three projections of one head, each `D×DH` and applied transposed (`PQᵀ Z`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Head<S, const D: usize, const DH: usize> {
    /// `PQ`: queries are `PQᵀ Z`.
    pub query: SMatrix<S, D, DH>,
    /// `PK`: keys are `PKᵀ Z`.
    pub key: SMatrix<S, D, DH>,
    /// `PV`: values are `PVᵀ Z`.
    pub value: SMatrix<S, D, DH>,
}

impl<S: Field, const D: usize, const DH: usize> Head<S, D, DH> {
    /// A head from its three projections `PQ`, `PK`, `PV`.
    pub const fn new(
        query: SMatrix<S, D, DH>,
        key: SMatrix<S, D, DH>,
        value: SMatrix<S, D, DH>,
    ) -> Self {
        Self { query, key, value }
    }

    /// A head from Julia's arrays: each projection `D×DH` in column-major order (as `vec(PQ)`).
    ///
    /// # Errors
    /// [`Error::WeightLength`] if a slice does not have `D·DH` entries.
    pub fn from_column_major(query: &[S], key: &[S], value: &[S]) -> Result<Self, Error> {
        Ok(Self::new(
            matrix_from_slice("PQ", query)?,
            matrix_from_slice("PK", key)?,
            matrix_from_slice("PV", value)?,
        ))
    }

    /// The projections with GML's names, in GML's order.
    fn named(&self) -> [(&'static str, &SMatrix<S, D, DH>); 3] {
        [("PQ", &self.query), ("PK", &self.key), ("PV", &self.value)]
    }
}

impl<S: RealField + Copy, const D: usize, const DH: usize> Head<S, D, DH> {
    /// The head with each projection replaced by [`project_to_stiefel`] of it.
    pub fn project_to_stiefel(&self) -> Self
    where
        Const<D>: DimMin<Const<DH>, Output = Const<DH>>,
    {
        Self::new(
            project_to_stiefel(&self.query),
            project_to_stiefel(&self.key),
            project_to_stiefel(&self.value),
        )
    }
}

/// `‖WᵀW − I‖_max`: how far the columns of `w` are from orthonormal; NaN if an entry of `WᵀW` is
/// NaN (where nalgebra's `amax` would skip it).
pub fn stiefel_error<S: RealField + Copy, const D: usize, const DH: usize>(
    w: &SMatrix<S, D, DH>,
) -> S {
    (w.tr_mul(w) - SMatrix::<S, DH, DH>::identity())
        .iter()
        .fold(S::zero(), |max, x| {
            let x = x.abs();
            if x > max || !x.is_finite() { x } else { max }
        })
}

/// The Stiefel factor of `w`: `Q` of the thin QR decomposition `w = QR`, with the signs fixed so
/// that `R` has a non-negative diagonal. This makes the result unique for full-rank `w`, and the
/// identity on matrices that already have orthonormal columns (whose `R` is then `I`).
///
/// Needs `D ≥ DH` (a `D×DH` matrix has at most `D` orthonormal columns); for concrete sizes the
/// bound is met automatically.
///
/// ```
/// use geomattn::{project_to_stiefel, stiefel_error};
/// use geomattn::nalgebra::Matrix3x2;
/// let w = Matrix3x2::new(2.0, 1.0,
///                        0.0, 1.0,
///                        0.0, 0.0);
/// let q = project_to_stiefel(&w);
/// assert_eq!(q, Matrix3x2::new(1.0, 0.0, 0.0, 1.0, 0.0, 0.0));
/// assert!(stiefel_error(&project_to_stiefel(&Matrix3x2::new(1.0, 2.0, 3.0, 4.0, 5.0, 7.0))) < 1e-15);
/// ```
pub fn project_to_stiefel<S: RealField + Copy, const D: usize, const DH: usize>(
    w: &SMatrix<S, D, DH>,
) -> SMatrix<S, D, DH>
where
    Const<D>: DimMin<Const<DH>, Output = Const<DH>>,
{
    let mut q: SMatrix<S, D, DH> = w.qr().q();
    // R = Qᵀ W; flip the columns of Q whose R diagonal entry is negative.
    for j in 0..DH {
        let r_jj = q.column(j).dot(&w.column(j));
        if r_jj < S::zero() {
            q.column_mut(j).neg_mut();
        }
    }
    q
}

/// GML's `add_connection`, as a type: whether multi-head attention adds its input to its output.
/// GML's files do not record it, so a network's type must say it: [`AddConnection`] or
/// [`NoConnection`].
pub trait Connection {
    /// Whether the input is added to the output.
    const ADD: bool;
}

/// `add_connection = true` (GML's default, which its integrators and classifiers often turn off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddConnection {}
impl Connection for AddConnection {
    const ADD: bool = true;
}

/// `add_connection = false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoConnection {}
impl Connection for NoConnection {
    const ADD: bool = false;
}

/// GML's `Stiefel` option, as a type: where the projections live. Unlike
/// [`Connection`], GML's files say it (a `StiefelManifold` group or a plain dataset), and a file
/// that disagrees with the type is rejected.
pub trait Projection {
    /// The kind of the projections in the [`Schema`](crate::Schema).
    const KIND: Kind;
}

/// `Stiefel = false` (GML's default): any `D×DH` projections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Euclidean {}
impl Projection for Euclidean {
    const KIND: Kind = Kind::Dense;
}

/// `Stiefel = true`: projections with orthonormal columns, checked on construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stiefel {}
impl Projection for Stiefel {
    const KIND: Kind = Kind::Stiefel;
}

/// GML's `MultiHeadAttention(D, H; Stiefel, add_connection)` on sequences in `R^D` with `H` heads
/// of width `DH` (`D = H·DH`): `Conn` is `add_connection` ([`AddConnection`] or
/// [`NoConnection`], always named: GML's files do not say it), `Proj` the `Stiefel` option
/// ([`Euclidean`], GML's default, or [`Stiefel`]), `Sm` the softmax (GML: [`VectorSoftmax`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultiHeadAttention<
    S,
    const D: usize,
    const H: usize,
    const DH: usize,
    Conn,
    Proj = Euclidean,
    Sm = VectorSoftmax,
> {
    heads: [Head<S, D, DH>; H],
    options: PhantomData<(Conn, Proj, Sm)>,
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
{
    /// The layer from its heads, unchecked: what the checked constructors end in.
    pub(crate) const fn from_heads(heads: [Head<S, D, DH>; H]) -> Self {
        const {
            assert!(
                H > 0,
                "a multi-head attention layer needs at least one head"
            );
            assert!(
                D == H * DH,
                "D must equal H·DH (n_heads times the head width)"
            );
        }
        Self {
            heads,
            options: PhantomData,
        }
    }

    /// The heads, in head order.
    pub const fn heads(&self) -> &[Head<S, D, DH>; H] {
        &self.heads
    }

    /// The same weights with another softmax.
    pub fn with_softmax<Sm2>(self) -> MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm2> {
        MultiHeadAttention::from_heads(self.heads)
    }
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn: Connection, Proj: Projection, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
{
    /// Whether the input is added to the output (GML's `add_connection`, [`Connection::ADD`]).
    pub const fn add_connection(&self) -> bool {
        Conn::ADD
    }

    /// Whether the layer is GML's `Stiefel = true` (weights checked orthonormal).
    pub const fn is_stiefel(&self) -> bool {
        matches!(Proj::KIND, Kind::Stiefel)
    }
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Euclidean, Sm>
{
    /// GML's `Stiefel = false` layer: `heads` in head order, any weights. A `const fn`, so a
    /// layer can be a `static`.
    pub const fn new(heads: [Head<S, D, DH>; H]) -> Self {
        Self::from_heads(heads)
    }
}

impl<S: RealField + Copy, const D: usize, const H: usize, const DH: usize, Conn, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Euclidean, Sm>
{
    /// GML's `Stiefel = false` initialisation: every projection Glorot-uniform,
    /// U(−√(6/(D+DH)), √(6/(D+DH))), drawn head by head in the order `PQ`, `PK`, `PV`.
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let heads = core::array::from_fn(|_| {
            let query = init::glorot_dense(rng);
            let key = init::glorot_dense(rng);
            Head::new(query, key, init::glorot_dense(rng))
        });
        Self::new(heads)
    }
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Stiefel, Sm>
{
    /// GML's `Stiefel = true` layer without the check of [`stiefel`](Self::stiefel): for weights
    /// checked before (a `static` network generated from a checked file). A `const fn`.
    pub const fn stiefel_unchecked(heads: [Head<S, D, DH>; H]) -> Self {
        Self::from_heads(heads)
    }
}

impl<S: RealField + Copy, const D: usize, const H: usize, const DH: usize, Conn, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Stiefel, Sm>
{
    /// The tolerance of [`Self::stiefel`]: `√ε` of the scalar (`1.5·10⁻⁸` for `f64`,
    /// `3.5·10⁻⁴` for `f32`), loose enough for weights that went through a retraction in Julia and
    /// a round trip through a file, tight enough to reject anything that was not on the manifold.
    pub fn stiefel_tolerance() -> S {
        S::default_epsilon().sqrt()
    }

    /// GML's `Stiefel = true` layer, checking that every projection has orthonormal columns to
    /// within [`Self::stiefel_tolerance`] (`‖WᵀW − I‖_max ≤ √ε`).
    ///
    /// # Errors
    /// [`Error::NotOrthonormal`] for the first projection that is off the manifold; use
    /// [`Head::project_to_stiefel`] on weights that drifted.
    pub fn stiefel(heads: [Head<S, D, DH>; H]) -> Result<Self, Error> {
        Self::stiefel_with_tolerance(heads, Self::stiefel_tolerance())
    }

    /// [`Self::stiefel`] with an explicit tolerance on `‖WᵀW − I‖_max`.
    ///
    /// # Errors
    /// [`Error::NotOrthonormal`] for the first projection with `‖WᵀW − I‖_max > tolerance`.
    pub fn stiefel_with_tolerance(heads: [Head<S, D, DH>; H], tolerance: S) -> Result<Self, Error> {
        check_stiefel(&heads, tolerance)?;
        Ok(Self::from_heads(heads))
    }

    /// GML's `Stiefel = true` initialisation (`rand(StiefelManifold, D, DH)`): each projection is
    /// the Stiefel factor of a matrix of standard normal draws, i.e. uniformly (Haar) distributed
    /// on the manifold.
    pub fn stiefel_random<R: Rng + ?Sized>(rng: &mut R) -> Self
    where
        Const<D>: DimMin<Const<DH>, Output = Const<DH>>,
    {
        let mut normal =
            || project_to_stiefel(&SMatrix::from_fn(|_, _| init::standard_normal(rng)));
        let heads = core::array::from_fn(|_| {
            let query = normal();
            let key = normal();
            Head::new(query, key, normal())
        });
        Self::from_heads(heads)
    }
}

/// The bound on `‖WᵀW − I‖_max` for Stiefel weights read from a file or a blob (through their
/// [`Schema`](crate::Schema)). Weights trained in GML drift off the manifold in Float32: up to
/// 6.2·10⁻³ in the MNIST fixture.
pub const STIEFEL_TOLERANCE: f64 = 1e-2;

/// Checks that every projection of `heads` has `‖WᵀW − I‖_max ≤ tolerance`.
pub(crate) fn check_stiefel<S: RealField + Copy, const D: usize, const DH: usize>(
    heads: &[Head<S, D, DH>],
    tolerance: S,
) -> Result<(), Error> {
    for (head, weights) in heads.iter().enumerate() {
        for (name, w) in weights.named() {
            // A NaN error compares as `None` and is rejected too.
            let within = stiefel_error(w)
                .partial_cmp(&tolerance)
                .is_some_and(|o| o.is_le());
            if !within {
                return Err(Error::NotOrthonormal { name, head });
            }
        }
    }
    Ok(())
}

/// The same projections over another scalar, entry by entry.
impl<S: Field, const D: usize, const DH: usize> MapScalar for Head<S, D, DH> {
    type Scalar = S;
    type Over<S2: Field> = Head<S2, D, DH>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Head<S2, D, DH> {
        let query = self.query.map(&mut f);
        let key = self.key.map(&mut f);
        Head::new(query, key, self.value.map(f))
    }
}

/// The same layer over another scalar, weight by weight (a [`Stiefel`] layer stays one unchecked:
/// its weights were checked when it was built).
impl<S: Field, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm> MapScalar
    for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
{
    type Scalar = S;
    type Over<S2: Field> = MultiHeadAttention<S2, D, H, DH, Conn, Proj, Sm>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(S) -> S2) -> Self::Over<S2> {
        MultiHeadAttention::from_heads(self.heads.each_ref().map(|head| head.map_scalar(&mut f)))
    }
}

/// The lane twin: the softmax's exponentials and the `1/√D` scaling run lane by lane.
impl<S, const D: usize, const H: usize, const DH: usize, const T: usize, Conn, Proj, Sm>
    LaneTwin<D, T> for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    S: Field,
    Conn: Connection,
    Sm: Softmax,
{
    type Twin<X: Real> = MultiHeadAttention<X, D, H, DH, Conn, Proj, Sm>;

    fn twin<X: Real>(&self, f: impl FnMut(S) -> X) -> Self::Twin<X> {
        self.map_scalar(f)
    }
}

impl<S, const D: usize, const H: usize, const DH: usize, const T: usize, Conn, Proj, Sm>
    SequenceLayer<S, D, T> for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    S: Real,
    Conn: Connection,
    Sm: Softmax,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        product::update(
            &mut out,
            #[inline(always)]
            |_, i, j| if Conn::ADD { z[(i, j)] } else { S::zero() },
        );
        let scale = scale::<S>(D);
        for (h, head) in self.heads.iter().enumerate() {
            let update = head_update(
                [&head.query, &head.key, &head.value],
                #[inline(always)]
                |_: &mut Fresh, projection: &SMatrix<S, D, DH>| product::tr_mul(projection, &z),
                (scale, applied::<Sm, S, T>()),
                &mut Fresh,
            );
            product::update(
                &mut out.rows_mut(h * DH, DH),
                #[inline(always)]
                |entry, i, j| entry + update[(i, j)],
            );
        }
    }
}

/// `1/√D` for states in `R^D`: GML scales by the square root of the **full** dimension (`D` is
/// exact in either float).
pub(crate) fn scale<S: Real>(dim: usize) -> S {
    S::one() / ratio::<S>(dim as i64, 1).sqrt()
}

/// A head's queries `Q = PQᵀ Z` and keys `K = PKᵀ Z` (`DH×T`), and its scaled scores
/// `s QᵀK` (`T×T`), `σ` of which are its weights `Λ`.
pub(crate) struct HeadScores<S: Field, DH: Dim, T: Dim>
where
    DefaultAllocator: Allocator<DH, T> + Allocator<T, T>,
{
    pub(crate) q: OMatrix<S, DH, T>,
    pub(crate) k: OMatrix<S, DH, T>,
    pub(crate) scores: OMatrix<S, T, T>,
}

/// One head's [`HeadScores`] with the caller's `s` and projection of the sequence
/// (`project(workspace, P) = Pᵀ Z`), on matrices of `workspace`: what its forward and backward
/// passes both compute, for every size (nalgebra's [`Dim`]). The compile-time layer projects
/// the sequence where it lies (a copy of `Z` on the stack cost its forward pass in `f32` lanes
/// 20 %: over lanes, whose exponentials are calls, a matrix of the stack frame alive across them
/// is spilled and reloaded around each).
#[inline(always)]
pub(crate) fn head_scores<S: Field, D: Dim, DH: Dim, T: Dim, W: Workspace<S>>(
    [query, key]: [&OMatrix<S, D, DH>; 2],
    project: &mut impl FnMut(&mut W, &OMatrix<S, D, DH>) -> OMatrix<S, DH, T>,
    scale: S,
    workspace: &mut W,
) -> HeadScores<S, DH, T>
where
    DefaultAllocator: Allocator<D, DH> + Allocator<DH, T> + Allocator<T, T>,
{
    let q = project(workspace, query);
    let k = project(workspace, key);
    let mut scores = workspace.tr_mul(&q, &k);
    product::update(
        &mut scores,
        #[inline(always)]
        |entry, _, _| entry * scale,
    );
    HeadScores { q, k, scores }
}

/// One head's output `V Λ`, `V = PVᵀ Z`, `Λ = σ(s QᵀK)` ([`head_scores`]), with the caller's
/// projection of the sequence, `s` and `σ`, on a matrix of `workspace`: the one place a head's
/// forward pass is written, for every size, run by the compile-time layer (on the stack) and
/// the engine's (on its scratch).
#[inline(always)]
pub(crate) fn head_update<S: Field, D: Dim, DH: Dim, T: Dim, W: Workspace<S>>(
    [query, key, value]: [&OMatrix<S, D, DH>; 3],
    mut project: impl FnMut(&mut W, &OMatrix<S, D, DH>) -> OMatrix<S, DH, T>,
    (scale, softmax): (S, impl FnOnce(OMatrix<S, T, T>) -> OMatrix<S, T, T>),
    workspace: &mut W,
) -> OMatrix<S, DH, T>
where
    DefaultAllocator: Allocator<D, DH> + Allocator<DH, T> + Allocator<T, T>,
{
    let HeadScores {
        mut q,
        mut k,
        scores,
    } = head_scores([query, key], &mut project, scale, workspace);
    workspace.recycle_all([&mut q, &mut k]);
    let mut lambda = softmax(scores);
    let mut v = project(workspace, value);
    let update = workspace.mul(&v, &lambda);
    workspace.recycle(&mut v);
    workspace.recycle(&mut lambda);
    update
}
