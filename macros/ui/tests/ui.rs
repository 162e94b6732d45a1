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
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
