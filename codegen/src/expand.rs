//! The `cayley!` macro of geomattn, minus the proc-macro shim: parsing its arguments, choosing a
//! strategy from the table ([`crate::sizes`]), and emitting the function, with every error a
//! [`syn::Error`] spanned on the offending token.
//!
//! `geomattn::cayley!(args)` forwards to `geomattn_macros::cayley_with_crate!($crate; args)`, so
//! the input here starts with the path of the `geomattn` crate. Syntax of `args`: `T` or
//! `T, strategy = elimination | symbolic | gram_schmidt | quaternion`, `T` an integer literal in `1..=`[`sizes::MAX`]. The
//! expansion is a block expression whose value is a generic function
//! `fn<S: Field>(&SMatrix<S, T, T>) -> SMatrix<S, T, T>`, so it can be called in place
//! (`cayley!(5)(&c)`) or wrapped in a named function.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, ExprLit, Lit, Path, Token};

use crate::emit;
use crate::sizes::{self, Strategy};

/// The arguments of `cayley!`.
pub struct CayleyArgs {
    krate: Path,
    size: usize,
    size_span: Span,
    strategy: Option<Ident>,
}

impl Parse for CayleyArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let krate = Path::parse_mod_style(input)?;
        input.parse::<Token![;]>()?;
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
        if sizes::get(size).is_none() {
            return Err(syn::Error::new(
                literal.span(),
                format!("the size must be in 1..={}, not {size}", sizes::MAX),
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
            krate,
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
/// use geomattn_codegen::expand::{CayleyArgs, cayley};
///
/// let args: CayleyArgs = syn::parse_str("::geomattn; 4, strategy = elimination").unwrap();
/// let code = cayley(&args).unwrap().to_string();
/// assert!(code.contains(":: geomattn :: __private :: SMatrix < S , 4 , 4 >"));
/// let bad: CayleyArgs = syn::parse_str("crate; 4, strategy = magic").unwrap();
/// assert!(cayley(&bad).is_err());
/// ```
pub fn cayley(args: &CayleyArgs) -> syn::Result<TokenStream> {
    let strategy = match &args.strategy {
        Some(name) => parse_strategy(name)?,
        None => {
            sizes::get(args.size)
                .expect("checked by the parser")
                .default
        }
    };
    let span = args.strategy.as_ref().map_or(args.size_span, Ident::span);
    let program = strategy
        .program(args.size)
        .map_err(|error| syn::Error::new(span, error))?;
    let name = Ident::new("cayley", Span::call_site());
    let function = emit::function(&program, &name, &args.krate)
        .map_err(|error| syn::Error::new(args.size_span, error))?;
    Ok(quote!({ #function #name }))
}

fn parse_strategy(name: &Ident) -> syn::Result<Strategy> {
    Strategy::from_name(&name.to_string()).ok_or_else(|| {
        let known: Vec<_> = Strategy::ALL.iter().map(|s| format!("`{s}`")).collect();
        syn::Error::new(
            name.span(),
            format!("unknown strategy `{name}`: expected {}", known.join(" or ")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(input: &str) -> String {
        let input = format!("crate; {input}");
        match syn::parse_str::<CayleyArgs>(&input).and_then(|args| cayley(&args)) {
            Ok(_) => panic!("`{input}` was accepted"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn takes_the_crate_path_first() {
        for krate in ["crate", "::geomattn", "ga", "self::ga"] {
            let args: CayleyArgs = syn::parse_str(&format!("{krate}; 3")).unwrap();
            let code = cayley(&args).unwrap().to_string();
            let path: Path = syn::parse_str(krate).unwrap();
            let expected = quote!(#path::__private::ratio).to_string();
            assert!(code.contains(&expected), "{krate}: {code}");
        }
        assert!(syn::parse_str::<CayleyArgs>("3").is_err());
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
            let args: CayleyArgs = syn::parse_str(&format!("::ga; {input}")).unwrap();
            let code = cayley(&args).unwrap().to_string();
            assert!(code.contains(":: ga :: __private :: Field"), "{input}");
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
        assert!(error("1, strategy = symbolic").contains("use `strategy = gram_schmidt`"));
        assert!(error("5 6").contains("expected"));
    }
}
