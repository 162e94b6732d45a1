//! GML's Glorot-uniform initialisation, driven by a generator the caller passes in.
//!
//! A packed vector of length `L` gets U(−√(6/L), √(6/L)); a dense `m×n` matrix gets
//! U(−√(6/(m+n)), √(6/(m+n))). The caller owns the generator, so a seed reproduces a network.
//! Any [`rand::Rng`] works (`rand` is used with no default features, so this stays `no_std`).
//!
//! ```
//! use rand::SeedableRng;
//! let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
//! let w = geomattn::init::glorot_dense::<f64, 3, 5, _>(&mut rng);
//! let bound = (6.0_f64 / 8.0).sqrt();
//! assert!(w.iter().all(|x| x.abs() <= bound));
//! ```

use nalgebra::{RealField, SMatrix};
use rand::Rng;

use crate::schema::{Kind, Param, Schema, Source};

/// Half-width `√(6/fan)` of the Glorot interval; zero for `fan = 0` (nothing to draw).
pub fn glorot_bound<S: RealField + Copy>(fan: usize) -> S {
    if fan == 0 {
        return S::zero();
    }
    (nalgebra::convert::<f64, S>(6.0) / nalgebra::convert::<f64, S>(fan as f64)).sqrt()
}

/// One draw from U(−bound, bound), from 53 random bits.
pub fn uniform<S: RealField + Copy, R: Rng + ?Sized>(rng: &mut R, bound: S) -> S {
    let unit = (rng.next_u64() >> 11) as f64 * (1.0 / (1_u64 << 53) as f64);
    bound * nalgebra::convert::<f64, S>(2.0 * unit - 1.0)
}

/// A standard normal draw (Box–Muller, from 53-bit uniforms in `(0, 1]`): GML's `randn`, for
/// the weights it draws on the Stiefel manifold and its optimisers' global sections.
pub(crate) fn standard_normal<S: RealField + Copy, R: Rng + ?Sized>(rng: &mut R) -> S {
    let mut open_unit = || ((rng.next_u64() >> 11) + 1) as f64 / (1_u64 << 53) as f64;
    let (u1, u2) = (open_unit(), open_unit());
    let (u1, u2): (S, S) = (nalgebra::convert(u1), nalgebra::convert(u2));
    (-(S::one() + S::one()) * u1.ln()).sqrt() * (S::two_pi() * u2).cos()
}

/// A dense `ROWS×COLS` matrix with GML's Glorot-uniform entries, bound `√(6/(ROWS+COLS))`.
pub fn glorot_dense<S: RealField + Copy, const ROWS: usize, const COLS: usize, R: Rng + ?Sized>(
    rng: &mut R,
) -> SMatrix<S, ROWS, COLS> {
    let bound = glorot_bound::<S>(ROWS + COLS);
    SMatrix::from_fn(|_, _| uniform(rng, bound))
}

/// A whole network (or layer) `N` initialised as GML initialises it: every weight GlorotUniform
/// by the rule of its kind (above), every parameter named `bias` zero (GML's
/// `ZeroInitializer`), drawn in the order of the parameters in GML's file. The layers' own
/// `glorot` constructors draw in that order too, and agree draw for draw, except multi-head
/// attention's, which draws head by head (`PQ`, `PK`, `PV` of head 1, then head 2) as GML does:
/// the same distribution in another order.
///
/// ```
/// use geomattn::activation::Tanh;
/// use geomattn::architectures::VolumePreservingTransformer;
/// use rand::SeedableRng;
/// type Vpt = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>;
/// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
/// let net: Vpt = geomattn::init::glorot_network(&mut rng)?;
/// # Ok::<(), geomattn::Error>(())
/// ```
///
/// # Errors
/// What `N`'s layers report for random values: a Stiefel weight ([`Kind::Stiefel`]), which GML
/// initialises on its manifold rather than uniformly, is off it ([`crate::Error`]).
pub fn glorot_network<N, R>(rng: &mut R) -> Result<N, crate::error::Error>
where
    N: Schema<Scalar: RealField + Copy>,
    R: Rng + ?Sized,
{
    N::read(&mut GlorotSource { rng })
}

/// One parameter's values as [`glorot_network`] draws them, given its kind and shape (a
/// `rows×cols` matrix, an `n×n` packed one, a vector of `rows`) and whether it is a bias: the
/// parameters of a network whose sizes are known only at run time, one after the other.
///
/// ```
/// use geomattn::Kind;
/// use geomattn::init::glorot_parameter;
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
/// let mut weight = [0.0_f64; 6];
/// glorot_parameter((Kind::Dense, 2, 3), false, &mut rng, &mut weight);
/// assert!(weight.iter().all(|w| w.abs() <= (6.0_f64 / 5.0).sqrt() && *w != 0.0));
/// let mut bias = [1.0_f64; 2];
/// glorot_parameter((Kind::Vector, 2, 1), true, &mut rng, &mut bias);
/// assert_eq!(bias, [0.0; 2]);
/// ```
pub fn glorot_parameter<S: RealField + Copy, R: Rng + ?Sized>(
    (kind, rows, cols): (Kind, usize, usize),
    bias: bool,
    rng: &mut R,
    out: &mut [S],
) {
    let fan = match kind {
        Kind::Vector if bias => 0,
        Kind::Dense | Kind::Stiefel => rows + cols,
        _ => kind.len(rows, cols),
    };
    if fan == 0 {
        out.fill(S::zero());
    } else {
        let bound = glorot_bound::<S>(fan);
        out.iter_mut().for_each(|x| *x = uniform(rng, bound));
    }
}

/// A `rows×cols` weight on the Stiefel manifold (`rows ≥ cols`) as GML initialises a
/// `PSDLayer`'s: Glorot-uniform entries ([`glorot_parameter`]), then the `Q` of their QR
/// decomposition, whose columns are orthonormal. Column-major into `out`.
///
/// ```
/// use geomattn::init::glorot_stiefel;
/// use geomattn::nalgebra::DMatrix;
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
/// let mut phi = [0.0_f64; 10];
/// glorot_stiefel(5, 2, &mut rng, &mut phi);
/// let phi = DMatrix::from_column_slice(5, 2, &phi);
/// assert!((phi.transpose() * &phi - DMatrix::identity(2, 2)).amax() < 1e-15);
/// ```
#[cfg(feature = "std")]
pub fn glorot_stiefel<S: RealField + Copy, R: Rng + ?Sized>(
    rows: usize,
    cols: usize,
    rng: &mut R,
    out: &mut [S],
) {
    glorot_parameter((Kind::Stiefel, rows, cols), false, rng, out);
    let q = nalgebra::DMatrix::from_column_slice(rows, cols, out)
        .qr()
        .q();
    out.copy_from_slice(q.as_slice());
}

/// Values drawn by GML's rules, parameter by parameter.
struct GlorotSource<'r, R: ?Sized> {
    rng: &'r mut R,
}

impl<S: RealField + Copy, R: Rng + ?Sized> Source<S> for GlorotSource<'_, R> {
    type Error = crate::error::Error;

    fn begin_layer(&mut self) -> Result<(), crate::error::Error> {
        Ok(())
    }

    fn end_layer(&mut self) -> Result<(), crate::error::Error> {
        Ok(())
    }

    fn param(&mut self, param: &Param, out: &mut [S]) -> Result<(), crate::error::Error> {
        let bias = param.name.stem == "bias";
        glorot_parameter((param.kind, param.rows, param.cols), bias, self.rng, out);
        Ok(())
    }

    fn invalid(&mut self, error: crate::error::Error) -> crate::error::Error {
        error
    }
}
