//! GML's packed special matrices, with its exact index maps.
//!
//! A packed matrix is held densely (as an [`SMatrix`], which is what every product wants) and
//! converted from and to GML's packed vector `S` at the boundary. All four kinds share one
//! implementation, [`Packed`], parametrised by a [`PackedLayout`]: the order in which the packed entries
//! fill the matrix, and how the other triangle mirrors them.
//!
//! | kind | packed length | order of `S` (1-based, as in GML) | other triangle |
//! |---|---|---|---|
//! | [`SkewSymmetric`] | n(n−1)/2 | strict lower, row by row: (2,1), (3,1), (3,2), … | `A[j,i] = −A[i,j]` |
//! | [`Symmetric`] | n(n+1)/2 | lower with diagonal, row by row: (1,1), (2,1), (2,2), … | `A[j,i] = A[i,j]` |
//! | [`StrictlyLower`] | n(n−1)/2 | as skew | zero |
//! | [`StrictlyUpper`] | n(n−1)/2 | strict upper, column by column: (1,2), (1,3), (2,3), … | zero |
//!
//! ```
//! use geomattn::{SkewSymmetric, nalgebra::Matrix4};
//! let a = SkewSymmetric::<f64, 4>::from_packed(&[1., 2., 3., 4., 5., 6.])?;
//! assert_eq!(*a.matrix(), Matrix4::new(0., -1., -2., -4.,
//!                                      1.,  0., -3., -5.,
//!                                      2.,  3.,  0., -6.,
//!                                      4.,  5.,  6.,  0.));
//! let mut packed = [0.0; 6];
//! a.write_packed(&mut packed)?;
//! assert_eq!(packed, [1., 2., 3., 4., 5., 6.]);
//! # Ok::<(), geomattn::Error>(())
//! ```

use core::marker::PhantomData;

use nalgebra::{Dim, Matrix, RawStorageMut, RealField, SMatrix};
use rand::Rng;

use crate::error::Error;
use crate::init;
use crate::scalar::Field;
use crate::schema::Kind;

/// How the triangle that is not stored is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mirror {
    /// `A[j,i] = A[i,j]`.
    Symmetric,
    /// `A[j,i] = −A[i,j]`.
    Antisymmetric,
    /// Left at zero.
    Zero,
}

/// The index map of one kind of packed matrix.
pub trait PackedLayout {
    /// Name used in error messages.
    const KIND: &'static str;
    /// How the unstored triangle is filled.
    const MIRROR: Mirror;
    /// The [`Kind`] of a parameter of this layout in a [`Schema`](crate::Schema).
    const PARAM_KIND: Kind;
    /// Number of packed entries of an `n×n` matrix.
    fn packed_len(n: usize) -> usize;
    /// The 0-based positions `(row, column)` that the packed entries occupy, in packed order.
    fn positions(n: usize) -> impl Iterator<Item = (usize, usize)>;
}

/// Strict lower triangle, row by row: `(1,0), (2,0), (2,1), (3,0), …` (0-based).
fn strict_lower_rows(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(|i| (0..i).map(move |j| (i, j)))
}

/// Layout of [`SkewSymmetric`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skew {}
/// Layout of [`Symmetric`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sym {}
/// Layout of [`StrictlyLower`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lower {}
/// Layout of [`StrictlyUpper`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upper {}

impl PackedLayout for Skew {
    const PARAM_KIND: Kind = Kind::Skew;
    const KIND: &'static str = "skew-symmetric";
    const MIRROR: Mirror = Mirror::Antisymmetric;
    fn packed_len(n: usize) -> usize {
        n * n.saturating_sub(1) / 2
    }
    fn positions(n: usize) -> impl Iterator<Item = (usize, usize)> {
        strict_lower_rows(n)
    }
}

impl PackedLayout for Sym {
    const PARAM_KIND: Kind = Kind::Symmetric;
    const KIND: &'static str = "symmetric";
    const MIRROR: Mirror = Mirror::Symmetric;
    fn packed_len(n: usize) -> usize {
        n * (n + 1) / 2
    }
    fn positions(n: usize) -> impl Iterator<Item = (usize, usize)> {
        (0..n).flat_map(|i| (0..=i).map(move |j| (i, j)))
    }
}

impl PackedLayout for Lower {
    const PARAM_KIND: Kind = Kind::StrictlyLower;
    const KIND: &'static str = "strictly lower triangular";
    const MIRROR: Mirror = Mirror::Zero;
    fn packed_len(n: usize) -> usize {
        Skew::packed_len(n)
    }
    fn positions(n: usize) -> impl Iterator<Item = (usize, usize)> {
        strict_lower_rows(n)
    }
}

impl PackedLayout for Upper {
    const PARAM_KIND: Kind = Kind::StrictlyUpper;
    const KIND: &'static str = "strictly upper triangular";
    const MIRROR: Mirror = Mirror::Zero;
    fn packed_len(n: usize) -> usize {
        Skew::packed_len(n)
    }
    /// Column by column over the strict upper part: the transpose of the lower row-by-row order.
    fn positions(n: usize) -> impl Iterator<Item = (usize, usize)> {
        strict_lower_rows(n).map(|(i, j)| (j, i))
    }
}

/// The gradient of the packed entry at `(i, j)` from the dense gradient's entries `dense(i, j)`:
/// the entry and, off the diagonal, its mirror's share (`+` for a symmetric matrix, `−` for a
/// skew one, none for a triangular one). The one place a dense gradient is folded onto a packed
/// weight, for the compile-time layers' gradients ([`Packed`]) and the engine's ([`add_folded`]).
#[inline(always)]
pub(crate) fn folded<S: Field, Layout: PackedLayout>(
    dense: impl Fn(usize, usize) -> S,
    i: usize,
    j: usize,
) -> S {
    match Layout::MIRROR {
        _ if i == j => dense(i, i),
        Mirror::Symmetric => dense(i, j) + dense(j, i),
        Mirror::Antisymmetric => dense(i, j) - dense(j, i),
        Mirror::Zero => dense(i, j),
    }
}

/// Adds the dense `n×n` gradient `dense(i, j)` ([`folded`]) to `gradient`, a packed weight's
/// entries in `Layout`'s order.
#[cfg(feature = "std")]
pub(crate) fn add_folded<S: Field, Layout: PackedLayout>(
    n: usize,
    dense: impl Fn(usize, usize) -> S,
    gradient: &mut [S],
) {
    for ((i, j), g) in Layout::positions(n).zip(gradient) {
        *g += folded::<S, Layout>(&dense, i, j);
    }
}

/// A `SIZE×SIZE` special matrix in GML's packed representation, held densely.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packed<S, const SIZE: usize, Layout> {
    matrix: SMatrix<S, SIZE, SIZE>,
    layout: PhantomData<Layout>,
}

/// GML's `SkewSymMatrix`.
pub type SkewSymmetric<S, const SIZE: usize> = Packed<S, SIZE, Skew>;
/// GML's `SymmetricMatrix`.
pub type Symmetric<S, const SIZE: usize> = Packed<S, SIZE, Sym>;
/// GML's `LowerTriangular` (strict).
pub type StrictlyLower<S, const SIZE: usize> = Packed<S, SIZE, Lower>;
/// GML's `UpperTriangular` (strict).
pub type StrictlyUpper<S, const SIZE: usize> = Packed<S, SIZE, Upper>;

impl<S: Field, const SIZE: usize, Layout: PackedLayout> Packed<S, SIZE, Layout> {
    /// Number of packed entries, `n(n−1)/2` or `n(n+1)/2`.
    pub fn packed_len() -> usize {
        Layout::packed_len(SIZE)
    }

    /// Builds the matrix from GML's packed vector `S`.
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `packed` does not have [`Self::packed_len`] entries.
    pub fn from_packed(packed: &[S]) -> Result<Self, Error> {
        Self::check_len(packed.len())?;
        let mut values = packed.iter().copied();
        Ok(Self::from_fn(|| values.next().unwrap_or_else(S::zero)))
    }

    /// Writes GML's packed vector `S` into `out`.
    ///
    /// # Errors
    /// [`Error::PackedLength`] if `out` does not have [`Self::packed_len`] entries.
    pub fn write_packed(&self, out: &mut [S]) -> Result<(), Error> {
        Self::check_len(out.len())?;
        for (slot, (i, j)) in out.iter_mut().zip(Layout::positions(SIZE)) {
            *slot = self.matrix[(i, j)];
        }
        Ok(())
    }

    /// The dense matrix.
    pub fn matrix(&self) -> &SMatrix<S, SIZE, SIZE> {
        &self.matrix
    }

    /// The same matrix over another scalar, entry by entry (e.g. `f32` weights run in `f64`, or
    /// lifted to dual numbers for an exact Jacobian). `f` must map 0 to 0 and commute with
    /// negation for the structure to be kept, as every numeric conversion does.
    pub fn map_scalar<S2: Field>(&self, f: impl FnMut(S) -> S2) -> Packed<S2, SIZE, Layout> {
        Packed {
            matrix: self.matrix.map(f),
            layout: PhantomData,
        }
    }

    /// The zero matrix: every packed entry 0 (the start of a gradient that is summed over a
    /// batch, see [`crate::backward`]).
    pub fn zeros() -> Self {
        Self::from_fn(S::zero)
    }

    /// Adds `m[(i, j)]` to the packed entry at each packed position `(i, j)`, mirrored as the
    /// layout mirrors: the packed gradient, when `m` holds the derivative with respect to each
    /// packed entry at that entry's position.
    #[inline(always)]
    pub(crate) fn add_packed_from(&mut self, m: &SMatrix<S, SIZE, SIZE>) {
        for (i, j) in Layout::positions(SIZE) {
            self.set(i, j, self.matrix[(i, j)] + m[(i, j)]);
        }
    }

    /// Adds the gradient with respect to each packed entry, given `dense = ∂L/∂A` entry by entry
    /// of the dense matrix: a packed entry fills its position and, mirrored, the transposed one,
    /// so it collects both (with the mirror's sign).
    pub(crate) fn add_dense_gradient(&mut self, dense: &SMatrix<S, SIZE, SIZE>) {
        for (i, j) in Layout::positions(SIZE) {
            let total = self.matrix[(i, j)] + folded::<S, Layout>(|i, j| dense[(i, j)], i, j);
            self.set(i, j, total);
        }
    }

    /// Sets the packed entry at `(i, j)` and its mirror.
    #[inline(always)]
    fn set(&mut self, i: usize, j: usize, value: S) {
        set_mirrored::<S, Layout, _, _>(&mut self.matrix, i, j, value);
    }

    /// Builds the matrix from its packed entries, produced in packed order by `next`.
    fn from_fn(next: impl FnMut() -> S) -> Self {
        let mut matrix = SMatrix::zeros();
        fill::<S, Layout, _, _>(&mut matrix, next);
        Self {
            matrix,
            layout: PhantomData,
        }
    }

    fn check_len(found: usize) -> Result<(), Error> {
        check_len::<Layout>(SIZE, found)
    }
}

/// Sets the entry `(i, j)` of `matrix` and its mirror, as `Layout` mirrors.
#[inline(always)]
fn set_mirrored<S: Field, Layout: PackedLayout, N: Dim, SM: RawStorageMut<S, N, N>>(
    matrix: &mut Matrix<S, N, N, SM>,
    i: usize,
    j: usize,
    value: S,
) {
    matrix[(i, j)] = value;
    match Layout::MIRROR {
        Mirror::Symmetric => matrix[(j, i)] = value,
        Mirror::Antisymmetric => matrix[(j, i)] = -value,
        Mirror::Zero => {}
    }
}

/// Fills the zero matrix `matrix` (`n×n`, of compile-time or run-time size) from its packed
/// entries, produced in packed order by `next`.
fn fill<S: Field, Layout: PackedLayout, N: Dim, SM: RawStorageMut<S, N, N>>(
    matrix: &mut Matrix<S, N, N, SM>,
    mut next: impl FnMut() -> S,
) {
    for (i, j) in Layout::positions(matrix.nrows()) {
        set_mirrored::<S, Layout, _, _>(matrix, i, j, next());
    }
}

fn check_len<Layout: PackedLayout>(n: usize, found: usize) -> Result<(), Error> {
    let expected = Layout::packed_len(n);
    if found == expected {
        Ok(())
    } else {
        Err(Error::PackedLength {
            kind: Layout::KIND,
            n,
            expected,
            found,
        })
    }
}

/// GML's packed vector `S` of an `n×n` matrix of layout `Layout`, held densely at a size known at
/// run time: what [`Packed::from_packed`] builds at a compile-time size, for the run-time engine
/// ([`crate::engine`]).
///
/// ```
/// use geomattn::packed::{Upper, dense_from_packed};
/// let w = dense_from_packed::<f64, Upper>(3, &[1.0, 2.0, 3.0])?;
/// assert_eq!(w, geomattn::nalgebra::dmatrix![0.0, 1.0, 2.0; 0.0, 0.0, 3.0; 0.0, 0.0, 0.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
///
/// # Errors
/// [`Error::PackedLength`] if `packed` does not have `Layout::packed_len(n)` entries.
#[cfg(feature = "std")]
pub fn dense_from_packed<S: Field, Layout: PackedLayout>(
    n: usize,
    packed: &[S],
) -> Result<nalgebra::DMatrix<S>, Error> {
    check_len::<Layout>(n, packed.len())?;
    let mut matrix = nalgebra::DMatrix::zeros(n, n);
    let mut values = packed.iter().copied();
    fill::<S, Layout, _, _>(&mut matrix, || values.next().unwrap_or_else(S::zero));
    Ok(matrix)
}

/// `const` constructors for the scalars whose arithmetic is `const` (`f32`, `f64`).
macro_rules! const_packed {
    ($($scalar:ty),*) => {$(
        impl<const SIZE: usize, Layout: PackedLayout> Packed<$scalar, SIZE, Layout> {
            /// [`from_packed`](Self::from_packed) as a `const fn`, so that a `static` network can
            /// hold a packed weight (in a `static`'s initialiser, a wrong length is a compile
            /// error):
            ///
            /// ```
            /// use geomattn::SkewSymmetric;
            #[doc = concat!("type A = SkewSymmetric<", stringify!($scalar), ", 3>;")]
            /// static WEIGHT: A = match A::from_packed_const(&[1.0, 2.0, 3.0]) {
            ///     Ok(a) => a,
            ///     Err(_) => panic!("a 3×3 skew-symmetric matrix has 3 packed entries"),
            /// };
            /// assert_eq!(WEIGHT, A::from_packed(&[1.0, 2.0, 3.0])?);
            /// # Ok::<(), geomattn::Error>(())
            /// ```
            ///
            /// # Errors
            /// [`Error::PackedLength`] if `packed` does not have [`packed_len`](Self::packed_len)
            /// entries.
            pub const fn from_packed_const(packed: &[$scalar]) -> Result<Self, Error> {
                let expected = Layout::PARAM_KIND.len(SIZE, SIZE);
                if packed.len() != expected {
                    return Err(Error::PackedLength {
                        kind: Layout::KIND,
                        n: SIZE,
                        expected,
                        found: packed.len(),
                    });
                }
                // Column-major, as nalgebra stores it: `columns[j][i]` is entry (i, j).
                let mut columns = [[0.0; SIZE]; SIZE];
                let with_diagonal = matches!(Layout::PARAM_KIND, Kind::Symmetric);
                let (mut i, mut j, mut k) = (0, 0, 0);
                while i < SIZE {
                    let end = if with_diagonal { i + 1 } else { i };
                    while j < end {
                        let value = packed[k];
                        match Layout::MIRROR {
                            Mirror::Antisymmetric => {
                                columns[j][i] = value;
                                columns[i][j] = -value;
                            }
                            Mirror::Symmetric => {
                                columns[j][i] = value;
                                columns[i][j] = value;
                            }
                            // Strictly lower: (i, j) row by row; strictly upper: its transpose,
                            // (j, i), which runs column by column.
                            Mirror::Zero => match Layout::PARAM_KIND {
                                Kind::StrictlyUpper => columns[i][j] = value,
                                _ => columns[j][i] = value,
                            },
                        }
                        j += 1;
                        k += 1;
                    }
                    i += 1;
                    j = 0;
                }
                Ok(Self {
                    matrix: SMatrix::from_array_storage(nalgebra::ArrayStorage(columns)),
                    layout: PhantomData,
                })
            }
        }
    )*};
}
const_packed!(f32, f64);

impl<S: RealField + Copy, const SIZE: usize, Layout: PackedLayout> Packed<S, SIZE, Layout> {
    /// GML's initialisation: each of the `len` packed entries drawn from
    /// U(−√(6/len), √(6/len)).
    pub fn glorot<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let bound = init::glorot_bound::<S>(Layout::packed_len(SIZE));
        Self::from_fn(|| init::uniform(rng, bound))
    }
}

/// A matrix from a flat slice in Julia's column-major order.
pub(crate) fn matrix_from_slice<S: Field, const ROWS: usize, const COLS: usize>(
    name: &'static str,
    values: &[S],
) -> Result<SMatrix<S, ROWS, COLS>, Error> {
    if values.len() == ROWS * COLS {
        Ok(SMatrix::from_column_slice(values))
    } else {
        Err(Error::WeightLength {
            name,
            expected: ROWS * COLS,
            found: values.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Matrix4;

    fn one_to<const K: usize>() -> [i64; K] {
        core::array::from_fn(|k| k as i64 + 1)
    }

    #[test]
    fn conventions_examples() {
        let s6: [f64; 6] = one_to::<6>().map(|k| k as f64);
        let s10: [f64; 10] = one_to::<10>().map(|k| k as f64);
        let skew = SkewSymmetric::<f64, 4>::from_packed(&s6).unwrap();
        assert_eq!(
            *skew.matrix(),
            Matrix4::new(
                0., -1., -2., -4., 1., 0., -3., -5., 2., 3., 0., -6., 4., 5., 6., 0.
            )
        );
        let sym = Symmetric::<f64, 4>::from_packed(&s10).unwrap();
        assert_eq!(
            *sym.matrix(),
            Matrix4::new(
                1., 2., 4., 7., 2., 3., 5., 8., 4., 5., 6., 9., 7., 8., 9., 10.
            )
        );
        let lower = StrictlyLower::<f64, 4>::from_packed(&s6).unwrap();
        assert_eq!(
            *lower.matrix(),
            Matrix4::new(
                0., 0., 0., 0., 1., 0., 0., 0., 2., 3., 0., 0., 4., 5., 6., 0.
            )
        );
        let upper = StrictlyUpper::<f64, 4>::from_packed(&s6).unwrap();
        assert_eq!(
            *upper.matrix(),
            Matrix4::new(
                0., 1., 2., 4., 0., 0., 3., 5., 0., 0., 0., 6., 0., 0., 0., 0.
            )
        );
    }

    /// Folding a dense gradient onto the packed entries is the adjoint of unpacking them:
    /// `⟨D, U(p)⟩ = ⟨fold(D), p⟩` for every dense `D` and packed `p`, exactly in rationals, for
    /// each layout, through the compile-time gradients (`Packed::add_dense_gradient`) and the
    /// engine's (`add_folded`), which agree.
    fn fold_is_the_adjoint_of_unpacking<Layout: PackedLayout>() {
        type Q = num_rational::Ratio<i64>;
        const N: usize = 4;
        let len = Layout::packed_len(N);
        let p: std::vec::Vec<Q> = (0..len).map(|k| Q::new(k as i64 % 5 - 2, 3)).collect();
        let d = SMatrix::<Q, N, N>::from_fn(|i, j| Q::new(((i * N + j) * 7 % 11) as i64 - 5, 2));
        let unpacked = dense_from_packed::<Q, Layout>(N, &p).unwrap();
        let dense_side = d
            .iter()
            .zip(unpacked.iter())
            .map(|(a, b)| *a * *b)
            .sum::<Q>();
        let mut compiled =
            Packed::<Q, N, Layout>::from_packed(&std::vec![Q::from(0); len]).unwrap();
        compiled.add_dense_gradient(&d);
        let compiled: std::vec::Vec<Q> = Layout::positions(N)
            .map(|(i, j)| compiled.matrix[(i, j)])
            .collect();
        let mut engine = std::vec![Q::from(0); len];
        add_folded::<Q, Layout>(N, |i, j| d[(i, j)], &mut engine);
        assert_eq!(compiled, engine, "{}", Layout::KIND);
        let packed_side = engine.iter().zip(&p).map(|(a, b)| *a * *b).sum::<Q>();
        assert_eq!(dense_side, packed_side, "{}", Layout::KIND);
    }

    #[cfg(feature = "std")]
    #[test]
    fn folding_a_dense_gradient_is_the_adjoint_of_unpacking() {
        fold_is_the_adjoint_of_unpacking::<Skew>();
        fold_is_the_adjoint_of_unpacking::<Sym>();
        fold_is_the_adjoint_of_unpacking::<Lower>();
        fold_is_the_adjoint_of_unpacking::<Upper>();
    }
}
