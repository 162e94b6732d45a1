//! `geomattn-report`: Markdown tables, every GML fixture loaded, a quiet stop when its reader
//! goes away, and a clear refusal of an unknown argument.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomattn-report"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn report_quick_prints_markdown_tables() {
    let out = report(&["--quick"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let errors = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{errors}");
    assert!(text.starts_with("# geomattn report"), "{text}");
    // Every table: a title, a blank line, the header and its separator row.
    let titles = text.lines().filter(|l| l.starts_with("## ")).count();
    let separators = text.lines().filter(|l| l.starts_with("|-")).count();
    assert!(titles >= 5 && titles == separators, "{text}");
    // Within a table every row has as many cells as the header (`|` inside a cell is escaped).
    for table in text.split("## ").skip(1) {
        let cells = |line: &str| line.replace("\\|", "").matches('|').count();
        let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
        assert!(
            rows.iter().all(|row| cells(row) == cells(rows[0])),
            "{table}"
        );
    }
    assert!(!text.contains("cannot load"), "{text}");
}

#[test]
fn a_reader_that_goes_away_ends_it_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geomattn-report"))
        .arg("--quick")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("# geomattn report"), "{first}");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn an_unknown_argument_is_refused_with_the_usage() {
    let out = report(&["--fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let errors = String::from_utf8(out.stderr).unwrap();
    assert!(
        errors.contains("unknown argument `--fast`") && errors.contains("usage: geomattn-report")
    );
}
