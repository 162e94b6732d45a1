//! Networks built at compile time from a GML file: what `embed_gml!` expands to stands on this.
//!
//! The macro reads the file when the user's crate compiles and emits a zero-sized type that
//! implements [`Embedded`]: the file's scalars as literals ([`Embedded::DATA`], in the file's
//! order, which is every [`Schema`]'s order), the description of its parameters
//! ([`Embedded::PARAMS`]), and its number of layer groups. The network type then builds itself
//! from it in `const` evaluation through [`EmbedFrom`]: each layer checks that the parameters of
//! its layer group are exactly the ones its schema has (a mismatch is a compile error naming the
//! layer, the parameter and both shapes), and builds itself with its `const` constructor from the
//! slice of [`Embedded::DATA`] they point at. Containers hand their parts the layer they start at,
//! as a type: [`After`] (a pair's second part), [`Nth`] (an array's element). Nothing is parsed at
//! run time, nothing allocated; the network is a `static` in read-only memory.
//!
//! The layers' implementations are for `f32` and `f64` (the scalars whose arithmetic `const`
//! evaluation has), the containers' for any parts.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix};

use super::layers::{matrix_param, packed_param, vector_param};
use super::{Kind, Name, Param, Schema};
use crate::packed::{Lower, Packed, PackedLayout, Skew, Sym, Upper};
use crate::{
    ArbitraryVpa, ClassificationLayer, Classifier, DenseA, GradientLayer, GradientLayerQ, Head,
    Identity, LinearPair, LinearSymplecticAttention, MultiHeadAttention, PhaseSide, Projection,
    ResNetLayer, ResNetStack, STIEFEL_TOLERANCE, SkewVpa, StrictlyTriangular, SymmetricA,
    SympNetStack, SymplecticAttention, Transformer, VolumePreservingFeedForward,
    VolumePreservingLayer, VpffBlock,
};

/// One parameter of an embedded file: where it is (layer group, from 1), what it is, and where its
/// values start in [`Embedded::DATA`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedParam {
    /// The layer group `L<layer>` holding it (from 1).
    pub layer: usize,
    /// Its name in the layer group.
    pub name: Name,
    /// Its kind, as the file says (a plain dataset, or a special-matrix group).
    pub kind: Kind,
    /// Rows (Julia's), `n` of a special matrix, or the length of a vector.
    pub rows: usize,
    /// Columns (`1` for a vector, `n` for a special matrix).
    pub cols: usize,
    /// The index of its first value in [`Embedded::DATA`].
    pub offset: usize,
}

/// A GML file embedded at compile time (what `embed_gml!` emits), seen from one part of the
/// network: the part's layers start after [`LAYER`](Self::LAYER) layer groups.
pub trait Embedded {
    /// Every value of the file, parameter after parameter, as `f64` (GML writes Float32 or
    /// Float64; Float32 values are widened exactly). An `f32` network rounds each once to nearest;
    /// a value beyond `f32`'s range is a compile error.
    const DATA: &'static [f64];
    /// Every parameter of the file, layer group after layer group, each in GML's order.
    const PARAMS: &'static [EmbeddedParam];
    /// The number of layer groups of the file.
    const FILE_LAYERS: usize;
    /// The number of layer groups before this part.
    const LAYER: usize;
}

/// The layers of `Src` after those of part `A`: where the part after `A` starts.
pub struct After<Src, A>(PhantomData<fn() -> (Src, A)>);

impl<Src: Embedded, A: Schema> Embedded for After<Src, A> {
    const DATA: &'static [f64] = Src::DATA;
    const PARAMS: &'static [EmbeddedParam] = Src::PARAMS;
    const FILE_LAYERS: usize = Src::FILE_LAYERS;
    const LAYER: usize = Src::LAYER + A::LAYERS;
}

/// The layers of `Src` after `I` parts `L`: where element `I` of an array `[L; LEN]` starts.
pub struct Nth<Src, L, const I: usize>(PhantomData<fn() -> (Src, L)>);

impl<Src: Embedded, L: Schema, const I: usize> Embedded for Nth<Src, L, I> {
    const DATA: &'static [f64] = Src::DATA;
    const PARAMS: &'static [EmbeddedParam] = Src::PARAMS;
    const FILE_LAYERS: usize = Src::FILE_LAYERS;
    const LAYER: usize = Src::LAYER + I * L::LAYERS;
}

/// A network (or part) built at compile time from the embedded file `Src`.
pub trait EmbedFrom<Src: Embedded>: Sized {
    /// The part, built from its layer groups of `Src` (a compile error if they do not fit).
    const VALUE: Self;
}

/// Network `N` built from the whole embedded file `Src`: what `embed_gml!` evaluates into its
/// `static`. A compile error if the file has another number of layer groups than `N`, or if a
/// layer does not fit.
pub const fn embedded<N: Schema + EmbedFrom<Src>, Src: Embedded>() -> N {
    if Src::FILE_LAYERS != N::LAYERS || Src::LAYER != 0 {
        Message::new()
            .text("the file has ")
            .number(Src::FILE_LAYERS)
            .text(" layer groups, the network ")
            .number(N::LAYERS)
            .fail();
    }
    N::VALUE
}

/// A compile-time error message, composed in a fixed buffer (`const` evaluation has no `format!`).
struct Message {
    bytes: [u8; 512],
    len: usize,
}

impl Message {
    const fn new() -> Self {
        Self {
            bytes: [0; 512],
            len: 0,
        }
    }

    const fn text(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        let mut k = 0;
        while k < text.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = text[k];
            self.len += 1;
            k += 1;
        }
        self
    }

    const fn number(self, mut n: usize) -> Self {
        let mut digits = [b'0'; 20];
        let mut start = digits.len() - 1;
        loop {
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
            start -= 1;
        }
        match core::str::from_utf8(digits.split_at(start).1) {
            Ok(text) => self.text(text),
            Err(_) => self,
        }
    }

    /// `/L<layer>/<name>`.
    const fn path(self, layer: usize, name: Name) -> Self {
        let mut message = self.text("`/L").number(layer).text("/");
        if let Some(parent) = name.parent {
            message = message.text(parent).text("/");
        }
        message = message.text(name.stem);
        if let Some(number) = name.number {
            message = message.number(number);
        }
        message.text("`")
    }

    /// "a dense 3×2 matrix", "a vector of 3", "a skew-symmetric 3×3 matrix".
    const fn shape(self, kind: Kind, rows: usize, cols: usize) -> Self {
        let what = match kind {
            Kind::Vector => return self.text("a vector of ").number(rows),
            Kind::Dense => "a dense ",
            Kind::Stiefel => "a Stiefel ",
            Kind::Skew => "a skew-symmetric ",
            Kind::Symmetric => "a symmetric ",
            Kind::StrictlyLower => "a strictly lower triangular ",
            Kind::StrictlyUpper => "a strictly upper triangular ",
        };
        self.text(what)
            .number(rows)
            .text("×")
            .number(cols)
            .text(" matrix")
    }

    const fn fail(&self) -> ! {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(message) => panic!("{}", message),
            Err(_) => panic!("the embedded file does not fit the network"),
        }
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

const fn same_name(a: Name, b: Name) -> bool {
    let parents = match (a.parent, b.parent) {
        (Some(a), Some(b)) => same_str(a, b),
        (None, None) => true,
        _ => false,
    };
    let numbers = match (a.number, b.number) {
        (Some(a), Some(b)) => a == b,
        (None, None) => true,
        _ => false,
    };
    parents && numbers && same_str(a.stem, b.stem)
}

const fn same_kind(a: Kind, b: Kind) -> bool {
    a.code() == b.code()
}

/// The index in `params` of the first parameter of layer group `layer` (from 1), or of the first
/// after it if it has none.
const fn first_of(params: &[EmbeddedParam], layer: usize) -> usize {
    let mut first = 0;
    while first < params.len() && params[first].layer < layer {
        first += 1;
    }
    first
}

/// The `k`-th parameter of layer group `layer`, whose first is `params[first]`, if it has one.
const fn nth_of(
    params: &[EmbeddedParam],
    layer: usize,
    first: usize,
    k: usize,
) -> Option<&EmbeddedParam> {
    if first + k < params.len() && params[first + k].layer == layer {
        Some(&params[first + k])
    } else {
        None
    }
}

/// Checks that the `k`-th parameter of layer group `layer` is `wanted`, and returns its index in
/// `params`.
const fn check(
    params: &[EmbeddedParam],
    layer: usize,
    first: usize,
    k: usize,
    wanted: Param,
) -> usize {
    match nth_of(params, layer, first, k) {
        Some(found)
            if same_name(wanted.name, found.name)
                && same_kind(wanted.kind, found.kind)
                && wanted.rows == found.rows
                && wanted.cols == found.cols =>
        {
            first + k
        }
        Some(found) => Message::new()
            .path(layer, wanted.name)
            .text(": the network has ")
            .shape(wanted.kind, wanted.rows, wanted.cols)
            .text(", the file has ")
            .path(layer, found.name)
            .text(", ")
            .shape(found.kind, found.rows, found.cols)
            .fail(),
        None => Message::new()
            .path(layer, wanted.name)
            .text(": the network has ")
            .shape(wanted.kind, wanted.rows, wanted.cols)
            .text(", the file has nothing there")
            .fail(),
    }
}

/// Checks that layer group `layer` has no parameter after its first `count`.
const fn check_end(params: &[EmbeddedParam], layer: usize, first: usize, count: usize) {
    if let Some(found) = nth_of(params, layer, first, count) {
        Message::new()
            .path(layer, found.name)
            .text(": the file has ")
            .shape(found.kind, found.rows, found.cols)
            .text(", which the network does not have")
            .fail();
    }
}

/// Checks that layer group `layer` (from 1) of the file has exactly the parameters `expected`, in
/// order, and returns the index of its first one in `params`.
const fn expect(params: &[EmbeddedParam], layer: usize, expected: &[Param]) -> usize {
    let first = first_of(params, layer);
    let mut k = 0;
    while k < expected.len() {
        check(params, layer, first, k, expected[k]);
        k += 1;
    }
    check_end(params, layer, first, expected.len());
    first
}

/// `√d` correctly rounded, as `(d as f64).sqrt()` is at run time: from the integer square root of
/// `d·2¹¹⁰` (at least 55 bits of `√d`, and a sticky bit for the rest), rounded once to `f64`.
/// For `d < 2¹⁸` (`d·2¹¹⁰` fits in `u128`); rounded on to `f32` it is `(d as f32).sqrt()` too
/// (double rounding is harmless for square roots from `f64` to `f32`).
pub(crate) const fn sqrt(d: usize) -> f64 {
    const SHIFT: u32 = 55;
    assert!(d < 1 << 18, "a dimension below 2^18");
    let scaled = (d as u128) << (2 * SHIFT);
    let root = scaled.isqrt();
    let sticky = (root * root != scaled) as u128;
    (root | sticky) as f64 / (1_u128 << SHIFT) as f64
}

/// The layers' `EmbedFrom`, for one scalar whose arithmetic `const` evaluation has.
macro_rules! embed_layers {
    ($($scalar:ident),*) => {$(
        mod $scalar {
            use super::*;

            type S = $scalar;

            /// `data[index]` as the scalar, rounded once; a compile error if it is beyond the
            /// scalar's range (a Float64 weight read into an `f32` network).
            const fn scalar_at(data: &[f64], index: usize) -> S {
                let x = data[index] as S;
                if !x.is_finite() {
                    Message::new()
                        .text("value ")
                        .number(index)
                        .text(" of the file (in GML's order) is beyond the range of ")
                        .text(stringify!($scalar))
                        .fail();
                }
                x
            }

            /// The `ROWS×COLS` matrix whose column-major values start at `data[offset]`.
            pub(super) const fn matrix_at<const ROWS: usize, const COLS: usize>(
                data: &[f64],
                offset: usize,
            ) -> SMatrix<S, ROWS, COLS> {
                let mut columns = [[0.0; ROWS]; COLS];
                let mut k = 0;
                while k < ROWS * COLS {
                    columns[k / ROWS][k % ROWS] = scalar_at(data, offset + k);
                    k += 1;
                }
                SMatrix::from_array_storage(ArrayStorage(columns))
            }

            /// The packed matrix whose packed values start at `data[offset]` (converted through a
            /// `SIZE×SIZE` scratch array: there are never more).
            const fn packed_at<const SIZE: usize, Layout: PackedLayout>(
                data: &[f64],
                offset: usize,
            ) -> Packed<S, SIZE, Layout> {
                let len = Layout::PARAM_KIND.len(SIZE, SIZE);
                let mut scratch = [[0.0; SIZE]; SIZE];
                let mut k = 0;
                while k < len {
                    scratch[k / SIZE][k % SIZE] = scalar_at(data, offset + k);
                    k += 1;
                }
                let values = scratch.as_flattened().split_at(len).0;
                match Packed::<S, SIZE, Layout>::from_packed_const(values) {
                    Ok(packed) => packed,
                    Err(_) => panic!("the packed length was checked against the file"),
                }
            }

            /// A volume-preserving layer at layer group `layer`, with a bias or not.
            pub(super) const fn vp_layer<const D: usize, Layout, Act>(
                data: &[f64],
                params: &[EmbeddedParam],
                layer: usize,
                bias: bool,
            ) -> VolumePreservingLayer<S, D, Layout, Act>
            where
                Layout: StrictlyTriangular,
            {
                let weight = packed_param::<D, Layout>("weight");
                let at = if bias {
                    expect(params, layer, &[weight, vector_param::<D>("bias")])
                } else {
                    expect(params, layer, &[weight])
                };
                let weight = packed_at::<D, Layout>(data, params[at].offset);
                let bias = if bias {
                    Some(matrix_at::<D, 1>(data, params[at + 1].offset))
                } else {
                    None
                };
                VolumePreservingLayer::new(weight, bias)
            }

            impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src> for SkewVpa<S, D, T, Map>
            where
                Src: Embedded,
            {
                const VALUE: Self = {
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[packed_param::<D, Skew>("A")]);
                    Self::skew_sym(packed_at::<D, Skew>(Src::DATA, Src::PARAMS[at].offset))
                };
            }

            impl<Src, const D: usize, const T: usize, Map> EmbedFrom<Src>
                for ArbitraryVpa<S, D, T, Map>
            where
                Src: Embedded,
            {
                const VALUE: Self = {
                    let a = matrix_param::<D, D>(Name::new("A"), Kind::Dense);
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[a]);
                    let a = matrix_at::<D, D>(Src::DATA, Src::PARAMS[at].offset);
                    // GML's 1/√D, as `ArbitraryVpa::arbitrary` computes it in S.
                    let scale = 1.0 / sqrt(D) as S;
                    Self::arbitrary_with_scale(a, scale)
                };
            }

            impl<Src, const D: usize, Act> EmbedFrom<Src> for ResNetLayer<S, D, Act>
            where
                Src: Embedded,
            {
                const VALUE: Self = {
                    let weight = matrix_param::<D, D>(Name::new("weight"), Kind::Dense);
                    let params = [weight, vector_param::<D>("bias")];
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &params);
                    Self::new(
                        matrix_at(Src::DATA, Src::PARAMS[at].offset),
                        Some(matrix_at(Src::DATA, Src::PARAMS[at + 1].offset)),
                    )
                };
            }

            impl<Src, const D: usize, Layout, Act> EmbedFrom<Src>
                for VolumePreservingLayer<S, D, Layout, Act>
            where
                Src: Embedded,
                Layout: StrictlyTriangular,
            {
                const VALUE: Self = vp_layer(Src::DATA, Src::PARAMS, Src::LAYER + 1, true);
            }

            impl<Src, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
                EmbedFrom<Src> for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
            where
                Src: Embedded,
                Proj: Projection,
            {
                const VALUE: Self =
                    Self::from_heads(heads::<D, H, DH, Proj>(Src::DATA, Src::PARAMS, Src::LAYER + 1));
            }

            /// The heads of multi-head attention at layer group `layer`: `PQ/head_1 …`, then
            /// `PK`, then `PV`, each checked, and (for Stiefel projections) checked orthonormal
            /// to [`STIEFEL_TOLERANCE`], as the loader checks them.
            const fn heads<const D: usize, const H: usize, const DH: usize, Proj: Projection>(
                data: &[f64],
                params: &[EmbeddedParam],
                layer: usize,
            ) -> [Head<S, D, DH>; H] {
                let first = first_of(params, layer);
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
                        let at = check(params, layer, first, g * H + h, wanted);
                        projections[g] = matrix_at(data, params[at].offset);
                        if matches!(Proj::KIND, Kind::Stiefel)
                            && !orthonormal(&projections[g])
                        {
                            Message::new()
                                .path(layer, name)
                                .text(": the columns are not orthonormal to 1e-2 (GML's Stiefel weights drift to 6.2e-3 at most)")
                                .fail();
                        }
                        g += 1;
                    }
                    let [query, key, value] = projections;
                    // SAFETY: `h < H`, inside the array.
                    unsafe { slots.add(h).write(Head::new(query, key, value)) };
                    h += 1;
                }
                check_end(params, layer, first, 3 * H);
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
                const VALUE: Self = {
                    let a = matrix_param::<N, N>(Name::new("A"), Kind::Dense);
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[a]);
                    Self::arbitrary(matrix_at::<N, N>(Src::DATA, Src::PARAMS[at].offset))
                };
            }

            /// GML's `SymplecticAttention(…; symmetric = true)`, with the kick `Mode` of the type.
            impl<Src, const N: usize, Side, Sm, Mode> EmbedFrom<Src>
                for SymplecticAttention<S, N, Side, Sm, SymmetricA<S, N, Mode>>
            where
                Src: Embedded,
            {
                const VALUE: Self = {
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[packed_param::<N, Sym>("A")]);
                    Self::with_symmetric(packed_at::<N, Sym>(Src::DATA, Src::PARAMS[at].offset))
                };
            }

            impl<Src, const N: usize, const T: usize, Side> EmbedFrom<Src>
                for LinearSymplecticAttention<S, N, T, Side>
            where
                Src: Embedded,
                Side: PhaseSide,
            {
                const VALUE: Self = {
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[packed_param::<T, Sym>("A")]);
                    Self::new(packed_at::<T, Sym>(Src::DATA, Src::PARAMS[at].offset))
                };
            }

            impl<Src, const N: usize, const HIDDEN: usize, Side, Act> EmbedFrom<Src>
                for GradientLayer<S, N, HIDDEN, Side, Act>
            where
                Src: Embedded,
                Side: PhaseSide,
            {
                const VALUE: Self = {
                    let params = [
                        matrix_param::<HIDDEN, N>(Name::new("weight"), Kind::Dense),
                        vector_param::<HIDDEN>("bias"),
                        vector_param::<HIDDEN>("scale"),
                    ];
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &params);
                    Self::new(
                        matrix_at(Src::DATA, Src::PARAMS[at].offset),
                        matrix_at(Src::DATA, Src::PARAMS[at + 1].offset),
                        matrix_at(Src::DATA, Src::PARAMS[at + 2].offset),
                    )
                };
            }

            impl<Src, const D: usize, const CLASSES: usize> EmbedFrom<Src>
                for ClassificationLayer<S, D, CLASSES>
            where
                Src: Embedded,
            {
                const VALUE: Self = {
                    let weight = matrix_param::<CLASSES, D>(Name::new("weight"), Kind::Dense);
                    let at = expect(Src::PARAMS, Src::LAYER + 1, &[weight]);
                    Self::new(matrix_at(Src::DATA, Src::PARAMS[at].offset))
                };
            }

            impl<Src, const D: usize, const NB: usize, const NL: usize, Act> EmbedFrom<Src>
                for VolumePreservingFeedForward<S, D, NB, NL, Act>
            where
                Src: Embedded,
            {
                /// GML's order and biases (see its [`Schema`]).
                const VALUE: Self = {
                    let (data, params) = (Src::DATA, Src::PARAMS);
                    let mut layer = Src::LAYER + 1;
                    let mut blocks = MaybeUninit::<[VpffBlock<S, D, NL, Act>; NB]>::uninit();
                    let block_slots = blocks.as_mut_ptr().cast::<VpffBlock<S, D, NL, Act>>();
                    let mut b = 0;
                    while b < NB {
                        let mut linear = MaybeUninit::<[LinearPair<S, D>; NL]>::uninit();
                        let pair_slots = linear.as_mut_ptr().cast::<LinearPair<S, D>>();
                        let mut k = 0;
                        while k < NL {
                            let lower = vp_layer::<D, Lower, Identity>(data, params, layer, false);
                            let upper =
                                vp_layer::<D, Upper, Identity>(data, params, layer + 1, k + 1 == NL);
                            // SAFETY: `k < NL`, inside the array.
                            unsafe { pair_slots.add(k).write((lower, upper)) };
                            layer += 2;
                            k += 1;
                        }
                        let block = VpffBlock {
                            // SAFETY: all `NL` pairs have been written.
                            linear: unsafe { linear.assume_init() },
                            lower: vp_layer(data, params, layer, true),
                            upper: vp_layer(data, params, layer + 1, true),
                        };
                        // SAFETY: `b < NB`, inside the array.
                        unsafe { block_slots.add(b).write(block) };
                        layer += 2;
                        b += 1;
                    }
                    let last = (
                        vp_layer::<D, Lower, Identity>(data, params, layer, false),
                        vp_layer::<D, Upper, Identity>(data, params, layer + 1, true),
                    );
                    // SAFETY: all `NB` blocks have been written.
                    Self::new(unsafe { blocks.assume_init() }, last)
                };
            }
        }
    )*};
}
embed_layers!(f32, f64);

/// GML's names of the three projections of multi-head attention, in its order.
const PROJECTIONS: [&str; 3] = ["PQ", "PK", "PV"];

/// `A`, then `B` (from the layers after `A`'s).
impl<Src: Embedded, A, B> EmbedFrom<Src> for (A, B)
where
    A: Schema + EmbedFrom<Src>,
    B: EmbedFrom<After<Src, A>>,
{
    const VALUE: Self = (A::VALUE, <B as EmbedFrom<After<Src, A>>>::VALUE);
}

impl<Src: Embedded, Att, Ff, const L: usize> EmbedFrom<Src> for Transformer<Att, Ff, L>
where
    [(Att, Ff); L]: EmbedFrom<Src>,
{
    const VALUE: Self = Self::new(<[(Att, Ff); L] as EmbedFrom<Src>>::VALUE);
}

impl<Src: Embedded, S, const D: usize, const NB: usize, Act> EmbedFrom<Src>
    for ResNetStack<S, D, NB, Act>
where
    S: crate::Field,
    [ResNetLayer<S, D, Act>; NB]: Schema + EmbedFrom<Src>,
    ResNetLayer<S, D, Identity>: EmbedFrom<After<Src, [ResNetLayer<S, D, Act>; NB]>>,
{
    const VALUE: Self = Self::new(
        <[ResNetLayer<S, D, Act>; NB] as EmbedFrom<Src>>::VALUE,
        <ResNetLayer<S, D, Identity> as EmbedFrom<After<Src, [ResNetLayer<S, D, Act>; NB]>>>::VALUE,
    );
}

/// `NS` gradient layers (their sides are the type's, not the file's).
impl<Src: Embedded, S, const N: usize, const HIDDEN: usize, const NS: usize, Act, First>
    EmbedFrom<Src> for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    First: PhaseSide,
    [GradientLayerQ<S, N, HIDDEN, Act>; NS]: EmbedFrom<Src>,
{
    const VALUE: Self =
        Self::new(<[GradientLayerQ<S, N, HIDDEN, Act>; NS] as EmbedFrom<Src>>::VALUE);
}

/// The body, then the classification layer (from the layers after the body's).
impl<Src: Embedded, Body, Head> EmbedFrom<Src> for Classifier<Body, Head>
where
    Body: Schema + EmbedFrom<Src>,
    Head: EmbedFrom<After<Src, Body>>,
{
    const VALUE: Self = Self::new(Body::VALUE, <Head as EmbedFrom<After<Src, Body>>>::VALUE);
}

/// `[L; LEN]` for one `LEN`, given the indices `LEN − 1 … 0` (element `p` reads from
/// `Nth<Src, L, p>`).
macro_rules! embed_array {
    ($len:literal => $($index:literal)*) => {
        impl<Src: Embedded, L: Schema> EmbedFrom<Src> for [L; $len]
        where
            $(L: EmbedFrom<Nth<Src, L, { $len - 1 - $index }>>,)*
        {
            const VALUE: Self = [$(<L as EmbedFrom<Nth<Src, L, { $len - 1 - $index }>>>::VALUE),*];
        }
    };
}

/// `[L; LEN]` for every `LEN` from the first number down to 0.
macro_rules! embed_arrays {
    () => {};
    ($len:literal $($rest:literal)*) => {
        embed_array!($len => $($rest)*);
        embed_arrays!($($rest)*);
    };
}

embed_arrays!(
    64 63 62 61 60 59 58 57 56 55 54 53 52 51 50 49 48 47 46 45 44 43 42 41 40 39 38 37 36 35 34
    33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0
);

#[cfg(test)]
mod tests {
    use super::sqrt;

    #[test]
    fn const_square_roots_are_the_run_time_ones() {
        for d in 1..(1 << 18) {
            assert_eq!(sqrt(d), (d as f64).sqrt(), "{d}");
            assert_eq!(sqrt(d) as f32, (d as f32).sqrt(), "{d}");
        }
    }
}
