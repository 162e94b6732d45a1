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
/// Syntax: `cayley!(T)` or `cayley!(T, strategy = NAME)`, `T` an integer literal in `1..=10`.
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
/// | `elimination` | `1..=10` | pivot-free LU of `I + C`, unrolled (`≈ 0.45 T³` products, `T − 1` reciprocals) |
///
/// Default per size: STRATEGY_TABLE
///
/// Errors (compile errors on the offending token): a size that is not an integer literal
/// (a const generic `T` is not known yet when macros run: use `geomattn::Generated`), a size
/// outside `1..=10`, an unknown option or strategy, or a strategy without a program for the
/// size.
#[proc_macro]
pub fn cayley(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as geomattn_codegen::expand::CayleyArgs);
    geomattn_codegen::expand::cayley(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
