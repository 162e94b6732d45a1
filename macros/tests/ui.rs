//! Compile errors of `geomattn::cayley!` (which forwards to `cayley_with_crate!`) and of
//! `#[derive(geomattn::Network)]` (`derive_*.rs`), each spanned on the offending token of the
//! caller: for the derive, the field that is not a layer of the network's sequences, the lifetime,
//! the option.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
