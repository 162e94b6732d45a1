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
}

impl Arch {
    /// The dimension of one state.
    pub fn dim(&self) -> usize {
        match self {
            Self::Vpt(v) => v.dim,
            Self::Vpff(v) => v.dim,
            Self::St(s) => s.dim,
            Self::Ct(c) => c.dim,
        }
    }

    /// States per input window: `seq` for the transformers, 1 for the feed-forward network.
    pub fn seq(&self) -> usize {
        match self {
            Self::Vpt(v) => v.seq,
            Self::Vpff(_) => 1,
            Self::St(s) => s.seq,
            Self::Ct(c) => c.seq,
        }
    }
}

/// One architecture's name, aliases, positional options (GML's order) and keys.
struct Grammar {
    short: &'static str,
    gml: &'static str,
    positional: &'static [&'static str],
    keys: &'static [&'static str],
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
};
const VPFF: Grammar = Grammar {
    short: "vpff",
    gml: "VolumePreservingFeedForward",
    positional: &["dim", "n_blocks", "n_linear", "activation"],
    keys: &["dim", "n_blocks", "n_linear", "activation"],
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
                Some((key, value)) => (canonical(key.trim()), value.trim()),
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
            .filter(|k| !values.contains_key(*k))
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

    fn bad(&self, key: &str, expected: &str) -> Error {
        Error::Spec {
            spec: self.spec.into(),
            reason: format!("`{key} = {}` is not {expected}", self.text(key)),
        }
    }
}

fn canonical(key: &str) -> &str {
    ALIASES
        .iter()
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
        let grammar = [VPT, VPFF, ST, CT]
            .into_iter()
            .find(|g| name.eq_ignore_ascii_case(g.short) || name == g.gml)
            .ok_or_else(|| {
                malformed(&format!(
                    "unknown architecture `{name}` (known: vpt = VolumePreservingTransformer, \
                     vpff = VolumePreservingFeedForward, st = StandardTransformerIntegrator, \
                     classification_transformer = ClassificationTransformer)"
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
        }
    }
}
