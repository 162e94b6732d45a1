//! `Z·Cay(C)` at a sequence length known at run time: the kernel of that length.

use nalgebra::{DMatrix, DMatrixView, SMatrix};

use super::{Element, Scratch};
use crate::cayley::Generated;
use crate::orthogonal::OrthogonalMap;

/// The longest sequence whose Cayley transform runs the compile-time kernel of its length
/// ([`Generated`]: closed forms up to 4, Gram–Schmidt or elimination beyond); longer ones run
/// LU with partial pivoting on `I + C` ([`Element::cayley_by_lu`]).
///
/// 10 covers every length GML's tutorials and scripts use (3 to 10). Each length costs its own
/// unrolled kernels in every scalar the engine runs in (three `f32` kernels, `f64`'s, the dual
/// numbers'), growing like `T³`: the lengths 11 to 16 were 40 s of `geomattn-networks`'s 88 s
/// release build (lengths 5 to 10, 10 s). The price: LU at those lengths is 1.6 – 3.5× slower
/// (`docs/src/performance.md`), but for the `Fast` lanes of `f32` up to 16 while `‖C‖_F` stays
/// below [`crate::cayley::NARROW_BELOW`] in every lane, which run the elimination of the `f32` kernel
/// over whole vectors, in one loop for every length (`Isa::cayley_product_in_place`).
pub const MAX_SPECIALISED_SEQ: usize = 10;

/// `Z·Cay(C)` for `Z` of `T` columns and the skew `T×T` matrix `C` (its strict upper triangle),
/// written over `z`, by the kernel of `T` (a jump on `T`, taken once per call): [`Generated`]
/// over `S` up to 4, [`Element::cayley_long`] from 5 to [`MAX_SPECIALISED_SEQ`] (which lanes
/// run lane by lane through their scalar's kernel).
pub(crate) fn product<S: Element>(z: &mut DMatrix<S>, c: &DMatrix<S>, scratch: &mut Scratch<S>) {
    if S::cayley_product_in_place(z, c) {
        return;
    }
    macro_rules! table {
        ($($t:literal)*) => {
            match c.nrows() {
                1 => specialised::<S, 1>(z, c, scratch, <Generated as OrthogonalMap<S, 1>>::map),
                2 => specialised::<S, 2>(z, c, scratch, <Generated as OrthogonalMap<S, 2>>::map),
                3 => specialised::<S, 3>(z, c, scratch, <Generated as OrthogonalMap<S, 3>>::map),
                4 => specialised::<S, 4>(z, c, scratch, <Generated as OrthogonalMap<S, 4>>::map),
                $($t => specialised::<S, $t>(z, c, scratch, S::cayley_long::<$t>),)*
                _ => {
                    let out = S::cayley_by_lu(z, c);
                    scratch.replace(z, out);
                }
            }
        };
    }
    table!(5 6 7 8 9 10)
}

/// `kernel` (the Cayley transform at `T`), then the product ([`Element::mul_to`]: for exact
/// scalars, nalgebra's order, bit for bit the compile-time layer's
/// [`OrthogonalMap::multiply_to`]).
fn specialised<S: Element, const T: usize>(
    z: &mut DMatrix<S>,
    c: &DMatrix<S>,
    scratch: &mut Scratch<S>,
    kernel: impl Fn(&SMatrix<S, T, T>) -> SMatrix<S, T, T>,
) {
    let c = SMatrix::<S, T, T>::from_fn(|i, j| c[(i, j)]);
    let q = kernel(&c);
    let mut out = scratch.unfilled(z.nrows(), T);
    S::mul_to(
        &z.as_view(),
        &DMatrixView::from_slice(q.as_slice(), T, T),
        &mut out,
    );
    scratch.replace(z, out);
}
