//! The one table of Cayley sizes: for each `T`, which strategies have a program, which one
//! `cayley!(T)` uses by default, and whether the runtime's `Generated` kernel unrolls it.
//!
//! Everything else follows from [`SIZES`]: the sizes `cayley!` accepts, its default strategy, the
//! committed symbolic programs the `derive` binary regenerates, the `match` of `Generated`
//! (emitted by `geomattn-macros`), the committed expansions `gen/cayley_T.rs`, and the size table
//! in the docs of `geomattn::cayley!` (`runtime/src/cayley/sizes.md`, checked by the test
//! `generated_files`).
//!
//! ```
//! use geomattn_codegen::sizes::{self, Strategy};
//!
//! assert_eq!(sizes::MAX, 12);
//! assert_eq!(sizes::get(3).unwrap().default, Strategy::Symbolic);
//! assert_eq!(sizes::get(4).unwrap().default, Strategy::Quaternion);
//! assert_eq!(sizes::get(5).unwrap().default, Strategy::GramSchmidt);
//! assert_eq!(sizes::having(Strategy::Quaternion).collect::<Vec<_>>(), [4]);
//! assert_eq!(sizes::having(Strategy::Symbolic).collect::<Vec<_>>(), (2..=8).collect::<Vec<_>>());
//! assert!(sizes::get(13).is_none());
//! ```

use core::fmt;

use crate::program::Program;
use crate::{committed, elimination, gram_schmidt, quaternion};

/// How a program is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// [`crate::elimination::program`]: an unrolled pivot-free elimination.
    Elimination,
    /// [`crate::committed::symbolic`]: the closed forms derived with Symbolica.
    Symbolic,
    /// [`crate::gram_schmidt::program`]: an unrolled square-root-free Gram–Schmidt QR, accurate
    /// at every `‖C‖`.
    GramSchmidt,
    /// [`crate::quaternion::program`], `T = 4` only: the closed form through the two quaternions
    /// of `C`, orthogonal to rounding at every `‖C‖`.
    Quaternion,
}

/// What exists for one size `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// The size `T`.
    pub t: usize,
    /// Whether a committed symbolic program exists (elimination and Gram–Schmidt exist for every
    /// size).
    pub symbolic: bool,
    /// The strategy `cayley!(T)` uses when none is named.
    pub default: Strategy,
    /// Whether the runtime's `Generated` kernel runs the default program for this `T` (beyond,
    /// it runs the `GramSchmidt` loops).
    pub unrolled: bool,
}

const fn size(t: usize, symbolic: bool, default: Strategy, unrolled: bool) -> Size {
    Size {
        t,
        symbolic,
        default,
        unrolled,
    }
}

use Strategy::{GramSchmidt, Quaternion, Symbolic};

/// The table, `T = 1 ..= MAX` in order. Defaults from the benchmarks and the accuracy sweeps
/// (`tests/tests/cayley_robust.rs`, `tests/tests/cayley_range.rs`): the closed forms where one
/// is orthogonal to rounding at every `‖C‖` — symbolic at `T = 2, 3`, quaternion at `T = 4` —
/// and Gram–Schmidt beyond (about `3.4T³` operations, within a few times LU's orthogonality
/// error at every `‖C‖`). The symbolic closed forms from `T = 4` lose up to `ε‖C‖²` on the
/// rank-deficient `C` that volume-preserving attention produces whenever `D < T` (`C = ZᵀAZ`
/// has rank at most `D`; measured `‖ΛᵀΛ − I‖ ≈ 10⁴` at `T = 4`, `‖C‖ ≈ 10⁵`, `f32`) and grow
/// about 4.5-fold per size; pivot-free elimination loses `ε‖C‖²` and breaks down in `f32`. The
/// symbolic programs stop at `T = 8` (about 1 MB of text); `cayley!` unrolls up to `T = 12`.
/// `Generated` unrolls where that takes fewer instructions than the `GramSchmidt` loops
/// (callgrind, f64, `benches/benches/cayley_callgrind.rs`): the closed forms at `T = 2, 3, 4`;
/// from `T = 5` the loops, whose columns the optimiser keeps in vector registers, beat the
/// scalar straight-line code (at `T = 5`: 771 against 846, at `T = 8`: 2 790 against 3 092).
pub const SIZES: [Size; 12] = [
    size(1, false, GramSchmidt, true),
    size(2, true, Symbolic, true),
    size(3, true, Symbolic, true),
    size(4, true, Quaternion, true),
    size(5, true, GramSchmidt, false),
    size(6, true, GramSchmidt, false),
    size(7, true, GramSchmidt, false),
    size(8, true, GramSchmidt, false),
    size(9, false, GramSchmidt, false),
    size(10, false, GramSchmidt, false),
    size(11, false, GramSchmidt, false),
    size(12, false, GramSchmidt, false),
];

/// The largest `T` in the table: `cayley!` accepts `1..=MAX`.
pub const MAX: usize = SIZES.len();

/// The row of size `t`, if the table has one.
pub fn get(t: usize) -> Option<&'static Size> {
    SIZES.get(t.checked_sub(1)?)
}

/// The sizes that have a program of `strategy`, in order.
pub fn having(strategy: Strategy) -> impl Iterator<Item = usize> {
    SIZES.iter().filter(move |s| s.has(strategy)).map(|s| s.t)
}

impl Size {
    /// Whether `strategy` has a program of this size.
    pub fn has(&self, strategy: Strategy) -> bool {
        match strategy {
            Strategy::Elimination | Strategy::GramSchmidt => true,
            Strategy::Symbolic => self.symbolic,
            Strategy::Quaternion => self.t == 4,
        }
    }

    /// The strategies that have a program of this size.
    pub fn strategies(&self) -> impl Iterator<Item = Strategy> + '_ {
        Strategy::ALL.into_iter().filter(|&s| self.has(s))
    }
}

impl Strategy {
    /// Every strategy.
    pub const ALL: [Strategy; 4] = [
        Strategy::Elimination,
        Strategy::Symbolic,
        Strategy::GramSchmidt,
        Strategy::Quaternion,
    ];

    /// The name `cayley!` knows it by.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Elimination => "elimination",
            Strategy::Symbolic => "symbolic",
            Strategy::GramSchmidt => "gram_schmidt",
            Strategy::Quaternion => "quaternion",
        }
    }

    /// The strategy named `name` in `cayley!`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The program of this strategy for `T = t`, or why there is none.
    ///
    /// # Errors
    /// [`NoProgram`] when the table has no program of this strategy for `t`.
    pub fn program(self, t: usize) -> Result<Program, NoProgram> {
        let row = get(t).ok_or(NoProgram::OutOfTable { size: t, max: MAX })?;
        if !row.has(self) {
            let mut sizes = having(self);
            let first = sizes.next().unwrap_or(0);
            return Err(NoProgram::NotForSize {
                strategy: self,
                size: t,
                first,
                last: sizes.last().unwrap_or(first),
                default: row.default,
            });
        }
        Ok(match self {
            Strategy::Elimination => elimination::program(t),
            Strategy::Symbolic => committed::symbolic(t).expect("the table lists committed sizes"),
            Strategy::GramSchmidt => gram_schmidt::program(t),
            Strategy::Quaternion => quaternion::program(),
        })
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A strategy that has no program of the size asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoProgram {
    /// The size is not in the table.
    #[error("T = {size} is not in the table of sizes, 1..={max}")]
    OutOfTable {
        /// The size asked for.
        size: usize,
        /// The largest size of the table.
        max: usize,
    },
    /// The strategy has programs, but not of this size.
    #[error(
        "no {strategy} program for T = {size} ({strategy}: T in {first}..={last}): \
         use `strategy = {default}`"
    )]
    NotForSize {
        /// The strategy asked for.
        strategy: Strategy,
        /// The size asked for.
        size: usize,
        /// The smallest size the strategy has.
        first: usize,
        /// The largest size the strategy has.
        last: usize,
        /// The default strategy at this size.
        default: Strategy,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_order_and_consistent() {
        for (k, row) in SIZES.iter().enumerate() {
            assert_eq!(row.t, k + 1);
            assert!(
                row.has(row.default),
                "T = {}: the default must exist",
                row.t
            );
            assert_eq!(row.strategies().next(), Some(Strategy::Elimination));
        }
    }

    #[test]
    fn each_strategy_has_a_contiguous_range() {
        for strategy in Strategy::ALL {
            let sizes: Vec<_> = having(strategy).collect();
            let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
            assert_eq!(sizes, (first..=last).collect::<Vec<_>>(), "{strategy}");
        }
    }

    #[test]
    fn names_round_trip() {
        for strategy in Strategy::ALL {
            assert_eq!(Strategy::from_name(strategy.name()), Some(strategy));
            assert_eq!(strategy.to_string(), strategy.name());
        }
        assert_eq!(Strategy::from_name("cholesky"), None);
    }

    #[test]
    fn programs_exist_exactly_where_the_table_says() {
        for row in &SIZES {
            for strategy in Strategy::ALL {
                let program = strategy.program(row.t);
                assert_eq!(
                    program.is_ok(),
                    row.has(strategy),
                    "{strategy}, T = {}",
                    row.t
                );
                if let Ok(program) = program {
                    assert_eq!(program.size(), row.t);
                }
            }
        }
        assert_eq!(
            Strategy::Symbolic.program(9).unwrap_err().to_string(),
            "no symbolic program for T = 9 (symbolic: T in 2..=8): use `strategy = gram_schmidt`"
        );
        assert_eq!(
            Strategy::Elimination.program(13),
            Err(NoProgram::OutOfTable { size: 13, max: 12 })
        );
    }
}
