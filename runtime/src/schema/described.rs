//! The types of GML's layers at sizes known only at run time: the [`OwnedLayerType`] the
//! layer's compile-time type describes ([`Schema::describe`](super::Schema::describe)) at those
//! sizes, built by the same functions as that type's constant. What writes the blob of a network
//! read from a file at any size ([`described_to_blob`](super::described_to_blob)), which
//! [`read_blob`](super::read_blob) then reads into the compile-time type.
//!
//! Activations and softmaxes are given by their names ([`Activation::NAME`](crate::Activation),
//! [`Softmax::NAME`](crate::Softmax): `tanh`, `VectorSoftmax`).
//!
//! ```
//! use geomattn::schema::described;
//! use geomattn::{LayerType, ResNetLayer, Schema, Tanh, Visit};
//! struct Types(Vec<String>);
//! impl Visit for Types {
//!     fn layer(&mut self, layer: &LayerType) {
//!         self.0.push(format!("{layer} {:?}", layer.params));
//!     }
//! }
//! let mut compiled = Types(Vec::new());
//! ResNetLayer::<f32, 5, Tanh>::describe(&mut compiled);
//! let at_run_time = described::resnet_layer(5, "tanh");
//! let mut described = Types(Vec::new());
//! described.layer(&at_run_time.as_type());
//! assert_eq!(described.0, compiled.0);
//! ```

use super::classification::{CLASSIFICATION, classification_params, classification_settings};
use super::params::step_layer_settings;
use super::{Kind, Name, OwnedLayerType, Param, Setting};
use crate::feedforward::gradient::schema::{
    gradient_layer_name, gradient_layer_params, gradient_layer_settings,
};
use crate::feedforward::resnet::schema::{RESNET, resnet_params};
use crate::feedforward::volume_preserving::schema::{vp_layer_name, vp_layer_params};
use crate::mha::schema::{MHA, mha_head, mha_settings};
use crate::symplectic::attention::schema::{
    dense_attention_settings, symmetric_attention_settings, symplectic_attention_name,
    symplectic_attention_params,
};
use crate::symplectic::linear::schema::{
    linear_attention_name, linear_attention_params, linear_attention_settings,
};
use crate::vpa::schema::{VPA, vpa_params, vpa_settings};

/// The function every Cayley kernel computes ([`OrthogonalMap::FUNCTION`](crate::OrthogonalMap)).
const CAYLEY: &str = "cayley";

/// `VolumePreservingAttention(dim, seq; skew_sym)` with the Cayley transform (GML's).
pub fn volume_preserving_attention(dim: usize, seq: usize, skew_sym: bool) -> OwnedLayerType {
    OwnedLayerType::new(
        VPA,
        &vpa_settings(dim, seq, skew_sym, CAYLEY),
        &vpa_params(dim, skew_sym),
    )
}

/// `VolumePreservingLowerLayer` (`UpperLayer` if `upper`)`(dim, activation; use_bias)`.
pub fn volume_preserving_layer(
    dim: usize,
    upper: bool,
    activation: &'static str,
    use_bias: bool,
) -> OwnedLayerType {
    let params = vp_layer_params(dim, upper);
    OwnedLayerType::new(
        vp_layer_name(upper),
        &step_layer_settings(dim, activation, use_bias),
        &params[..if use_bias { 2 } else { 1 }],
    )
}

/// AbstractNeuralNetworks' `Dense(inputs, outputs, activation; use_bias = true)`: `W`
/// (`outputs×inputs`) and `b`. No compile-time layer has this type (the standard transformer's
/// maps up and down run on the run-time engine only).
pub fn dense(inputs: usize, outputs: usize, activation: &'static str) -> OwnedLayerType {
    OwnedLayerType::new(
        "Dense",
        &[
            Setting::number("inputs", inputs),
            Setting::number("outputs", outputs),
            Setting::name("activation", activation),
        ],
        &[
            Param::new(Name::new("W"), Kind::Dense, outputs, inputs),
            Param::new(Name::new("b"), Kind::Vector, outputs, 1),
        ],
    )
}

/// `PSDLayer(inputs, outputs)`: its `weight` `Φ` on the Stiefel manifold,
/// `max(inputs, outputs)/2 × min(inputs, outputs)/2`. No compile-time layer has this type (the
/// symplectic transformer's maps up and down run on the run-time engine only).
pub fn psd_layer(inputs: usize, outputs: usize) -> OwnedLayerType {
    OwnedLayerType::new(
        "PSDLayer",
        &[
            Setting::number("inputs", inputs),
            Setting::number("outputs", outputs),
        ],
        &[Param::new(
            Name::new("weight"),
            Kind::Stiefel,
            inputs.max(outputs) / 2,
            inputs.min(outputs) / 2,
        )],
    )
}

/// `ResNetLayer(dim, activation; use_bias = true)`.
pub fn resnet_layer(dim: usize, activation: &'static str) -> OwnedLayerType {
    OwnedLayerType::new(
        RESNET,
        &step_layer_settings(dim, activation, true),
        &resnet_params(dim),
    )
}

/// `MultiHeadAttention(dim, n_heads; Stiefel, add_connection)` with `softmax`: the projections
/// `PQ`, `PK`, `PV`, each head by head, `dim × dim/n_heads` (`n_heads` divides `dim`).
pub fn multi_head_attention(
    dim: usize,
    n_heads: usize,
    stiefel: bool,
    add_connection: bool,
    softmax: &'static str,
) -> OwnedLayerType {
    let kind = if stiefel { Kind::Stiefel } else { Kind::Dense };
    let dh = dim.checked_div(n_heads).unwrap_or(0);
    let params: std::vec::Vec<_> = (0..3)
        .flat_map(|group| (0..n_heads).map(move |h| mha_head(group, h, dim, dh, kind)))
        .collect();
    OwnedLayerType::new(
        MHA,
        &mha_settings(dim, n_heads, stiefel, add_connection, softmax),
        &params,
    )
}

/// `SymplecticAttentionQ` (`P` unless `updates_q`)`(2n; symmetric = false)` with `softmax`.
pub fn dense_symplectic_attention(
    n: usize,
    updates_q: bool,
    softmax: &'static str,
) -> OwnedLayerType {
    OwnedLayerType::new(
        symplectic_attention_name(updates_q),
        &dense_attention_settings(n, softmax),
        &symplectic_attention_params(n, false),
    )
}

/// `SymplecticAttentionQ` (`P` unless `updates_q`)`(2n; symmetric = true)` with `softmax`, and
/// the kick formula: GML's (`gml_kick`) or the exact gradient.
pub fn symmetric_symplectic_attention(
    n: usize,
    updates_q: bool,
    softmax: &'static str,
    gml_kick: bool,
) -> OwnedLayerType {
    OwnedLayerType::new(
        symplectic_attention_name(updates_q),
        &symmetric_attention_settings(n, softmax, gml_kick),
        &symplectic_attention_params(n, true),
    )
}

/// `LinearSymplecticAttentionQ` (`P` unless `updates_q`)`(2n, seq)`.
pub fn linear_symplectic_attention(n: usize, seq: usize, updates_q: bool) -> OwnedLayerType {
    OwnedLayerType::new(
        linear_attention_name(updates_q),
        &linear_attention_settings(n, seq),
        &linear_attention_params(seq),
    )
}

/// `GradientLayerQ` (`P` unless `updates_q`)`(2n, 2·hidden, activation)`.
pub fn gradient_layer(
    n: usize,
    hidden: usize,
    updates_q: bool,
    activation: &'static str,
) -> OwnedLayerType {
    OwnedLayerType::new(
        gradient_layer_name(updates_q),
        &gradient_layer_settings(n, hidden, activation),
        &gradient_layer_params(n, hidden),
    )
}

/// `ClassificationLayer(input_dim, classes, softmax)`.
pub fn classification_layer(input_dim: usize, classes: usize) -> OwnedLayerType {
    OwnedLayerType::new(
        CLASSIFICATION,
        &classification_settings(input_dim, classes),
        &classification_params(input_dim, classes),
    )
}
