//! The `cayley!` macro of `geomattn-macros`, minus the proc-macro shim: parsing its arguments,
//! choosing a strategy, and emitting the function, with every error a [`syn::Error`] spanned on
//! the offending token.
//!
//! Syntax: `cayley!(T)` or `cayley!(T, strategy = elimination | symbolic)`, `T` an integer
//! literal in `1..=MAX_SIZE`. The expansion is a block expression whose value is a generic
//! function `fn<S: geomattn::Field>(&SMatrix<S, T, T>) -> SMatrix<S, T, T>`, so it can be called
//! in place (`cayley!(5)(&c)`) or wrapped in a named function.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, ExprLit, Lit, Token};

use crate::{Program, committed, elimination, emit};

/// The largest `T` the macro unrolls: the elimination program has about `0.9 T³` steps (3 148 at
/// `T = 12`), and the runtime's loop kernel is the better choice long before that.
pub const MAX_SIZE: usize = 12;

/// How a program is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// [`crate::elimination::program`], any `T`.
    Elimination,
    /// [`crate::committed::symbolic`]: the closed forms derived with Symbolica, `T` in
    /// [`crate::committed::SYMBOLIC_SIZES`].
    Symbolic,
}

impl Strategy {
    /// The strategy `cayley!(T)` uses when none is named: symbolic for `T ≤ 4` (fastest at
    /// `T = 2, 3`, within 10 % at `T = 4`, and far more accurate for large `‖C‖`), elimination
    /// beyond (the closed forms grow about 4.5-fold per size, elimination like `T³`).
    pub fn default_for(t: usize) -> Self {
        if (2..=4).contains(&t) && committed::SYMBOLIC_SIZES.contains(&t) {
            Strategy::Symbolic
        } else {
            Strategy::Elimination
        }
    }

    /// The program for `T = t`, or why there is none.
    ///
    /// # Errors
    /// A message for the user when this strategy has no program of size `t`.
    pub fn program(self, t: usize) -> Result<Program, String> {
        match self {
            Strategy::Elimination => Ok(elimination::program(t)),
            Strategy::Symbolic => committed::symbolic(t).ok_or_else(|| {
                let sizes = committed::SYMBOLIC_SIZES;
                format!(
                    "no symbolic program for T = {t} (committed: {}..={}): use `strategy = elimination`",
                    sizes.start(),
                    sizes.end()
                )
            }),
        }
    }

    fn parse(name: &Ident) -> syn::Result<Self> {
        match name.to_string().as_str() {
            "elimination" => Ok(Strategy::Elimination),
            "symbolic" => Ok(Strategy::Symbolic),
            other => Err(syn::Error::new(
                name.span(),
                format!("unknown strategy `{other}`: expected `elimination` or `symbolic`"),
            )),
        }
    }
}

/// The arguments of `cayley!`.
#[derive(Debug)]
pub struct CayleyArgs {
    size: usize,
    size_span: Span,
    strategy: Option<Ident>,
}

impl Parse for CayleyArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut size_expr: Expr = input.parse()?;
        // A literal forwarded by a `macro_rules!` arrives in an invisible group.
        while let Expr::Group(group) = size_expr {
            size_expr = *group.expr;
        }
        let literal = match &size_expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(literal),
                ..
            }) => literal.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "the size must be an integer literal: the macro runs before const generics \
                     are known (for a generic `T`, use `geomattn::Generated`)",
                ));
            }
        };
        let size: usize = literal.base10_parse()?;
        if size == 0 || size > MAX_SIZE {
            return Err(syn::Error::new(
                literal.span(),
                format!("the size must be in 1..={MAX_SIZE}, not {size}"),
            ));
        }
        let mut strategy = None;
        if input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            let key: Ident = input.parse()?;
            if key != "strategy" {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown option `{key}`: expected `strategy = …`"),
                ));
            }
            input.parse::<Token![=]>()?;
            strategy = Some(input.parse()?);
            input.parse::<Option<Token![,]>>()?;
        }
        Ok(Self {
            size,
            size_span: literal.span(),
            strategy,
        })
    }
}

/// The expansion of `cayley!(args)`.
///
/// # Errors
/// An unknown strategy (spanned on its name), a strategy without a program for this size
/// (spanned on its name), or a constant the emitter cannot write (spanned on the size).
///
/// ```
/// let args = syn::parse_str("4, strategy = elimination").unwrap();
/// let code = geomattn_codegen::expand::cayley(&args).unwrap().to_string();
/// assert!(code.contains("SMatrix < S , 4usize , 4usize >"));
/// let bad: geomattn_codegen::expand::CayleyArgs = syn::parse_str("4, strategy = magic").unwrap();
/// assert!(geomattn_codegen::expand::cayley(&bad).is_err());
/// ```
pub fn cayley(args: &CayleyArgs) -> syn::Result<TokenStream> {
    let strategy = match &args.strategy {
        Some(name) => Strategy::parse(name)?,
        None => Strategy::default_for(args.size),
    };
    let span = args.strategy.as_ref().map_or(args.size_span, Ident::span);
    let program = strategy
        .program(args.size)
        .map_err(|message| syn::Error::new(span, message))?;
    let name = Ident::new("cayley", Span::call_site());
    let function = emit::function(&program, &name)
        .map_err(|error| syn::Error::new(args.size_span, error.to_string()))?;
    Ok(quote!({ #function #name }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(input: &str) -> String {
        match syn::parse_str::<CayleyArgs>(input).and_then(|args| cayley(&args)) {
            Ok(_) => panic!("`{input}` was accepted"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn accepts_sizes_and_strategies() {
        for input in [
            "1",
            "5",
            "8,",
            "12, strategy = elimination",
            "3, strategy = elimination,",
            "2, strategy = symbolic",
            "8, strategy = symbolic",
        ] {
            let args: CayleyArgs = syn::parse_str(input).unwrap();
            assert!(cayley(&args).is_ok(), "{input}");
        }
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(error("0").contains("1..=12"));
        assert!(error("13").contains("not 13"));
        assert!(error("T").contains("integer literal"));
        assert!(error("2 + 3").contains("integer literal"));
        assert!(error("5, strategy = magic").contains("unknown strategy `magic`"));
        assert!(error("5, method = elimination").contains("unknown option `method`"));
        assert!(error("9, strategy = symbolic").contains("no symbolic program for T = 9"));
        assert!(error("5 6").contains("expected"));
    }
}
