//! The check every backward pass is held to: `∂L/∂Z` and `∂L/∂θ` for `L = ⟨Ō, layer(Z)⟩`
//! beside forward-mode dual numbers, one dual pass per input entry and per parameter, over
//! `num-dual`'s [`Dual64`] in f64 or [`ExactDual`] over the exact rationals [`Q`].

use geomattn::nalgebra::SMatrix;
use geomattn::{Backward, Field, Schema, SequenceLayer, from_flat, to_flat};
use num_dual::Dual64;
use rand::rngs::SmallRng;

use crate::exact_dual::ExactDual;
use crate::{Q, unit};

/// A backward pass beside its dual-number reference: `(found, expected)` for `∂L/∂Z` and for
/// `∂L/∂A` (packed), each flattened column-major.
pub struct Comparison<S> {
    /// `∂L/∂Z`, then its reference.
    pub input: (Vec<S>, Vec<S>),
    /// `∂L/∂θ`, then its reference.
    pub weight: (Vec<S>, Vec<S>),
}

/// A dual number over the scalar `Base`: what the reference derivatives are carried in.
pub trait DualOver<Base>: Field {
    /// `re`, with derivative 1 if `variable`, else 0.
    fn seed(re: Base, variable: bool) -> Self;
    /// The derivative part.
    fn eps(&self) -> Base;
}

impl DualOver<f64> for Dual64 {
    fn seed(re: f64, variable: bool) -> Self {
        let x = Dual64::from_re(re);
        if variable { x.derivative() } else { x }
    }
    fn eps(&self) -> f64 {
        self.eps
    }
}

impl DualOver<Q> for ExactDual {
    fn seed(re: Q, variable: bool) -> Self {
        if variable {
            ExactDual::variable(re)
        } else {
            ExactDual::constant(re)
        }
    }
    fn eps(&self) -> Q {
        self.eps
    }
}

/// `⟨Ō, d layer(Z)⟩` along the `k`-th seeded input, for every `k`, each by one dual pass.
fn directional<S, Dl, const D: usize, const T: usize>(
    count: usize,
    pass: impl Fn(usize) -> SMatrix<Dl, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Vec<S>
where
    S: Field,
    Dl: DualOver<S>,
{
    (0..count)
        .map(|k| {
            pass(k)
                .iter()
                .zip(out_bar.iter())
                .fold(S::zero(), |sum, (o, w)| sum + o.eps() * *w)
        })
        .collect()
}

/// `∂L/∂Z` by duals: the forward pass of `lifted` with input entry `k` seeded.
pub fn input_gradient<S, Dl, L, const D: usize, const T: usize>(
    lifted: &L,
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Vec<S>
where
    S: Field,
    Dl: DualOver<S>,
    L: SequenceLayer<Dl, D, T>,
{
    directional::<S, Dl, D, T>(
        D * T,
        |k| {
            lifted.forward(&SMatrix::from_fn(|i, j| {
                Dl::seed(z[(i, j)], i + D * j == k)
            }))
        },
        out_bar,
    )
}

/// `∂L/∂θ` by duals: the layer rebuilt by `build` with parameter `k` seeded.
fn parameter_gradient<S, Dl, L, const D: usize, const T: usize>(
    params: &[S],
    build: impl Fn(&[Dl]) -> L,
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Vec<S>
where
    S: Field,
    Dl: DualOver<S>,
    L: SequenceLayer<Dl, D, T>,
{
    let lifted_z = z.map(|x| Dl::seed(x, false));
    directional::<S, Dl, D, T>(
        params.len(),
        |k| {
            let seeded: Vec<Dl> = (0..params.len())
                .map(|n| Dl::seed(params[n], n == k))
                .collect();
            build(&seeded).forward(&lifted_z)
        },
        out_bar,
    )
}

/// `layer`'s backward pass beside the dual-number reference: `params` are its parameters as
/// `flatten` lists its gradient's, `build` rebuilds it over duals from them.
pub fn compare<S, Dl, L, Ld, const D: usize, const T: usize>(
    layer: &L,
    params: &[S],
    build: impl Fn(&[Dl]) -> Ld,
    flatten: impl Fn(&L::Gradient) -> Vec<S>,
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Comparison<S>
where
    S: Field,
    Dl: DualOver<S>,
    L: Backward<S, D, T>,
    Ld: SequenceLayer<Dl, D, T>,
{
    let mut gradient = layer.zero_gradient();
    let z_bar = layer.backward(z, out_bar, &mut gradient);
    let lifted = build(
        &params
            .iter()
            .map(|p| Dl::seed(*p, false))
            .collect::<Vec<_>>(),
    );
    Comparison {
        input: (
            z_bar.as_slice().to_vec(),
            input_gradient(&lifted, z, out_bar),
        ),
        weight: (
            flatten(&gradient),
            parameter_gradient(params, build, z, out_bar),
        ),
    }
}

/// The worst difference of `found` from `expected`, relative to `expected`'s largest entry.
pub fn relative_error(found: &[f64], expected: &[f64]) -> f64 {
    let scale = expected.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(scale > 0.0, "a zero reference tests nothing");
    let worst = found
        .iter()
        .zip(expected)
        .fold(0.0_f64, |m, (f, e)| m.max((f - e).abs()));
    worst / scale
}

/// Errors in scientific notation, for the messages.
pub fn show(errors: &[f64]) -> String {
    errors
        .iter()
        .map(|e| format!("{e:.1e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn worst_of(case: Comparison<f64>) -> f64 {
    let Comparison {
        input: (z_found, z_expected),
        weight: (w_found, w_expected),
    } = case;
    relative_error(&z_found, &z_expected).max(relative_error(&w_found, &w_expected))
}

/// A network's backward pass against duals, its parameters and gradient flattened in GML's order
/// ([`to_flat`]), the dual network read from the same list ([`from_flat`]).
pub fn network_case<N, Nd, const D: usize, const T: usize>(
    params: &[f64],
    z: &SMatrix<f64, D, T>,
    out_bar: &SMatrix<f64, D, T>,
) -> Comparison<f64>
where
    N: Schema<Scalar = f64> + Backward<f64, D, T, Gradient = N>,
    Nd: Schema<Scalar = Dual64> + SequenceLayer<Dual64, D, T>,
{
    compare(
        &from_flat::<N>(params).unwrap(),
        params,
        |p: &[Dual64]| from_flat::<Nd>(p).unwrap(),
        |g| {
            let mut flat = vec![0.0; N::SCALARS];
            to_flat(g, &mut flat).unwrap();
            flat
        },
        z,
        out_bar,
    )
}

/// Every parameter of `N`, in GML's order, drawn from U(−½, ½).
pub fn centred_params<N: Schema<Scalar = f64>>(rng: &mut SmallRng) -> Vec<f64> {
    (0..N::SCALARS).map(|_| unit(rng) - 0.5).collect()
}
