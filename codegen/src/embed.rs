//! The `embed_gml!` macro of geomattn, minus the proc-macro shim: parsing
//! `static NAME: Type = "file.h5";`, reading the file ([`crate::gml_file`]) relative to the
//! calling crate's `CARGO_MANIFEST_DIR`, and emitting the `static`, built in `const` evaluation
//! by `geomattn::embedded` from the file's values as literals.
//!
//! The expansion (paths through the `geomattn` path the caller passes):
//!
//! ```text
//! static NAME: Type = {
//!     const _: &[u8] = include_bytes!("/abs/file.h5");  // cargo rebuilds when the file changes
//!     enum File {}
//!     impl geomattn::Embedded for File {
//!         const DATA: &'static [f32] = &[0.5, -0.25, …];
//!         const PARAMS: &'static [geomattn::EmbeddedParam] = &[…];
//!         const FILE_LAYERS: usize = n;
//!         const LAYER: usize = 0;
//!     }
//!     geomattn::embedded::<Type, File>()
//! };
//! ```

use std::path::PathBuf;

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, LitStr, Path, Token, Type, Visibility};

use crate::gml_file::{self, FileParam};

/// The arguments of `embed_gml!`: the path of `geomattn`, then `[attributes] [vis] static NAME:
/// Type = "path";`.
pub struct EmbedArgs {
    krate: Path,
    attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
    ty: Type,
    file: LitStr,
}

impl Parse for EmbedArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let krate = Path::parse_mod_style(input)?;
        input.parse::<Token![;]>()?;
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        input.parse::<Token![static]>()?;
        let name = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty = input.parse()?;
        input.parse::<Token![=]>()?;
        let file = input.parse()?;
        input.parse::<Option<Token![;]>>()?;
        Ok(Self {
            krate,
            attrs,
            vis,
            name,
            ty,
            file,
        })
    }
}

/// The expansion of `embed_gml!`.
///
/// # Errors
/// On the file's path literal: the file cannot be read or is not a GML network (missing, not
/// HDF5, a parameter GML does not write, a non-finite value). A file that does not fit the
/// declared type is a compile error of the `const` evaluation, which names the layer and shapes.
pub fn embed(args: &EmbedArgs) -> syn::Result<TokenStream> {
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let path = root.join(args.file.value());
    let contents = gml_file::read(&path, &args.file.value()).map_err(|message| {
        syn::Error::new(
            args.file.span(),
            format!("embed_gml!: {message} (paths are relative to CARGO_MANIFEST_DIR)"),
        )
    })?;
    let EmbedArgs {
        krate,
        attrs,
        vis,
        name,
        ty,
        ..
    } = args;
    let tracked = path.to_string_lossy().into_owned();
    let data = contents
        .params
        .iter()
        .flat_map(|param| &param.values)
        .map(|&x| {
            let magnitude = Literal::f32_unsuffixed(x.abs());
            if x.is_sign_negative() {
                quote!(-#magnitude)
            } else {
                quote!(#magnitude)
            }
        });
    let mut offset = 0;
    let params: Vec<TokenStream> = contents
        .params
        .iter()
        .map(|param| {
            let tokens = describe(krate, param, offset);
            offset += param.values.len();
            tokens
        })
        .collect();
    let layers = contents.layers;
    Ok(quote! {
        #(#attrs)*
        #vis static #name: #ty = {
            const _: &[u8] = include_bytes!(#tracked);
            enum File {}
            impl #krate::Embedded for File {
                const DATA: &'static [f32] = &[#(#data),*];
                const PARAMS: &'static [#krate::EmbeddedParam] = &[#(#params),*];
                const FILE_LAYERS: usize = #layers;
                const LAYER: usize = 0;
            }
            #krate::embedded::<#ty, File>()
        };
    })
}

/// One `EmbeddedParam` literal.
fn describe(krate: &Path, param: &FileParam, offset: usize) -> TokenStream {
    let parent = match &param.parent {
        Some(parent) => quote!(::core::option::Option::Some(#parent)),
        None => quote!(::core::option::Option::None),
    };
    let number = match param.number {
        Some(number) => quote!(::core::option::Option::Some(#number)),
        None => quote!(::core::option::Option::None),
    };
    let stem = &param.stem;
    let kind = Ident::new(param.kind.name(), proc_macro2::Span::call_site());
    let (layer, rows, cols) = (param.layer, param.rows, param.cols);
    quote! {
        #krate::EmbeddedParam {
            layer: #layer,
            name: #krate::Name { parent: #parent, stem: #stem, number: #number },
            kind: #krate::Kind::#kind,
            rows: #rows,
            cols: #cols,
            offset: #offset,
        }
    }
}
