//! Usage errors in one line. clap prints a usage error over several lines (the message, tips,
//! the usage, a pointer to `--help`); like every other bad input, it is one line on stderr here,
//! and exit code 2. `--help` and `--version` stay as clap prints them.

use std::process::ExitCode;

/// Prints what clap stopped at and returns the exit code: `--help` and `--version` in full on
/// stdout (code 0), a usage error in one line on stderr (code 2).
pub fn exit(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        // A reader that went away (`geomattn --help | head`) is not worth a message.
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    eprintln!("{}", one_line(&error.render().to_string()));
    ExitCode::from(2)
}

/// clap's rendered error as one line: the message and its details (tips, the missing
/// arguments), without the usage and the pointer to `--help`, which become "(see --help)".
fn one_line(rendered: &str) -> String {
    let mut text = String::new();
    let details = rendered
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:"))
        .filter(|line| !line.is_empty() && !line.starts_with("For more information"));
    for line in details {
        if !text.is_empty() {
            text.push_str(if text.ends_with(':') { " " } else { "; " });
        }
        text.push_str(line);
    }
    text.push_str(" (see --help)");
    text
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::one_line;
    use crate::Cli;

    fn rendered(args: &[&str]) -> String {
        let Err(error) = Cli::try_parse_from([&["geomattn"], args].concat()) else {
            panic!("{args:?} parses");
        };
        assert!(error.use_stderr(), "{args:?}");
        error.render().to_string()
    }

    #[test]
    fn a_usage_error_keeps_its_message_and_tip_on_one_line() {
        let text = rendered(&[
            "rollout", "f.h5", "--arch", "a", "--init", "1", "--step", "3",
        ]);
        assert!(text.lines().count() > 3, "clap's own: {text}");
        let line = one_line(&text);
        assert_eq!(line.lines().count(), 1);
        assert!(
            line.starts_with("error: unexpected argument '--step' found; tip:"),
            "{line}"
        );
        assert!(line.contains("'--states'"), "{line}");
        assert!(!line.contains("Usage"), "{line}");
    }

    #[test]
    fn missing_arguments_are_listed_on_the_line() {
        let line = one_line(&rendered(&["rollout", "f.h5"]));
        assert_eq!(line.lines().count(), 1);
        assert!(
            line.contains("not provided: --arch <SPEC>; --init <STATE>"),
            "{line}"
        );
    }
}
