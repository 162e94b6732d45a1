//! Writes (or with `--check`, verifies) the committed Cayley programs `programs/cayley_T.txt`.
//!
//! `cargo run --release -p geomattn-codegen --features symbolica --bin derive [-- --check]`
//!
//! Symbolica without a licence key allows a single thread per user: run one instance at a time.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use geomattn_codegen::sizes::{Strategy, having};
use geomattn_codegen::symbolic::{SYMBOLICA_VERSION, derive};

const COMMAND: &str = "cargo run --release -p geomattn-codegen --features symbolica --bin derive";

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("unknown argument `{other}`; usage: derive [--check]");
            return ExitCode::from(2);
        }
    };
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("programs");
    for t in having(Strategy::Symbolic) {
        let start = Instant::now();
        let program = match derive(t) {
            Ok(program) => program,
            Err(e) => {
                eprintln!("T = {t}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let counts = program.counts();
        let text = program.to_text(&[
            &format!("Cay(C) = (I - C)(I + C)^-1 for skew C, T = {t}: GENERATED, DO NOT EDIT."),
            &format!("Derived with Symbolica {SYMBOLICA_VERSION}; regenerate with `{COMMAND}`,"),
            &format!("check with `{COMMAND} -- --check`."),
            &format!(
                "Operations: {} add/sub, {} mul, {} neg, {} div; {} in all.",
                counts.add,
                counts.mul,
                counts.neg,
                counts.div,
                counts.total()
            ),
        ]);
        println!(
            "T = {t}: {} operations ({counts:?}), derived in {seconds:.2} s",
            counts.total()
        );
        let path = directory.join(format!("cayley_{t}.txt"));
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                eprintln!("{} differs from the derivation", path.display());
                return ExitCode::FAILURE;
            }
        } else if let Err(e) = std::fs::write(&path, text) {
            eprintln!("writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
