//! The committed generated files are what the code generates today, byte for byte:
//!
//! - `runtime/src/cayley/sizes.md`: the size table in the docs of `geomattn::cayley!` and
//!   `Generated`, from [`sizes::SIZES`].
//!
//! On a difference the test fails; `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test
//! generated_files` rewrites the files (then review the diff). Needs no Symbolica: the symbolic
//! programs are the committed ones.

use std::path::{Path, PathBuf};

use geomattn_codegen::sizes::{SIZES, Strategy};

const BLESS: &str = "GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compares `path` (relative to the workspace) with `expected`, or writes it when blessing.
/// Returns a complaint on a difference.
fn check(path: &str, expected: &str) -> Option<String> {
    let full = workspace().join(path);
    if std::env::var_os("GEOMATTN_BLESS").is_some() {
        std::fs::write(&full, expected).unwrap_or_else(|e| panic!("writing {path}: {e}"));
        return None;
    }
    let found = std::fs::read_to_string(&full).unwrap_or_default();
    (found != expected).then(|| format!("{path} is not what the code generates"))
}

fn assert_all_current(complaints: Vec<String>) {
    assert!(
        complaints.is_empty(),
        "{}\nregenerate with `{BLESS}` and review the diff",
        complaints.join("\n")
    );
}

/// The operation count of `strategy` at `t`, or `–`.
fn total(t: usize, strategy: Strategy) -> String {
    strategy
        .program(t)
        .map_or("–".into(), |p| p.counts().total().to_string())
}

/// `runtime/src/cayley/sizes.md`.
fn size_table() -> String {
    let mut md = format!(
        "<!-- @generated from geomattn_codegen::sizes::SIZES; DO NOT EDIT: regenerate with \
         `{BLESS}`. -->\n\
         | T | strategies | default | operations: elimination / symbolic | `Generated` |\n\
         |---|---|---|---|---|\n"
    );
    for row in &SIZES {
        let strategies: Vec<_> = row.strategies().map(|s| format!("`{s}`")).collect();
        let generated = if row.unrolled {
            format!("unrolled `{}`", row.default)
        } else {
            "`Elimination` loops".into()
        };
        md.push_str(&format!(
            "| {} | {} | `{}` | {} / {} | {generated} |\n",
            row.t,
            strategies.join(", "),
            row.default,
            total(row.t, Strategy::Elimination),
            total(row.t, Strategy::Symbolic),
        ));
    }
    md
}

#[test]
fn size_table_in_the_docs_is_current() {
    assert_all_current(
        check("runtime/src/cayley/sizes.md", &size_table())
            .into_iter()
            .collect(),
    );
}
