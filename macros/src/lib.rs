//! Procedural macros of geomattn: Cayley transforms specialised, at compile time, to one
//! sequence length `T`, `#[derive(Network)]` for a struct whose fields are layers, and networks
//! trained in GML embedded at compile time.
//!
//! **Use `geomattn::cayley!` and `geomattn::embed_gml!`**, documented in `geomattn`: they forward
//! to [`cayley_with_crate!`] and `embed_gml_with_crate!` here with the path of the `geomattn` crate
//! as the caller sees it, so the expansion works through `geomattn` alone and under any name the
//! dependency is given. **Use
//! `geomattn::Network`** (the derive, re-exported and documented in `geomattn::network`).
//!
//! A thin layer: the Cayley transform's parsing, table of sizes, strategy choice and emission
//! live in `geomattn-codegen` (`expand`, `sizes`, `dispatch`, `elimination`, `emit`), the
//! derive's expansion in the module `network` here, as plain functions over `proc_macro2` tokens,
//! where they are unit-tested.

use proc_macro::TokenStream;

mod network;

/// `#[derive(Network)]`: the struct's fields are layers applied in field order; use it as
/// `geomattn::Network`, documented in `geomattn::network`.
#[proc_macro_derive(Network, attributes(geomattn))]
pub fn derive_network(input: TokenStream) -> TokenStream {
    network::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The implementation of `geomattn::cayley!`; use that macro, which documents the syntax.
///
/// Input: `path; args`, where `path` names the `geomattn` crate (`$crate` when called from
/// `geomattn::cayley!`) and `args` are those of `geomattn::cayley!`. Every path of the expansion
/// starts with `path`.
#[proc_macro]
pub fn cayley_with_crate(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as geomattn_codegen::expand::CayleyArgs);
    geomattn_codegen::expand::cayley(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The dispatch of geomattn's `Generated` kernel: a `match` over the sizes it unrolls, from the
/// table `geomattn_codegen::sizes::SIZES`. Not a public API.
#[doc(hidden)]
#[proc_macro]
pub fn __unrolled_match(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as geomattn_codegen::dispatch::UnrolledArgs);
    geomattn_codegen::dispatch::unrolled_match(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The implementation of `geomattn::embed_gml!`; use that macro, which documents the syntax.
///
/// Input: `path; [vis] static NAME: Type = "file.h5";`, where `path` names the `geomattn` crate.
#[proc_macro]
pub fn embed_gml_with_crate(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as geomattn_codegen::embed::EmbedArgs);
    geomattn_codegen::embed::embed(&args)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
