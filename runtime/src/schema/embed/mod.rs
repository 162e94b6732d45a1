//! Networks built at compile time from a GML file: what `embed_gml!` expands to stands on this.
//!
//! The macro reads the file when the user's crate compiles and emits a zero-sized type that
//! implements [`Embedded`]: the file's scalars as literals ([`Embedded::DATA`], in the file's
//! order, which is every [`Schema`]'s order), the description of its parameters
//! ([`Embedded::PARAMS`]), and its number of layer groups. The network type then builds itself
//! from it in `const` evaluation through [`EmbedFrom`]: each layer checks that the parameters of
//! its layer group are exactly the ones its schema has, and builds itself with its `const`
//! constructor from the slice of [`Embedded::DATA`] they point at. Containers hand their parts the
//! layer they start at, as a type: [`After`] (a pair's second part), [`Nth`] (an array's element).
//! Nothing is parsed at run time, nothing allocated; the network is a `static` in read-only
//! memory.
//!
//! A file that does not fit is not an error inside this module: the parts carry the first
//! [`Mismatch`] out ([`Fitted`]), and [`embedded`], `#[track_caller]`, stops the compilation with
//! it where the user's code calls it. `embed_gml!` spans that call on the declared type, so the
//! error is one message (the layer group, the parameter and both shapes) at the user's macro call.
//!
//! The layers' implementations are for `f32` and `f64` (the scalars whose arithmetic `const`
//! evaluation has), the containers' for any parts.

pub(crate) mod fit;
pub(crate) mod layers;

use core::marker::PhantomData;

pub use fit::{Fitted, Mismatch};

use super::{Kind, Name, Schema};
use crate::activation::Identity;
use crate::architectures::{Classifier, ResNetStack, SympNetStack, Transformer};
use crate::feedforward::{GradientLayerQ, ResNetLayer};
use crate::symplectic::PhaseSide;

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
    /// The part, built from its layer groups of `Src`, with the first way they do not fit it.
    const VALUE: Fitted<Self>;
}

/// Network `N` built from the whole embedded file `Src`: what `embed_gml!` evaluates into its
/// `static`.
///
/// # Panics
/// In `const` evaluation, that is, as a compile error at the caller: if the file has another
/// number of layer groups than `N`, or if a layer does not fit ([`Mismatch`]).
#[track_caller]
pub const fn embedded<N: Schema + EmbedFrom<Src>, Src: Embedded>() -> N {
    if Src::FILE_LAYERS != N::LAYERS || Src::LAYER != 0 {
        Mismatch::new()
            .text("the file has ")
            .number(Src::FILE_LAYERS)
            .text(" layer groups, the network ")
            .number(N::LAYERS)
            .fail();
    }
    let mut mismatch = None;
    let value = N::VALUE.take(&mut mismatch);
    if let Some(mismatch) = mismatch {
        mismatch.fail();
    }
    value
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

/// `A`, then `B` (from the layers after `A`'s).
impl<Src: Embedded, A, B> EmbedFrom<Src> for (A, B)
where
    A: Schema + EmbedFrom<Src>,
    B: EmbedFrom<After<Src, A>>,
{
    const VALUE: Fitted<Self> = {
        let mut mismatch = None;
        let a = A::VALUE.take(&mut mismatch);
        let b = <B as EmbedFrom<After<Src, A>>>::VALUE.take(&mut mismatch);
        Fitted::new((a, b), mismatch)
    };
}

impl<Src: Embedded, Att, Ff, const L: usize> EmbedFrom<Src> for Transformer<Att, Ff, L>
where
    [(Att, Ff); L]: EmbedFrom<Src>,
{
    const VALUE: Fitted<Self> = {
        let mut mismatch = None;
        let value = <[(Att, Ff); L] as EmbedFrom<Src>>::VALUE.take(&mut mismatch);
        Fitted::new(Self::new(value), mismatch)
    };
}

impl<Src: Embedded, S, const D: usize, const NB: usize, Act> EmbedFrom<Src>
    for ResNetStack<S, D, NB, Act>
where
    S: crate::scalar::Field,
    [ResNetLayer<S, D, Act>; NB]: Schema + EmbedFrom<Src>,
    ResNetLayer<S, D, Identity>: EmbedFrom<After<Src, [ResNetLayer<S, D, Act>; NB]>>,
{
    const VALUE: Fitted<Self> = {
        let mut mismatch = None;
        let blocks = <[ResNetLayer<S, D, Act>; NB] as EmbedFrom<Src>>::VALUE.take(&mut mismatch);
        let last = <ResNetLayer<S, D, Identity> as EmbedFrom<
            After<Src, [ResNetLayer<S, D, Act>; NB]>,
        >>::VALUE
            .take(&mut mismatch);
        Fitted::new(Self::new(blocks, last), mismatch)
    };
}

/// `NS` gradient layers (their sides are the type's, not the file's).
impl<Src: Embedded, S, const N: usize, const HIDDEN: usize, const NS: usize, Act, First>
    EmbedFrom<Src> for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    First: PhaseSide,
    [GradientLayerQ<S, N, HIDDEN, Act>; NS]: EmbedFrom<Src>,
{
    const VALUE: Fitted<Self> = {
        let mut mismatch = None;
        let value =
            <[GradientLayerQ<S, N, HIDDEN, Act>; NS] as EmbedFrom<Src>>::VALUE.take(&mut mismatch);
        Fitted::new(Self::new(value), mismatch)
    };
}

/// The body, then the classification layer (from the layers after the body's).
impl<Src: Embedded, Body, Head> EmbedFrom<Src> for Classifier<Body, Head>
where
    Body: Schema + EmbedFrom<Src>,
    Head: EmbedFrom<After<Src, Body>>,
{
    const VALUE: Fitted<Self> = {
        let mut mismatch = None;
        let body = Body::VALUE.take(&mut mismatch);
        let head = <Head as EmbedFrom<After<Src, Body>>>::VALUE.take(&mut mismatch);
        Fitted::new(Self::new(body, head), mismatch)
    };
}

/// `[L; LEN]` for one `LEN`, given the indices `LEN − 1 … 0` (element `p` reads from
/// `Nth<Src, L, p>`; the elements are built in order, so the first mismatch is the file's first).
macro_rules! embed_array {
    ($len:literal => $($index:literal)*) => {
        impl<Src: Embedded, L: Schema> EmbedFrom<Src> for [L; $len]
        where
            $(L: EmbedFrom<Nth<Src, L, { $len - 1 - $index }>>,)*
        {
            const VALUE: Fitted<Self> = {
                #[allow(unused_mut, reason = "nothing to gather in an empty array")]
                let mut mismatch = None;
                let value = [$(
                    <L as EmbedFrom<Nth<Src, L, { $len - 1 - $index }>>>::VALUE.take(&mut mismatch)
                ),*];
                Fitted::new(value, mismatch)
            };
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
