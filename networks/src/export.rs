//! A network for another program: as the runtime's blob ([`blob`], read back with
//! `geomattn::read_blob::<Type>`), or as the Rust type to declare it with ([`rust_type`], what
//! `geomattn export --to rust` writes beside the weights as literals).
//!
//! A blob records the network's whole *type* (every layer's options: sizes, activation,
//! `add_connection`, the orthogonal map, …), and reads only into that type, so the network is
//! loaded as the type a user declares: the built-in architecture with its sizes and `L` as const
//! parameters (`VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>`). The export itself
//! compiles no network type: it writes, at the sizes read from the spec, the layer types that
//! type describes (`geomattn::schema::described`, built by the same functions as the types'
//! constants) and the file's values as the type's loader reads them, so every size and `L`
//! exports.
//!
//! ```
//! use geomattn::{Tanh, VolumePreservingTransformer, read_blob};
//! use geomattn_networks::{Arch, Precision, export};
//! let arch: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
//!     .parse()?;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
//! let bytes = export::blob_file(path, &arch, Precision::F32)?;
//! let net: VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh> = read_blob(&bytes)?;
//! let loaded: VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh> = geomattn::gml::load_file(path)?;
//! assert_eq!(geomattn::to_blob(&loaded)?, bytes);
//! assert_eq!(
//!     export::rust_type(&arch, Precision::F32).unwrap(),
//!     "geomattn::Transformer<geomattn::VolumePreservingAttention<f32, 3, 3, \
//!      geomattn::ArbitraryWeight<f32, 3>>, \
//!      geomattn::VolumePreservingFeedForward<f32, 3, 2, 1, geomattn::Tanh>, 3>"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use geomattn::gml::{GmlFile, Layers, LoadError};
use geomattn::nalgebra::RealField;
use geomattn::schema::described;
use geomattn::symplectic::Side;
use geomattn::{BlobScalar, OwnedLayerType, described_to_blob};
use geomattn_arch::layout::{self, Op};

use crate::dispatch::{load_error, read};
use crate::engine;
use crate::error::Error;
use crate::network::Precision;
use geomattn_arch::Activation;
use geomattn_arch::Arch;
use geomattn_arch::AttentionActivation;
use geomattn_arch::Kick;

/// The marker of GML's `init_upper`.
fn first_side(init_upper: bool) -> &'static str {
    if init_upper { "UpdateQ" } else { "UpdateP" }
}

/// The blob (`geomattn::to_blob`) of the network in `file`, loaded as the type of `arch` in
/// `precision` ([`rust_type`] names it), at any size: the file is read as `arch` on the run-time
/// engine first (so a file that does not hold it is refused as [`open`](crate::open) refuses
/// it), then every layer's values are written with the type that layer has in `arch`'s
/// compile-time network (`geomattn::schema::described`).
///
/// # Errors
/// As [`open`](crate::open) (for a classifier, as [`classify::open`](crate::classify::open));
/// [`Error::Unsupported`] where geomattn has no compile-time type of `arch` ([`rust_type`] is
/// `None`).
pub fn blob(file: &GmlFile, arch: &Arch, precision: Precision) -> Result<Vec<u8>, Error> {
    match precision {
        Precision::F32 => typed_blob::<f32>(file, arch),
        Precision::F64 => typed_blob::<f64>(file, arch),
    }
}

/// [`blob`] in the scalar `S`.
fn typed_blob<S: RealField + Copy + BlobScalar>(
    file: &GmlFile,
    arch: &Arch,
) -> Result<Vec<u8>, Error> {
    let untyped = || Error::Unsupported {
        arch: arch.to_string(),
        reason: "has no compile-time type in geomattn (init_upper = true of the \
                 volume-preserving networks, transformer_dim ≠ dim, or the standard \
                 transformer's MatrixSoftmax), so no blob of one"
            .into(),
    };
    if rust_type(arch, Precision::F64).is_none() {
        return Err(untyped());
    }
    let types = layer_types(arch).ok_or_else(untyped)?;
    engine::read_as::<S>(file, arch)?;
    let read = || -> Result<Vec<S>, LoadError> {
        let mut layers = Layers::exactly(file, types.len())?;
        let mut values = Vec::new();
        for layer in &types {
            values.extend(layers.read_values::<S>(&layer.as_type())?);
        }
        layers.finish()?;
        Ok(values)
    };
    let values = read().map_err(|source| load_error(file, arch, source))?;
    described_to_blob(&types, &values).map_err(|source| Error::Export {
        file: file.name().into(),
        reason: source.to_string(),
    })
}

/// The type of every layer of `arch`'s compile-time network, in GML's order: the layers of its
/// chain ([`layout::layers`]) with the options the compile-time types record (the orthogonal
/// map, the kick). `None` if a layer has no compile-time type.
fn layer_types(arch: &Arch) -> Option<Vec<OwnedLayerType>> {
    let kick = kick(arch);
    layout::layers(arch)
        .iter()
        .map(|layer| layer_type(&layer.op, kick))
        .collect()
}

/// The kick of `arch`'s symmetric symplectic attention, if it has one (the layers' ops do not
/// record it).
pub(crate) fn kick(arch: &Arch) -> Option<Kick> {
    match arch {
        Arch::Sympt(s) => s.symmetric,
        _ => None,
    }
}

/// The compile-time type of the layer `op` (`kick`: a symmetric symplectic attention's), if it
/// has one.
pub(crate) fn layer_type(op: &Op, kick: Option<Kick>) -> Option<OwnedLayerType> {
    let softmax = |softmax: AttentionActivation| match softmax {
        AttentionActivation::VectorSoftmax => "VectorSoftmax",
        AttentionActivation::MatrixSoftmax => "MatrixSoftmax",
    };
    let updates_q = |side: Side| matches!(side, Side::Q);
    Some(match *op {
        Op::VolumePreserving {
            dim,
            upper,
            activation,
            bias,
        } => described::volume_preserving_layer(dim, upper, activation.name(), bias),
        Op::VolumePreservingAttention { dim, seq, skew_sym } => {
            described::volume_preserving_attention(dim, seq, skew_sym)
        }
        Op::ResNet { dim, activation } => described::resnet_layer(dim, activation.name()),
        Op::MultiHeadAttention {
            dim,
            heads,
            stiefel,
            add_connection,
            softmax: attention,
        } => described::multi_head_attention(
            dim,
            heads,
            stiefel,
            add_connection,
            softmax(attention.unwrap_or(AttentionActivation::VectorSoftmax)),
        ),
        Op::Classification { dim, classes } => described::classification_layer(dim, classes),
        Op::Gradient {
            dim,
            upscaling_dimension,
            activation,
            side,
        } => described::gradient_layer(
            dim / 2,
            upscaling_dimension / 2,
            updates_q(side),
            activation.name(),
        ),
        Op::SymplecticAttention {
            dim,
            side,
            symmetric,
            softmax: attention,
        } => match (symmetric, kick) {
            (true, kick) => described::symmetric_symplectic_attention(
                dim / 2,
                updates_q(side),
                softmax(attention),
                kick != Some(Kick::Exact),
            ),
            (false, _) => {
                described::dense_symplectic_attention(dim / 2, updates_q(side), softmax(attention))
            }
        },
        Op::LinearSymplecticAttention { dim, seq, side } => {
            described::linear_symplectic_attention(dim / 2, seq, updates_q(side))
        }
        Op::Dense { .. } | Op::Psd { .. } => return None,
    })
}

/// Reads the file at `path` as `arch` (an integrator or a classifier) on the run-time engine, in
/// `precision`: `Ok` if it holds that network, at any size. What `geomattn export --to rust`
/// checks before it writes the file's weights as literals of `arch`'s type.
///
/// # Errors
/// As [`open`](crate::open) (for a classifier, as [`classify::open`](crate::classify::open)).
pub fn check_file(path: impl AsRef<Path>, arch: &Arch, precision: Precision) -> Result<(), Error> {
    let file = read(path.as_ref())?;
    match precision {
        Precision::F32 => engine::read_as::<f32>(&file, arch),
        Precision::F64 => engine::read_as::<f64>(&file, arch),
    }
}

/// Opens the file at `path` and exports it as a blob (see [`blob`]).
///
/// # Errors
/// As [`blob`].
pub fn blob_file(
    path: impl AsRef<Path>,
    arch: &Arch,
    precision: Precision,
) -> Result<Vec<u8>, Error> {
    blob(&read(path.as_ref())?, arch, precision)
}

/// The Rust type of `arch` in `precision`, with paths from the crate root `geomattn::` and the
/// layers' defaults left out (the orthogonal map, the projections, the softmax), as the dispatch
/// leaves them: the type [`blob`] writes and `geomattn export --to rust`
/// declares. For any sizes (text only).
///
/// Every activation has its type (`geomattn::Tanh`, `Identity`, `Sigmoid`, `Relu`, `Softplus`).
/// `None` where geomattn's compile-time types have no such network: `init_upper = true` of the
/// volume-preserving networks, an up-projection (`transformer_dim ≠ dim`), or the standard
/// transformer with `MatrixSoftmax`.
pub fn rust_type(arch: &Arch, precision: Precision) -> Option<String> {
    let s = match precision {
        Precision::F32 => "f32",
        Precision::F64 => "f64",
    };
    let activation = |activation: Activation| match activation {
        Activation::Tanh => "geomattn::Tanh",
        Activation::Identity => "geomattn::Identity",
        Activation::Sigmoid => "geomattn::Sigmoid",
        Activation::Relu => "geomattn::Relu",
        Activation::Softplus => "geomattn::Softplus",
    };
    let typed = match *arch {
        Arch::Vpt(v) => !v.init_upper,
        Arch::Vpff(v) => !v.init_upper,
        Arch::St(v) => {
            v.transformer_dim == v.dim
                && v.attention_activation == crate::AttentionActivation::VectorSoftmax
        }
        Arch::Sympt(v) => v.transformer_dim == v.dim,
        Arch::LinSympt(_) | Arch::Ct(_) => true,
    };
    if !typed {
        return None;
    }
    Some(match arch {
        Arch::Vpt(v) => {
            let weight = if v.skew_sym {
                "SkewWeight"
            } else {
                "ArbitraryWeight"
            };
            format!(
                "geomattn::Transformer<geomattn::VolumePreservingAttention<{s}, {d}, {t}, \
                 geomattn::{weight}<{s}, {d}>>, \
                 geomattn::VolumePreservingFeedForward<{s}, {d}, {nb}, {nl}, {act}>, {l}>",
                d = v.dim,
                t = v.seq,
                nb = v.n_blocks,
                nl = v.n_linear,
                act = activation(v.activation),
                l = v.l,
            )
        }
        Arch::Vpff(v) => format!(
            "geomattn::VolumePreservingFeedForward<{s}, {d}, {nb}, {nl}, {act}>",
            d = v.dim,
            nb = v.n_blocks,
            nl = v.n_linear,
            act = activation(v.activation),
        ),
        Arch::St(v) => {
            let connection = if v.add_connection {
                "AddConnection"
            } else {
                "NoConnection"
            };
            format!(
                "geomattn::Transformer<geomattn::MultiHeadAttention<{s}, {d}, {h}, {dh}, \
                 geomattn::{connection}>, \
                 geomattn::ResNetStack<{s}, {d}, {nb}, {act}>, {l}>",
                d = v.dim,
                h = v.n_heads,
                dh = v.dim / v.n_heads,
                nb = v.n_blocks,
                act = activation(v.activation),
                l = v.l,
            )
        }
        Arch::Sympt(v) => {
            let n = v.dim / 2;
            let weight = match v.symmetric {
                None => format!("geomattn::DenseA<{s}, {n}>"),
                Some(Kick::Gml) => {
                    format!("geomattn::SymmetricA<{s}, {n}, geomattn::GmlCompatible>")
                }
                Some(Kick::Exact) => {
                    format!("geomattn::SymmetricA<{s}, {n}, geomattn::GradientExact>")
                }
            };
            format!(
                "geomattn::SymplecticTransformer<{s}, {n}, {h}, {ns}, {l}, {act}, geomattn::{sm}, \
                 {weight}, geomattn::{first}>",
                h = v.upscaling_dimension / 2,
                ns = v.n_sympnet,
                l = v.l,
                act = activation(v.sympnet_activation),
                sm = v.attention_activation,
                first = first_side(v.init_upper),
            )
        }
        Arch::LinSympt(v) => format!(
            "geomattn::LinearSymplecticTransformer<{s}, {n}, {t}, {h}, {ns}, {l}, {act}, \
             geomattn::{first}>",
            n = v.dim / 2,
            t = v.seq,
            h = v.upscaling_dimension / 2,
            ns = v.n_sympnet,
            l = v.l,
            act = activation(v.activation),
            first = first_side(v.init_upper),
        ),
        Arch::Ct(c) => {
            let connection = if c.add_connection {
                "AddConnection"
            } else {
                "NoConnection"
            };
            // `Euclidean` is the projections' default, which `type_name` leaves out too.
            let projection = if c.stiefel { ", geomattn::Stiefel" } else { "" };
            format!(
                "geomattn::Classifier<geomattn::Transformer<geomattn::MultiHeadAttention<{s}, {d}, \
                 {h}, {dh}, geomattn::{connection}{projection}>, \
                 geomattn::ResNetLayer<{s}, {d}, geomattn::Tanh>, {l}>, \
                 geomattn::ClassificationLayer<{s}, {d}, {classes}>>",
                d = c.dim,
                h = c.n_heads,
                dh = c.dim / c.n_heads,
                l = c.l,
                classes = c.classes,
            )
        }
    })
}

#[cfg(test)]
mod tests;
