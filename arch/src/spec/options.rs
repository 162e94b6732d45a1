//! The options of one spec: each argument of the call matched to its option and read, GML's
//! defaults put in for what GML's syntax leaves out, then read by the architecture's builder.

use std::collections::BTreeMap;

use super::call::{Argument, is_name};
use super::grammar::{Default, Form, Grammar, Key, Kind, Role};
use super::{Activation, AttentionActivation, Kick};
use crate::error::Error;

/// An option's value, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value<'a> {
    Size(usize),
    Flag(bool),
    Activation(Activation),
    Softmax(AttentionActivation),
    Kick(Kick),
    Name(&'a str),
}

impl<'a> Value<'a> {
    /// `text` read as `kind`, or what was expected instead.
    fn read(kind: Kind, text: &'a str) -> Result<Self, &'static str> {
        match kind {
            Kind::Size => size(text).map(Self::Size),
            Kind::Flag => match text {
                "true" => Ok(Self::Flag(true)),
                "false" => Ok(Self::Flag(false)),
                _ => Err("`true` or `false`"),
            },
            Kind::Activation => Activation::from_gml(text).map(Self::Activation).ok_or(
                "an activation geomattn supports (`identity`, `tanh`, `sigmoid`, `relu` or \
                     `softplus`)",
            ),
            Kind::Softmax => softmax(text).map(Self::Softmax),
            Kind::Kick => match text {
                "gml" => Ok(Self::Kick(Kick::Gml)),
                "exact" => Ok(Self::Kick(Kick::Exact)),
                _ => Err("`gml` or `exact`"),
            },
            Kind::Name if is_name(text) => Ok(Self::Name(text)),
            Kind::Name => Err("a Julia name"),
        }
    }
}

/// A positive integer, or a product of them (`2 * 4`).
fn size(text: &str) -> Result<usize, &'static str> {
    const EXPECTED: &str = "a positive integer";
    text.split('*').try_fold(1_usize, |product, factor| {
        match factor.trim().parse::<usize>() {
            Ok(n) if n > 0 => product.checked_mul(n).ok_or(EXPECTED),
            _ => Err(EXPECTED),
        }
    })
}

/// `MatrixSoftmax()` or `VectorSoftmax()`, the parentheses optional and empty.
fn softmax(text: &str) -> Result<AttentionActivation, &'static str> {
    let (name, arguments) = match text.split_once('(') {
        Some((name, rest)) => (name.trim(), rest.strip_suffix(')').map(str::trim)),
        None => (text, Some("")),
    };
    let softmax = match name {
        "MatrixSoftmax" => AttentionActivation::MatrixSoftmax,
        "VectorSoftmax" => AttentionActivation::VectorSoftmax,
        _ => return Err("`MatrixSoftmax()` or `VectorSoftmax()`"),
    };
    match arguments {
        Some("") => Ok(softmax),
        _ => Err("`MatrixSoftmax()` or `VectorSoftmax()` (they take no arguments)"),
    }
}

/// The options of one spec, read, with GML's defaults in GML's syntax.
pub(super) struct Options<'a> {
    spec: &'a str,
    grammar: &'static Grammar,
    form: Form,
    /// The values by option, given or GML's defaults.
    values: BTreeMap<&'static str, Value<'a>>,
    /// The text of each option given, by option.
    texts: BTreeMap<&'static str, &'a str>,
}

impl<'a> Options<'a> {
    /// Matches `arguments` to the options of `grammar` in `form`, reads them, and adds GML's
    /// defaults (in GML's syntax) for the options left out.
    pub(super) fn read(
        spec: &'a str,
        grammar: &'static Grammar,
        form: Form,
        arguments: &[Argument<'a>],
    ) -> Result<Self, Error> {
        let mut options = Self {
            spec,
            grammar,
            form,
            values: BTreeMap::new(),
            texts: BTreeMap::new(),
        };
        let mut positional = grammar.positional(form).iter();
        for argument in arguments {
            let (key, text) = match *argument {
                Argument::Positional(text) => match positional.next() {
                    Some(name) => (options.key(name)?, text),
                    None => return Err(options.too_many(text)),
                },
                Argument::Keyword { key, value } => (options.key(key)?, value),
            };
            let value =
                Value::read(key.kind, text).map_err(|expected| options.bad(key, text, expected))?;
            options.values.insert(key.name, value);
            if options.texts.insert(key.name, text).is_some() {
                return Err(options.malformed(format!(
                    "`{}` is given twice",
                    grammar.shown(form, key.name)
                )));
            }
        }
        options.missing()?;
        options.defaults()?;
        Ok(options)
    }

    /// The option `name` of this form, or the error naming it.
    fn key(&self, name: &str) -> Result<&'static Key, Error> {
        self.grammar.option(self.form, name).ok_or_else(|| {
            let known: Vec<&str> = match self.form {
                Form::Short => self.grammar.options(self.form).map(|k| k.name).collect(),
                Form::Gml => self.grammar.options(self.form).map(Key::gml_name).collect(),
            };
            self.malformed(format!(
                "`{}` has no option `{name}` (its options: {})",
                self.name(),
                known.join(", ")
            ))
        })
    }

    /// The error for a positional argument past the last.
    fn too_many(&self, text: &str) -> Error {
        let positional: Vec<&str> = self
            .grammar
            .positional(self.form)
            .iter()
            .map(|name| self.grammar.shown(self.form, name))
            .collect();
        self.malformed(format!(
            "unexpected positional argument `{text}` (`{}` takes {}: {})",
            self.name(),
            positional.len(),
            positional.join(", ")
        ))
    }

    /// The error if an option without a default is left out.
    fn missing(&self) -> Result<(), Error> {
        let missing: Vec<&str> = self
            .grammar
            .options(self.form)
            .filter(|k| !self.values.contains_key(k.name))
            .filter(|k| match (self.form, k.default) {
                (_, Default::WhenSymmetric(_)) => false,
                (Form::Short, _) => k.role != Role::Added,
                (Form::Gml, default) => default == Default::Required,
            })
            .map(|k| self.grammar.shown(self.form, k.name))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let hint = match self.form {
            Form::Short => {
                "every option is required in the short form; `geomattn inspect FILE` suggests \
                 them, GML's constructor syntax takes GML's defaults"
            }
            Form::Gml => "GML requires it, or geomattn needs it: see `geomattn --help`",
        };
        Err(self.malformed(format!("missing {} ({hint})", missing.join(", "))))
    }

    /// GML's defaults for the options left out (in the short form, for the [`Role::Added`] ones
    /// only), and the refusal of any value but GML's default for the options geomattn supports at
    /// that default only.
    fn defaults(&mut self) -> Result<(), Error> {
        let form = self.form;
        for key in self
            .grammar
            .options
            .iter()
            .filter(|k| form == Form::Gml || k.role == Role::Added)
        {
            let default = match key.default {
                Default::Value(text) => {
                    Value::read(key.kind, text).map_err(|expected| self.bad(key, text, expected))?
                }
                Default::TimesDim(factor, text) => {
                    let dim = self.size("dim")?;
                    Value::Size(dim.checked_mul(factor).ok_or_else(|| {
                        self.malformed(format!(
                            "GML's default `{} = {text}` overflows",
                            key.gml_name()
                        ))
                    })?)
                }
                Default::Required | Default::Ignored | Default::WhenSymmetric(_) => continue,
            };
            let value = *self.values.entry(key.name).or_insert(default);
            if key.role == Role::DefaultOnly && value != default {
                return Err(self.only_default(key, default));
            }
        }
        Ok(())
    }

    /// The refusal of a value other than GML's `default` for `key`.
    fn only_default(&self, key: &Key, default: Value<'_>) -> Error {
        let gml = match (key.default, default) {
            (Default::TimesDim(_, text), Value::Size(n)) => format!("{text} = {n}"),
            (Default::Value(text), _) => text.to_string(),
            _ => String::new(),
        };
        self.malformed(format!(
            "`{} = {}`: geomattn supports only GML's default, `{} = {gml}`",
            key.gml_name(),
            self.texts.get(key.name).copied().unwrap_or_default(),
            key.gml_name()
        ))
    }

    /// The option `name`, read as a positive integer.
    pub(super) fn size(&self, name: &str) -> Result<usize, Error> {
        match self.values.get(name) {
            Some(Value::Size(n)) => Ok(*n),
            _ => Err(self.unread(name)),
        }
    }

    /// The option `name`, read as `true` or `false`.
    pub(super) fn flag(&self, name: &str) -> Result<bool, Error> {
        match self.values.get(name) {
            Some(Value::Flag(b)) => Ok(*b),
            _ => Err(self.unread(name)),
        }
    }

    /// The option `name`, read as an activation.
    pub(super) fn activation(&self, name: &str) -> Result<Activation, Error> {
        match self.values.get(name) {
            Some(Value::Activation(a)) => Ok(*a),
            _ => Err(self.unread(name)),
        }
    }

    /// The option `name`, read as a softmax.
    pub(super) fn softmax(&self, name: &str) -> Result<AttentionActivation, Error> {
        match self.values.get(name) {
            Some(Value::Softmax(s)) => Ok(*s),
            _ => Err(self.unread(name)),
        }
    }

    /// `symmetric` and `kick`: the kick is refused with `symmetric = false`; with `symmetric =
    /// true` it is required in the short form and `gml` by default in GML's syntax.
    pub(super) fn symmetric(&self) -> Result<Option<Kick>, Error> {
        let kick = match self.values.get("kick") {
            Some(Value::Kick(kick)) => Some(*kick),
            _ => None,
        };
        match (self.flag("symmetric")?, kick, self.form) {
            (false, None, _) => Ok(None),
            (true, Some(kick), _) => Ok(Some(kick)),
            (true, None, Form::Gml) => Ok(Some(Kick::Gml)),
            (true, None, Form::Short) => Err(self.malformed(
                "missing kick (`symmetric=true` needs `kick=gml`, GML's numbers, or `kick=exact`, \
                 the symplectic gradient)"
                    .into(),
            )),
            (false, Some(_), _) => {
                Err(self.malformed("`kick` applies to `symmetric = true` only".into()))
            }
        }
    }

    /// The name the spec used for its architecture.
    fn name(&self) -> &'static str {
        match self.form {
            Form::Short => self.grammar.short,
            Form::Gml => self.grammar.gml,
        }
    }

    fn bad(&self, key: &Key, text: &str, expected: &str) -> Error {
        self.malformed(format!(
            "`{} = {text}` is not {expected}",
            self.grammar.shown(self.form, key.name)
        ))
    }

    /// An option the builder asks for that the grammar does not hold as that kind (a bug of the
    /// grammar tables, which the tests of every architecture would find).
    fn unread(&self, name: &str) -> Error {
        self.malformed(format!(
            "option `{name}` was not read (a bug in geomattn-networks)"
        ))
    }

    pub(super) fn malformed(&self, reason: String) -> Error {
        super::malformed(self.spec, reason)
    }
}

#[cfg(test)]
mod tests {
    use super::{AttentionActivation, Value, size, softmax};
    use crate::spec::grammar::{GRAMMARS, Kind};

    #[test]
    fn sizes_are_positive_integers_or_their_products() {
        assert_eq!(size("3"), Ok(3));
        assert_eq!(size("2 * 4"), Ok(8));
        assert_eq!(size("2*3*5"), Ok(30));
        for bad in [
            "0",
            "-1",
            "x",
            "2 *",
            "* 2",
            "2 * 0",
            "1.5",
            "",
            "18446744073709551615 * 2",
        ] {
            assert!(size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn softmaxes_take_empty_parentheses_or_none() {
        use AttentionActivation::{MatrixSoftmax, VectorSoftmax};
        for (text, expected) in [
            ("MatrixSoftmax", MatrixSoftmax),
            ("MatrixSoftmax()", MatrixSoftmax),
            ("MatrixSoftmax( )", MatrixSoftmax),
            ("VectorSoftmax()", VectorSoftmax),
            ("VectorSoftmax", VectorSoftmax),
        ] {
            assert_eq!(softmax(text), Ok(expected), "{text}");
        }
        for bad in [
            "MatrixSoftmax(3)",
            "MatrixSoftmax(",
            "Softmax()",
            "matrixsoftmax",
            "()",
        ] {
            assert!(softmax(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_constant_default_reads_as_its_kind() {
        use super::super::grammar::Default;
        for grammar in &GRAMMARS {
            for key in grammar.options {
                let text = match key.default {
                    Default::Value(text) | Default::WhenSymmetric(text) => text,
                    Default::TimesDim(..) => "3",
                    Default::Required | Default::Ignored => continue,
                };
                let value = Value::read(key.kind, text);
                assert!(value.is_ok(), "{}: {} = {text}", grammar.gml, key.name);
                assert_eq!(key.kind == Kind::Name, matches!(value, Ok(Value::Name(_))));
            }
        }
    }
}
