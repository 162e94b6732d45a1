//! Procedural macros of geomattn (filled in by the codegen work).
