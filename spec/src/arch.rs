//! Architecture specs: the text a user types (`vpt(dim=3, seq=3, …)`, or GML's own constructor
//! call) parsed into an [`Arch`], and printed back in the short form.
//!
//! ```
//! use geomattn_spec::{Activation, Arch};
//! let short: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
//!     .parse()?;
//! // GML's constructor, as its documentation and the fixtures' README write it.
//! let gml: Arch = "VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, \
//!                  activation = tanh, skew_sym = false)".parse()?;
//! assert_eq!(short, gml);
//! assert_eq!(short.to_string(),
//!     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)");
//! # Ok::<(), geomattn_spec::Error>(())
//! ```
//!
//! Every option is required: GML's defaults changed between versions (`L` is 1 or 2 depending on
//! where one reads), and a file does not record them, so the spec says them all. `geomattn
//! inspect` prints the spec that matches a file's layers, with the options it cannot know marked.

use core::fmt;
use core::str::FromStr;
use std::collections::BTreeMap;

use crate::Error;

/// An element-wise activation, by GML's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// `tanh`.
    Tanh,
    /// `identity`.
    Identity,
}

/// GML's `VolumePreservingTransformer(dim, seq; n_blocks, n_linear, L, activation, skew_sym)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vpt {
    /// The dimension of one state (`sys_dim`).
    pub dim: usize,
    /// The sequence length: states per window (`seq_length`).
    pub seq: usize,
    /// Blocks of each feed-forward part.
    pub n_blocks: usize,
    /// Linear layer pairs per block.
    pub n_linear: usize,
    /// Transformer units.
    pub l: usize,
    /// The feed-forward activation.
    pub activation: Activation,
    /// Skew-symmetric attention weight (`true`) or GML's default arbitrary one (`false`).
    pub skew_sym: bool,
}

/// GML's `VolumePreservingFeedForward(dim, n_blocks, n_linear, activation)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vpff {
    /// The dimension of one state.
    pub dim: usize,
    /// Blocks.
    pub n_blocks: usize,
    /// Linear layer pairs per block.
    pub n_linear: usize,
    /// The activation.
    pub activation: Activation,
}

/// GML's `StandardTransformerIntegrator(dim; n_heads, n_blocks, L, resnet_activation,
/// add_connection)`, with the window length `seq` it is run on (which GML gives to `iterate`, not
/// to the constructor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct St {
    /// The dimension of one state (`sys_dim = transformer_dim`).
    pub dim: usize,
    /// States per window.
    pub seq: usize,
    /// Attention heads.
    pub n_heads: usize,
    /// ResNet layers with the activation per unit (then one linear ResNet layer).
    pub n_blocks: usize,
    /// Transformer units.
    pub l: usize,
    /// The ResNet activation.
    pub activation: Activation,
    /// Whether the attention adds its input to its output.
    pub add_connection: bool,
}

/// GML's `ClassificationTransformer(dl; n_heads, L, Stiefel, add_connection)` on sequences of
/// `seq` columns in `R^dim` (GML reads `dim`, `seq` and `classes` from its data loader):
/// `L × [MultiHeadAttention, ResNetLayer(dim, tanh)]`, then `ClassificationLayer(dim, classes,
/// softmax)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ct {
    /// The dimension of one column (49 for MNIST's 7×7 patches).
    pub dim: usize,
    /// Columns per input (16 patches for MNIST).
    pub seq: usize,
    /// Classes.
    pub classes: usize,
    /// Attention heads.
    pub n_heads: usize,
    /// Transformer blocks.
    pub l: usize,
    /// Whether the attention's projections are on the Stiefel manifold.
    pub stiefel: bool,
    /// Whether the attention adds its input to its output.
    pub add_connection: bool,
}

/// The softmax of a symplectic attention layer (GML's `activation` of `SymplecticAttention`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionActivation {
    /// `MatrixSoftmax`: one softmax over the whole `T×T` matrix (GML's default).
    MatrixSoftmax,
    /// `VectorSoftmax`: a softmax per column.
    VectorSoftmax,
}

/// The kick of a symmetric symplectic attention weight (geomattn's choice, not GML's: see
/// `geomattn::symplectic::attention`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// `kick=gml`: GML's `2 A p S` (`geomattn::GmlCompatible`), GML's numbers; not symplectic
    /// with `VectorSoftmax`.
    Gml,
    /// `kick=exact`: the gradient `A p (S + Sᵀ)` (`geomattn::GradientExact`), symplectic with
    /// either softmax; equal to `gml` with `MatrixSoftmax`.
    Exact,
}

/// GML's `SymplecticTransformer(dim; n_sympnet, upscaling_dimension, L, activation, init_upper,
/// symmetric)`, with the window length `seq` (given to `iterate`), the attention's softmax
/// (`attention_activation`, not a constructor option of GML 0.4.8: MatrixSoftmax there) and, for
/// `symmetric = true`, the [`Kick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sympt {
    /// The phase-space dimension `2n` of one state.
    pub dim: usize,
    /// States per window.
    pub seq: usize,
    /// Gradient layers after each attention layer.
    pub n_sympnet: usize,
    /// The gradient layers' upscaling dimension (twice their hidden units).
    pub upscaling_dimension: usize,
    /// Transformer units.
    pub l: usize,
    /// The gradient layers' activation (GML's `activation`).
    pub sympnet_activation: Activation,
    /// The attention's softmax.
    pub attention_activation: AttentionActivation,
    /// Whether the first gradient layer of each stack updates `q`.
    pub init_upper: bool,
    /// `None` for GML's `symmetric = false` (a dense `A`), the kick for `symmetric = true`.
    pub symmetric: Option<Kick>,
}

/// GML's `LinearSymplecticTransformer(dim, seq_length; n_sympnet, upscaling_dimension, L,
/// activation, init_upper)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinSympt {
    /// The phase-space dimension `2n` of one state.
    pub dim: usize,
    /// States per window (the attention's `A` is `seq×seq`).
    pub seq: usize,
    /// Gradient layers after each attention layer.
    pub n_sympnet: usize,
    /// The gradient layers' upscaling dimension (twice their hidden units).
    pub upscaling_dimension: usize,
    /// Transformer units.
    pub l: usize,
    /// The gradient layers' activation.
    pub activation: Activation,
    /// Whether the first gradient layer of each stack updates `q`.
    pub init_upper: bool,
}

/// An architecture with all its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Volume-preserving transformer.
    Vpt(Vpt),
    /// Volume-preserving feed-forward network.
    Vpff(Vpff),
    /// Standard transformer integrator.
    St(St),
    /// Classification transformer (GML's MNIST classifier): not an integrator, see
    /// [`crate::classify`].
    Ct(Ct),
    /// Symplectic transformer.
    Sympt(Sympt),
    /// Linear symplectic transformer.
    LinSympt(LinSympt),
}

impl Arch {
    /// The dimension of one state.
    pub fn dim(&self) -> usize {
        match self {
            Self::Vpt(v) => v.dim,
            Self::Vpff(v) => v.dim,
            Self::St(s) => s.dim,
            Self::Ct(c) => c.dim,
            Self::Sympt(v) => v.dim,
            Self::LinSympt(v) => v.dim,
        }
    }

    /// States per input window: `seq` for the transformers, 1 for the feed-forward network.
    pub fn seq(&self) -> usize {
        match self {
            Self::Vpt(v) => v.seq,
            Self::Vpff(_) => 1,
            Self::St(s) => s.seq,
            Self::Ct(c) => c.seq,
            Self::Sympt(v) => v.seq,
            Self::LinSympt(v) => v.seq,
        }
    }
}

/// One architecture's name, aliases, positional options (GML's order) and keys.
struct Grammar {
    short: &'static str,
    gml: &'static str,
    positional: &'static [&'static str],
    keys: &'static [&'static str],
    /// Keys that may be left out (checked where the arch is built).
    optional: &'static [&'static str],
    /// This architecture's own spellings of GML's keys, before [`ALIASES`].
    aliases: &'static [(&'static str, &'static str)],
}

const VPT: Grammar = Grammar {
    short: "vpt",
    gml: "VolumePreservingTransformer",
    positional: &["dim", "seq"],
    keys: &[
        "dim",
        "seq",
        "n_blocks",
        "n_linear",
        "L",
        "activation",
        "skew_sym",
    ],
    optional: &[],
    aliases: &[],
};
const VPFF: Grammar = Grammar {
    short: "vpff",
    gml: "VolumePreservingFeedForward",
    positional: &["dim", "n_blocks", "n_linear", "activation"],
    keys: &["dim", "n_blocks", "n_linear", "activation"],
    optional: &[],
    aliases: &[],
};
const ST: Grammar = Grammar {
    short: "st",
    gml: "StandardTransformerIntegrator",
    positional: &["dim"],
    keys: &[
        "dim",
        "seq",
        "n_heads",
        "n_blocks",
        "L",
        "activation",
        "add_connection",
    ],
    optional: &[],
    aliases: &[],
};

const CT: Grammar = Grammar {
    short: "classification_transformer",
    gml: "ClassificationTransformer",
    positional: &["dim", "seq", "classes"],
    keys: &[
        "dim",
        "seq",
        "classes",
        "n_heads",
        "L",
        "Stiefel",
        "add_connection",
    ],
    optional: &[],
    aliases: &[],
};

const SYMPT: Grammar = Grammar {
    short: "symplectic_transformer",
    gml: "SymplecticTransformer",
    positional: &["dim"],
    keys: &[
        "dim",
        "seq",
        "n_sympnet",
        "upscaling_dimension",
        "L",
        "sympnet_activation",
        "attention_activation",
        "init_upper",
        "symmetric",
        "kick",
    ],
    optional: &["kick"],
    aliases: &[("activation", "sympnet_activation")],
};

const LINSYMPT: Grammar = Grammar {
    short: "linear_symplectic_transformer",
    gml: "LinearSymplecticTransformer",
    positional: &["dim", "seq"],
    keys: &[
        "dim",
        "seq",
        "n_sympnet",
        "upscaling_dimension",
        "L",
        "activation",
        "init_upper",
    ],
    optional: &[],
    aliases: &[],
};

/// GML's spellings of some keys, and the one this crate uses.
const ALIASES: &[(&str, &str)] = &[
    ("sys_dim", "dim"),
    ("seq_length", "seq"),
    ("l", "L"),
    ("resnet_activation", "activation"),
    ("stiefel", "Stiefel"),
];

/// The options of one spec, by key, as text.
struct Options<'a> {
    spec: &'a str,
    values: BTreeMap<&'static str, &'a str>,
}

impl<'a> Options<'a> {
    fn parse(spec: &'a str, grammar: &Grammar, body: &'a str) -> Result<Self, Error> {
        let malformed = |reason: String| Error::Spec {
            spec: spec.into(),
            reason,
        };
        let mut values = BTreeMap::new();
        let mut positional = grammar.positional.iter();
        let items = body.split([',', ';']).map(str::trim);
        for item in items.filter(|item| !item.is_empty()) {
            let (key, value) = match item.split_once('=') {
                Some((key, value)) => (canonical(grammar, key.trim()), value.trim()),
                None => match positional.next() {
                    Some(key) => (*key, item),
                    None => {
                        return Err(malformed(format!("unexpected positional option `{item}`")));
                    }
                },
            };
            let Some(key) = grammar.keys.iter().find(|k| **k == key) else {
                return Err(malformed(format!(
                    "`{}` has no option `{key}` (its options: {})",
                    grammar.short,
                    grammar.keys.join(", ")
                )));
            };
            if values.insert(*key, value).is_some() {
                return Err(malformed(format!("`{key}` is given twice")));
            }
        }
        let missing: Vec<&str> = grammar
            .keys
            .iter()
            .filter(|k| !values.contains_key(*k) && !grammar.optional.contains(k))
            .copied()
            .collect();
        if !missing.is_empty() {
            return Err(malformed(format!(
                "missing {} (every option is required; `geomattn inspect FILE` suggests them)",
                missing.join(", ")
            )));
        }
        Ok(Self { spec, values })
    }

    fn text(&self, key: &str) -> &'a str {
        self.values.get(key).copied().unwrap_or_default()
    }

    fn size(&self, key: &str) -> Result<usize, Error> {
        match self.text(key).parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(self.bad(key, "a positive integer")),
        }
    }

    fn flag(&self, key: &str) -> Result<bool, Error> {
        match self.text(key) {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(key, "`true` or `false`")),
        }
    }

    fn activation(&self, key: &str) -> Result<Activation, Error> {
        match self.text(key) {
            "tanh" => Ok(Activation::Tanh),
            "identity" => Ok(Activation::Identity),
            _ => Err(self.bad(key, "`tanh` or `identity`")),
        }
    }

    fn attention_activation(&self, key: &str) -> Result<AttentionActivation, Error> {
        match self.text(key) {
            "MatrixSoftmax" => Ok(AttentionActivation::MatrixSoftmax),
            "VectorSoftmax" => Ok(AttentionActivation::VectorSoftmax),
            _ => Err(self.bad(key, "`MatrixSoftmax` or `VectorSoftmax`")),
        }
    }

    /// `symmetric` and `kick`: the kick is required with `symmetric = true` and refused without.
    fn symmetric(&self) -> Result<Option<Kick>, Error> {
        let kick = self.values.get("kick").copied();
        match (self.flag("symmetric")?, kick) {
            (false, None) => Ok(None),
            (true, Some("gml")) => Ok(Some(Kick::Gml)),
            (true, Some("exact")) => Ok(Some(Kick::Exact)),
            (true, Some(_)) => Err(self.bad("kick", "`gml` or `exact`")),
            (true, None) => Err(Error::Spec {
                spec: self.spec.into(),
                reason: "missing kick (`symmetric = true` needs `kick=gml`, GML's numbers, or \
                         `kick=exact`, the symplectic gradient)"
                    .into(),
            }),
            (false, Some(_)) => Err(Error::Spec {
                spec: self.spec.into(),
                reason: "`kick` applies to `symmetric = true` only".into(),
            }),
        }
    }

    fn bad(&self, key: &str, expected: &str) -> Error {
        Error::Spec {
            spec: self.spec.into(),
            reason: format!("`{key} = {}` is not {expected}", self.text(key)),
        }
    }
}

fn canonical<'k>(grammar: &Grammar, key: &'k str) -> &'k str {
    grammar
        .aliases
        .iter()
        .chain(ALIASES)
        .find(|(alias, _)| *alias == key)
        .map_or(key, |(_, name)| name)
}

impl FromStr for Arch {
    type Err = Error;

    fn from_str(spec: &str) -> Result<Self, Error> {
        let malformed = |reason: &str| Error::Spec {
            spec: spec.into(),
            reason: reason.into(),
        };
        let trimmed = spec.trim();
        let (name, rest) = trimmed
            .split_once('(')
            .ok_or_else(|| malformed("expected `name(option=value, …)`"))?;
        let body = rest
            .strip_suffix(')')
            .ok_or_else(|| malformed("expected a closing `)` at the end"))?;
        let name = name.trim();
        let grammar = [VPT, VPFF, ST, CT, SYMPT, LINSYMPT]
            .into_iter()
            .find(|g| name.eq_ignore_ascii_case(g.short) || name == g.gml)
            .ok_or_else(|| {
                malformed(&format!(
                    "unknown architecture `{name}` (known: vpt = VolumePreservingTransformer, \
                     vpff = VolumePreservingFeedForward, st = StandardTransformerIntegrator, \
                     classification_transformer = ClassificationTransformer, \
                     symplectic_transformer = SymplecticTransformer, \
                     linear_symplectic_transformer = LinearSymplecticTransformer)"
                ))
            })?;
        let options = Options::parse(spec, &grammar, body)?;
        Ok(match grammar.short {
            "vpt" => Self::Vpt(Vpt {
                dim: options.size("dim")?,
                seq: options.size("seq")?,
                n_blocks: options.size("n_blocks")?,
                n_linear: options.size("n_linear")?,
                l: options.size("L")?,
                activation: options.activation("activation")?,
                skew_sym: options.flag("skew_sym")?,
            }),
            "vpff" => Self::Vpff(Vpff {
                dim: options.size("dim")?,
                n_blocks: options.size("n_blocks")?,
                n_linear: options.size("n_linear")?,
                activation: options.activation("activation")?,
            }),
            "symplectic_transformer" => Self::Sympt(Sympt {
                dim: options.size("dim")?,
                seq: options.size("seq")?,
                n_sympnet: options.size("n_sympnet")?,
                upscaling_dimension: options.size("upscaling_dimension")?,
                l: options.size("L")?,
                sympnet_activation: options.activation("sympnet_activation")?,
                attention_activation: options.attention_activation("attention_activation")?,
                init_upper: options.flag("init_upper")?,
                symmetric: options.symmetric()?,
            }),
            "linear_symplectic_transformer" => Self::LinSympt(LinSympt {
                dim: options.size("dim")?,
                seq: options.size("seq")?,
                n_sympnet: options.size("n_sympnet")?,
                upscaling_dimension: options.size("upscaling_dimension")?,
                l: options.size("L")?,
                activation: options.activation("activation")?,
                init_upper: options.flag("init_upper")?,
            }),
            "classification_transformer" => Self::Ct(Ct {
                dim: options.size("dim")?,
                seq: options.size("seq")?,
                classes: options.size("classes")?,
                n_heads: options.size("n_heads")?,
                l: options.size("L")?,
                stiefel: options.flag("Stiefel")?,
                add_connection: options.flag("add_connection")?,
            }),
            _ => Self::St(St {
                dim: options.size("dim")?,
                seq: options.size("seq")?,
                n_heads: options.size("n_heads")?,
                n_blocks: options.size("n_blocks")?,
                l: options.size("L")?,
                activation: options.activation("activation")?,
                add_connection: options.flag("add_connection")?,
            }),
        })
    }
}

impl fmt::Display for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tanh => "tanh",
            Self::Identity => "identity",
        })
    }
}

impl fmt::Display for AttentionActivation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::MatrixSoftmax => "MatrixSoftmax",
            Self::VectorSoftmax => "VectorSoftmax",
        })
    }
}

impl fmt::Display for Kick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Gml => "gml",
            Self::Exact => "exact",
        })
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Vpt(v) => write!(
                f,
                "vpt(dim={}, seq={}, n_blocks={}, n_linear={}, L={}, activation={}, skew_sym={})",
                v.dim, v.seq, v.n_blocks, v.n_linear, v.l, v.activation, v.skew_sym
            ),
            Self::Vpff(v) => write!(
                f,
                "vpff(dim={}, n_blocks={}, n_linear={}, activation={})",
                v.dim, v.n_blocks, v.n_linear, v.activation
            ),
            Self::St(s) => write!(
                f,
                "st(dim={}, seq={}, n_heads={}, n_blocks={}, L={}, activation={}, add_connection={})",
                s.dim, s.seq, s.n_heads, s.n_blocks, s.l, s.activation, s.add_connection
            ),
            Self::Ct(c) => write!(
                f,
                "classification_transformer(dim={}, seq={}, classes={}, n_heads={}, L={}, \
                 Stiefel={}, add_connection={})",
                c.dim, c.seq, c.classes, c.n_heads, c.l, c.stiefel, c.add_connection
            ),
            Self::Sympt(v) => {
                write!(
                    f,
                    "symplectic_transformer(dim={}, seq={}, n_sympnet={}, upscaling_dimension={}, \
                     L={}, sympnet_activation={}, attention_activation={}, init_upper={}, ",
                    v.dim,
                    v.seq,
                    v.n_sympnet,
                    v.upscaling_dimension,
                    v.l,
                    v.sympnet_activation,
                    v.attention_activation,
                    v.init_upper
                )?;
                match v.symmetric {
                    Some(kick) => write!(f, "symmetric=true, kick={kick})"),
                    None => f.write_str("symmetric=false)"),
                }
            }
            Self::LinSympt(v) => write!(
                f,
                "linear_symplectic_transformer(dim={}, seq={}, n_sympnet={}, \
                 upscaling_dimension={}, L={}, activation={}, init_upper={})",
                v.dim, v.seq, v.n_sympnet, v.upscaling_dimension, v.l, v.activation, v.init_upper
            ),
        }
    }
}
