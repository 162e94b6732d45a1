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

    /// The packed length of an `n×n` matrix of this kind.
    pub fn len(self, n: usize) -> usize {
        match self {
            Self::Symmetric => n.saturating_mul(n.saturating_add(1)) / 2,
            Self::SkewSym | Self::Lower | Self::Upper => n.saturating_mul(n.saturating_sub(1)) / 2,
        }
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
        match *self {
            Self::Dense { rows, cols } | Self::Stiefel { rows, cols } => rows.saturating_mul(cols),
            Self::Vector(len) => len,
            Self::Packed(kind, n) => kind.len(n),
        }
    }

    /// Whether it holds no numbers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

/// One layer of a chain: GML's constructor call of it, and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// GML's constructor call (`ResNetLayer(3, tanh; use_bias = true)`).
    pub gml: String,
    /// Its parameters, in the order GML's `initialparameters` lists them.
    pub parameters: Vec<Parameter>,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.gml)?;
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
            let side = if kind == Packed::Lower {
                "Lower"
            } else {
                "Upper"
            };
            let mut parameters = vec![parameter("weight", Values::Packed(kind, dim))];
            if bias {
                parameters.push(parameter("bias", Values::Vector(dim)));
            }
            Layer {
                gml: format!("VolumePreserving{side}Layer({dim}, {activation}; use_bias = {bias})"),
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
        gml: format!(
            "VolumePreservingAttention({}, {}; skew_sym = {})",
            v.dim, v.seq, v.skew_sym
        ),
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
        gml: format!("Dense({inputs}, {outputs}, {activation})"),
        parameters: vec![
            parameter("W", dense(outputs, inputs)),
            parameter("b", Values::Vector(outputs)),
        ],
    }
}

fn resnet(dim: usize, activation: Activation) -> Layer {
    Layer {
        gml: format!("ResNetLayer({dim}, {activation}; use_bias = true)"),
        parameters: vec![
            parameter("weight", dense(dim, dim)),
            parameter("bias", Values::Vector(dim)),
        ],
    }
}

/// `MultiHeadAttention(dim, heads)`: its `PQ`, `PK` and `PV`, each `head_1 … head_h`.
fn multi_head(dim: usize, heads: usize, stiefel: bool, options: &str) -> Layer {
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
        gml: format!("MultiHeadAttention({dim}, {heads}; Stiefel = {stiefel}, {options})"),
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
    let softmax = match s.attention_activation {
        AttentionActivation::VectorSoftmax => "VectorSoftmax()",
        AttentionActivation::MatrixSoftmax => "MatrixSoftmax()",
    };
    let options = format!(
        "add_connection = {}, activation = {softmax}",
        s.add_connection
    );
    for _ in 0..s.l {
        layers.push(multi_head(d, s.n_heads, false, &options));
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
    let options = format!("add_connection = {}", c.add_connection);
    let mut layers = Vec::new();
    for _ in 0..c.l {
        layers.push(multi_head(c.dim, c.n_heads, c.stiefel, &options));
        layers.push(resnet(c.dim, Activation::Tanh));
    }
    layers.push(Layer {
        gml: format!("ClassificationLayer({}, {}, softmax)", c.dim, c.classes),
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
        let side = if (i % 2 == 1) == init_upper { 'Q' } else { 'P' };
        Layer {
            gml: format!("GradientLayer{side}({dim}, {upscaling_dimension}, {activation})"),
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
        gml: format!("PSDLayer({inputs}, {outputs})"),
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
    let softmax = match s.attention_activation {
        AttentionActivation::VectorSoftmax => "VectorSoftmax()",
        AttentionActivation::MatrixSoftmax => "MatrixSoftmax()",
    };
    let attention = |side: char| Layer {
        gml: format!(
            "SymplecticAttention{side}({d}; symmetric = {symmetric}, activation = {softmax})"
        ),
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
        layers.push(attention('Q'));
        layers.extend(stack());
        layers.push(attention('P'));
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
    let attention = |side: char| Layer {
        gml: format!("LinearSymplecticAttention{side}({}, {})", s.dim, s.seq),
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
        layers.push(attention('Q'));
        layers.extend(stack());
        layers.push(attention('P'));
        layers.extend(stack());
    }
    layers
}
