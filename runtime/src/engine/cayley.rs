//! `Z·Cay(C)` at a sequence length known at run time: the kernel of that length.

use nalgebra::{DMatrix, SMatrix};

use super::Element;
use crate::{Generated, OrthogonalMap, product};

/// The longest sequence whose Cayley transform runs the compile-time kernel of its length
/// ([`Generated`]: closed forms up to 4, Gram–Schmidt or elimination beyond); longer ones run
/// LU with partial pivoting on `I + C` ([`Element::cayley_by_lu`]).
pub const MAX_SPECIALISED_SEQ: usize = 16;

/// `Z·Cay(C)` for `Z` of `T` columns and the skew `T×T` matrix `C` (its strict upper triangle),
/// by the kernel of `T` (a jump on `T`, taken once per call).
pub(crate) fn product<S: Element>(z: &DMatrix<S>, c: &DMatrix<S>) -> DMatrix<S> {
    macro_rules! table {
        ($($t:literal)*) => {
            match c.nrows() {
                $($t => specialised::<S, $t>(z, c),)*
                _ => S::cayley_by_lu(z, c),
            }
        };
    }
    table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// [`Generated`] at `T`, then the product in nalgebra's order: bit for bit the compile-time
/// layer's [`OrthogonalMap::multiply_to`].
fn specialised<S: Element, const T: usize>(z: &DMatrix<S>, c: &DMatrix<S>) -> DMatrix<S> {
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
