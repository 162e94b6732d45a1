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

use crate::program::Program;
use crate::sizes::{self, Strategy};

/// The committed texts by size: one for each size the table gives a symbolic program.
const TEXTS: [(usize, &str); 7] = [
    (2, include_str!("../programs/cayley_2.txt")),
    (3, include_str!("../programs/cayley_3.txt")),
    (4, include_str!("../programs/cayley_4.txt")),
    (5, include_str!("../programs/cayley_5.txt")),
    (6, include_str!("../programs/cayley_6.txt")),
    (7, include_str!("../programs/cayley_7.txt")),
    (8, include_str!("../programs/cayley_8.txt")),
];

/// The committed program for `Cay(C)` at size `t`, or `None` if the table
/// ([`sizes::SIZES`]) gives `t` no symbolic program. Parses the built-in text on every call.
///
/// ```
/// let program = geomattn_codegen::committed::symbolic(2).unwrap();
/// assert_eq!(program.counts().div, 1);
/// assert!(geomattn_codegen::committed::symbolic(9).is_none());
/// ```
pub fn symbolic(t: usize) -> Option<Program> {
    if !sizes::get(t)?.has(Strategy::Symbolic) {
        return None;
    }
    let (_, text) = TEXTS.iter().find(|(size, _)| *size == t)?;
    Some(Program::parse(text).expect("the committed programs parse"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_exactly_the_symbolic_sizes_of_the_table() {
        let texts: Vec<usize> = TEXTS.iter().map(|(t, _)| *t).collect();
        assert_eq!(texts, sizes::having(Strategy::Symbolic).collect::<Vec<_>>());
    }
}
