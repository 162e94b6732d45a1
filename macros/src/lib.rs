//! Procedural macros of geomattn: Cayley transforms specialised, at compile time, to one
//! sequence length `T`.
//!
//! A thin layer: parsing, strategy choice and emission all live in `geomattn-codegen`
//! (`expand`, `elimination`, `emit`), where they are unit-tested.

use proc_macro::TokenStream;

/// A Cayley transform `Cay(C) = (I − C)(I + C)⁻¹` unrolled for one size `T`: a branch-free
/// function `fn<S: geomattn::Field>(&SMatrix<S, T, T>) -> SMatrix<S, T, T>` reading only the strict
/// upper triangle of `C`.
///
/// Syntax: `cayley!(T)` or `cayley!(T, strategy = NAME)`, `T` an integer literal in `1..=12`.
/// The expansion is an expression whose value is the function:
///
/// ```
/// use geomattn::nalgebra::Matrix2;
/// use geomattn_macros::cayley;
///
/// let c = Matrix2::new(0.0, -0.5, 0.5, 0.0);
/// assert!((cayley!(2)(&c) - Matrix2::new(0.6, 0.8, -0.8, 0.6)).amax() < 1e-15);
///
/// // Exact rationals run the same code.
/// type Q = num_rational::Ratio<i64>;
/// let c = Matrix2::new(Q::from(0), Q::new(-1, 2), Q::new(1, 2), Q::from(0));
/// assert_eq!(cayley!(2, strategy = elimination)(&c)[(0, 0)], Q::new(3, 5));
///
/// // A named function for one size:
/// fn cayley_5<S: geomattn::Field>(
///     c: &geomattn::nalgebra::SMatrix<S, 5, 5>,
/// ) -> geomattn::nalgebra::SMatrix<S, 5, 5> {
///     cayley!(5)(c)
/// }
/// # let _ = cayley_5::<f64>;
/// ```
///
/// Strategies:
///
/// | strategy | sizes | program |
/// |---|---|---|
/// | `elimination` | `1..=12` | pivot-free LU of `I + C`, unrolled (`≈ 0.45 T³` products, `T − 1` reciprocals) |
/// | `symbolic` | `2..=8` | closed forms derived with Symbolica (committed programs, one reciprocal) |
///
/// Default per size, from the benchmarks (`benches/`: f64 ns per call, divan; operations) and the
/// accuracy test (`tests/tests/cayley_generated.rs`, worst `‖ΛᵀΛ − I‖` at `‖C‖ ~ 10³`, in ε):
///
/// | T | default | ns elimination / symbolic | ops elimination / symbolic | ‖ΛᵀΛ−I‖ at 10³, elim. / symb. |
/// |---|---|---|---|---|
/// | 1 | elimination | – | 0 / – | exact |
/// | 2 | symbolic | 1.5 / 1.3 | 11 / 8 | 4 / 1 |
/// | 3 | symbolic | 7.4 / 4.1 | 43 / 32 | 1.4·10⁶ / 3 |
/// | 4 | symbolic | 21 / 23 | 104 / 118 | 6.3·10³ / 175 |
/// | 5 | elimination | 37 / 97 | 208 / 479 | 1.7·10⁶ / 889 |
/// | 6 | elimination | 53 / 755 | 367 / 2 335 | 3.7·10⁴ / 5.3·10³ |
/// | 7, 8 | elimination | (8: 119 / 15 000) | 593, 898 / 10 672, 47 401 | ≤ 1.3·10⁶ / ≤ 1.2·10⁵ |
///
/// At moderate scale (`‖C‖ ≤ 1`) both are within a few ε·T of LU; the pivot-free elimination
/// loses accuracy like `ε‖C‖²` for large `‖C‖` (LU with pivoting like `ε‖C‖`, the closed forms in
/// between), so for large `C` at `T ≥ 5` name `strategy = symbolic` or use `geomattn::LuSolve`.
///
/// Errors (compile errors on the offending token): a size that is not an integer literal
/// (a const generic `T` is not known yet when macros run: use `geomattn::Generated`), a size
/// outside `1..=12`, an unknown option or strategy, or a strategy without a program for the
/// size.
#[proc_macro]
pub fn cayley(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as geomattn_codegen::expand::CayleyArgs);
    geomattn_codegen::expand::cayley(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
