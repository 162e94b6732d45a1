//! The public face has one policy: every public item the runtime's modules declare is re-exported
//! at the crate root (`geomattn::Name`), except the optional loader, the run-time engine and the
//! layer types at run-time sizes, which keep their namespaces (`geomattn::gml`,
//! `geomattn::engine`: the engine's layers share the names of the compile-time ones;
//! `geomattn::schema::described`: `described::resnet_layer` names a layer's type, not a layer). This test reads the runtime's sources and fails on any item that is public in
//! a module but missing from the root's `pub use` lists. A module its parent declares
//! crate-private (`pub(crate) mod`) is not part of the public face, whatever it declares `pub`.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("runtime sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// Whether the parent of `file` (`a/b.rs` or `a/b/mod.rs` under `src`: `a.rs` or `a/mod.rs`)
/// declares it crate-private.
fn is_crate_private(src: &Path, relative: &Path) -> bool {
    let module = if relative.ends_with("mod.rs") {
        relative.parent().expect("a module directory")
    } else {
        relative
    };
    let Some(parent) = module.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return false;
    };
    let name = module.file_stem().expect("a module name").to_string_lossy();
    let declaration = format!("pub(crate) mod {name};");
    [
        src.join(parent).with_extension("rs"),
        src.join(parent).join("mod.rs"),
    ]
    .iter()
    .filter_map(|path| std::fs::read_to_string(path).ok())
    .any(|text| text.lines().any(|line| line.trim() == declaration))
}

/// The names of the items declared `pub` at the top level of a module (not in `impl` blocks).
fn public_items(source: &str) -> Vec<String> {
    let kinds = [
        "pub struct ",
        "pub enum ",
        "pub trait ",
        "pub type ",
        "pub fn ",
        "pub const fn ",
        "pub const ",
    ];
    source
        .lines()
        .filter_map(|line| kinds.iter().find_map(|kind| line.strip_prefix(kind)))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn every_public_item_is_reexported_at_the_root() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src");
    let root = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let reexports: String = root
        .split("pub use ")
        .skip(1)
        .map(|item| item.split(';').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ");
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in sources(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        if relative.starts_with("gml")
            || relative.starts_with("engine")
            || relative == Path::new("schema/described.rs")
            || relative == Path::new("lib.rs")
            || is_crate_private(&src, relative)
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file is readable");
        for name in public_items(&text) {
            checked += 1;
            let listed = reexports
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name);
            if !listed {
                missing.push(format!("{} ({})", name, relative.display()));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} public items found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "public items not re-exported at the crate root: {missing:?}"
    );
}

#[test]
fn the_scan_finds_declarations_and_skips_methods() {
    let source =
        "pub struct A;\npub(crate) fn b() {}\nimpl A {\n    pub fn c() {}\n}\npub trait D<S> {}\n";
    assert_eq!(public_items(source), ["A", "D"]);
}

/// The module names the crate root declares (`mod scalar;`, `pub mod engine;`).
fn root_modules(root: &str) -> Vec<String> {
    root.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = ["pub(crate) mod ", "pub mod ", "mod "]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))?;
            rest.strip_suffix(';').map(String::from)
        })
        .collect()
}

/// The first segment of every path the code (not its comments) names through `crate::`: `scalar`
/// of `crate::scalar::Field`, each item of `crate::{a::B, c}`.
fn crate_paths(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut firsts = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$') || code[..at].ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let items = match rest.strip_prefix('{') {
            Some(group) => {
                let (mut depth, mut end) = (1, 0);
                for (i, c) in group.char_indices() {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                let mut items = Vec::new();
                let (mut depth, mut start) = (0, 0);
                for (i, c) in group[..end].char_indices() {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    if c == ',' && depth == 0 {
                        items.push(&group[start..i]);
                        start = i + 1;
                    }
                }
                items.push(&group[start..end]);
                items
            }
            None => vec![rest],
        };
        for item in items {
            let first: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !first.is_empty() {
                firsts.push(first);
            }
        }
    }
    firsts
}

/// Inside the runtime, modules name each other by their path (`crate::scalar::Field`), not
/// through the root's re-exports (`crate::Field`): the imports say where each concept lives.
#[test]
fn modules_name_each_other_by_path_not_through_the_root() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src");
    let root = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let modules = root_modules(&root);
    assert!(modules.len() > 20, "{modules:?}: the scan is broken");
    let mut through_root = Vec::new();
    let mut checked = 0;
    for file in sources(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        if relative == Path::new("lib.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file is readable");
        for first in crate_paths(&text) {
            checked += 1;
            if !modules.contains(&first) && first != "self" {
                through_root.push(format!("crate::{first} ({})", relative.display()));
            }
        }
    }
    assert!(
        checked > 300,
        "only {checked} paths found: the scan is broken"
    );
    assert!(
        through_root.is_empty(),
        "paths through the crate root: {through_root:?}"
    );
}

#[test]
fn the_path_scan_reads_groups_and_skips_comments_and_macros() {
    let source = "use crate::{a::B, c, d::{E, F}};\n// crate::G\nlet x = crate::h::I;\n\
                  $crate::J; use crate::K;";
    assert_eq!(crate_paths(source), ["a", "c", "d", "h", "K"]);
}
