//! The `geomattn` command; all of it is in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    geomattn_cli::main()
}
