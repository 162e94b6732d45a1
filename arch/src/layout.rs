//! The chain GML 0.4.8's constructor builds from an [`Arch`], as data: each layer's constructor
//! call and its parameters, named and shaped exactly as GML's `save` writes them (one group
//! `L1`, `L2`, … per layer).
//!
//! Written from GML 0.4.8's `src/architectures/*.jl` (the chains) and `src/layers/*.jl` (each
//! layer's `initialparameters`), with AbstractNeuralNetworks 0.6's `Dense`:
//!
//! | layer | parameters |
//! |---|---|
//! | `Dense(m, n, σ)` | `W` n×m, `b` n |
//! | `ResNetLayer(D, σ)` | `weight` D×D, `bias` D |
//! | `MultiHeadAttention(D, h)` | `PQ`, `PK`, `PV`, each `head_1 … head_h`: D×(D/h), dense or `StiefelManifold` |
//! | `VolumePreservingAttention(d)` | `A`: d×d dense, or `SkewSymMatrix` with `skew_sym` |
//! | `VolumePreservingLowerLayer(d, σ)` (`Upper`) | `weight` `LowerTriangular` (`UpperTriangular`) d×d, `bias` d if it has one |
//! | `GradientLayerQ(M, U, σ)` (`P`) | `weight` (U/2)×(M/2), `bias` U/2, `scale` U/2 |
//! | `SymplecticAttentionQ(M)` (`P`) | `A`: (M/2)×(M/2) dense, or `SymmetricMatrix` with `symmetric` |
//! | `LinearSymplecticAttentionQ(M, T)` (`P`) | `A`: `SymmetricMatrix` T×T |
//! | `PSDLayer(M, N)` | `weight`: `StiefelManifold` max(M, N)/2 × min(M, N)/2 |
//! | `ClassificationLayer(D, c, σ)` | `weight` c×D |
//!
//! ```
//! use geomattn_arch::{Arch, layout};
//! let arch: Arch = "VolumePreservingFeedForward(3, 1, 1, tanh)".parse()?;
//! let text: Vec<String> = layout::layers(&arch).iter().map(ToString::to_string).collect();
//! assert_eq!(text, [
//!     "VolumePreservingLowerLayer(3, identity; use_bias = false): weight LowerTriangular 3×3",
//!     "VolumePreservingUpperLayer(3, identity; use_bias = true): weight UpperTriangular 3×3, bias 3",
//!     "VolumePreservingLowerLayer(3, tanh; use_bias = true): weight LowerTriangular 3×3, bias 3",
//!     "VolumePreservingUpperLayer(3, tanh; use_bias = true): weight UpperTriangular 3×3, bias 3",
//!     "VolumePreservingLowerLayer(3, identity; use_bias = false): weight LowerTriangular 3×3",
//!     "VolumePreservingUpperLayer(3, identity; use_bias = true): weight UpperTriangular 3×3, bias 3",
//! ]);
//! # Ok::<(), geomattn_arch::Error>(())
//! ```

use core::fmt;

use geomattn::Kind;
/// The half of phase space a symplectic layer updates (GML's `Q` and `P` layers).
pub use geomattn::symplectic::Side;

use crate::spec::{Activation, Arch, AttentionActivation, Ct, LinSympt, St, Sympt, Vpt};

/// The special matrices GML stores as a group with a `gml_type` attribute, a packed vector `S`
/// and the size `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Packed {
    /// `SkewSymMatrix`: the `n(n−1)/2` entries below the diagonal.
    SkewSym,
    /// `SymmetricMatrix`: the `n(n+1)/2` entries on and below the diagonal.
    Symmetric,
    /// `LowerTriangular` (strict): `n(n−1)/2` entries.
    Lower,
    /// `UpperTriangular` (strict): `n(n−1)/2` entries.
    Upper,
}

impl Packed {
    /// Every kind.
    pub const ALL: [Self; 4] = [Self::SkewSym, Self::Symmetric, Self::Lower, Self::Upper];

    /// GML's `gml_type`.
    pub fn gml_type(self) -> &'static str {
        match self {
            Self::SkewSym => "SkewSymMatrix",
            Self::Symmetric => "SymmetricMatrix",
            Self::Lower => "LowerTriangular",
            Self::Upper => "UpperTriangular",
        }
    }

    /// The kind GML's `gml_type` names.
    pub fn from_gml_type(gml_type: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.gml_type() == gml_type)
    }

    /// The runtime's kind of parameter.
    pub fn kind(self) -> Kind {
        match self {
            Self::SkewSym => Kind::Skew,
            Self::Symmetric => Kind::Symmetric,
            Self::Lower => Kind::StrictlyLower,
            Self::Upper => Kind::StrictlyUpper,
        }
    }

    /// The packed length of an `n×n` matrix of this kind.
    pub fn len(self, n: usize) -> usize {
        self.kind().len(n, n)
    }

    /// The size `n` whose packed length is `len`, if there is one.
    ///
    /// ```
    /// use geomattn_arch::layout::Packed;
    /// assert_eq!(Packed::SkewSym.size(3), Some(3));
    /// assert_eq!(Packed::Symmetric.size(3), Some(2));
    /// assert_eq!(Packed::Lower.size(4), None);
    /// ```
    pub fn size(self, len: usize) -> Option<usize> {
        // n ≈ √(2·len): the search starts just below it, so it takes a few steps at any length.
        let guess = (2.0 * len as f64).sqrt() as usize;
        // From 1: a 0×0 matrix is no layer's (and sizes 0 and 1 have the same empty triangles).
        (guess.saturating_sub(2).max(1)..=guess + 2).find(|&n| self.len(n) == len)
    }
}

/// What one parameter holds, by its Julia shape (rows × columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Values {
    /// A dense matrix.
    Dense {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// A vector.
    Vector(usize),
    /// A special matrix, `n×n`, stored packed.
    Packed(Packed, usize),
    /// A `StiefelManifold` point: a `rows×cols` matrix with orthonormal columns.
    Stiefel {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
}

impl Values {
    /// How many numbers the file holds for it.
    pub fn len(&self) -> usize {
        let (kind, rows, cols) = self.kind();
        kind.len(rows, cols)
    }

    /// Whether it holds no numbers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The runtime's kind of parameter with its rows and columns (`n×n` for the special
    /// matrices, `len×1` for a vector): what [`geomattn::gml::Node::stored`] reads.
    ///
    /// ```
    /// use geomattn::Kind;
    /// use geomattn_arch::layout::{Packed, Values};
    /// assert_eq!(Values::Packed(Packed::Lower, 3).kind(), (Kind::StrictlyLower, 3, 3));
    /// assert_eq!(Values::Vector(4).kind(), (Kind::Vector, 4, 1));
    /// ```
    pub fn kind(&self) -> (Kind, usize, usize) {
        match *self {
            Self::Dense { rows, cols } => (Kind::Dense, rows, cols),
            Self::Stiefel { rows, cols } => (Kind::Stiefel, rows, cols),
            Self::Vector(len) => (Kind::Vector, len, 1),
            Self::Packed(packed, n) => (packed.kind(), n, n),
        }
    }
}

impl fmt::Display for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dense { rows, cols } => write!(f, "{rows}×{cols}"),
            Self::Vector(len) => write!(f, "{len}"),
            Self::Packed(kind, n) => write!(f, "{} {n}×{n}", kind.gml_type()),
            Self::Stiefel { rows, cols } => write!(f, "StiefelManifold {rows}×{cols}"),
        }
    }
}

/// One parameter of a layer: its path inside the layer's group (`A`, `weight`, `PQ/head_1`) and
/// what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Parameter {
    /// Its path inside the layer's group.
    pub name: String,
    /// What it holds.
    pub values: Values,
}

impl fmt::Display for Parameter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.values)
    }
}

/// One layer of GML's, with its settings: what a network is built from, and (as its `Display`)
/// GML's constructor call of it.
///
/// ```
/// use geomattn_arch::Activation;
/// use geomattn_arch::layout::Op;
/// let op = Op::ResNet { dim: 3, activation: Activation::Tanh };
/// assert_eq!(op.to_string(), "ResNetLayer(3, tanh; use_bias = true)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `VolumePreservingLowerLayer(dim, activation; use_bias)` (`Upper` with `upper`).
    VolumePreserving {
        /// The dimension.
        dim: usize,
        /// `VolumePreservingUpperLayer`, not `…Lower…`.
        upper: bool,
        /// The activation.
        activation: Activation,
        /// GML's `use_bias`.
        bias: bool,
    },
    /// `VolumePreservingAttention(dim, seq_length; skew_sym)`.
    VolumePreservingAttention {
        /// The dimension.
        dim: usize,
        /// The sequence length.
        seq: usize,
        /// GML's `skew_sym`.
        skew_sym: bool,
    },
    /// `Dense(inputs, outputs, activation)`.
    Dense {
        /// Inputs.
        inputs: usize,
        /// Outputs.
        outputs: usize,
        /// The activation.
        activation: Activation,
    },
    /// `ResNetLayer(dim, activation; use_bias = true)`.
    ResNet {
        /// The dimension.
        dim: usize,
        /// The activation.
        activation: Activation,
    },
    /// `MultiHeadAttention(dim, heads; Stiefel, add_connection[, activation])`.
    MultiHeadAttention {
        /// The dimension.
        dim: usize,
        /// Heads.
        heads: usize,
        /// Projections on the Stiefel manifold.
        stiefel: bool,
        /// GML's `add_connection`.
        add_connection: bool,
        /// The softmax, where the architecture passes one (`None`: GML's default).
        softmax: Option<AttentionActivation>,
    },
    /// `ClassificationLayer(dim, classes, softmax)`.
    Classification {
        /// The dimension.
        dim: usize,
        /// Classes.
        classes: usize,
    },
    /// `GradientLayerQ(dim, upscaling_dimension, activation)` (`P`).
    Gradient {
        /// The phase-space dimension.
        dim: usize,
        /// GML's `upscaling_dimension` (twice the hidden units).
        upscaling_dimension: usize,
        /// The activation.
        activation: Activation,
        /// The half it updates.
        side: Side,
    },
    /// `PSDLayer(inputs, outputs)`.
    Psd {
        /// Inputs.
        inputs: usize,
        /// Outputs.
        outputs: usize,
    },
    /// `SymplecticAttentionQ(dim; symmetric, activation)` (`P`).
    SymplecticAttention {
        /// The phase-space dimension.
        dim: usize,
        /// The half it updates.
        side: Side,
        /// A `SymmetricMatrix` `A`.
        symmetric: bool,
        /// The softmax.
        softmax: AttentionActivation,
    },
    /// `LinearSymplecticAttentionQ(dim, seq)` (`P`).
    LinearSymplecticAttention {
        /// The phase-space dimension.
        dim: usize,
        /// The sequence length.
        seq: usize,
        /// The half it updates.
        side: Side,
    },
}

fn softmax_call(softmax: AttentionActivation) -> &'static str {
    match softmax {
        AttentionActivation::VectorSoftmax => "VectorSoftmax()",
        AttentionActivation::MatrixSoftmax => "MatrixSoftmax()",
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::VolumePreserving {
                dim,
                upper,
                activation,
                bias,
            } => {
                let side = if upper { "Upper" } else { "Lower" };
                write!(
                    f,
                    "VolumePreserving{side}Layer({dim}, {activation}; use_bias = {bias})"
                )
            }
            Self::VolumePreservingAttention { dim, seq, skew_sym } => {
                write!(
                    f,
                    "VolumePreservingAttention({dim}, {seq}; skew_sym = {skew_sym})"
                )
            }
            Self::Dense {
                inputs,
                outputs,
                activation,
            } => {
                write!(f, "Dense({inputs}, {outputs}, {activation})")
            }
            Self::ResNet { dim, activation } => {
                write!(f, "ResNetLayer({dim}, {activation}; use_bias = true)")
            }
            Self::MultiHeadAttention {
                dim,
                heads,
                stiefel,
                add_connection,
                softmax,
            } => {
                write!(
                    f,
                    "MultiHeadAttention({dim}, {heads}; Stiefel = {stiefel}, "
                )?;
                write!(f, "add_connection = {add_connection}")?;
                match softmax {
                    Some(softmax) => write!(f, ", activation = {})", softmax_call(softmax)),
                    None => f.write_str(")"),
                }
            }
            Self::Classification { dim, classes } => {
                write!(f, "ClassificationLayer({dim}, {classes}, softmax)")
            }
            Self::Gradient {
                dim,
                upscaling_dimension,
                activation,
                side,
            } => {
                write!(
                    f,
                    "GradientLayer{side}({dim}, {upscaling_dimension}, {activation})"
                )
            }
            Self::Psd { inputs, outputs } => write!(f, "PSDLayer({inputs}, {outputs})"),
            Self::SymplecticAttention {
                dim,
                side,
                symmetric,
                softmax,
            } => write!(
                f,
                "SymplecticAttention{side}({dim}; symmetric = {symmetric}, activation = {})",
                softmax_call(softmax)
            ),
            Self::LinearSymplecticAttention { dim, seq, side } => {
                write!(f, "LinearSymplecticAttention{side}({dim}, {seq})")
            }
        }
    }
}

/// One layer of a chain: the GML layer with its settings, and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// The GML layer (its `Display` is GML's constructor call,
    /// `ResNetLayer(3, tanh; use_bias = true)`).
    pub op: Op,
    /// Its parameters, in the order GML's `initialparameters` lists them.
    pub parameters: Vec<Parameter>,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.op)?;
        let parameters: Vec<String> = self.parameters.iter().map(ToString::to_string).collect();
        f.write_str(&parameters.join(", "))
    }
}

fn parameter(name: impl Into<String>, values: Values) -> Parameter {
    Parameter {
        name: name.into(),
        values,
    }
}

fn dense(rows: usize, cols: usize) -> Values {
    Values::Dense { rows, cols }
}

/// The layers of `arch`'s chain, `L1` first.
pub fn layers(arch: &Arch) -> Vec<Layer> {
    match arch {
        Arch::Vpt(v) => vpt(v),
        Arch::Vpff(v) => vpff(v.dim, v.n_blocks, v.n_linear, v.activation, v.init_upper),
        Arch::St(s) => st(s),
        Arch::Ct(c) => ct(c),
        Arch::Sympt(s) => sympt(s),
        Arch::LinSympt(s) => linsympt(s),
    }
}

/// GML's `VolumePreservingFeedForward(dim, n_blocks, n_linear, activation; init_upper)`: per
/// block `n_linear` linear pairs (the last one's second layer with a bias) and one pair with the
/// activation, then a last linear pair. With `init_upper` each pair starts with the upper layer;
/// the biases and activations keep their places.
fn vpff(
    dim: usize,
    n_blocks: usize,
    n_linear: usize,
    activation: Activation,
    init_upper: bool,
) -> Vec<Layer> {
    let pair = |activation: Activation, first_bias: bool, second_bias: bool| {
        let (first, second) = if init_upper {
            (Packed::Upper, Packed::Lower)
        } else {
            (Packed::Lower, Packed::Upper)
        };
        [(first, first_bias), (second, second_bias)].map(|(kind, bias)| {
            let mut parameters = vec![parameter("weight", Values::Packed(kind, dim))];
            if bias {
                parameters.push(parameter("bias", Values::Vector(dim)));
            }
            Layer {
                op: Op::VolumePreserving {
                    dim,
                    upper: kind == Packed::Upper,
                    activation,
                    bias,
                },
                parameters,
            }
        })
    };
    let mut layers = Vec::new();
    for _ in 0..n_blocks {
        for k in 0..n_linear {
            layers.extend(pair(Activation::Identity, false, k + 1 == n_linear));
        }
        layers.extend(pair(activation, true, true));
    }
    layers.extend(pair(Activation::Identity, false, true));
    layers
}

/// GML's `VolumePreservingTransformer`: `L` times attention, then a whole feed-forward network.
fn vpt(v: &Vpt) -> Vec<Layer> {
    let attention = Layer {
        op: Op::VolumePreservingAttention {
            dim: v.dim,
            seq: v.seq,
            skew_sym: v.skew_sym,
        },
        parameters: vec![parameter(
            "A",
            if v.skew_sym {
                Values::Packed(Packed::SkewSym, v.dim)
            } else {
                dense(v.dim, v.dim)
            },
        )],
    };
    let feedforward = vpff(v.dim, v.n_blocks, v.n_linear, v.activation, v.init_upper);
    let mut layers = Vec::new();
    for _ in 0..v.l {
        layers.push(attention.clone());
        layers.extend(feedforward.iter().cloned());
    }
    layers
}

fn dense_layer(inputs: usize, outputs: usize, activation: Activation) -> Layer {
    Layer {
        op: Op::Dense {
            inputs,
            outputs,
            activation,
        },
        parameters: vec![
            parameter("W", dense(outputs, inputs)),
            parameter("b", Values::Vector(outputs)),
        ],
    }
}

fn resnet(dim: usize, activation: Activation) -> Layer {
    Layer {
        op: Op::ResNet { dim, activation },
        parameters: vec![
            parameter("weight", dense(dim, dim)),
            parameter("bias", Values::Vector(dim)),
        ],
    }
}

/// `MultiHeadAttention(dim, heads)`: its `PQ`, `PK` and `PV`, each `head_1 … head_h`.
fn multi_head(
    dim: usize,
    heads: usize,
    stiefel: bool,
    add_connection: bool,
    softmax: Option<AttentionActivation>,
) -> Layer {
    let head = if stiefel {
        Values::Stiefel {
            rows: dim,
            cols: dim / heads,
        }
    } else {
        dense(dim, dim / heads)
    };
    let parameters = ["PQ", "PK", "PV"]
        .iter()
        .flat_map(|p| (1..=heads).map(move |h| parameter(format!("{p}/head_{h}"), head)))
        .collect();
    Layer {
        op: Op::MultiHeadAttention {
            dim,
            heads,
            stiefel,
            add_connection,
            softmax,
        },
        parameters,
    }
}

/// GML's `StandardTransformerIntegrator`: with `transformer_dim ≠ sys_dim` a `Dense` up first and
/// one down last; `L` times multi-head attention, `n_blocks` ResNet layers with the activation and
/// one without.
fn st(s: &St) -> Vec<Layer> {
    let d = s.transformer_dim;
    let upscaled = d != s.dim;
    let mut layers = Vec::new();
    if upscaled {
        layers.push(dense_layer(s.dim, d, s.upscaling_activation));
    }
    for _ in 0..s.l {
        layers.push(multi_head(
            d,
            s.n_heads,
            false,
            s.add_connection,
            Some(s.attention_activation),
        ));
        layers.extend((0..s.n_blocks).map(|_| resnet(d, s.activation)));
        layers.push(resnet(d, Activation::Identity));
    }
    if upscaled {
        layers.push(dense_layer(d, s.dim, Activation::Identity));
    }
    layers
}

/// GML's `ClassificationTransformer`: `L` times multi-head attention and a ResNet layer with
/// `tanh`, then the classification layer.
fn ct(c: &Ct) -> Vec<Layer> {
    let mut layers = Vec::new();
    for _ in 0..c.l {
        layers.push(multi_head(
            c.dim,
            c.n_heads,
            c.stiefel,
            c.add_connection,
            None,
        ));
        layers.push(resnet(c.dim, Activation::Tanh));
    }
    layers.push(Layer {
        op: Op::Classification {
            dim: c.dim,
            classes: c.classes,
        },
        parameters: vec![parameter("weight", dense(c.classes, c.dim))],
    });
    layers
}

/// `n_sympnet` gradient layers of phase space `R^dim`: `Q` at the odd places with `init_upper`,
/// at the even ones without.
fn gradients(
    dim: usize,
    n_sympnet: usize,
    upscaling_dimension: usize,
    activation: Activation,
    init_upper: bool,
) -> impl Iterator<Item = Layer> {
    let hidden = upscaling_dimension / 2;
    (1..=n_sympnet).map(move |i| {
        let side = if (i % 2 == 1) == init_upper {
            Side::Q
        } else {
            Side::P
        };
        Layer {
            op: Op::Gradient {
                dim,
                upscaling_dimension,
                activation,
                side,
            },
            parameters: vec![
                parameter("weight", dense(hidden, dim / 2)),
                parameter("bias", Values::Vector(hidden)),
                parameter("scale", Values::Vector(hidden)),
            ],
        }
    })
}

/// `PSDLayer(inputs, outputs)`.
fn psd(inputs: usize, outputs: usize) -> Layer {
    Layer {
        op: Op::Psd { inputs, outputs },
        parameters: vec![parameter(
            "weight",
            Values::Stiefel {
                rows: inputs.max(outputs) / 2,
                cols: inputs.min(outputs) / 2,
            },
        )],
    }
}

/// GML's `SymplecticTransformer`: with `transformer_dim ≠ dim` a `PSDLayer` first and last; `L`
/// times attention on `q`, the gradient layers, attention on `p`, the gradient layers again.
fn sympt(s: &Sympt) -> Vec<Layer> {
    let d = s.transformer_dim;
    let n = d / 2;
    let symmetric = s.symmetric.is_some();
    let a = if symmetric {
        Values::Packed(Packed::Symmetric, n)
    } else {
        dense(n, n)
    };
    let attention = |side| Layer {
        op: Op::SymplecticAttention {
            dim: d,
            side,
            symmetric,
            softmax: s.attention_activation,
        },
        parameters: vec![parameter("A", a)],
    };
    let stack = || {
        gradients(
            d,
            s.n_sympnet,
            s.upscaling_dimension,
            s.sympnet_activation,
            s.init_upper,
        )
    };
    let upscaled = d != s.dim;
    let mut layers = Vec::new();
    if upscaled {
        layers.push(psd(s.dim, d));
    }
    for _ in 0..s.l {
        layers.push(attention(Side::Q));
        layers.extend(stack());
        layers.push(attention(Side::P));
        layers.extend(stack());
    }
    if upscaled {
        layers.push(psd(d, s.dim));
    }
    layers
}

/// GML's `LinearSymplecticTransformer`: `L` times linear attention on `q`, the gradient layers,
/// linear attention on `p`, the gradient layers again.
fn linsympt(s: &LinSympt) -> Vec<Layer> {
    let attention = |side| Layer {
        op: Op::LinearSymplecticAttention {
            dim: s.dim,
            seq: s.seq,
            side,
        },
        parameters: vec![parameter("A", Values::Packed(Packed::Symmetric, s.seq))],
    };
    let stack = || {
        gradients(
            s.dim,
            s.n_sympnet,
            s.upscaling_dimension,
            s.activation,
            s.init_upper,
        )
    };
    let mut layers = Vec::new();
    for _ in 0..s.l {
        layers.push(attention(Side::Q));
        layers.extend(stack());
        layers.push(attention(Side::P));
        layers.extend(stack());
    }
    layers
}
