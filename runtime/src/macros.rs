//! `cayley!`: the Cayley transform unrolled for one size, forwarded to `geomattn-macros` with the
//! path of this crate.

/// A Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` unrolled for one size `T`: a branch-free
/// function `fn<S: geomattn::Field>(&SMatrix<S, T, T>) -> SMatrix<S, T, T>` reading only the strict
/// upper triangle of `C`.
///
/// Syntax: `cayley!(T)` or `cayley!(T, strategy = NAME)`, `T` an integer literal in the table
/// below. The expansion is an expression whose value is the function:
///
/// ```
/// use geomattn::nalgebra::Matrix2;
///
/// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
/// assert!((geomattn::cayley!(2)(&c) - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
///
/// // Exact rationals run the same code.
/// type Q = num_rational::Ratio<i64>;
/// let c = Matrix2::new(Q::from(0), Q::new(-1, 2), Q::new(1, 2), Q::from(0));
/// assert_eq!(geomattn::cayley!(2, strategy = elimination)(&c)[(0, 0)], Q::new(3, 5));
///
/// // A named function for one size:
/// fn cayley_5<S: geomattn::Field>(
///     c: &geomattn::nalgebra::SMatrix<S, 5, 5>,
/// ) -> geomattn::nalgebra::SMatrix<S, 5, 5> {
///     geomattn::cayley!(5)(c)
/// }
/// # let _ = cayley_5::<f64>;
/// ```
///
/// Every path in the expansion goes through `$crate`, so the macro works through `geomattn`
/// alone, under whatever name the dependency is given
/// (`ga = { package = "geomattn", … }`, then `ga::cayley!(4)`). What it expands to, for the
/// default strategy of each size `Generated` unrolls, is committed in `codegen/gen/cayley_T.rs`.
///
/// Strategies:
///
/// | strategy | program |
/// |---|---|
/// | `elimination` | pivot-free LU of `I + C`, unrolled (`≈ 0.45 T³` products, `T − 1` reciprocals) |
/// | `symbolic` | closed forms derived with Symbolica (committed programs, one reciprocal) |
///
/// Sizes, strategies and defaults (generated from the table `geomattn_codegen::sizes::SIZES`,
/// which also drives [`Generated`](crate::Generated)):
///
#[doc = include_str!("cayley/sizes.md")]
///
/// The defaults come from the benchmarks (`benches/`: f64 ns per call, divan) and the accuracy
/// test (`tests/tests/cayley_generated.rs`, worst `‖ΛᵀΛ − I‖` at `‖C‖ ~ 10³`, in ε), measured:
///
/// | T | ns elimination / symbolic | ‖ΛᵀΛ−I‖ at 10³, elim. / symb. |
/// |---|---|---|
/// | 1 | – | exact |
/// | 2 | 1.5 / 1.3 | 4 / 1 |
/// | 3 | 7.4 / 4.1 | 1.4·10⁶ / 3 |
/// | 4 | 21 / 23 | 6.3·10³ / 175 |
/// | 5 | 37 / 97 | 1.7·10⁶ / 889 |
/// | 6 | 53 / 755 | 3.7·10⁴ / 5.3·10³ |
/// | 7, 8 | (8: 119 / 15 000) | ≤ 1.3·10⁶ / ≤ 1.2·10⁵ |
///
/// At moderate scale (`‖C‖ ≤ 1`) both are within a few ε·T of LU; the pivot-free elimination
/// loses accuracy like `ε‖C‖²` for large `‖C‖` (LU with pivoting like `ε‖C‖`, the closed forms in
/// between), so for large `C` where the default is elimination, name `strategy = symbolic` or use
/// [`LuSolve`](crate::LuSolve).
///
/// Errors (compile errors on the offending token): a size that is not an integer literal
/// (a const generic `T` is not known yet when macros run: use [`Generated`](crate::Generated)), a
/// size outside the table, an unknown option or strategy, or a strategy without a program for the
/// size.
#[macro_export]
macro_rules! cayley {
    ($($args:tt)*) => {
        $crate::__private::cayley_with_crate!($crate; $($args)*)
    };
}
