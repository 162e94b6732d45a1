//! The `match` of the runtime's `Generated` kernel, emitted from the table ([`crate::sizes`]):
//! one arm per size it unrolls, running the default program of that size, and a fallback.
//!
//! Input (of `geomattn_macros::__unrolled_match!`): `krate, size, via, argument, fallback`.
//! Output: `match size { 1 => via(argument, f₁), …, _ => fallback }`, where `fₜ` is an
//! always-inlined closure calling the function `cayley!(t)` expands to, paths under `krate`. `via`
//! is called as `via(argument, fₜ)` and must infer the size from `fₜ`'s signature.
//!
//! ```
//! let args = syn::parse_str("crate, T, via, c, loops(c)").unwrap();
//! let code = geomattn_codegen::dispatch::unrolled_match(&args).unwrap().to_string();
//! assert!(code.starts_with("match T { 1 => via (c , {"));
//! assert!(code.ends_with("_ => loops (c) }"));
//! ```

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Path, Token};

use crate::emit;
use crate::sizes::SIZES;

/// The arguments of `__unrolled_match!`.
pub struct UnrolledArgs {
    krate: Path,
    size: Expr,
    via: Path,
    argument: Expr,
    fallback: Expr,
}

impl Parse for UnrolledArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let krate = Path::parse_mod_style(input)?;
        input.parse::<Token![,]>()?;
        let size = input.parse()?;
        input.parse::<Token![,]>()?;
        let via = input.parse()?;
        input.parse::<Token![,]>()?;
        let argument = input.parse()?;
        input.parse::<Token![,]>()?;
        let fallback = input.parse()?;
        input.parse::<Option<Token![,]>>()?;
        Ok(Self {
            krate,
            size,
            via,
            argument,
            fallback,
        })
    }
}

/// The `match` (see the module docs).
///
/// # Errors
/// A constant the emitter cannot write (spanned on the size expression).
pub fn unrolled_match(args: &UnrolledArgs) -> syn::Result<TokenStream> {
    let UnrolledArgs {
        krate,
        size,
        via,
        argument,
        fallback,
    } = args;
    let name = Ident::new("cayley", Span::call_site());
    let arms = SIZES
        .iter()
        .filter(|row| row.unrolled)
        .map(|row| {
            let program = row.default.program(row.t).expect("the default exists");
            let function = emit::function(&program, &name, krate)
                .map_err(|error| syn::Error::new_spanned(size, error))?;
            let t = proc_macro2::Literal::usize_unsuffixed(row.t);
            // A closure rather than the function item itself: the call of a function item through
            // `FnOnce` goes through a shim the optimiser may keep out of line, and out of line it
            // is compiled for the baseline instruction set, not the caller's (`geomattn::Isa`).
            Ok(quote!(#t => #via(#argument, { #function #[inline(always)] |c: &_| #name(c) }),))
        })
        .collect::<syn::Result<Vec<_>>>()?;
    Ok(quote!(match #size { #(#arms)* _ => #fallback }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_one_arm_per_unrolled_size_and_a_fallback() {
        let args = syn::parse_str("::ga, N, f, &x, g(&x),").unwrap();
        let code = unrolled_match(&args).unwrap().to_string();
        let unrolled = SIZES.iter().filter(|row| row.unrolled).count();
        assert_eq!(code.matches("=> f (& x , {").count(), unrolled);
        assert_eq!(
            code.matches("fn cayley < S : :: ga :: __private :: Field >")
                .count(),
            unrolled
        );
        for row in SIZES.iter().filter(|row| row.unrolled) {
            assert!(code.contains(&format!("{} => f", row.t)), "T = {}", row.t);
        }
        assert!(code.ends_with("_ => g (& x) }"));
    }

    #[test]
    fn rejects_missing_arguments() {
        assert!(syn::parse_str::<UnrolledArgs>("crate, T, via, c").is_err());
    }
}
