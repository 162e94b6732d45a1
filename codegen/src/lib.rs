//! Straight-line programs for the Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` of a small
//! skew-symmetric `C`, and their emission as branch-free Rust.
//!
//! A [`Program`] takes the `T(T−1)/2` entries of `C` above the diagonal and produces the `T²`
//! entries of `Cay(C)`; it is a list of binary steps in SSA form, counted by [`Program::counts`],
//! evaluated by [`Program::eval`] (any [`Arithmetic`], exact rationals included) and stored as
//! text ([`Program::to_text`], [`Program::parse`]).
pub mod builder;
pub mod elimination;
pub mod emit;
pub mod expand;
pub mod program;

pub use program::{Arithmetic, Op, OpCounts, ParseError, Program, Value};
