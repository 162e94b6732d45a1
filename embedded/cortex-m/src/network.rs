//! The rigid-body VPT, rebuilt from the weights `build.rs` embeds.
//!
//! TEMPORARY, until geomattn's compile-time embedding macro for GML files lands: then this module
//! (and the weight half of `build.rs`) is replaced by one invocation of that macro; nothing else
//! in the firmware changes.

use core::mem::MaybeUninit;

use geomattn::nalgebra::Matrix3;
use geomattn::{
    ArbitraryVpa, Error, StrictlyTriangular, Tanh, Transformer, VolumePreservingFeedForward,
    VolumePreservingLayer, VolumePreservingTransformer, VpffBlock,
};

/// GML's `VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, activation = tanh,
/// skew_sym = false)`, in `f32`.
pub type Vpt = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>;

/// One volume-preserving layer: GML's packed strictly triangular weight, and its bias if any.
pub struct LayerWeights {
    weight: [f32; 3],
    bias: Option<[f32; 3]>,
}

/// One transformer block: the attention's `A` (column-major) and scale, then the ten layers of
/// the feed-forward part in GML's order (per block: linear lower, linear upper, lower, upper;
/// then the last linear pair).
pub struct BlockWeights {
    a: [f32; 9],
    scale: f32,
    feedforward: [LayerWeights; 10],
}

include!(concat!(env!("OUT_DIR"), "/weights.rs"));

/// Builds the network into its storage, a `static` (in `.bss`, reserved at link time), and
/// returns it: only the builder's temporaries are on the stack, and only while it runs.
///
/// # Safety
/// At most one call in the program's life: the `static` is handed out as `&'static`.
///
/// # Errors
/// Only if a weight array had the wrong length, which the types above rule out.
#[inline(never)]
pub unsafe fn build() -> Result<&'static Vpt, Error> {
    static mut NETWORK: MaybeUninit<Vpt> = MaybeUninit::uninit();
    let [b0, b1, b2] = &BLOCKS;
    let blocks = [block(b0)?, block(b1)?, block(b2)?];
    // `MaybeUninit<Vpt>` has the layout of `Vpt`.
    let slot = (&raw mut NETWORK).cast::<Vpt>();
    // SAFETY: the caller calls this once, so nothing else ever accesses `NETWORK`: the write
    // initialises it, and the shared reference is the only one ever made.
    unsafe {
        slot.write(Transformer::new(blocks));
        Ok(&*slot)
    }
}

/// One transformer block, built with geomattn's constructors from its weights.
fn block(weights: &BlockWeights) -> Result<(Attention, Vpff), Error> {
    let a = Matrix3::from_column_slice(&weights.a);
    let attention = ArbitraryVpa::arbitrary_with_scale(a, weights.scale);
    Ok((attention, feedforward(&weights.feedforward)?))
}

type Attention = ArbitraryVpa<f32, 3, 3>;
type Vpff = VolumePreservingFeedForward<f32, 3, 2, 1, Tanh>;

fn feedforward(layers: &[LayerWeights; 10]) -> Result<Vpff, Error> {
    let block = |k: usize| -> Result<_, Error> {
        Ok(VpffBlock {
            linear: [(layer(&layers[4 * k])?, layer(&layers[4 * k + 1])?)],
            lower: layer(&layers[4 * k + 2])?,
            upper: layer(&layers[4 * k + 3])?,
        })
    };
    let last = (layer(&layers[8])?, layer(&layers[9])?);
    Ok(Vpff::new([block(0)?, block(1)?], last))
}

fn layer<Layout: StrictlyTriangular, Act>(
    weights: &LayerWeights,
) -> Result<VolumePreservingLayer<f32, 3, Layout, Act>, Error> {
    VolumePreservingLayer::from_slices(&weights.weight, weights.bias.as_ref().map(|b| &b[..]))
}
