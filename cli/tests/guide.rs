//! The README and the guide (`docs/src`) against what they describe: the README's length and its
//! Rust example (the guide's, which `geomattn-networks` compiles as a doctest), the `[dependencies]`
//! lines against the crates they name, the copies of GML's defaults and of the main job's output
//! against the program, and every `geomattn` command line of a `sh` block run as written.

mod common;

use common::geomattn_in;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(root().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The fenced code blocks of `markdown` whose info string starts with `lang`, without fences.
fn blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) if info.split([',', ' ']).next() == Some(lang) => {
                current = Some(String::new());
            }
            (Some(block), Some("")) => {
                found.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an unclosed ```{lang} block");
    found
}

/// The one code block that follows the marker comment `<!-- marker -->`.
fn marked_block(markdown: &str, marker: &str) -> String {
    let comment = format!("<!-- {marker} -->\n```");
    let (_, after) = markdown
        .split_once(&comment)
        .unwrap_or_else(|| panic!("no {comment:?}"));
    let (_, body) = after.split_once('\n').unwrap();
    let (body, _) = body.split_once("\n```\n").expect("the block is closed");
    format!("{body}\n")
}

#[test]
fn blocks_are_found_by_language_and_an_unclosed_block_is_refused() {
    let text = "a\n```rust,no_run\nlet x = 1;\n```\n```sh\nls\n```\n```python\nx\n```\n";
    assert_eq!(blocks(text, "rust"), ["let x = 1;\n"]);
    assert_eq!(blocks(text, "sh"), ["ls\n"]);
    assert!(blocks(text, "toml").is_empty());
    assert!(std::panic::catch_unwind(|| blocks("```sh\nls\n", "sh")).is_err());
    assert_eq!(
        marked_block("<!-- m -->\n```text\nx\ny\n```\n", "m"),
        "x\ny\n"
    );
}

#[test]
fn readme_is_short_and_its_rust_example_is_the_guides() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 250, "the README has {lines} lines");
    let ours = blocks(&readme, "rust");
    assert_eq!(ours.len(), 1, "one Rust example in the README");
    assert!(
        blocks(&read("docs/src/getting-started.md"), "rust").contains(&ours[0]),
        "the README's Rust example is not getting-started.md's"
    );
}

/// `geomattn = { path = "../geomattn/runtime", features = ["hdf5"] }` → ("geomattn", "runtime",
/// ["hdf5"]): the dependency's name, its directory in the clone, its features.
fn dependency(line: &str) -> (String, String, Vec<String>) {
    let (name, spec) = line.split_once(" = ").expect("name = { … }");
    let field = |key: &str| {
        spec.split_once(&format!("{key} = "))
            .map(|(_, rest)| rest.trim_end_matches([' ', '}']))
    };
    let path = field("path").expect("a path dependency");
    let path = path.split('"').nth(1).unwrap();
    let dir = path
        .strip_prefix("../geomattn/")
        .expect("a path into the clone `geomattn/` beside the crate");
    let features = field("features")
        .map(|list| {
            list.split('"')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    (name.to_string(), dir.to_string(), features)
}

#[test]
fn dependency_lines_name_the_crates_and_their_features() {
    let mut checked = 0;
    for file in ["README.md", "docs/src/getting-started.md"] {
        let text = read(file);
        for block in blocks(&text, "toml") {
            for line in block.lines().filter(|l| l.contains("path = ")) {
                let (name, dir, features) = dependency(line);
                let manifest = read(&format!("{dir}/Cargo.toml"));
                assert!(
                    manifest.contains(&format!("\nname = \"{name}\"\n")),
                    "{file}: {dir}/Cargo.toml is not the package {name}"
                );
                let (_, table) = manifest.split_once("[features]").unwrap();
                for feature in features {
                    assert!(
                        table.contains(&format!("\n{feature} = ")),
                        "{file}: {name} has no feature {feature}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2);
    let (name, dir, features) =
        dependency(r#"geomattn = { path = "../geomattn/runtime", features = ["hdf5", "std"] }"#);
    assert_eq!((name.as_str(), dir.as_str()), ("geomattn", "runtime"));
    assert_eq!(features, ["hdf5", "std"]);
}

#[test]
fn the_guides_table_of_gml_defaults_is_the_librarys_and_the_helps() {
    let copy = marked_block(&read("docs/src/gml.md"), "gml-defaults");
    assert_eq!(copy, format!("{}\n", geomattn_networks::gml_defaults()));
    let help = geomattn_in(&root(), &["--help"]);
    assert!(
        String::from_utf8(help.stdout)
            .unwrap()
            .contains(copy.trim_end())
    );
}

#[test]
fn the_guides_copy_of_the_main_jobs_output_is_what_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    let out = geomattn_in(dir.path(), &[] as &[&str]);
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8(out.stdout).unwrap();
    let copy = marked_block(&read("docs/src/getting-started.md"), "main-job-output");
    assert_eq!(copy, printed);
}

/// The words of a shell command line: split at spaces outside double quotes, quotes removed.
fn words(line: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !words.last().unwrap().is_empty() {
                    words.push(String::new());
                }
            }
            _ => words.last_mut().unwrap().push(c),
        }
    }
    assert!(!quoted, "an unclosed quote in {line}");
    words.retain(|w| !w.is_empty());
    words
}

/// The `geomattn …` command lines of the `sh` blocks of `markdown`: continuation lines joined,
/// comments (` # …`) dropped.
fn command_lines(markdown: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    for block in blocks(markdown, "sh") {
        let joined = block.replace("\\\n", " ");
        for line in joined.lines() {
            let line = line.split(" # ").next().unwrap().trim();
            if line.starts_with("geomattn ") {
                commands.push(words(line));
            }
        }
    }
    commands
}

#[test]
fn command_lines_are_joined_split_and_stripped_of_comments() {
    let text = "```sh\ncargo install x\ngeomattn a \"b c\" \\\n    --d e   # note\n```\n";
    assert_eq!(command_lines(text), [["geomattn", "a", "b c", "--d", "e"]]);
    assert!(std::panic::catch_unwind(|| words("geomattn \"a")).is_err());
}

/// Every `geomattn` line of the README's and the command chapter's `sh` blocks, run from a
/// directory that has the clone's `fixtures/` (so outputs land there): exit code 0 and output.
#[test]
fn every_command_line_of_the_readme_and_the_guide_runs() {
    let mut ran = 0;
    for file in ["README.md", "docs/src/command.md"] {
        for words in command_lines(&read(file)) {
            let dir = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(root().join("fixtures"), dir.path().join("fixtures"))
                .unwrap();
            let out = geomattn_in(dir.path(), &words[1..]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{file}: {words:?}: {stderr}");
            let written = std::fs::read_dir(dir.path()).unwrap().count() > 1;
            assert!(!out.stdout.is_empty() || written, "{file}: {words:?}");
            ran += 1;
        }
    }
    assert!(ran >= 8, "only {ran} command lines found");
}
