//! `Z·Cay(C)` at a sequence length known at run time: the kernel of that length.

use nalgebra::{DMatrix, DMatrixView, SMatrix};

use super::{Element, Scratch};
use crate::{Generated, OrthogonalMap};

/// The longest sequence whose Cayley transform runs the compile-time kernel of its length
/// ([`Generated`]: closed forms up to 4, Gram–Schmidt or elimination beyond); longer ones run
/// LU with partial pivoting on `I + C` ([`Element::cayley_by_lu`]).
pub const MAX_SPECIALISED_SEQ: usize = 16;

/// `Z·Cay(C)` for `Z` of `T` columns and the skew `T×T` matrix `C` (its strict upper triangle),
/// written over `z`, by the kernel of `T` (a jump on `T`, taken once per call).
pub(crate) fn product<S: Element>(z: &mut DMatrix<S>, c: &DMatrix<S>, scratch: &mut Scratch<S>) {
    if S::cayley_product_in_place(z, c) {
        return;
    }
    macro_rules! table {
        ($($t:literal)*) => {
            match c.nrows() {
                $($t => specialised::<S, $t>(z, c, scratch),)*
                _ => {
                    let out = S::cayley_by_lu(z, c);
                    scratch.replace(z, out);
                }
            }
        };
    }
    table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// [`Generated`] at `T`, then the product ([`Element::mul_to`]: for exact scalars, nalgebra's
/// order, bit for bit the compile-time layer's [`OrthogonalMap::multiply_to`]).
fn specialised<S: Element, const T: usize>(
    z: &mut DMatrix<S>,
    c: &DMatrix<S>,
    scratch: &mut Scratch<S>,
) {
    let c = SMatrix::<S, T, T>::from_fn(|i, j| c[(i, j)]);
    let q = <Generated as OrthogonalMap<S, T>>::map(&c);
    let mut out = scratch.unfilled(z.nrows(), T);
    S::mul_to(
        &z.as_view(),
        &DMatrixView::from_slice(q.as_slice(), T, T),
        &mut out,
    );
    scratch.replace(z, out);
}
