//! Architecture specs: the text a user types, parsed into an [`Arch`] and printed back in the
//! short form. Two syntaxes are read:
//!
//! - **GML's constructor call**, as pasted from Julia: `VolumePreservingTransformer(3, 3; L = 3)`.
//!   GML's names and positional arguments in GML's order, Julia's `;` before the keyword arguments
//!   (keywords may also follow a `,`), a trailing `,` (`SymplecticTransformer(4,; …)`),
//!   `MatrixSoftmax()` / `VectorSoftmax()` with or without the parentheses, `true` / `false`,
//!   the activations `identity`, `tanh`, `sigmoid` (or `σ`), `relu` and `softplus` (GML takes any
//!   Julia function; other ones are refused, naming the value), and products of integers
//!   (`2 * 4`, where GML's docs write `2 * dl.input_dim`). A keyword left out takes GML 0.4.8's
//!   default (the table below); positional arguments GML requires are required.
//! - **The short form** `vpt(dim=3, seq=3, …)`, which [`Arch`]'s `Display` prints: every option is
//!   required, so a printed spec does not depend on any version's defaults. The exceptions: `kick`
//!   is left out with `symmetric=false`, and the options marked "short form: may be left out"
//!   below, added after the short form was first written, take GML's default when left out (what
//!   a short form written before them meant); `Display` prints them where they differ from it.
//!   `geomattn inspect FILE` suggests a spec.
//!
//! Sizes GML's constructors refuse are refused with GML's rule: `n_heads` must divide the
//! attention's dimension, and the symplectic transformers' dimensions must be even.
//!
//! ```
//! use geomattn_arch::{Activation, Arch};
//! let short: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
//!     .parse()?;
//! // GML's constructor, as its rigid-body tutorial writes it (`activation = tanh` and
//! // `skew_sym = false` are GML's defaults).
//! let gml: Arch = "VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3)".parse()?;
//! assert_eq!(short, gml);
//! assert_eq!(short.to_string(),
//!     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)");
//! # Ok::<(), geomattn_arch::Error>(())
//! ```
//!
//! geomattn's own options, which GML's constructor does not take, are keywords in GML's syntax
//! too: `seq` (the window length, given to GML's `iterate`) for `StandardTransformerIntegrator`
//! and `SymplecticTransformer`; `dim`, `seq` and `classes` for `ClassificationTransformer`, whose
//! GML constructor reads them from its data loader `dl` (which may be written, as any Julia name,
//! or left out: geomattn reads nothing from it); and `kick` for `SymplecticTransformer` with
//! `symmetric = true`, whose default in GML's syntax is `gml`, the only computation GML has (see
//! [`Kick`]). `SymplecticTransformer` also takes `activation` for `sympnet_activation`, and every
//! architecture `sys_dim` / `seq_length` / `l` / `resnet_activation` / `stiefel` for `dim` / `seq`
//! / `L` / `activation` / `Stiefel`.
//!
//! ## GML 0.4.8's defaults
//!
//! Read from GML 0.4.8's source (tag `v0.4.8` of `JuliaGNI/GeometricMachineLearning.jl`):
//! `src/architectures/volume_preserving_transformer.jl` lines 1–6 and 34–39,
//! `src/architectures/volume_preserving_feedforward.jl` lines 1–4 and 30–34,
//! `src/architectures/standard_transformer_integrator.jl` lines 1–6 and 45–52,
//! `src/architectures/transformer_neural_network.jl` line 28,
//! `src/architectures/symplectic_transformer.jl` lines 1–6 and 43–50 (the code's
//! `symmetric = true`, not its docstring's `false`), and
//! `src/architectures/linear_symplectic_transformer.jl` lines 1–4 and 31–35. "Only": geomattn
//! builds GML's default and refuses another value; "no effect": read and checked, without effect on
//! the network geomattn builds (it reads nothing from a data loader).
//!
//! | Architecture | Keyword | Default |
//! |---|---|---|
//! | VolumePreservingTransformer | `sys_dim` | required (1st positional) |
//! | VolumePreservingTransformer | `seq_length` | required (2nd positional) |
//! | VolumePreservingTransformer | `n_blocks` | `1` |
//! | VolumePreservingTransformer | `n_linear` | `1` |
//! | VolumePreservingTransformer | `L` | `1` |
//! | VolumePreservingTransformer | `activation` | `tanh` |
//! | VolumePreservingTransformer | `init_upper` | `false` (short form: may be left out) |
//! | VolumePreservingTransformer | `skew_sym` | `false` |
//! | VolumePreservingFeedForward | `sys_dim` | required (1st positional) |
//! | VolumePreservingFeedForward | `n_blocks` | `1` (2nd positional) |
//! | VolumePreservingFeedForward | `n_linear` | `1` (3rd positional) |
//! | VolumePreservingFeedForward | `activation` | `tanh` (4th positional) |
//! | VolumePreservingFeedForward | `init_upper` | `false` (short form: may be left out) |
//! | StandardTransformerIntegrator | `sys_dim` | required (1st positional) |
//! | StandardTransformerIntegrator | `seq` | required (geomattn's own) |
//! | StandardTransformerIntegrator | `transformer_dim` | `sys_dim` (short form: may be left out) |
//! | StandardTransformerIntegrator | `n_heads` | `sys_dim` |
//! | StandardTransformerIntegrator | `n_blocks` | `1` |
//! | StandardTransformerIntegrator | `L` | `2` |
//! | StandardTransformerIntegrator | `upscaling_activation` | `identity` (short form: may be left out) |
//! | StandardTransformerIntegrator | `resnet_activation` | `tanh` |
//! | StandardTransformerIntegrator | `attention_activation` | `VectorSoftmax()` (short form: may be left out) |
//! | StandardTransformerIntegrator | `add_connection` | `true` |
//! | ClassificationTransformer | `dl` | may be left out (1st positional, no effect) |
//! | ClassificationTransformer | `dim` | required (geomattn's own) |
//! | ClassificationTransformer | `seq` | required (geomattn's own) |
//! | ClassificationTransformer | `classes` | required (geomattn's own) |
//! | ClassificationTransformer | `n_heads` | `7` |
//! | ClassificationTransformer | `L` | `16` |
//! | ClassificationTransformer | `activation` | `softmax` (only) |
//! | ClassificationTransformer | `Stiefel` | `true` |
//! | ClassificationTransformer | `add_connection` | `true` |
//! | SymplecticTransformer | `dim` | required (1st positional) |
//! | SymplecticTransformer | `seq` | required (geomattn's own) |
//! | SymplecticTransformer | `transformer_dim` | `dim` (short form: may be left out) |
//! | SymplecticTransformer | `n_sympnet` | `2` |
//! | SymplecticTransformer | `upscaling_dimension` | `2 * dim` |
//! | SymplecticTransformer | `L` | `1` |
//! | SymplecticTransformer | `sympnet_activation` | `tanh` |
//! | SymplecticTransformer | `attention_activation` | `MatrixSoftmax()` |
//! | SymplecticTransformer | `init_upper` | `true` |
//! | SymplecticTransformer | `symmetric` | `true` |
//! | SymplecticTransformer | `kick` | `gml` (geomattn's own, with `symmetric = true`) |
//! | LinearSymplecticTransformer | `dim` | required (1st positional) |
//! | LinearSymplecticTransformer | `seq_length` | required (2nd positional) |
//! | LinearSymplecticTransformer | `n_sympnet` | `2` |
//! | LinearSymplecticTransformer | `upscaling_dimension` | `2 * dim` |
//! | LinearSymplecticTransformer | `L` | `1` |
//! | LinearSymplecticTransformer | `activation` | `tanh` |
//! | LinearSymplecticTransformer | `init_upper` | `true` |
//!
//! [`gml_defaults`] gives the same as text (what `geomattn --help` prints).

mod call;
mod grammar;
mod options;

use core::fmt;
use core::str::FromStr;

pub use self::grammar::gml_defaults;
use self::options::Options;
use crate::error::Error;

/// An element-wise activation, by GML's name: the runtime's choice of function as a value
/// ([`geomattn::activation::Function`]), which the run-time engine applies.
///
/// ```
/// use geomattn_arch::Activation;
/// assert_eq!(Activation::from_gml("σ"), Some(Activation::Sigmoid));
/// assert_eq!(Activation::from_gml("swish"), None);
/// assert_eq!(Activation::Softplus.to_string(), "softplus");
/// ```
pub use geomattn::activation::Function as Activation;

/// GML's `VolumePreservingTransformer(dim, seq; n_blocks, n_linear, L, activation, init_upper,
/// skew_sym)`.
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
    /// Whether each pair of the feed-forward part starts with the upper layer.
    pub init_upper: bool,
    /// Skew-symmetric attention weight (`true`) or GML's default arbitrary one (`false`).
    pub skew_sym: bool,
}

/// GML's `VolumePreservingFeedForward(dim, n_blocks, n_linear, activation; init_upper)`.
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
    /// Whether each pair starts with the upper layer.
    pub init_upper: bool,
}

/// GML's `StandardTransformerIntegrator(dim; transformer_dim, n_heads, n_blocks, L,
/// upscaling_activation, resnet_activation, attention_activation, add_connection)`, with the
/// window length `seq` it is run on (which GML gives to `iterate`, not to the constructor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct St {
    /// The dimension of one state (`sys_dim`).
    pub dim: usize,
    /// States per window.
    pub seq: usize,
    /// The dimension the attention and ResNet layers work in; with `transformer_dim ≠ dim` a
    /// `Dense` layer maps each state up to it first and another one back down last.
    pub transformer_dim: usize,
    /// Attention heads (dividing `transformer_dim`).
    pub n_heads: usize,
    /// ResNet layers with the activation per unit (then one linear ResNet layer).
    pub n_blocks: usize,
    /// Transformer units.
    pub l: usize,
    /// The ResNet activation.
    pub activation: Activation,
    /// The up-projection's activation (the down-projection's is `identity`); `identity` where
    /// there is no up-projection (`transformer_dim = dim`), whatever the spec said.
    pub upscaling_activation: Activation,
    /// The attention's softmax.
    pub attention_activation: AttentionActivation,
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
/// `geomattn::symplectic::attention`). GML's constructor syntax defaults to [`Kick::Gml`], the
/// only one GML computes; the short form says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kick {
    /// `kick=gml`: GML's `2 A p S` (`geomattn::GmlCompatible`), GML's numbers; not symplectic
    /// with `VectorSoftmax`.
    Gml,
    /// `kick=exact`: the gradient `A p (S + Sᵀ)` (`geomattn::GradientExact`), symplectic with
    /// either softmax; equal to `gml` with `MatrixSoftmax`.
    Exact,
}

/// GML's `SymplecticTransformer(dim; transformer_dim, n_sympnet, upscaling_dimension, L,
/// sympnet_activation, attention_activation, init_upper, symmetric)`, with the window length `seq`
/// (given to `iterate`) and, for `symmetric = true`, the [`Kick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sympt {
    /// The phase-space dimension `2n` of one state.
    pub dim: usize,
    /// States per window.
    pub seq: usize,
    /// The phase-space dimension the attention and gradient layers work in; with
    /// `transformer_dim ≠ dim` a `PSDLayer` maps each state to it first and another one back last.
    pub transformer_dim: usize,
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

/// An architecture with all its options, parsed from the short form or GML's constructor call
/// (see [the syntax and GML's defaults](crate::spec)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Volume-preserving transformer.
    Vpt(Vpt),
    /// Volume-preserving feed-forward network.
    Vpff(Vpff),
    /// Standard transformer integrator.
    St(St),
    /// Classification transformer (GML's MNIST classifier): not an integrator, see
    /// `geomattn_networks::classify`.
    Ct(Ct),
    /// Symplectic transformer.
    Sympt(Sympt),
    /// Linear symplectic transformer.
    LinSympt(LinSympt),
}

impl Arch {
    /// The short name of its architecture (`vpt`, …, `linear_symplectic_transformer`).
    pub fn short_name(&self) -> &'static str {
        self.grammar().short
    }

    fn grammar(&self) -> &'static grammar::Grammar {
        let index = match self {
            Self::Vpt(_) => 0,
            Self::Vpff(_) => 1,
            Self::St(_) => 2,
            Self::Ct(_) => 3,
            Self::Sympt(_) => 4,
            Self::LinSympt(_) => 5,
        };
        &grammar::GRAMMARS[index]
    }

    /// Every option's value, as GML's syntax writes it, by the option's short name (`kick` only
    /// with `symmetric = true`, `dl` never).
    ///
    /// ```
    /// use geomattn_arch::Arch;
    /// let arch: Arch = "VolumePreservingFeedForward(3, 6)".parse()?;
    /// assert_eq!(arch.options()[..2], [("dim", "3".to_string()), ("n_blocks", "6".to_string())]);
    /// # Ok::<(), geomattn_arch::Error>(())
    /// ```
    pub fn options(&self) -> Vec<(&'static str, String)> {
        let size = |n: usize| n.to_string();
        let flag = |b: bool| b.to_string();
        let act = |a: Activation| a.to_string();
        let softmax = |s: AttentionActivation| format!("{s}()");
        match *self {
            Self::Vpt(v) => vec![
                ("dim", size(v.dim)),
                ("seq", size(v.seq)),
                ("n_blocks", size(v.n_blocks)),
                ("n_linear", size(v.n_linear)),
                ("L", size(v.l)),
                ("activation", act(v.activation)),
                ("init_upper", flag(v.init_upper)),
                ("skew_sym", flag(v.skew_sym)),
            ],
            Self::Vpff(v) => vec![
                ("dim", size(v.dim)),
                ("n_blocks", size(v.n_blocks)),
                ("n_linear", size(v.n_linear)),
                ("activation", act(v.activation)),
                ("init_upper", flag(v.init_upper)),
            ],
            Self::St(s) => vec![
                ("dim", size(s.dim)),
                ("seq", size(s.seq)),
                ("transformer_dim", size(s.transformer_dim)),
                ("n_heads", size(s.n_heads)),
                ("n_blocks", size(s.n_blocks)),
                ("L", size(s.l)),
                ("upscaling_activation", act(s.upscaling_activation)),
                ("activation", act(s.activation)),
                ("attention_activation", softmax(s.attention_activation)),
                ("add_connection", flag(s.add_connection)),
            ],
            Self::Ct(c) => vec![
                ("dim", size(c.dim)),
                ("seq", size(c.seq)),
                ("classes", size(c.classes)),
                ("n_heads", size(c.n_heads)),
                ("L", size(c.l)),
                ("activation", "softmax".into()),
                ("Stiefel", flag(c.stiefel)),
                ("add_connection", flag(c.add_connection)),
            ],
            Self::Sympt(v) => {
                let mut options = vec![
                    ("dim", size(v.dim)),
                    ("seq", size(v.seq)),
                    ("transformer_dim", size(v.transformer_dim)),
                    ("n_sympnet", size(v.n_sympnet)),
                    ("upscaling_dimension", size(v.upscaling_dimension)),
                    ("L", size(v.l)),
                    ("sympnet_activation", act(v.sympnet_activation)),
                    ("attention_activation", softmax(v.attention_activation)),
                    ("init_upper", flag(v.init_upper)),
                    ("symmetric", flag(v.symmetric.is_some())),
                ];
                if let Some(kick) = v.symmetric {
                    options.push(("kick", kick.to_string()));
                }
                options
            }
            Self::LinSympt(v) => vec![
                ("dim", size(v.dim)),
                ("seq", size(v.seq)),
                ("n_sympnet", size(v.n_sympnet)),
                ("upscaling_dimension", size(v.upscaling_dimension)),
                ("L", size(v.l)),
                ("activation", act(v.activation)),
                ("init_upper", flag(v.init_upper)),
            ],
        }
    }

    /// GML's constructor call of this architecture, every keyword written out, pasteable into
    /// Julia; the options of `unknown` (by short name) as `?`. geomattn's own options (`seq` of
    /// the integrators without one in GML, `kick`, the classifier's sizes) are not GML's and are
    /// left out: [`options`](Self::options) has them.
    ///
    /// ```
    /// use geomattn_arch::Arch;
    /// let arch: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
    ///     .parse()?;
    /// assert_eq!(
    ///     arch.gml_call(&["seq", "activation"]),
    ///     "VolumePreservingTransformer(3, ?; n_blocks = 2, n_linear = 1, L = 3, activation = ?, \
    ///      init_upper = false, skew_sym = false)"
    /// );
    /// assert_eq!(arch.gml_call(&[]).parse::<Arch>()?, arch);
    /// # Ok::<(), geomattn_arch::Error>(())
    /// ```
    pub fn gml_call(&self, unknown: &[&str]) -> String {
        let grammar = self.grammar();
        let options = self.options();
        let value = |name: &str| -> String {
            if unknown.contains(&name) {
                return "?".into();
            }
            options
                .iter()
                .find(|(key, _)| *key == name)
                .map_or_else(|| name.to_string(), |(_, text)| text.clone())
        };
        let positional: Vec<String> = grammar.positional.iter().map(|n| value(n)).collect();
        let keywords: Vec<String> = grammar
            .options
            .iter()
            .filter(|k| k.gml.is_some() && !grammar.positional.contains(&k.name))
            .map(|k| format!("{} = {}", k.gml_name(), value(k.name)))
            .collect();
        if keywords.is_empty() {
            format!("{}({})", grammar.gml, positional.join(", "))
        } else {
            format!(
                "{}({}; {})",
                grammar.gml,
                positional.join(", "),
                keywords.join(", ")
            )
        }
    }

    /// The short form ([`Display`](fmt::Display)) with the options of `unknown` (by short name)
    /// as `?`, added where the short form would leave them out.
    pub fn short_with_unknown(&self, unknown: &[&str]) -> String {
        let text = self.to_string();
        let (name, rest) = text.split_once('(').unwrap_or((&text, ")"));
        let body = rest.strip_suffix(')').unwrap_or(rest);
        let mut items: Vec<String> = body
            .split(", ")
            .map(|item| match item.split_once('=') {
                Some((key, _)) if unknown.contains(&key) => format!("{key}=?"),
                _ => item.to_string(),
            })
            .collect();
        for key in unknown {
            if !items
                .iter()
                .any(|item| item.split_once('=').map(|p| p.0) == Some(key))
            {
                items.push(format!("{key}=?"));
            }
        }
        format!("{name}({})", items.join(", "))
    }

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

    /// Transformer units (GML's `L`): attention and feed-forward part, one after the other; 1 for
    /// the feed-forward network.
    pub fn units(&self) -> usize {
        match self {
            Self::Vpt(v) => v.l,
            Self::Vpff(_) => 1,
            Self::St(s) => s.l,
            Self::Ct(c) => c.l,
            Self::Sympt(v) => v.l,
            Self::LinSympt(v) => v.l,
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

impl FromStr for Arch {
    type Err = Error;

    /// Parses GML's constructor call or the short form (see the [syntax](crate::spec)).
    fn from_str(spec: &str) -> Result<Self, Error> {
        let call = call::split(spec).map_err(|reason| malformed(spec, reason))?;
        let (grammar, form) = grammar::find(call.name).ok_or_else(|| {
            let known: Vec<String> = grammar::GRAMMARS
                .iter()
                .map(|g| format!("{} = {}", g.short, g.gml))
                .collect();
            malformed(
                spec,
                format!(
                    "unknown architecture `{}` (known: {})",
                    call.name,
                    known.join(", ")
                ),
            )
        })?;
        let options = Options::read(spec, grammar, form, &call.arguments)?;
        let arch = build(grammar.short, &options)?;
        gml_rules(&arch).map_err(|reason| malformed(spec, reason))?;
        Ok(arch)
    }
}

/// The sizes GML 0.4.8's constructors refuse, each with the rule that refuses it.
fn gml_rules(arch: &Arch) -> Result<(), String> {
    let heads = |dim: usize, heads: usize, name: &str| {
        if dim.is_multiple_of(heads) {
            Ok(())
        } else {
            Err(format!(
                "`n_heads = {heads}` does not divide `{name} = {dim}` (GML's MultiHeadAttention \
                 splits the dimension into equal heads: it asserts dim % n_heads == 0)"
            ))
        }
    };
    let even = |dim: usize, name: &str| {
        if dim.is_multiple_of(2) {
            Ok(())
        } else {
            Err(format!(
                "`{name} = {dim}` is odd (GML's symplectic layers split a state into its halves q \
                 and p: they assert an even dimension)"
            ))
        }
    };
    match *arch {
        Arch::St(s) => heads(s.transformer_dim, s.n_heads, "transformer_dim"),
        Arch::Ct(c) => heads(c.dim, c.n_heads, "dim"),
        Arch::Sympt(s) => even(s.dim, "dim").and(even(s.transformer_dim, "transformer_dim")),
        Arch::LinSympt(s) => even(s.dim, "dim"),
        Arch::Vpt(_) | Arch::Vpff(_) => Ok(()),
    }
}

/// The architecture `short` names, from its options.
fn build(short: &str, options: &Options<'_>) -> Result<Arch, Error> {
    Ok(match short {
        "vpt" => Arch::Vpt(Vpt {
            dim: options.size("dim")?,
            seq: options.size("seq")?,
            n_blocks: options.size("n_blocks")?,
            n_linear: options.size("n_linear")?,
            l: options.size("L")?,
            activation: options.activation("activation")?,
            init_upper: options.flag("init_upper")?,
            skew_sym: options.flag("skew_sym")?,
        }),
        "vpff" => Arch::Vpff(Vpff {
            dim: options.size("dim")?,
            n_blocks: options.size("n_blocks")?,
            n_linear: options.size("n_linear")?,
            activation: options.activation("activation")?,
            init_upper: options.flag("init_upper")?,
        }),
        "st" => Arch::St(St {
            dim: options.size("dim")?,
            seq: options.size("seq")?,
            transformer_dim: options.size("transformer_dim")?,
            n_heads: options.size("n_heads")?,
            n_blocks: options.size("n_blocks")?,
            l: options.size("L")?,
            activation: options.activation("activation")?,
            // Without the up-projection (`transformer_dim = sys_dim`), GML's chain has no layer
            // it applies to: every value is the same network, written as GML's default.
            upscaling_activation: if options.size("transformer_dim")? == options.size("dim")? {
                Activation::Identity
            } else {
                options.activation("upscaling_activation")?
            },
            attention_activation: options.softmax("attention_activation")?,
            add_connection: options.flag("add_connection")?,
        }),
        "classification_transformer" => Arch::Ct(Ct {
            dim: options.size("dim")?,
            seq: options.size("seq")?,
            classes: options.size("classes")?,
            n_heads: options.size("n_heads")?,
            l: options.size("L")?,
            stiefel: options.flag("Stiefel")?,
            add_connection: options.flag("add_connection")?,
        }),
        "symplectic_transformer" => Arch::Sympt(Sympt {
            dim: options.size("dim")?,
            seq: options.size("seq")?,
            transformer_dim: options.size("transformer_dim")?,
            n_sympnet: options.size("n_sympnet")?,
            upscaling_dimension: options.size("upscaling_dimension")?,
            l: options.size("L")?,
            sympnet_activation: options.activation("sympnet_activation")?,
            attention_activation: options.softmax("attention_activation")?,
            init_upper: options.flag("init_upper")?,
            symmetric: options.symmetric()?,
        }),
        "linear_symplectic_transformer" => Arch::LinSympt(LinSympt {
            dim: options.size("dim")?,
            seq: options.size("seq")?,
            n_sympnet: options.size("n_sympnet")?,
            upscaling_dimension: options.size("upscaling_dimension")?,
            l: options.size("L")?,
            activation: options.activation("activation")?,
            init_upper: options.flag("init_upper")?,
        }),
        other => {
            return Err(options.malformed(format!(
                "no builder for `{other}` (a bug in geomattn-networks)"
            )));
        }
    })
}

/// The error for `spec`, on one line whatever line breaks the spec was pasted with.
fn malformed(spec: &str, reason: String) -> Error {
    Error::Spec {
        spec: spec.split_whitespace().collect::<Vec<_>>().join(" "),
        reason,
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
    /// The short form. The options the short form may leave out ([the table](crate::spec):
    /// `init_upper` of the volume-preserving ones, `transformer_dim`, `upscaling_activation` and
    /// `attention_activation`) are printed last, and only where they differ from GML's default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Vpt(v) => {
                write!(
                    f,
                    "vpt(dim={}, seq={}, n_blocks={}, n_linear={}, L={}, activation={}, skew_sym={}",
                    v.dim, v.seq, v.n_blocks, v.n_linear, v.l, v.activation, v.skew_sym
                )?;
                added(f, &[("init_upper", v.init_upper.then_some("true".into()))])
            }
            Self::Vpff(v) => {
                write!(
                    f,
                    "vpff(dim={}, n_blocks={}, n_linear={}, activation={}",
                    v.dim, v.n_blocks, v.n_linear, v.activation
                )?;
                added(f, &[("init_upper", v.init_upper.then_some("true".into()))])
            }
            Self::St(s) => {
                write!(
                    f,
                    "st(dim={}, seq={}, n_heads={}, n_blocks={}, L={}, activation={}, add_connection={}",
                    s.dim, s.seq, s.n_heads, s.n_blocks, s.l, s.activation, s.add_connection
                )?;
                added(
                    f,
                    &[
                        (
                            "transformer_dim",
                            (s.transformer_dim != s.dim).then(|| s.transformer_dim.to_string()),
                        ),
                        (
                            "upscaling_activation",
                            (s.upscaling_activation != Activation::Identity)
                                .then(|| s.upscaling_activation.to_string()),
                        ),
                        (
                            "attention_activation",
                            (s.attention_activation != AttentionActivation::VectorSoftmax)
                                .then(|| s.attention_activation.to_string()),
                        ),
                    ],
                )
            }
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
                    Some(kick) => write!(f, "symmetric=true, kick={kick}")?,
                    None => f.write_str("symmetric=false")?,
                }
                added(
                    f,
                    &[(
                        "transformer_dim",
                        (v.transformer_dim != v.dim).then(|| v.transformer_dim.to_string()),
                    )],
                )
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

/// `, key=value` for each option given a value (one not at GML's default), then `)`.
fn added(f: &mut fmt::Formatter<'_>, options: &[(&str, Option<String>)]) -> fmt::Result {
    for (key, value) in options {
        if let Some(value) = value {
            write!(f, ", {key}={value}")?;
        }
    }
    f.write_str(")")
}
