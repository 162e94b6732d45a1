//! Compile errors of `geomattn::cayley!` (which forwards to `cayley_with_crate!`), of
//! `geomattn::embed_gml!` (`embed_*.rs`: a file that cannot be read, on the path; a file that does
//! not fit the type, on the type, one message naming the layer group, the parameter and both
//! shapes, the first in the file's order) and of
//! `#[derive(geomattn::Network)]` (`derive_*.rs`), each spanned on the offending token of the
//! caller: for the derive, the field that is not a layer of the network's sequences, the lifetime,
//! the option; and a derived network with a layer of one's own run in lanes, where the error names
//! the field's type that has no lane twin.

#[test]
fn ui() {
    same_flags_for_dependencies_and_cases();
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

/// trybuild checks its project's dependencies with one set of compiler flags (`--cfg trybuild
/// --verbose -A dead_code`, as `build.rustflags`), then the cases with one more
/// (`--diagnostic-width=140`): flags are part of cargo's fingerprint, so every dependency built
/// for the target (nalgebra, simba, wide, geomattn…) was checked twice, 19 of the test's 65 s
/// cold on a 2-core AVX2 EPYC. `CARGO_ENCODED_RUSTFLAGS` takes precedence over `build.rustflags`
/// (and trybuild clears only `RUSTFLAGS`), so both of its builds get the flags of the second, and
/// the messages are rendered as trybuild renders them. Left alone when the caller sets flags of
/// its own (a coverage run's `RUSTFLAGS`, which trybuild reads).
fn same_flags_for_dependencies_and_cases() {
    if std::env::var_os("RUSTFLAGS").is_some()
        || std::env::var_os("CARGO_ENCODED_RUSTFLAGS").is_some()
    {
        return;
    }
    let flags = [
        "--cfg",
        "trybuild",
        "--verbose",
        "-A",
        "dead_code",
        "--diagnostic-width=140",
    ];
    // SAFETY: this binary's one test sets it before trybuild starts any thread or process.
    unsafe { std::env::set_var("CARGO_ENCODED_RUSTFLAGS", flags.join("\u{1f}")) };
}
