//! Straight-line programs for the Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` of a small
//! skew-symmetric `C`, and their emission as branch-free Rust.
//!
//! A [`Program`] takes the `T(T−1)/2` entries of `C` above the diagonal and produces the `T²`
//! entries of `Cay(C)`; it is a list of binary steps in SSA form, counted by [`Program::counts`],
//! evaluated by [`Program::eval`] (any [`Arithmetic`], exact rationals included) and stored as
//! text ([`Program::to_text`], [`Program::parse`]).
//!
//! [`committed`] holds the programs derived with Symbolica for `T = 2 … 8`, built in as text. The
//! `symbolica` feature (off by default) adds `symbolic`, the derivation itself, and the `derive`
//! binary that regenerates or checks them. The `symbolica` feature pulls in Symbolica, which is
//! source-available under its own licence; the runtime rights to Symbolica are not included in
//! geomattn's licence. Using the committed programs needs neither Symbolica nor its licence.
pub mod builder;
pub mod committed;
pub mod dispatch;
pub mod elimination;
pub mod embed;
pub mod emit;
pub mod expand;
pub mod gram_schmidt;
pub mod program;
pub mod quaternion;
pub mod sizes;
#[cfg(feature = "symbolica")]
pub mod symbolic;

pub use program::{Arithmetic, LineProblem, Op, OpCounts, ParseError, Program, Value};
