//! The compile errors of geomattn's macros, tested with trybuild (`tests/ui.rs`): a crate of
//! their own so that trybuild's test project depends on `geomattn` alone. Nothing to use here.
