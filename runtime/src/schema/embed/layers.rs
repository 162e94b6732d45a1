//! The layers' [`EmbedFrom`], for `f32` and `f64` (the scalars whose arithmetic `const`
//! evaluation has): each checks its layer groups against its parameters ([`Fit`]) and builds
//! itself with its `const` constructor from the values they point at.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix};

use super::fit::{Fit, Fitted, Mismatch};
use super::{EmbedFrom, Embedded, sqrt};
use crate::activation::Identity;
use crate::architectures::{
    ClassificationLayer, LinearPair, VolumePreservingFeedForward, VpffBlock,
};
use crate::feedforward::{GradientLayer, ResNetLayer, StrictlyTriangular, VolumePreservingLayer};
use crate::mha::{Head, MultiHeadAttention, Projection, STIEFEL_TOLERANCE};
use crate::packed::{Lower, Packed, PackedLayout, Skew, Sym, Upper};
use crate::schema::layers::{matrix_param, packed_param, vector_param};
use crate::schema::{Kind, Name};
use crate::symplectic::PhaseSide;
use crate::symplectic::attention::{DenseA, SymmetricA, SymplecticAttention};
use crate::symplectic::linear::LinearSymplecticAttention;
use crate::vpa::{ArbitraryVpa, SkewVpa};

/// GML's names of the three projections of multi-head attention, in its order.
const PROJECTIONS: [&str; 3] = ["PQ", "PK", "PV"];

/// The file's reader for the part that starts after `Src::LAYER` layer groups.
const fn file_of<Src: Embedded>() -> Fit<'static> {
    Fit::new(Src::DATA, Src::PARAMS)
}

/// The layers' `EmbedFrom`, for one scalar whose arithmetic `const` evaluation has.
macro_rules! embed_layers {
    ($($scalar:ident),*) => {$(
        mod $scalar {
            use super::*;

            type S = $scalar;

            /// Value `k` of parameter `at` as the scalar, rounded once; zero once the file does
            /// not fit, and a mismatch if it is beyond the scalar's range (a Float64 weight read
            /// into an `f32` network).
            const fn scalar_at(fit: &mut Fit<'_>, at: usize, k: usize) -> S {
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
            const fn matrix_at<const ROWS: usize, const COLS: usize>(
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
            const fn packed_at<const SIZE: usize, Layout: PackedLayout>(
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
            const fn vp_layer<const D: usize, Layout, Act>(
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

            impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src> for SkewVpa<S, D, T, Map>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let at = fit.expect(Src::LAYER + 1, &[packed_param::<D, Skew>("A")]);
                    let a = packed_at::<D, Skew>(&mut fit, at);
                    fit.fitted(Self::skew_sym(a))
                };
            }

            impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src>
                for ArbitraryVpa<S, D, T, Map>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let a = matrix_param::<D, D>(Name::new("A"), Kind::Dense);
                    let at = fit.expect(Src::LAYER + 1, &[a]);
                    let a = matrix_at::<D, D>(&mut fit, at);
                    // GML's 1/√D, as `ArbitraryVpa::arbitrary` computes it in S.
                    let scale = 1.0 / sqrt(D) as S;
                    fit.fitted(Self::arbitrary_with_scale(a, scale))
                };
            }

            impl<Src, const D: usize, Act> EmbedFrom<Src> for ResNetLayer<S, D, Act>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let weight = matrix_param::<D, D>(Name::new("weight"), Kind::Dense);
                    let at = fit.expect(Src::LAYER + 1, &[weight, vector_param::<D>("bias")]);
                    let weight = matrix_at(&mut fit, at);
                    let bias = matrix_at(&mut fit, at + 1);
                    fit.fitted(Self::new(weight, Some(bias)))
                };
            }

            impl<Src, const D: usize, Layout, Act> EmbedFrom<Src>
                for VolumePreservingLayer<S, D, Layout, Act>
            where
                Src: Embedded,
                Layout: StrictlyTriangular,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let layer = vp_layer(&mut fit, Src::LAYER + 1, true);
                    fit.fitted(layer)
                };
            }

            impl<Src, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
                EmbedFrom<Src> for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
            where
                Src: Embedded,
                Proj: Projection,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let heads = heads::<D, H, DH, Proj>(&mut fit, Src::LAYER + 1);
                    fit.fitted(Self::from_heads(heads))
                };
            }

            /// The heads of multi-head attention at layer group `layer`: `PQ/head_1 …`, then
            /// `PK`, then `PV`, each checked, and (for Stiefel projections) checked orthonormal
            /// to [`STIEFEL_TOLERANCE`], as the loader checks them.
            const fn heads<const D: usize, const H: usize, const DH: usize, Proj: Projection>(
                fit: &mut Fit<'_>,
                layer: usize,
            ) -> [Head<S, D, DH>; H] {
                let first = fit.first_of(layer);
                let mut heads = MaybeUninit::<[Head<S, D, DH>; H]>::uninit();
                let slots = heads.as_mut_ptr().cast::<Head<S, D, DH>>();
                let mut h = 0;
                while h < H {
                    let mut projections = [SMatrix::<S, D, DH>::from_array_storage(ArrayStorage(
                        [[0.0; D]; DH],
                    )); 3];
                    let mut g = 0;
                    while g < 3 {
                        let name = Name::numbered(PROJECTIONS[g], "head_", h + 1);
                        let wanted = matrix_param::<D, DH>(name, Proj::KIND);
                        let at = fit.check(layer, first, g * H + h, wanted);
                        projections[g] = matrix_at(fit, at);
                        if fit.fits()
                            && matches!(Proj::KIND, Kind::Stiefel)
                            && !orthonormal(&projections[g])
                        {
                            fit.fail(
                                Mismatch::new()
                                    .path(layer, name)
                                    .text("`: the columns are not orthonormal to 1e-2 (GML's Stiefel weights drift to 6.2e-3 at most)"),
                            );
                        }
                        g += 1;
                    }
                    let [query, key, value] = projections;
                    // SAFETY: `h < H`, inside the array.
                    unsafe { slots.add(h).write(Head::new(query, key, value)) };
                    h += 1;
                }
                fit.check_end(layer, first, 3 * H);
                // SAFETY: all `H` heads have been written.
                unsafe { heads.assume_init() }
            }

            /// `‖WᵀW − I‖_max ≤ STIEFEL_TOLERANCE`, computed in `f64`.
            const fn orthonormal<const D: usize, const DH: usize>(w: &SMatrix<S, D, DH>) -> bool {
                let columns = &w.data.0;
                let mut a = 0;
                while a < DH {
                    let mut b = 0;
                    while b < DH {
                        let mut dot = if a == b { -1.0 } else { 0.0 };
                        let mut i = 0;
                        while i < D {
                            dot += columns[a][i] as f64 * columns[b][i] as f64;
                            i += 1;
                        }
                        if dot.is_nan() || dot.abs() > STIEFEL_TOLERANCE {
                            return false;
                        }
                        b += 1;
                    }
                    a += 1;
                }
                true
            }

            /// GML's `SymplecticAttention(…; symmetric = false)`: a dense `A`.
            impl<Src, const N: usize, Side, Sm> EmbedFrom<Src>
                for SymplecticAttention<S, N, Side, Sm, DenseA<S, N>>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let a = matrix_param::<N, N>(Name::new("A"), Kind::Dense);
                    let at = fit.expect(Src::LAYER + 1, &[a]);
                    let a = matrix_at::<N, N>(&mut fit, at);
                    fit.fitted(Self::arbitrary(a))
                };
            }

            /// GML's `SymplecticAttention(…; symmetric = true)`, with the kick `Mode` of the type.
            impl<Src, const N: usize, Side, Sm, Mode> EmbedFrom<Src>
                for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
            where
                Src: Embedded,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let at = fit.expect(Src::LAYER + 1, &[packed_param::<N, Sym>("A")]);
                    let a = packed_at::<N, Sym>(&mut fit, at);
                    fit.fitted(Self::with_symmetric(a))
                };
            }

            impl<Src, const N: usize, const T: usize, Side> EmbedFrom<Src>
                for LinearSymplecticAttention<S, N, T, Side>
            where
                Src: Embedded,
                Side: PhaseSide,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let at = fit.expect(Src::LAYER + 1, &[packed_param::<T, Sym>("A")]);
                    let a = packed_at::<T, Sym>(&mut fit, at);
                    fit.fitted(Self::new(a))
                };
            }

            impl<Src, const N: usize, const HIDDEN: usize, Side, Act> EmbedFrom<Src>
                for GradientLayer<S, N, HIDDEN, Side, Act>
            where
                Src: Embedded,
                Side: PhaseSide,
            {
                const VALUE: Fitted<Self> = {
                    let mut fit = file_of::<Src>();
                    let params = [
                        matrix_param::<HIDDEN, N>(Name::new("weight"), Kind::Dense),
                        vector_param::<HIDDEN>("bias"),
                        vector_param::<HIDDEN>("scale"),
                    ];
                    let at = fit.expect(Src::LAYER + 1, &params);
                    let weight = matrix_at(&mut fit, at);
                    let bias = matrix_at(&mut fit, at + 1);
                    let scale = matrix_at(&mut fit, at + 2);
                    fit.fitted(Self::new(weight, bias, scale))
                };
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
