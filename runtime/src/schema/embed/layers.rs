//! What the layers' [`EmbedFrom`] share, for `f32` and `f64` (the scalars whose arithmetic
//! `const` evaluation has): a reader per scalar of a file's values as the scalar, matrices and
//! packed matrices ([`Fit`]), and [`per_scalar!`], which implements a layer's `EmbedFrom` (beside
//! the layer, e.g. `crate::vpa::embed`) once for each scalar; here, the classifier's head and
//! `VolumePreservingFeedForward`, whose blocks are built in place.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix};

use super::fit::{Fit, Fitted, Mismatch};
use super::{EmbedFrom, Embedded};
use crate::activation::Identity;
use crate::architectures::{
    ClassificationLayer, LinearPair, VolumePreservingFeedForward, VpffBlock,
};
use crate::feedforward::{StrictlyTriangular, VolumePreservingLayer};
use crate::packed::{Lower, Packed, PackedLayout, Upper};
use crate::schema::params::{matrix_param, packed_param, vector_param};
use crate::schema::{Kind, Name};

/// The file's reader for the part that starts after `Src::LAYER` layer groups.
pub(crate) const fn file_of<Src: Embedded>() -> Fit<'static> {
    Fit::new(Src::DATA, Src::PARAMS)
}

/// The readers of one scalar whose arithmetic `const` evaluation has (`S`), and the `EmbedFrom`
/// of the architectures' parts that are built here.
macro_rules! embed_layers {
    ($($scalar:ident),*) => {$(
        pub(crate) mod $scalar {
            use super::*;

            /// The scalar the readers give.
            pub(crate) type S = $scalar;

            /// Value `k` of parameter `at` as the scalar, rounded once; zero once the file does
            /// not fit, and a mismatch if it is beyond the scalar's range (a Float64 weight read
            /// into an `f32` network).
            pub(crate) const fn scalar_at(fit: &mut Fit<'_>, at: usize, k: usize) -> S {
                let Some((index, value)) = fit.value(at, k) else {
                    return 0.0;
                };
                let x = value as S;
                if !x.is_finite() {
                    fit.fail(
                        Mismatch::new()
                            .text("value ")
                            .number(index)
                            .text(" of the file (in GML's order) is beyond the range of ")
                            .text(stringify!($scalar)),
                    );
                    return 0.0;
                }
                x
            }

            /// Parameter `at`, a `ROWS×COLS` matrix (column-major values).
            pub(crate) const fn matrix_at<const ROWS: usize, const COLS: usize>(
                fit: &mut Fit<'_>,
                at: usize,
            ) -> SMatrix<S, ROWS, COLS> {
                let mut columns = [[0.0; ROWS]; COLS];
                let mut k = 0;
                while k < ROWS * COLS {
                    columns[k / ROWS][k % ROWS] = scalar_at(fit, at, k);
                    k += 1;
                }
                SMatrix::from_array_storage(ArrayStorage(columns))
            }

            /// Parameter `at`, a packed matrix (converted through a `SIZE×SIZE` scratch array:
            /// there are never more values).
            pub(crate) const fn packed_at<const SIZE: usize, Layout: PackedLayout>(
                fit: &mut Fit<'_>,
                at: usize,
            ) -> Packed<S, SIZE, Layout> {
                let len = Layout::PARAM_KIND.len(SIZE, SIZE);
                let mut scratch = [[0.0; SIZE]; SIZE];
                let mut k = 0;
                while k < len {
                    scratch[k / SIZE][k % SIZE] = scalar_at(fit, at, k);
                    k += 1;
                }
                let values = scratch.as_flattened().split_at(len).0;
                match Packed::<S, SIZE, Layout>::from_packed_const(values) {
                    Ok(packed) => packed,
                    Err(_) => panic!("the packed length is the layout's"),
                }
            }

            /// A volume-preserving layer at layer group `layer`, with a bias or not.
            pub(crate) const fn vp_layer<const D: usize, Layout, Act>(
                fit: &mut Fit<'_>,
                layer: usize,
                bias: bool,
            ) -> VolumePreservingLayer<S, D, Layout, Act>
            where
                Layout: StrictlyTriangular,
            {
                let weight = packed_param::<D, Layout>("weight");
                let at = if bias {
                    fit.expect(layer, &[weight, vector_param::<D>("bias")])
                } else {
                    fit.expect(layer, &[weight])
                };
                let weight = packed_at::<D, Layout>(fit, at);
                let bias = if bias {
                    Some(matrix_at::<D, 1>(fit, at + 1))
                } else {
                    None
                };
                VolumePreservingLayer::new(weight, bias)
            }

            impl<Src, const D: usize, const CLASSES: usize> EmbedFrom<Src>
                for ClassificationLayer<S, D, CLASSES>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let weight = matrix_param::<CLASSES, D>(Name::new("weight"), Kind::Dense);
                    let at = fit.expect(Src::LAYER + 1, &[weight]);
                    let weight = matrix_at(&mut fit, at);
                    fit.fitted(Self::new(weight))
                };
            }

            impl<Src, const D: usize, const NB: usize, const NL: usize, Act> EmbedFrom<Src>
                for VolumePreservingFeedForward<S, D, NB, NL, Act>
            where
                Src: Embedded,
            {
                /// GML's order and biases (see its [`Schema`](crate::Schema)).
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let mut layer = Src::LAYER + 1;
                    let mut blocks = MaybeUninit::<[VpffBlock<S, D, NL, Act>; NB]>::uninit();
                    let block_slots = blocks.as_mut_ptr().cast::<VpffBlock<S, D, NL, Act>>();
                    let mut b = 0;
                    while b < NB {
                        let mut linear = MaybeUninit::<[LinearPair<S, D>; NL]>::uninit();
                        let pair_slots = linear.as_mut_ptr().cast::<LinearPair<S, D>>();
                        let mut k = 0;
                        while k < NL {
                            let lower = vp_layer::<D, Lower, Identity>(&mut fit, layer, false);
                            let upper =
                                vp_layer::<D, Upper, Identity>(&mut fit, layer + 1, k + 1 == NL);
                            // SAFETY: `k < NL`, inside the array.
                            unsafe { pair_slots.add(k).write((lower, upper)) };
                            layer += 2;
                            k += 1;
                        }
                        let block = VpffBlock {
                            // SAFETY: all `NL` pairs have been written.
                            linear: unsafe { linear.assume_init() },
                            lower: vp_layer(&mut fit, layer, true),
                            upper: vp_layer(&mut fit, layer + 1, true),
                        };
                        // SAFETY: `b < NB`, inside the array.
                        unsafe { block_slots.add(b).write(block) };
                        layer += 2;
                        b += 1;
                    }
                    let last = (
                        vp_layer::<D, Lower, Identity>(&mut fit, layer, false),
                        vp_layer::<D, Upper, Identity>(&mut fit, layer + 1, true),
                    );
                    // SAFETY: all `NB` blocks have been written.
                    fit.fitted(Self::new(unsafe { blocks.assume_init() }, last))
                };
            }
        }
    )*};
}
embed_layers!(f32, f64);

/// Implements each item (a layer's `EmbedFrom`, and the `const fn`s it needs) once for `f32` and
/// once for `f64`, with the readers of that scalar in scope and `S` naming it.
macro_rules! per_scalar {
    ($($item:item)*) => {
        const _: () = {
            use $crate::schema::embed::layers::f32::*;
            $($item)*
        };
        const _: () = {
            use $crate::schema::embed::layers::f64::*;
            $($item)*
        };
    };
}
pub(crate) use per_scalar;
