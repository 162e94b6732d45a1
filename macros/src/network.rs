//! `#[derive(Network)]`: a struct whose fields are sequence layers, applied in field order,
//! becomes a `SequenceLayer` (forward, batch, flat and checked passes), a `Schema` (the fields'
//! parameters in order), which the HDF5 loader and the blob read, and a `MapScalar` and
//! `LaneTwin` (the fields' layers over another scalar chained with `Then`), which the lane path
//! runs.
//!
//! The logic is a plain function over `proc_macro2` tokens ([`derive`]), unit-tested here; the
//! proc-macro entry point only converts tokens. Every error is a `syn::Error` spanned at what is
//! wrong: the option, the generic parameter, or (through the bounds, which carry the field's span)
//! the field whose type is not a layer of the network's sequences.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Data, DeriveInput, Expr, GenericParam, Generics, Ident, Member, Path, Type, parse_quote,
};

/// The options of `#[geomattn(...)]` on the struct.
struct Options {
    /// The path of the `geomattn` crate (`crate = path`), `::geomattn` by default.
    krate: Path,
    /// The scalar `S` (`scalar = Type`); generic when absent.
    scalar: Option<Type>,
    /// The dimension `D` of one time step (`dim = expr`); generic when absent.
    dim: Option<Expr>,
    /// The sequence length `T` (`len = expr`); generic when absent.
    len: Option<Expr>,
}

/// One layer of the network: a field, in declaration order.
struct Layer {
    member: Member,
    ty: Type,
    /// The field's name in errors: its identifier, or its index for a tuple struct.
    name: String,
}

/// The expansion of `#[derive(Network)]` for `input`, or the errors to report, spanned at the
/// offending token.
///
/// # Errors
/// An enum or union, a struct without fields, a lifetime parameter, an unknown or repeated option,
/// or a `#[geomattn]` attribute on a field.
pub fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let options = parse_options(&input)?;
    reject_lifetimes(&input.generics)?;
    let layers = layers(&input)?;
    let sequence = sequence_layer_impl(&input, &options, &layers);
    let schema = schema_impl(&input, &options, &layers);
    let embed = embed_impl(&input, &options, &layers);
    let lanes = lanes_impl(&input, &options, &layers);
    Ok(quote! { #sequence #schema #embed #lanes })
}

fn parse_options(input: &DeriveInput) -> syn::Result<Options> {
    let mut options = Options {
        krate: parse_quote!(::geomattn),
        scalar: None,
        dim: None,
        len: None,
    };
    let mut krate = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("geomattn")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let repeated = match key.as_str() {
                "crate" => krate.replace(meta.value()?.parse::<Path>()?).is_some(),
                "scalar" => options.scalar.replace(meta.value()?.parse()?).is_some(),
                "dim" => options.dim.replace(meta.value()?.parse()?).is_some(),
                "len" => options.len.replace(meta.value()?.parse()?).is_some(),
                _ => {
                    return Err(meta.error(
                        "unknown option of `derive(Network)`: expected `crate`, `scalar`, `dim` or `len`",
                    ));
                }
            };
            if repeated {
                Err(meta.error(format!("`{key}` is given twice")))
            } else {
                Ok(())
            }
        })?;
    }
    if let Some(krate) = krate {
        options.krate = krate;
    }
    Ok(options)
}

/// A network owns its layers (it is loaded and embedded by value): no lifetime parameters.
fn reject_lifetimes(generics: &Generics) -> syn::Result<()> {
    match generics.lifetimes().next() {
        Some(lifetime) => Err(syn::Error::new_spanned(
            lifetime,
            "`derive(Network)` does not support lifetime parameters: a network owns its layers \
             (type and const parameters are supported)",
        )),
        None => Ok(()),
    }
}

fn layers(input: &DeriveInput) -> syn::Result<Vec<Layer>> {
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            return Err(syn::Error::new_spanned(
                data.enum_token,
                "`derive(Network)` needs a struct whose fields are the layers, in order",
            ));
        }
        Data::Union(data) => {
            return Err(syn::Error::new_spanned(
                data.union_token,
                "`derive(Network)` needs a struct whose fields are the layers, in order",
            ));
        }
    };
    if fields.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "`derive(Network)` needs at least one field: the layers, applied in field order",
        ));
    }
    if let Some(attr) = fields
        .iter()
        .flat_map(|f| &f.attrs)
        .find(|a| a.path().is_ident("geomattn"))
    {
        return Err(syn::Error::new_spanned(
            attr,
            "`derive(Network)` has no field options: every field is a layer",
        ));
    }
    Ok(fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let (member, name) = match &field.ident {
                Some(ident) => (Member::Named(ident.clone()), ident.to_string()),
                None => (Member::Unnamed(index.into()), index.to_string()),
            };
            Layer {
                member,
                ty: field.ty.clone(),
                name,
            }
        })
        .collect())
}

/// `S`, `D` and `T` as tokens, and the generic parameters the implementation adds for those the
/// options leave open.
struct Sequence {
    scalar: TokenStream,
    dim: TokenStream,
    len: TokenStream,
    added: Vec<GenericParam>,
}

fn sequence(options: &Options) -> Sequence {
    let mut added = Vec::new();
    let krate = &options.krate;
    let scalar = match &options.scalar {
        Some(ty) => quote!(#ty),
        None => {
            let s = Ident::new("GeomattnScalar", Span::call_site());
            added.push(parse_quote!(#s: #krate::Field));
            quote!(#s)
        }
    };
    let mut size = |given: &Option<Expr>, name: &str| match given {
        Some(expr) => quote!({ #expr }),
        None => {
            let n = Ident::new(name, Span::call_site());
            added.push(parse_quote!(const #n: usize));
            quote!(#n)
        }
    };
    let dim = size(&options.dim, "GEOMATTN_DIM");
    let len = size(&options.len, "GEOMATTN_LEN");
    Sequence {
        scalar,
        dim,
        len,
        added,
    }
}

fn sequence_layer_impl(input: &DeriveInput, options: &Options, layers: &[Layer]) -> TokenStream {
    let krate = &options.krate;
    let Sequence {
        scalar: s,
        dim: d,
        len: t,
        added,
    } = sequence(options);
    let layer_trait = quote!(#krate::SequenceLayer<#s, #d, #t>);
    let mut generics = input.generics.clone();
    generics.params.extend(added);
    let where_clause = generics.make_where_clause();
    where_clause
        .predicates
        .push(parse_quote!(#s: #krate::Field));
    for layer in layers {
        let ty = &layer.ty;
        // Spanned at the field, every token of the trait included (a predicate whose tokens come
        // from two places is reported at the derive): a field that is not a layer of these sequences
        // (wrong sizes, wrong scalar, not a layer at all) is reported there.
        let bound = respan(layer_trait.clone(), ty.span());
        where_clause.predicates.push(parse_quote!(#ty: #bound));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let name = &input.ident;
    let matrix = quote!(#krate::nalgebra::SMatrix::<#s, #d, #t>);
    let view = quote!(#krate::nalgebra::SMatrixView<'_, #s, #d, #t>);
    let view_mut = quote!(#krate::nalgebra::SMatrixViewMut<'_, #s, #d, #t>);

    let forward = chain(layers, &matrix, |layer, from, to| {
        let (ty, member) = (&layer.ty, &layer.member);
        quote_spanned!(ty.span()=> <#ty as #layer_trait>::forward_into(&self.#member, #from, #to);)
    });
    let checked = chain(layers, &matrix, |layer, from, to| {
        let (ty, member, field) = (&layer.ty, &layer.member, &layer.name);
        quote_spanned!(ty.span()=>
            #krate::__private::forward_checked_field::<#s, #d, #t, #ty>(
                &self.#member, &#field, #from, #to,
            )?;
        )
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #layer_trait for #name #ty_generics #where_clause {
            #[inline]
            fn forward_into(&self, z: #view, out: #view_mut) {
                #forward
            }

            fn forward_checked_into(
                &self,
                z: #view,
                out: #view_mut,
            ) -> ::core::result::Result<(), #krate::Error>
            where
                #s: #krate::nalgebra::RealField,
            {
                #checked
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// `tokens`, every one of them spanned at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            }
            token.set_span(span);
            token
        })
        .collect()
}

/// The statements applying every layer in order, from `z` to `out`, through two buffers used in
/// turn (so the stack holds at most two intermediate sequences however many layers there are).
fn chain(
    layers: &[Layer],
    matrix: &TokenStream,
    step: impl Fn(&Layer, TokenStream, TokenStream) -> TokenStream,
) -> TokenStream {
    let buffers = [format_ident!("even"), format_ident!("odd")];
    let used = &buffers[..(layers.len() - 1).min(2)];
    let mut statements = quote! {
        #( let mut #used = #matrix::zeros(); )*
    };
    let last = layers.len() - 1;
    for (k, layer) in layers.iter().enumerate() {
        let from = match k {
            0 => quote!(z),
            _ => {
                let b = &buffers[(k - 1) % 2];
                quote!(#b.as_view())
            }
        };
        let to = if k == last {
            quote!(out)
        } else {
            let b = &buffers[k % 2];
            quote!(#b.as_view_mut())
        };
        statements.extend(step(layer, from, to));
    }
    statements
}

/// The network's scalar in an implementation of `bound` (a trait with an associated `Scalar`): the
/// `scalar` option, or else the first field's.
fn network_scalar(options: &Options, layers: &[Layer], bound: &TokenStream) -> TokenStream {
    match &options.scalar {
        Some(ty) => quote!(#ty),
        None => {
            let first = &layers[0].ty;
            quote!(<#first as #bound>::Scalar)
        }
    }
}

/// Adds `for<'geomattn> Field: bound` for every field to `generics`: `same_scalar` (the bound with
/// the network's scalar) for all but the first field when the scalar is the first field's.
/// Higher-ranked, the bounds are checked where the implementation is used, not where it is
/// derived.
fn defer_bounds(
    generics: &mut Generics,
    options: &Options,
    layers: &[Layer],
    bound: &TokenStream,
    same_scalar: &TokenStream,
) {
    let where_clause = generics.make_where_clause();
    for (k, layer) in layers.iter().enumerate() {
        let ty = &layer.ty;
        where_clause
            .predicates
            .push(if k == 0 && options.scalar.is_none() {
                parse_quote!(for<'geomattn> #ty: #bound)
            } else {
                parse_quote!(for<'geomattn> #ty: #same_scalar)
            });
    }
}

/// `MapScalar` and `LaneTwin`: the network over another scalar, and over lane vectors, is its
/// fields' layers over it chained with `Then`, in field order (`Then<A', Then<B', C'>>`; one
/// field's own). The bounds are higher-ranked, as the schema's: a network with a field that has no
/// lane twin still derives, and only running it in lanes is an error.
fn lanes_impl(input: &DeriveInput, options: &Options, layers: &[Layer]) -> TokenStream {
    let krate = &options.krate;
    let map_scalar = quote!(#krate::MapScalar);
    let scalar = network_scalar(options, layers, &map_scalar);
    let Sequence {
        dim: d,
        len: t,
        added,
        ..
    } = sequence(options);
    let lane_twin = quote!(#krate::LaneTwin<#d, #t>);
    let bounded = |bound: &TokenStream, same_scalar: &TokenStream, with_added: bool| {
        let mut generics = input.generics.clone();
        if with_added {
            // The sizes only: the scalar is the fields'.
            generics.params.extend(
                added
                    .iter()
                    .filter(|p| matches!(p, GenericParam::Const(_)))
                    .cloned(),
            );
        }
        defer_bounds(&mut generics, options, layers, bound, same_scalar);
        generics
    };
    let name = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let nest = |each: &dyn Fn(&Layer) -> TokenStream,
                join: &dyn Fn(TokenStream, TokenStream) -> TokenStream| {
        let mut layers = layers.iter().rev();
        let last = each(layers.next().expect("at least one field"));
        layers.fold(last, |rest, layer| join(each(layer), rest))
    };
    let chain = |each: &dyn Fn(&Layer) -> TokenStream| {
        nest(each, &|this, rest| quote!(#krate::Then<#this, #rest>))
    };
    let build = |each: &dyn Fn(&Layer) -> TokenStream| {
        nest(each, &|this, rest| quote!(#krate::Then::new(#this, #rest)))
    };
    let over = chain(&|layer| {
        let ty = &layer.ty;
        quote!(<#ty as #map_scalar>::Over<GeomattnOver>)
    });
    let twin = chain(&|layer| {
        let ty = &layer.ty;
        quote!(<#ty as #lane_twin>::Twin<GeomattnLane>)
    });
    let mapped = build(
        &|Layer { ty, member, .. }| quote!(<#ty as #map_scalar>::map_scalar(&self.#member, &mut f)),
    );
    let twinned =
        build(&|Layer { ty, member, .. }| quote!(<#ty as #lane_twin>::twin(&self.#member, &mut f)));
    let map_generics = bounded(
        &map_scalar,
        &quote!(#krate::MapScalar<Scalar = #scalar>),
        false,
    );
    let (map_impl, _, map_where) = map_generics.split_for_impl();
    let twin_generics = bounded(
        &lane_twin,
        &quote!(#krate::LaneTwin<#d, #t, Scalar = #scalar>),
        true,
    );
    let (twin_impl, _, twin_where) = twin_generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #map_impl #map_scalar for #name #ty_generics #map_where {
            type Scalar = #scalar;
            type Over<GeomattnOver: #krate::Field> = #over;

            fn map_scalar<GeomattnOver: #krate::Field>(
                &self,
                mut f: impl ::core::ops::FnMut(Self::Scalar) -> GeomattnOver,
            ) -> Self::Over<GeomattnOver> {
                #mapped
            }
        }

        #[automatically_derived]
        impl #twin_impl #lane_twin for #name #ty_generics #twin_where {
            type Twin<GeomattnLane: #krate::Real> = #twin;

            fn twin<GeomattnLane: #krate::Real>(
                &self,
                mut f: impl ::core::ops::FnMut(Self::Scalar) -> GeomattnLane,
            ) -> Self::Twin<GeomattnLane> {
                #twinned
            }
        }
    }
}

/// The parameter schema (`Schema`): the fields' layer types and parameters one after the other,
/// described, read and written in field order, and read in place field by field (no type of its
/// own: the struct has the type of the built-in network with the same layers).
///
/// The scalar is the `scalar` option, or else the first field's; every field's must be the same.
/// The bounds are higher-ranked (`for<'a> Field: Schema`), which defers them to where the schema is
/// used: a network with a layer that has no schema still derives (and runs), and only loading it
/// (from a file, a blob) is an error, which names that field's bound.
fn schema_impl(input: &DeriveInput, options: &Options, layers: &[Layer]) -> TokenStream {
    let krate = &options.krate;
    let schema = quote!(#krate::Schema);
    let scalar = network_scalar(options, layers, &schema);
    let mut generics = input.generics.clone();
    defer_bounds(
        &mut generics,
        options,
        layers,
        &schema,
        &quote!(#schema<Scalar = #scalar>),
    );
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let name = &input.ident;
    let types: Vec<_> = layers.iter().map(|l| &l.ty).collect();
    let members: Vec<_> = layers.iter().map(|l| &l.member).collect();
    let values: Vec<_> = (0..layers.len())
        .map(|k| format_ident!("layer_{k}"))
        .collect();
    let result = quote!(::core::result::Result);
    quote! {
        #[automatically_derived]
        impl #impl_generics #schema for #name #ty_generics #where_clause {
            type Scalar = #scalar;
            const SCALARS: usize = 0 #( + <#types as #schema>::SCALARS )*;
            const LAYERS: usize = 0 #( + <#types as #schema>::LAYERS )*;
            const DESCRIPTION_LEN: usize = 0 #( + <#types as #schema>::DESCRIPTION_LEN )*;

            fn describe<V: #krate::Visit + ?::core::marker::Sized>(visitor: &mut V) {
                #( <#types as #schema>::describe(visitor); )*
            }

            fn read<Src: #krate::Source<Self::Scalar> + ?::core::marker::Sized>(
                source: &mut Src,
            ) -> #result<Self, Src::Error> {
                #( let #values = <#types as #schema>::read(source)?; )*
                #result::Ok(Self { #( #members: #values ),* })
            }

            fn read_into<'slot, Src: #krate::Source<Self::Scalar> + ?::core::marker::Sized>(
                slot: &'slot mut ::core::mem::MaybeUninit<Self>,
                source: &mut Src,
            ) -> #result<&'slot mut Self, Src::Error> {
                #krate::__private::read_fields_into!(
                    #krate::fill, slot, source, { #( #members: #types ),* }
                )
            }

            fn write<K: #krate::Sink<Self::Scalar> + ?::core::marker::Sized>(
                &self,
                sink: &mut K,
            ) -> #result<(), K::Error> {
                #( <#types as #schema>::write(&self.#members, sink)?; )*
                #result::Ok(())
            }
        }
    }
}

/// Compile-time embedding (`EmbedFrom`, what `embed_gml!` builds a `static` with): each field
/// from the layer groups of the embedded file after those of the fields before it
/// (`After<After<Src, F0>, F1>` for the third), like the built-in pairs. The bounds are
/// higher-ranked, as the schema's: only embedding a network with a field that cannot be embedded
/// is an error.
fn embed_impl(input: &DeriveInput, options: &Options, layers: &[Layer]) -> TokenStream {
    let krate = &options.krate;
    let source = format_ident!("GeomattnSource");
    let mut generics = input.generics.clone();
    generics
        .params
        .push(parse_quote!(#source: #krate::Embedded));
    let where_clause = generics.make_where_clause();
    let mut from = quote!(#source);
    let mut values = Vec::new();
    for layer in layers {
        let ty = &layer.ty;
        where_clause
            .predicates
            .push(parse_quote!(for<'geomattn> #ty: #krate::Schema + #krate::EmbedFrom<#from>));
        let member = &layer.member;
        values.push(quote!(#member: <#ty as #krate::EmbedFrom<#from>>::VALUE.take(&mut mismatch)));
        from = quote!(#krate::After<#from, #ty>);
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let name = &input.ident;
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::EmbedFrom<#source> for #name #ty_generics #where_clause {
            const VALUE: #krate::Fitted<Self> = {
                let mut mismatch = ::core::option::Option::None;
                let value = Self { #( #values ),* };
                #krate::Fitted::new(value, mismatch)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(input: TokenStream) -> String {
        derive(input).expect("expands").to_string()
    }

    fn error(input: TokenStream) -> String {
        derive(input).expect_err("is rejected").to_string()
    }

    #[test]
    fn fixed_sizes_bound_every_field_and_chain_through_two_buffers() {
        let out = expand(quote! {
            #[geomattn(scalar = f64, dim = 3, len = 4)]
            struct Net { a: A, b: B, c: C, d: D }
        });
        let normalised = out.replace(' ', "");
        for field in ["A", "B", "C", "D"] {
            let bound = format!("{field}:::geomattn::SequenceLayer<f64,{{3}},{{4}}>");
            assert!(normalised.contains(&bound), "no bound {bound} in {out}");
        }
        // Four layers: z → even → odd → even → out.
        for step in [
            "forward_into(&self.a,z,even.as_view_mut())",
            "forward_into(&self.b,even.as_view(),odd.as_view_mut())",
            "forward_into(&self.c,odd.as_view(),even.as_view_mut())",
            "forward_into(&self.d,even.as_view(),out)",
        ] {
            assert!(normalised.contains(step), "no step {step} in {out}");
        }
        assert!(normalised.contains("(&self.c,&\"c\",odd.as_view(),even.as_view_mut(),)?"));
    }

    #[test]
    fn the_lane_twin_chains_the_fields_twins_in_order_with_deferred_bounds() {
        let out = expand(quote! {
            #[geomattn(scalar = f32, dim = 3, len = 4)]
            struct Net { a: A, b: B, c: C }
        })
        .replace(' ', "");
        let twin = "typeTwin<GeomattnLane:::geomattn::Real>=::geomattn::Then<<Aas::geomattn::LaneTwin<{3},{4}>>::Twin<GeomattnLane>,::geomattn::Then<<Bas::geomattn::LaneTwin<{3},{4}>>::Twin<GeomattnLane>,<Cas::geomattn::LaneTwin<{3},{4}>>::Twin<GeomattnLane>>>;";
        assert!(out.contains(twin), "no {twin} in {out}");
        let built = "::geomattn::Then::new(<Aas::geomattn::LaneTwin<{3},{4}>>::twin(&self.a,&mutf),::geomattn::Then::new(<Bas::geomattn::LaneTwin<{3},{4}>>::twin(&self.b,&mutf),<Cas::geomattn::LaneTwin<{3},{4}>>::twin(&self.c,&mutf)))";
        assert!(out.contains(built), "no {built} in {out}");
        for field in ["A", "B", "C"] {
            let bound =
                format!("for<'geomattn>{field}:::geomattn::LaneTwin<{{3}},{{4}},Scalar=f32>");
            assert!(out.contains(&bound), "no deferred bound {bound} in {out}");
        }
        assert!(out.contains("typeOver<GeomattnOver:::geomattn::Field>=::geomattn::Then<<Aas::geomattn::MapScalar>::Over<GeomattnOver>"), "{out}");
    }

    #[test]
    fn one_layer_writes_straight_to_the_output() {
        let out = expand(quote!(
            struct Net(A);
        ))
        .replace(' ', "");
        assert!(out.contains("forward_into(&self.0,z,out)"), "{out}");
        assert!(!out.contains("zeros"), "{out}");
        assert!(out.contains("(&self.0,&\"0\",z,out,)?"), "{out}");
    }

    #[test]
    fn open_sizes_become_generic_parameters() {
        let out = expand(quote!(
            struct Block<Att, Ff> {
                att: Att,
                ff: Ff,
            }
        ));
        let normalised = out.replace(' ', "");
        assert!(
            normalised.contains(
                "impl<Att,Ff,GeomattnScalar:::geomattn::Field,constGEOMATTN_DIM:usize,constGEOMATTN_LEN:usize>"
            ),
            "{out}"
        );
        assert!(
            normalised.contains(
                "Att:::geomattn::SequenceLayer<GeomattnScalar,GEOMATTN_DIM,GEOMATTN_LEN>"
            ),
            "{out}"
        );
        assert!(normalised.contains("forBlock<Att,Ff>"), "{out}");
    }

    #[test]
    fn the_crate_path_prefixes_every_path() {
        let out = expand(quote! {
            #[geomattn(crate = ga, scalar = f32)]
            struct Net { a: A }
        });
        assert!(!out.contains("geomattn ::"), "{out}");
        assert!(
            out.replace(' ', "")
                .contains("ga::__private::read_fields_into!(ga::fill,"),
            "{out}"
        );
    }

    #[test]
    fn the_schema_is_the_fields_in_order_with_one_scalar() {
        let out = expand(quote!(
            struct Net {
                a: A,
                b: B,
            }
        ))
        .replace(' ', "");
        assert!(
            out.contains("typeScalar=<Aas::geomattn::Schema>::Scalar;"),
            "{out}"
        );
        assert!(out.contains("for<'geomattn>A:::geomattn::Schema,"), "{out}");
        assert!(
            out.contains(
                "for<'geomattn>B:::geomattn::Schema<Scalar=<Aas::geomattn::Schema>::Scalar>"
            ),
            "{out}"
        );
        assert!(
            out.contains("constSCALARS:usize=0+<Aas::geomattn::Schema>::SCALARS+<Bas::geomattn::Schema>::SCALARS;"),
            "{out}"
        );
        assert!(
            out.contains("constDESCRIPTION_LEN:usize=0+<Aas::geomattn::Schema>::DESCRIPTION_LEN+<Bas::geomattn::Schema>::DESCRIPTION_LEN;"),
            "{out}"
        );
        assert!(
            out.contains("<Aas::geomattn::Schema>::write(&self.a,sink)?;<Bas::geomattn::Schema>::write(&self.b,sink)?;"),
            "{out}"
        );
        assert!(
            out.contains("letlayer_0=<Aas::geomattn::Schema>::read(source)?;letlayer_1=<Bas::geomattn::Schema>::read(source)?;"),
            "{out}"
        );
        assert!(out.contains("Self{a:layer_0,b:layer_1}"), "{out}");
        assert!(
            out.contains("read_fields_into!(::geomattn::fill,slot,source,{a:A,b:B})"),
            "{out}"
        );
        let fixed = expand(quote!(
            #[geomattn(scalar = f32)]
            struct Net(A);
        ))
        .replace(' ', "");
        assert!(fixed.contains("typeScalar=f32;"), "{fixed}");
        assert!(
            fixed.contains("for<'geomattn>A:::geomattn::Schema<Scalar=f32>"),
            "{fixed}"
        );
    }

    #[test]
    fn the_struct_generics_and_bounds_are_kept() {
        let out = expand(quote! {
            #[geomattn(scalar = S, len = 3)]
            struct Net<S: Copy, const D: usize> where S: Clone { a: Layer<S, D> }
        })
        .replace(' ', "");
        assert!(
            out.contains("impl<S:Copy,constD:usize,constGEOMATTN_DIM:usize>::geomattn::SequenceLayer<S,GEOMATTN_DIM,{3}>forNet<S,D>whereS:Clone,S:::geomattn::Field,"),
            "{out}"
        );
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let cases = [
            (
                quote!(
                    enum E {
                        A,
                    }
                ),
                "needs a struct",
            ),
            (quote!(union U { a: u8 }), "needs a struct"),
            (
                quote!(
                    struct Net;
                ),
                "at least one field",
            ),
            (
                quote!(
                    struct Net {}
                ),
                "at least one field",
            ),
            (
                quote!(
                    struct Net<'a> {
                        a: &'a A,
                    }
                ),
                "lifetime parameters",
            ),
            (
                quote!(
                    #[geomattn(size = 3)]
                    struct Net {
                        a: A,
                    }
                ),
                "unknown option",
            ),
            (
                quote!(
                    #[geomattn(dim = 3, dim = 4)]
                    struct Net {
                        a: A,
                    }
                ),
                "`dim` is given twice",
            ),
            (
                quote!(
                    #[geomattn(scalar = 3)]
                    struct Net {
                        a: A,
                    }
                ),
                "expected one of",
            ),
            (
                quote!(
                    struct Net {
                        #[geomattn(skip)]
                        a: A,
                    }
                ),
                "no field options",
            ),
        ];
        for (input, message) in cases {
            let found = error(input.clone());
            assert!(found.contains(message), "{input}: {found}");
        }
    }
}
