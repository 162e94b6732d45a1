//! Compile errors of `cayley!`, each spanned on the offending token.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
