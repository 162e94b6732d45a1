//! The committed Symbolica-derived Cayley programs, `programs/cayley_T.txt`, built in.
//!
//! They were derived by [`symbolic::derive`](../symbolic/fn.derive.html) (feature `symbolica`):
//! `det(I + C)` and the adjugate of `I + C` as exact polynomials in the upper entries of `C`,
//! only the even and odd parts of the upper adjugate entries being needed because
//! `adj(I + C)ᵀ = adj(I − C)`, then optimised by Symbolica's evaluator (Horner schemes and
//! common-subexpression elimination), with a single reciprocal `1/det(I + C)` at the end. Using
//! them needs neither Symbolica nor its licence: they are plain text, parsed by
//! [`Program::parse`]. Regenerate or check them with
//! `cargo run --release -p geomattn-codegen --features symbolica --bin derive [-- --check]`.
//!
//! Their sizes (binary operations, the one reciprocal included; the programs' headers give the
//! split by kind), against GML's cofactor inverse (CONVENTIONS.md, without its `T³` product):
//!
//! | T | 2 | 3 | 4 | 5 | 6 | 7 | 8 |
//! |---|---|---|---|---|---|---|---|
//! | here | 7 | 33 | 117 | 468 | 2 205 | 10 216 | 45 906 |
//! | GML | 22 | 225 | 1 608 | 19 175 | – | – | – |
//!
//! The sizes stop at `T = 8`: a program grows about 4.5-fold per size (`T = 8` is about 1 MB of
//! text), while elimination grows like `T³`, so larger sizes are not worth a straight-line program.
//! Deriving all seven takes about 7 s (6 s of it for `T = 8`).

use core::ops::RangeInclusive;

use crate::Program;

/// The sizes `T` that have a committed program.
pub const SYMBOLIC_SIZES: RangeInclusive<usize> = 2..=8;

const TEXTS: [&str; 7] = [
    include_str!("../programs/cayley_2.txt"),
    include_str!("../programs/cayley_3.txt"),
    include_str!("../programs/cayley_4.txt"),
    include_str!("../programs/cayley_5.txt"),
    include_str!("../programs/cayley_6.txt"),
    include_str!("../programs/cayley_7.txt"),
    include_str!("../programs/cayley_8.txt"),
];

/// The committed program for `Cay(C)` at size `t`, or `None` if `t` is not in
/// [`SYMBOLIC_SIZES`]. Parses the built-in text on every call.
pub fn symbolic(t: usize) -> Option<Program> {
    let text = TEXTS.get(t.checked_sub(*SYMBOLIC_SIZES.start())?)?;
    Some(Program::parse(text).expect("the committed programs parse"))
}
