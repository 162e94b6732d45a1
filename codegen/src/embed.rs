//! The `embed_gml!` macro of geomattn, minus the proc-macro shim: parsing
//! `static NAME: Type = "file.h5";`, reading the file (with [`geomattn_gml_file`]) relative to the
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
//!         const DATA: &'static [f64] = &[0.5, -0.25, …];
//!         const PARAMS: &'static [geomattn::EmbeddedParam] = &[…];
//!         const FILE_LAYERS: usize = n;
//!         const LAYER: usize = 0;
//!     }
//!     use geomattn::embedded;
//!     embedded::<Type, File>()      // spanned on `Type`: a mismatch is a compile error there
//! };
//! ```
//!
//! [`network_static`] emits it from a file already read, for the macro and for `geomattn export
//! --to rust` (which writes it into a standalone source file, without the `include_bytes!`).
use std::path::PathBuf;

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Path, Token, Type, Visibility};

use geomattn_gml_file::{Contents, GmlFile, Parameter};

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
/// declared type is a compile error of the `const` evaluation on the type (see
/// [`network_static`]), which names the layer and shapes.
pub fn embed(args: &EmbedArgs) -> syn::Result<TokenStream> {
    let root = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let path = root.join(args.file.value());
    let contents = GmlFile::open_as(&path, args.file.value())
        .and_then(|file| file.contents())
        .map_err(|message| {
            syn::Error::new(
                args.file.span(),
                format!("embed_gml!: {message} (paths are relative to CARGO_MANIFEST_DIR)"),
            )
        })?;
    let tracked = path.to_string_lossy().into_owned();
    let item = StaticItem {
        krate: &args.krate,
        attrs: &args.attrs,
        vis: &args.vis,
        name: &args.name,
        ty: &args.ty,
    };
    Ok(network_static(&item, &contents, Some(&tracked)))
}

/// The declaration of a `static` network: everything of `[attributes] [vis] static NAME: Type`,
/// and the path of `geomattn` its expansion names.
pub struct StaticItem<'a> {
    /// The path of the `geomattn` crate (`geomattn`, `::geomattn`, a renamed dependency).
    pub krate: &'a Path,
    /// Attributes (doc comments among them) of the `static`.
    pub attrs: &'a [Attribute],
    /// Its visibility.
    pub vis: &'a Visibility,
    /// Its name.
    pub name: &'a Ident,
    /// The network type.
    pub ty: &'a Type,
}

/// The `static` `item`, built in `const` evaluation from `contents` (the module docs show the
/// expansion). `tracked`: the absolute path of the file, included as bytes so that cargo
/// rebuilds when it changes (the macro); `None` for a standalone source file.
///
/// The call of `geomattn::embedded` carries the span of the declared type (every token of it: the
/// function is imported first, since `$crate` keeps the span of geomattn's macro): that function
/// is `#[track_caller]`, so a file that does not fit the type is one compile error there, on the
/// user's type, not inside geomattn.
///
/// ```
/// use geomattn_codegen::embed::{StaticItem, network_static};
/// use geomattn_gml_file::Contents;
/// let contents = Contents { layers: 0, params: Vec::new() };
/// let item = StaticItem {
///     krate: &syn::parse_quote!(geomattn),
///     attrs: &[],
///     vis: &syn::parse_quote!(pub),
///     name: &syn::parse_quote!(NETWORK),
///     ty: &syn::parse_quote!(Network),
/// };
/// let code = network_static(&item, &contents, None).to_string();
/// assert!(code.starts_with("pub static NETWORK : Network ="));
/// assert!(code.contains("use geomattn :: embedded ; embedded :: < Network , File > ()"));
/// assert!(!code.contains("include_bytes"));
/// ```
pub fn network_static(
    item: &StaticItem<'_>,
    contents: &Contents,
    tracked: Option<&str>,
) -> TokenStream {
    let StaticItem {
        krate,
        attrs,
        vis,
        name,
        ty,
    } = item;
    let tracked = tracked.map(|path| {
        quote!(
            const _: &[u8] = include_bytes!(#path);
        )
    });
    let data = contents
        .params
        .iter()
        .flat_map(|param| &param.values)
        .map(|&x| {
            let magnitude = Literal::f64_unsuffixed(x.abs());
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
    let layers = Literal::usize_unsuffixed(contents.layers);
    let build = quote_spanned!(ty.span()=> embedded::<#ty, File>());
    quote! {
        #(#attrs)*
        #vis static #name: #ty = {
            #tracked
            enum File {}
            impl #krate::Embedded for File {
                const DATA: &'static [f64] = &[#(#data),*];
                const PARAMS: &'static [#krate::EmbeddedParam] = &[#(#params),*];
                const FILE_LAYERS: usize = #layers;
                const LAYER: usize = 0;
            }
            use #krate::embedded;
            #build
        };
    }
}

/// One `EmbeddedParam` literal.
fn describe(krate: &Path, param: &Parameter, offset: usize) -> TokenStream {
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
    let [layer, rows, cols, offset] =
        [param.layer, param.rows, param.cols, offset].map(Literal::usize_unsuffixed);
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
