//! Each architecture's options: their names in the short form and in GML's constructor, how
//! their text is read, and GML 0.4.8's default where GML's constructor call leaves them out.
//!
//! The defaults are read from GML 0.4.8's source (git tag `v0.4.8` of
//! `JuliaGNI/GeometricMachineLearning.jl`); each table cites its file and lines.

use std::fmt::Write as _;

use self::Default::{Ignored, Required, TimesDim, Value, WhenSymmetric};
use self::Kind::{Activation, Flag, Kick, Name, Size, Softmax};
use self::Role::{Added, DefaultOnly, Field, NoEffect};

/// How an option's text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A positive integer, or a product of them (`2 * 4`, as GML writes `2 * dim`).
    Size,
    /// `true` or `false`.
    Flag,
    /// `identity`, `tanh`, `sigmoid` (or `σ`), `relu` or `softplus`.
    Activation,
    /// `MatrixSoftmax()` or `VectorSoftmax()`, with or without the parentheses.
    Softmax,
    /// `gml` or `exact`.
    Kick,
    /// A Julia name (the data loader `dl`, the function `softmax`).
    Name,
}

/// What GML's constructor call means when it leaves an option out. (The short form leaves out
/// only `kick`, and only with `symmetric=false`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Default {
    /// It must be given: GML requires it, or it is geomattn's own option without a default.
    Required,
    /// It may be left out, and means nothing to geomattn (GML's data loader `dl`).
    Ignored,
    /// GML's default, as GML writes it.
    Value(&'static str),
    /// GML's default `factor · dim`, and how GML writes it (`sys_dim`, `2 * dim`).
    TimesDim(usize, &'static str),
    /// This default, with `symmetric = true` only (geomattn's `kick`).
    WhenSymmetric(&'static str),
}

/// What geomattn does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A field of the architecture, and an option the short form requires.
    Field,
    /// A field of the architecture that the short form may leave out: it then takes GML's
    /// default, which is what a short form written before the option existed meant.
    Added,
    /// GML's option, of which geomattn supports GML's default only (other values are refused).
    DefaultOnly,
    /// GML's option that does not change the network geomattn builds (read, checked, unused).
    NoEffect,
}

/// One option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    /// Its name in the short form (and in the parsed options).
    pub(super) name: &'static str,
    /// GML's spelling, or `None` for geomattn's own option (GML's constructor does not take it).
    pub(super) gml: Option<&'static str>,
    /// How its text is read.
    pub(super) kind: Kind,
    /// GML's default.
    pub(super) default: Default,
    /// What geomattn does with it.
    pub(super) role: Role,
}

impl Key {
    /// GML's option `name`, a field of the architecture.
    const fn gml(name: &'static str, kind: Kind, default: Default) -> Self {
        Self {
            name,
            gml: Some(name),
            kind,
            default,
            role: Field,
        }
    }

    /// geomattn's own option `name` (GML's constructor does not take it).
    const fn own(name: &'static str, kind: Kind, default: Default) -> Self {
        Self {
            gml: None,
            ..Self::gml(name, kind, default)
        }
    }

    /// The same option, spelled `gml` by GML.
    const fn spelled(self, gml: &'static str) -> Self {
        Self {
            gml: Some(gml),
            ..self
        }
    }

    /// The same option, with another role.
    const fn role(self, role: Role) -> Self {
        Self { role, ..self }
    }

    /// The name GML's syntax shows: GML's spelling, or geomattn's for its own options.
    pub(super) fn gml_name(&self) -> &'static str {
        self.gml.unwrap_or(self.name)
    }
}

/// Which syntax a spec is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `vpt(dim=3, …)`: geomattn's, every option given but the [`Role::Added`] ones (what
    /// `Display` prints).
    Short,
    /// `VolumePreservingTransformer(3, 3; …)`: GML's constructor, with GML's defaults.
    Gml,
}

/// One architecture's names, positional options and options.
#[derive(Debug)]
pub(super) struct Grammar {
    /// The short form's name.
    pub(super) short: &'static str,
    /// GML's constructor.
    pub(super) gml: &'static str,
    /// GML's positional arguments, in GML's order (by [`Key::name`]).
    pub(super) positional: &'static [&'static str],
    /// The short form's positional options (GML's, except the classifier's `dim, seq, classes`).
    pub(super) short_positional: &'static [&'static str],
    /// Every option, in the order `Display` and the error messages list them.
    pub(super) options: &'static [Key],
    /// This architecture's other spellings of its options, before [`ALIASES`].
    pub(super) aliases: &'static [(&'static str, &'static str)],
}

impl Grammar {
    /// The positional options of `form`.
    pub(super) fn positional(&self, form: Form) -> &'static [&'static str] {
        match form {
            Form::Short => self.short_positional,
            Form::Gml => self.positional,
        }
    }

    /// The options `form` takes.
    pub(super) fn options(&self, form: Form) -> impl Iterator<Item = &'static Key> + use<> {
        let options: &'static [Key] = self.options;
        options
            .iter()
            .filter(move |k| form == Form::Gml || matches!(k.role, Field | Added))
    }

    /// The option `name` (or one of its spellings) if `form` takes it.
    pub(super) fn option(&self, form: Form, name: &str) -> Option<&'static Key> {
        let name = self
            .aliases
            .iter()
            .chain(ALIASES)
            .find(|(alias, _)| *alias == name)
            .map_or(name, |(_, canonical)| canonical);
        self.options(form)
            .find(|k| k.name == name || k.gml == Some(name))
    }

    /// The name `form` shows for the option `name`.
    pub(super) fn shown(&self, form: Form, name: &'static str) -> &'static str {
        match (form, self.options.iter().find(|k| k.name == name)) {
            (Form::Gml, Some(key)) => key.gml_name(),
            _ => name,
        }
    }
}

/// Other spellings of some options, for every architecture, and the name they stand for.
const ALIASES: &[(&str, &str)] = &[
    ("sys_dim", "dim"),
    ("seq_length", "seq"),
    ("l", "L"),
    ("resnet_activation", "activation"),
    ("stiefel", "Stiefel"),
];

/// GML 0.4.8's `VolumePreservingTransformer`: defaults in
/// `src/architectures/volume_preserving_transformer.jl` lines 1–6, constructor lines 34–39.
/// `init_upper` is passed on to the feed-forward part.
const VPT: Grammar = Grammar {
    short: "vpt",
    gml: "VolumePreservingTransformer",
    positional: &["dim", "seq"],
    short_positional: &["dim", "seq"],
    options: &[
        Key::gml("dim", Size, Required).spelled("sys_dim"),
        Key::gml("seq", Size, Required).spelled("seq_length"),
        Key::gml("n_blocks", Size, Value("1")),
        Key::gml("n_linear", Size, Value("1")),
        Key::gml("L", Size, Value("1")),
        Key::gml("activation", Activation, Value("tanh")),
        Key::gml("init_upper", Flag, Value("false")).role(Added),
        Key::gml("skew_sym", Flag, Value("false")),
    ],
    aliases: &[],
};

/// GML 0.4.8's `VolumePreservingFeedForward`: defaults in
/// `src/architectures/volume_preserving_feedforward.jl` lines 1–4, constructor lines 30–34 (its
/// `n_blocks`, `n_linear` and `activation` are positional with defaults).
const VPFF: Grammar = Grammar {
    short: "vpff",
    gml: "VolumePreservingFeedForward",
    positional: &["dim", "n_blocks", "n_linear", "activation"],
    short_positional: &["dim", "n_blocks", "n_linear", "activation"],
    options: &[
        Key::gml("dim", Size, Required).spelled("sys_dim"),
        Key::gml("n_blocks", Size, Value("1")),
        Key::gml("n_linear", Size, Value("1")),
        Key::gml("activation", Activation, Value("tanh")),
        Key::gml("init_upper", Flag, Value("false")).role(Added),
    ],
    aliases: &[],
};

/// GML 0.4.8's `StandardTransformerIntegrator`: defaults in
/// `src/architectures/standard_transformer_integrator.jl` lines 1–6, constructor lines 45–52.
/// `upscaling_activation` is the activation of the `Dense` up-projection, which the chain has
/// only with `transformer_dim ≠ sys_dim`.
const ST: Grammar = Grammar {
    short: "st",
    gml: "StandardTransformerIntegrator",
    positional: &["dim"],
    short_positional: &["dim"],
    options: &[
        Key::gml("dim", Size, Required).spelled("sys_dim"),
        Key::own("seq", Size, Required),
        Key::gml("transformer_dim", Size, TimesDim(1, "sys_dim")).role(Added),
        Key::gml("n_heads", Size, TimesDim(1, "sys_dim")),
        Key::gml("n_blocks", Size, Value("1")),
        Key::gml("L", Size, Value("2")),
        Key::gml("upscaling_activation", Activation, Value("identity")).role(Added),
        Key::gml("activation", Activation, Value("tanh")).spelled("resnet_activation"),
        Key::gml("attention_activation", Softmax, Value("VectorSoftmax()")).role(Added),
        Key::gml("add_connection", Flag, Value("true")),
    ],
    aliases: &[],
};

/// GML 0.4.8's `ClassificationTransformer(dl; …)`: `src/architectures/transformer_neural_network.jl`
/// line 28. GML reads the column dimension, the columns per input and the classes from its data
/// loader `dl`; geomattn takes them as its own options and reads nothing from `dl`.
const CT: Grammar = Grammar {
    short: "classification_transformer",
    gml: "ClassificationTransformer",
    positional: &["dl"],
    short_positional: &["dim", "seq", "classes"],
    options: &[
        Key::gml("dl", Name, Ignored).role(NoEffect),
        Key::own("dim", Size, Required),
        Key::own("seq", Size, Required),
        Key::own("classes", Size, Required),
        Key::gml("n_heads", Size, Value("7")),
        Key::gml("L", Size, Value("16")),
        Key::gml("activation", Name, Value("softmax")).role(DefaultOnly),
        Key::gml("Stiefel", Flag, Value("true")),
        Key::gml("add_connection", Flag, Value("true")),
    ],
    aliases: &[],
};

/// GML 0.4.8's `SymplecticTransformer`: defaults in `src/architectures/symplectic_transformer.jl`
/// lines 1–6, constructor lines 43–50 (its docstring says `symmetric::Bool=false`; the code's
/// default, followed here, is `true`). With `transformer_dim ≠ dim` the chain starts and ends
/// with a `PSDLayer`.
const SYMPT: Grammar = Grammar {
    short: "symplectic_transformer",
    gml: "SymplecticTransformer",
    positional: &["dim"],
    short_positional: &["dim"],
    options: &[
        Key::gml("dim", Size, Required),
        Key::own("seq", Size, Required),
        Key::gml("transformer_dim", Size, TimesDim(1, "dim")).role(Added),
        Key::gml("n_sympnet", Size, Value("2")),
        Key::gml("upscaling_dimension", Size, TimesDim(2, "2 * dim")),
        Key::gml("L", Size, Value("1")),
        Key::gml("sympnet_activation", Activation, Value("tanh")),
        Key::gml("attention_activation", Softmax, Value("MatrixSoftmax()")),
        Key::gml("init_upper", Flag, Value("true")),
        Key::gml("symmetric", Flag, Value("true")),
        Key::own("kick", Kick, WhenSymmetric("gml")),
    ],
    aliases: &[("activation", "sympnet_activation")],
};

/// GML 0.4.8's `LinearSymplecticTransformer`: defaults in
/// `src/architectures/linear_symplectic_transformer.jl` lines 1–4, constructor lines 31–35.
const LINSYMPT: Grammar = Grammar {
    short: "linear_symplectic_transformer",
    gml: "LinearSymplecticTransformer",
    positional: &["dim", "seq"],
    short_positional: &["dim", "seq"],
    options: &[
        Key::gml("dim", Size, Required),
        Key::gml("seq", Size, Required).spelled("seq_length"),
        Key::gml("n_sympnet", Size, Value("2")),
        Key::gml("upscaling_dimension", Size, TimesDim(2, "2 * dim")),
        Key::gml("L", Size, Value("1")),
        Key::gml("activation", Activation, Value("tanh")),
        Key::gml("init_upper", Flag, Value("true")),
    ],
    aliases: &[],
};

/// Every architecture's grammar.
pub(super) static GRAMMARS: [Grammar; 6] = [VPT, VPFF, ST, CT, SYMPT, LINSYMPT];

/// The grammar named `name`, and the form that name is: the short name in any case, GML's
/// constructor as GML spells it.
pub(super) fn find(name: &str) -> Option<(&'static Grammar, Form)> {
    GRAMMARS.iter().find_map(|g| {
        if name.eq_ignore_ascii_case(g.short) {
            Some((g, Form::Short))
        } else if name == g.gml {
            Some((g, Form::Gml))
        } else {
            None
        }
    })
}

/// GML's constructor calls with GML 0.4.8's defaults, one per architecture, and what geomattn
/// adds or restricts: the text of `geomattn --help`.
///
/// ```
/// let text = geomattn_arch::gml_defaults();
/// assert!(text.contains("VolumePreservingTransformer(sys_dim, seq_length; n_blocks = 1,"));
/// ```
pub fn gml_defaults() -> String {
    let mut text = String::from(
        "GML's constructor calls take GML 0.4.8's defaults for what they leave out:\n",
    );
    for grammar in &GRAMMARS {
        text.push_str(&wrap(&signature(grammar), 100, "      "));
        text.push('\n');
    }
    text.push_str(
        "`+ key`: geomattn's own option (GML's constructor does not take it), required unless a\n\
         default is shown. `(only)`: geomattn supports GML's default only. `(unused)`: checked,\n\
         without effect on the network geomattn builds (`dl` may be left out).",
    );
    text
}

/// `Name(positional; keyword = default, …) + own options` for the help.
fn signature(grammar: &Grammar) -> String {
    let option = |name: &str| grammar.options.iter().find(|k| k.name == name);
    let positional: Vec<String> = grammar
        .positional
        .iter()
        .filter_map(|name| option(name))
        .map(described)
        .collect();
    let (keywords, own): (Vec<&Key>, Vec<&Key>) = grammar
        .options
        .iter()
        .filter(|k| !grammar.positional.contains(&k.name))
        .partition(|k| k.gml.is_some());
    let keywords: Vec<String> = keywords.into_iter().map(described).collect();
    let own: Vec<String> = own.into_iter().map(described).collect();
    let mut line = format!(
        "  {}({}; {})",
        grammar.gml,
        positional.join(", "),
        keywords.join(", ")
    );
    if !own.is_empty() {
        let _ = write!(line, " + {}", own.join(", "));
    }
    line
}

/// `key`, `key = default`, with `(only)` or `(unused)`.
fn described(key: &Key) -> String {
    let mut text = key.gml_name().to_string();
    match key.default {
        Required | Ignored => {}
        Value(value) | TimesDim(_, value) | WhenSymmetric(value) => {
            let _ = write!(text, " = {value}");
        }
    }
    match key.role {
        Field | Added => {}
        DefaultOnly => text.push_str(" (only)"),
        NoEffect => text.push_str(" (unused)"),
    }
    text
}

/// `line` broken after a `, ` wherever it would pass `width` characters, the next lines indented.
fn wrap(line: &str, width: usize, indent: &str) -> String {
    let mut text = String::new();
    let mut column = 0;
    for (i, piece) in line.split_inclusive(", ").enumerate() {
        let length = piece.trim_end().chars().count();
        if i > 0 && column + length > width {
            text.truncate(text.trim_end().len());
            text.push('\n');
            text.push_str(indent);
            column = indent.chars().count();
        }
        text.push_str(piece);
        column += piece.chars().count();
    }
    text
}

#[cfg(test)]
mod tests;
