//! The committed generated files are what the code generates today, byte for byte:
//!
//! - `codegen/gen/cayley_T.rs`: what `geomattn::cayley!(T)` expands to (default strategy) for
//!   each size the runtime's `Generated` unrolls, pretty-printed;
//! - `runtime/src/cayley/sizes.md`: the size table in the docs of `geomattn::cayley!` and
//!   `Generated`, from [`sizes::SIZES`].
//!
//! On a difference the test fails; `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test
//! generated_files` rewrites the files (then review the diff). Needs no Symbolica: the symbolic
//! programs are the committed ones.

use std::path::{Path, PathBuf};

use geomattn_codegen::emit;
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

/// `gen/cayley_T.rs`: the function `cayley_T`, paths under `::geomattn`, pretty-printed.
fn expansion(t: usize, strategy: Strategy) -> String {
    let program = strategy.program(t).expect("the default exists");
    let name = proc_macro2::Ident::new(&format!("cayley_{t}"), proc_macro2::Span::call_site());
    let krate: syn::Path = syn::parse_quote!(::geomattn);
    let item = emit::function(&program, &name, &krate).expect("constants fit");
    let file: syn::File = syn::parse2(item).expect("the emitted code parses");
    let counts = program.counts();
    format!(
        "// @generated: what `geomattn::cayley!({t})` expands to (strategy `{strategy}`, the \
         default at T = {t}),\n\
         // named `cayley_{t}`. DO NOT EDIT: regenerate with `{BLESS}`.\n\
         // Operations: {} add/sub, {} mul, {} neg, {} div; {} in all.\n\n{}",
        counts.add,
        counts.mul,
        counts.neg,
        counts.div,
        counts.total(),
        prettyplease::unparse(&file)
    )
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
         | T | strategies | default | operations: elimination / symbolic / gram_schmidt / quaternion | `Generated` |\n\
         |---|---|---|---|---|\n"
    );
    for row in &SIZES {
        let strategies: Vec<_> = row.strategies().map(|s| format!("`{s}`")).collect();
        let generated = if row.unrolled {
            format!("unrolled `{}`", row.default)
        } else {
            "`GramSchmidt` loops".into()
        };
        md.push_str(&format!(
            "| {} | {} | `{}` | {} / {} / {} / {} | {generated} |\n",
            row.t,
            strategies.join(", "),
            row.default,
            total(row.t, Strategy::Elimination),
            total(row.t, Strategy::Symbolic),
            total(row.t, Strategy::GramSchmidt),
            total(row.t, Strategy::Quaternion),
        ));
    }
    md
}

#[test]
fn committed_expansions_are_current() {
    let mut complaints = Vec::new();
    let mut expected_files = Vec::new();
    // What `cayley!(T)` expands to, for reading: every size up to 8 (beyond, the programs are
    // long and `cayley!` is the way to see them).
    for row in SIZES.iter().filter(|row| row.t <= 8) {
        let path = format!("codegen/gen/cayley_{}.rs", row.t);
        complaints.extend(check(&path, &expansion(row.t, row.default)));
        expected_files.push(format!("cayley_{}.rs", row.t));
    }
    let mut found: Vec<_> = std::fs::read_dir(workspace().join("codegen/gen"))
        .expect("codegen/gen exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort_by_key(|name| (name.len(), name.clone()));
    assert_eq!(found, expected_files, "stale files in codegen/gen");
    assert_all_current(complaints);
}

#[test]
fn size_table_in_the_docs_is_current() {
    assert_all_current(
        check("runtime/src/cayley/sizes.md", &size_table())
            .into_iter()
            .collect(),
    );
}
