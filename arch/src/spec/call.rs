//! A constructor call as Julia writes it, split into its name and arguments:
//! `Name(a, b; key = value, …)`, with Julia's rules for `,` and `;`.
//!
//! Positional arguments come before the one `;`; keyword arguments may come anywhere before it
//! (`f(1, k = 2)`) and are the only arguments after it. A trailing `,` before `;` or `)` is allowed
//! (`SymplecticTransformer(4,; L = 4)`, as GML's tutorial writes it), an empty argument between two
//! commas is not. Values may hold balanced parentheses (`MatrixSoftmax()`); the text is not
//! evaluated here.

/// One argument of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Argument<'a> {
    /// A value without a name, before the `;`.
    Positional(&'a str),
    /// `key = value`.
    Keyword {
        /// The name left of `=`.
        key: &'a str,
        /// The text right of `=`, trimmed.
        value: &'a str,
    },
}

/// A call split into its name and its arguments, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Call<'a> {
    /// The function name (`vpt`, `VolumePreservingTransformer`).
    pub(super) name: &'a str,
    /// The arguments, in the order written.
    pub(super) arguments: Vec<Argument<'a>>,
}

/// Whether `text` is a Julia name: a letter or `_`, then letters, digits, `_` or `!`.
pub(super) fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '!')
}

/// Splits `text` into a [`Call`], or says in one line why it is not one.
pub(super) fn split(text: &str) -> Result<Call<'_>, String> {
    let text = text.trim();
    let (name, rest) = text
        .split_once('(')
        .ok_or("expected `name(option=value, …)`")?;
    let name = name.trim();
    if name.is_empty() {
        return Err("expected `name(option=value, …)`".into());
    }
    if !is_name(name) {
        return Err(format!(
            "`{name}` is not a name (expected `name(option=value, …)`)"
        ));
    }
    let body = body(rest)?;
    let mut arguments = Vec::new();
    let mut after_semicolon = false;
    for (item, end) in items(body) {
        let item = item.trim();
        match (item.is_empty(), end) {
            (true, End::Comma) => {
                return Err("an empty argument (a `,` with nothing before it)".into());
            }
            (true, _) => {}
            (false, _) => arguments.push(argument(item, after_semicolon)?),
        }
        if end == End::Semicolon {
            if after_semicolon {
                return Err(
                    "a second `;` (Julia takes one, between positional and keyword arguments)"
                        .into(),
                );
            }
            after_semicolon = true;
        }
    }
    Ok(Call { name, arguments })
}

/// The text between the call's `(` (already consumed) and its matching `)`; nothing but
/// whitespace may follow that `)`.
fn body(rest: &str) -> Result<&str, String> {
    let mut depth = 0_usize;
    for (at, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                let after = rest[at + 1..].trim();
                if !after.is_empty() {
                    return Err(format!(
                        "unbalanced parentheses: `{after}` after the call's closing `)`"
                    ));
                }
                return Ok(&rest[..at]);
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    Err("expected a closing `)` (unbalanced parentheses)".into())
}

/// What ends an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Comma,
    Semicolon,
    Close,
}

/// The arguments of a balanced `body`, each with what ends it, split at the `,` and `;` outside
/// parentheses.
fn items(body: &str) -> Vec<(&str, End)> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0_usize, 0);
    for (at, c) in body.char_indices() {
        let end = match c {
            '(' => {
                depth += 1;
                continue;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                continue;
            }
            ',' if depth == 0 => End::Comma,
            ';' if depth == 0 => End::Semicolon,
            _ => continue,
        };
        items.push((&body[start..at], end));
        start = at + 1;
    }
    items.push((&body[start..], End::Close));
    items
}

/// One non-empty argument; `after_semicolon` refuses positional ones.
fn argument(item: &str, after_semicolon: bool) -> Result<Argument<'_>, String> {
    let Some((key, value)) = item.split_once('=') else {
        if after_semicolon {
            return Err(format!(
                "`{item}` after `;` is not `key = value` (only keyword arguments follow `;`)"
            ));
        }
        return Ok(Argument::Positional(item));
    };
    let (key, value) = (key.trim(), value.trim());
    if !is_name(key) {
        return Err(format!("`{key}` in `{item}` is not a keyword name"));
    }
    if value.is_empty() {
        return Err(format!("`{key} =` has no value"));
    }
    Ok(Argument::Keyword { key, value })
}

#[cfg(test)]
mod tests {
    use super::{Argument, Call, split};

    fn keyword<'a>(key: &'a str, value: &'a str) -> Argument<'a> {
        Argument::Keyword { key, value }
    }

    #[test]
    fn splits_positional_and_keyword_arguments_around_julias_semicolon() {
        let call = split(" F(3,\n 4 ; a = MatrixSoftmax(), b=x ,) ").unwrap();
        assert_eq!(
            call,
            Call {
                name: "F",
                arguments: vec![
                    Argument::Positional("3"),
                    Argument::Positional("4"),
                    keyword("a", "MatrixSoftmax()"),
                    keyword("b", "x"),
                ],
            }
        );
        // Keywords before `;` or without one, a trailing `,` before `;`, an empty list.
        let call = split("F(k = 1, 2,; m = 3)").unwrap();
        assert_eq!(
            call.arguments,
            [
                keyword("k", "1"),
                Argument::Positional("2"),
                keyword("m", "3")
            ]
        );
        assert_eq!(split("F(; m = 3)").unwrap().arguments, [keyword("m", "3")]);
        assert_eq!(split("F()").unwrap().arguments, []);
    }

    #[test]
    fn refuses_what_julia_refuses() {
        for (text, reason) in [
            ("F", "expected `name(option=value, …)`"),
            ("(3)", "expected `name(option=value, …)`"),
            ("F G(3)", "`F G` is not a name"),
            ("F(3", "expected a closing `)`"),
            ("F(a = G(3)", "expected a closing `)`"),
            ("F(3))", "`)` after the call's closing `)`"),
            ("F(3) x", "`x` after the call's closing `)`"),
            ("F(3,, 4)", "an empty argument"),
            ("F(, 4)", "an empty argument"),
            ("F(3; a = 1; b = 2)", "a second `;`"),
            ("F(3; 4)", "`4` after `;` is not `key = value`"),
            ("F(a b = 1)", "`a b` in `a b = 1` is not a keyword name"),
            ("F(a = )", "`a =` has no value"),
        ] {
            let error = split(text).unwrap_err();
            assert!(error.contains(reason), "{text}: {error}");
        }
    }
}
