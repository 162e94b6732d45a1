//! `Z·Cay(C)` at a sequence length known at run time: the kernel of that length, picked once.

use nalgebra::{DMatrix, RealField, SMatrix};

use crate::{Field, Generated, OrthogonalMap, product};

/// The longest sequence whose Cayley transform runs the compile-time kernel of its length
/// ([`Generated`]: closed forms up to 4, Gram–Schmidt or elimination beyond); longer ones run
/// nalgebra's LU with partial pivoting on `I + C`.
pub const MAX_SPECIALISED_SEQ: usize = 16;

/// `Z·Cay(C)` for `Z` of `T` columns and the skew `T×T` matrix `C`.
pub(crate) type CayleyProduct<S> = fn(&DMatrix<S>, &DMatrix<S>) -> DMatrix<S>;

/// The kernel for sequences of length `seq`.
pub(crate) fn for_seq<S: Field + RealField>(seq: usize) -> CayleyProduct<S> {
    macro_rules! table {
        ($($t:literal)*) => {
            match seq {
                $($t => specialised::<S, $t>,)*
                _ => by_lu::<S>,
            }
        };
    }
    table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// [`Generated`] at `T`, then the product in nalgebra's order: bit for bit the compile-time
/// layer's [`OrthogonalMap::multiply_to`].
fn specialised<S: Field + RealField, const T: usize>(z: &DMatrix<S>, c: &DMatrix<S>) -> DMatrix<S> {
    let c = SMatrix::<S, T, T>::from_fn(|i, j| c[(i, j)]);
    let q = <Generated as OrthogonalMap<S, T>>::map(&c);
    let mut out = DMatrix::zeros(z.nrows(), T);
    product::mul_to_generic(
        &z.fixed_columns::<T>(0),
        &q,
        &mut out.fixed_columns_mut::<T>(0),
    );
    out
}

/// `Cay(C) = (I + C)⁻¹(I − C)` by nalgebra's LU with partial pivoting (NaN if `I + C` is
/// singular to working precision, which it never is in exact arithmetic).
fn by_lu<S: Field + RealField>(z: &DMatrix<S>, c: &DMatrix<S>) -> DMatrix<S> {
    let t = c.nrows();
    // Only the strict upper triangle of `c` is read, as every orthogonal map does.
    let skew = DMatrix::from_fn(t, t, |i, j| match i.cmp(&j) {
        core::cmp::Ordering::Less => c[(i, j)],
        core::cmp::Ordering::Greater => -c[(j, i)],
        core::cmp::Ordering::Equal => S::zero(),
    });
    let identity = DMatrix::<S>::identity(t, t);
    let q = (&identity + &skew)
        .lu()
        .solve(&(&identity - &skew))
        .unwrap_or_else(|| DMatrix::from_element(t, t, S::zero() / S::zero()));
    product::mul_generic(z, &q)
}
