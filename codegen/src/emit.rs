//! Emission of a [`Program`] as a branch-free Rust function generic over geomattn's `Field`.
//!
//! The function reads the strict upper triangle of its argument, runs the steps as straight-line
//! assignments to immutable bindings declared up front (one per step: a reciprocal stays one
//! division), and returns the matrix built from the outputs. Constants never go through a float:
//! each distinct constant is bound once, as `ratio::<S>(numerator, denominator)`, which builds it
//! from `S::one()` by additions (and one division for a fraction), so `f32`, `f64`, exact
//! rationals, dual numbers and SIMD lanes all run the same code.
//!
//! Every path starts with the path of the `geomattn` crate the caller passes (`$crate` from
//! `geomattn::cayley!`, `crate` inside geomattn, `::geomattn` in the committed `gen/` files) and
//! goes through its hidden `__private` module (`Field`, `SMatrix`, `ArrayStorage`, `ratio`), so
//! the code compiles whatever name the user's crate gives the dependency.

use std::collections::BTreeMap;

use num_rational::BigRational;
use num_traits::ToPrimitive;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::program::Op;
use crate::program::Program;
use crate::program::Value;

/// A constant of the program that does not fit the `i64` numerator and denominator of
/// `geomattn::__private::ratio`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the constant {0} does not fit in i64/i64")]
pub struct ConstantTooLarge(pub BigRational);

/// The item `fn name<S: Field>(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T>`, marked `#[inline(always)]`
/// (so that it is compiled for the instruction set of the layer it serves, see `geomattn::Lanewise`),
/// computing `Cay(C)` by `program`, with every path under `krate::__private`.
///
/// # Errors
/// [`ConstantTooLarge`] if a constant of the program does not fit in `i64/i64`.
///
/// ```
/// let program = geomattn_codegen::elimination::program(2);
/// let name = proc_macro2::Ident::new("cayley_2", proc_macro2::Span::call_site());
/// let krate: syn::Path = syn::parse_quote!(::ga);
/// let code = geomattn_codegen::emit::function(&program, &name, &krate).unwrap().to_string();
/// assert!(code.starts_with("# [inline (always)] fn cayley_2 < S : :: ga :: __private :: Field >"));
/// assert_eq!(code.matches(" / ").count(), 1, "one reciprocal");
/// ```
pub fn function(
    program: &Program,
    name: &Ident,
    krate: &syn::Path,
) -> Result<TokenStream, ConstantTooLarge> {
    let t = Literal::usize_unsuffixed(program.size());
    let mut constants = Constants::default();
    let mut inputs = vec![false; program.input_count()];
    let mut operand = |v: &Value| -> Result<TokenStream, ConstantTooLarge> {
        Ok(match v {
            Value::Input(k) => {
                inputs[*k] = true;
                let id = format_ident!("i{k}");
                quote!(#id)
            }
            Value::Step(k) => {
                let id = format_ident!("t{k}");
                quote!(#id)
            }
            Value::Const(c) => {
                let id = constants.name(c)?;
                quote!(#id)
            }
        })
    };
    let mut steps = Vec::with_capacity(program.steps().len());
    for (k, op) in program.steps().iter().enumerate() {
        let id = format_ident!("t{k}");
        let rhs = match op {
            Op::Add(a, b) => binary(operand(a)?, quote!(+), operand(b)?),
            Op::Sub(a, b) => binary(operand(a)?, quote!(-), operand(b)?),
            Op::Mul(a, b) => binary(operand(a)?, quote!(*), operand(b)?),
            Op::Div(a, b) => binary(operand(a)?, quote!(/), operand(b)?),
            Op::Neg(a) => {
                let a = operand(a)?;
                quote!(-#a)
            }
            Op::Recip(a) => {
                let one = operand(&Value::Const(BigRational::from_integer(1.into())))?;
                binary(one, quote!(/), operand(a)?)
            }
        };
        steps.push(quote!(#id = #rhs;));
    }
    // The steps are declared in groups and assigned after: a `let` per step would nest one
    // lexical scope per step, and LLVM's debug-info writer recurses once per scope (rustc
    // overflowed its stack on 3 000-step functions with debug info).
    let declarations = (0..program.steps().len())
        .collect::<Vec<_>>()
        .chunks(DECLARATION_GROUP)
        .map(|group| {
            let ids = group.iter().map(|k| format_ident!("t{k}"));
            let types = group.iter().map(|_| quote!(S));
            quote!(let (#(#ids,)*): (#(#types,)*);)
        })
        .collect::<Vec<_>>();
    let outputs = program
        .outputs()
        .iter()
        .map(&mut operand)
        .collect::<Result<Vec<_>, _>>()?;
    let columns = outputs
        .chunks(program.size().max(1))
        .map(|column| quote!([#(#column),*]));
    let reads = inputs
        .iter()
        .enumerate()
        .filter(|(_, used)| **used)
        .map(|(k, _)| {
            let (i, j) = input_position(k);
            let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
            let id = format_ident!("i{k}");
            quote!(let #id: S = c[(#i, #j)];)
        });
    let unused = (!inputs.contains(&true)).then(|| quote!(let _ = c;));
    let private = quote!(#krate::__private);
    let constants = constants.bindings(&private);
    Ok(quote! {
        #[inline(always)]
        fn #name<S: #private::Field>(
            c: &#private::SMatrix<S, #t, #t>,
        ) -> #private::SMatrix<S, #t, #t> {
            #unused
            #(#reads)*
            #(#constants)*
            #(#declarations)*
            #(#steps)*
            #private::SMatrix::<S, #t, #t>::from_array_storage(
                #private::ArrayStorage([#(#columns),*]),
            )
        }
    })
}

/// Steps declared by one `let`.
const DECLARATION_GROUP: usize = 256;

fn binary(a: TokenStream, op: TokenStream, b: TokenStream) -> TokenStream {
    quote!(#a #op #b)
}

/// `(i, j)` of input `k` (the inverse of [`Program::input_index`]).
fn input_position(k: usize) -> (usize, usize) {
    let mut j = 1;
    while j * (j + 1) / 2 <= k {
        j += 1;
    }
    (k - j * (j - 1) / 2, j)
}

/// The distinct constants of a program, each bound once.
#[derive(Default)]
struct Constants(BTreeMap<(i64, i64), Ident>);

impl Constants {
    fn name(&mut self, c: &BigRational) -> Result<Ident, ConstantTooLarge> {
        let too_large = || ConstantTooLarge(c.clone());
        let key = (
            c.numer().to_i64().ok_or_else(too_large)?,
            c.denom().to_i64().ok_or_else(too_large)?,
        );
        let next = self.0.len();
        Ok(self
            .0
            .entry(key)
            .or_insert_with(|| Ident::new(&format!("k{next}"), Span::call_site()))
            .clone())
    }

    fn bindings<'a>(&'a self, private: &'a TokenStream) -> impl Iterator<Item = TokenStream> + 'a {
        self.0.iter().map(move |((n, d), id)| {
            let (n, d) = (Literal::i64_unsuffixed(*n), Literal::i64_unsuffixed(*d));
            quote!(let #id: S = #private::ratio::<S>(#n, #d);)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate() -> syn::Path {
        syn::parse_quote!(::geomattn)
    }

    #[test]
    fn input_positions_invert_the_numbering() {
        for j in 1..10 {
            for i in 0..j {
                assert_eq!(input_position(Program::input_index(i, j)), (i, j));
            }
        }
    }

    #[test]
    fn emits_every_step_and_reads_only_the_upper_triangle() {
        let program = crate::elimination::program(3);
        let name = Ident::new("f", Span::call_site());
        let code = function(&program, &name, &krate()).unwrap().to_string();
        assert_eq!(
            code.matches(" = ").count(),
            program.steps().len() + 5,
            "steps, 3 reads, 2 constants"
        );
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            assert!(code.contains(&format!("c [({i} , {j})]")), "{code}");
        }
        assert!(!code.contains("c [(1 , 0)]"));
        assert_eq!(
            code.matches("ratio").count(),
            2,
            "constants 1 and 2, each bound once"
        );
    }

    #[test]
    fn rejects_huge_constants() {
        let huge = BigRational::from_integer(num_bigint::BigInt::from(u64::MAX));
        let steps = vec![Op::Mul(Value::Input(0), Value::Const(huge.clone()))];
        let s = Value::Step(0);
        let program = Program::new(2, steps, vec![s.clone(), s.clone(), s.clone(), s]).unwrap();
        let name = Ident::new("f", Span::call_site());
        assert_eq!(
            function(&program, &name, &krate()).unwrap_err(),
            ConstantTooLarge(huge)
        );
    }
}
