//! The `geomattn` binary as a user runs it: help, version, and an unknown subcommand. (The report
//! itself takes minutes unoptimised; `.ci/run` and the README run it in release.)

use std::process::{Command, Output};

fn geomattn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomattn"))
        .args(args)
        .output()
        .expect("the geomattn binary runs")
}

#[test]
fn help_lists_the_report_subcommand() {
    let out = geomattn(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("Usage: geomattn"), "{help}");
    assert!(help.contains("report"), "{help}");
}

#[test]
fn version_is_the_workspace_version() {
    let out = geomattn(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let version = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        version.trim(),
        format!("geomattn {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_unknown_subcommand_is_a_usage_error() {
    let out = geomattn(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(error.contains("no-such-command"), "{error}");
}
