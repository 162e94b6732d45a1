//! Compile errors of `geomattn::cayley!` (which forwards to `cayley_with_crate!`), each spanned
//! on the offending token of the caller.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
