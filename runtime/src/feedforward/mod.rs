//! The supporting layers of GML's architectures, which act on each time step independently.
//!
//! | layer | map of one column `x` | GML |
//! |---|---|---|
//! | [`VolumePreservingLowerLayer`], [`VolumePreservingUpperLayer`] | `x + σ(W x + b)`, `W` strictly lower / upper | `VolumePreservingLowerLayer`, `…UpperLayer` |
//! | [`ResNetLayer`] | `x + σ(W x + b)`, `W` dense | `ResNetLayer` |
//! | [`Dense`] | `σ(W x + b)`, `W` out×in | `Dense` |
//! | [`GradientLayerQ`], [`GradientLayerP`] | `q + Kᵀ(a ⊙ σ(K p + b))` (P: q and p swapped) | `GradientLayerQ`, `…P` |
//!
//! Each is a [`ColumnLayer`]. Every layer but [`Dense`] maps `R^D` to itself, which makes it a
//! [`SequenceLayer`] for every sequence length `T` (column by column); [`Dense`] changes the
//! dimension and maps sequences with [`ColumnLayer::apply_columns`]. The bias is an `Option`:
//! GML's `use_bias = false` is `None`, and then there is no `b` at all.
//!
//! Weights can come as nalgebra matrices or, as Julia stores them, as flat column-major slices
//! (`from_slices` constructors, which check every length and return [`Error::WeightLength`]).

pub(crate) mod dense;
pub(crate) mod gradient;
pub(crate) mod resnet;
pub(crate) mod volume_preserving;

pub use dense::Dense;
#[cfg(feature = "std")]
pub(crate) use gradient::shear_after_product;
pub use gradient::{GradientLayer, GradientLayerP, GradientLayerQ};
pub use resnet::ResNetLayer;
pub use volume_preserving::{
    StrictlyTriangular, VolumePreservingLayer, VolumePreservingLowerLayer,
    VolumePreservingUpperLayer,
};

use nalgebra::{Dim, Matrix, RawStorage, RawStorageMut, RealField, SMatrix, SVector, U1};
use rand::Rng;

use crate::activation::Activation;
use crate::backward::ActivationDerivative;
use crate::error::Error;
#[cfg(doc)]
use crate::layer::{ColumnLayer, SequenceLayer};
use crate::packed::matrix_from_slice;
use crate::scalar::Field;
use crate::{init, product};

/// `u ← σ(u + b)` (no `+ b` without a bias) after the product `u = W x`, for every size
/// (nalgebra's [`Dim`]) and every column, with the caller's `σ` over the whole of `u`: [`Dense`]'s
/// map and the first steps of the residual update ([`residual_after_product`]) and the gradient
/// layers' shear. The one place these steps are written, for the compile-time layers and the
/// engine's.
#[inline(always)]
pub(crate) fn activated_after_product<S, R: Dim, C: Dim, SU, SB>(
    u: &mut Matrix<S, R, C, SU>,
    b: Option<&Matrix<S, R, U1, SB>>,
    activate: impl FnOnce(&mut Matrix<S, R, C, SU>),
) where
    S: Field,
    SU: RawStorageMut<S, R, C>,
    SB: RawStorage<S, R, U1>,
{
    if let Some(b) = b {
        product::update(
            u,
            #[inline(always)]
            |entry, i, _| entry + b[i],
        );
    }
    activate(u);
}

/// The residual update `x + σ(W x + b)` shared by the volume-preserving and ResNet layers.
#[cfg_attr(not(debug_assertions), inline(always))]
fn residual<S: Field, Act: Activation<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
) -> SVector<S, D> {
    residual_keeping::<S, Act, D>(w, x, b).0
}

/// The residual update `x + σ(W x + b)` and its activated part `σ(W x + b)`, which the backward
/// pass reuses instead of evaluating `σ` again ([`crate::backward`]).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn residual_keeping<S: Field, Act: Activation<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    b: Option<&SVector<S, D>>,
) -> (SVector<S, D>, SVector<S, D>) {
    let mut update = product::mul(w, x);
    let mut y = *x;
    residual_after_product(
        &mut update,
        b,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |u| *u = Act::apply_matrix(*u),
        &mut y,
    );
    (y, update)
}

/// The residual update `x ← x + σ(W x + b)` of the volume-preserving and ResNet layers after its
/// product `u = W x`, column by column, for every size (nalgebra's [`Dim`]): `u ← σ(u + b)`, then
/// `x ← x + u`. The one place these steps are written: the compile-time layers
/// ([`residual_keeping`]) and the run-time engine's (`engine::VolumePreservingLayer`,
/// `engine::ResNetLayer`) give it their product and their `σ` over the whole of `u`
/// (`Activation::apply_matrix`, `engine::Element::activate_all`).
#[inline(always)]
pub(crate) fn residual_after_product<S, D: Dim, C: Dim, SU, SB, SX>(
    u: &mut Matrix<S, D, C, SU>,
    b: Option<&Matrix<S, D, U1, SB>>,
    activate: impl FnOnce(&mut Matrix<S, D, C, SU>),
    x: &mut Matrix<S, D, C, SX>,
) where
    S: Field,
    SU: RawStorageMut<S, D, C>,
    SB: RawStorage<S, D, U1>,
    SX: RawStorageMut<S, D, C>,
{
    activated_after_product(u, b, activate);
    product::update(
        x,
        #[inline(always)]
        |entry, i, j| entry + u[(i, j)],
    );
}

/// The residual update's pullback, up to its parameters' gradient, for every size (nalgebra's
/// [`Dim`]): for `y = x + σ(u)`, `delta` holding the forward pass's `σ(u)` becomes
/// `δ = σ'(u) ⊙ ȳ` (`σ'` from `σ`'s value), and `bar` holding `ȳ` becomes `x̄ = ȳ + Wᵀ δ`, with
/// the caller's product `Wᵀ δ`, which is returned (for the engine to recycle). The one place
/// these steps are written: the compile-time layers' backward pass and the engine's give it
/// their product; `∂L/∂W = δ xᵀ` and `∂L/∂b = δ` are theirs to add, in their gradients' layouts.
#[inline(always)]
pub(crate) fn residual_pullback_in_place<S, D: Dim, C: Dim, SD, SB, SP>(
    delta: &mut Matrix<S, D, C, SD>,
    derivative_from_value: impl Fn(S) -> S,
    bar: &mut Matrix<S, D, C, SB>,
    transposed_product: impl FnOnce(&Matrix<S, D, C, SD>) -> Matrix<S, D, C, SP>,
) -> Matrix<S, D, C, SP>
where
    S: Field,
    SD: RawStorageMut<S, D, C>,
    SB: RawStorageMut<S, D, C>,
    SP: RawStorage<S, D, C>,
{
    product::update(
        delta,
        #[inline(always)]
        |value, i, j| derivative_from_value(value) * bar[(i, j)],
    );
    let back = transposed_product(delta);
    product::update(
        bar,
        #[inline(always)]
        |entry, i, j| entry + back[(i, j)],
    );
    back
}

/// An optional bias from an optional slice.
fn bias_from_slice<S: Field, const LEN: usize>(
    values: Option<&[S]>,
) -> Result<Option<SVector<S, LEN>>, Error> {
    values.map(|b| matrix_from_slice("bias", b)).transpose()
}

/// A vector of length `LEN` with GlorotUniform entries, U(−√(6/LEN), √(6/LEN)) (GML treats a
/// vector of length `LEN` as having `LEN` fans in total).
fn glorot_vector<S: RealField + Copy, const LEN: usize, R: Rng + ?Sized>(
    rng: &mut R,
) -> SVector<S, LEN> {
    let bound = init::glorot_bound::<S>(LEN);
    SVector::from_fn(|_, _| init::uniform(rng, bound))
}

/// The residual update's backward pass: for `y = x + σ(u)`, `u = W x + b`, given the forward
/// pass's `activated = σ(u)` and `s = σ'(u) ⊙ ȳ`: `x̄ = ȳ + Wᵀ s` (the steps of
/// [`residual_pullback_in_place`], the engine's too), `W̄ = s xᵀ`, `b̄ = s`. Returns `(x̄, W̄, s)`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn residual_pullback<S: Field, Act: ActivationDerivative<S>, const D: usize>(
    w: &SMatrix<S, D, D>,
    x: &SVector<S, D>,
    activated: &SVector<S, D>,
    y_bar: &SVector<S, D>,
) -> (SVector<S, D>, SMatrix<S, D, D>, SVector<S, D>) {
    let (mut s, mut x_bar) = (*activated, *y_bar);
    residual_pullback_in_place(
        &mut s,
        Act::derivative_from_value,
        &mut x_bar,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |s| product::tr_mul(w, s),
    );
    let w_bar = product::matrix(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |i, j| s[i] * x[j],
    );
    (x_bar, w_bar, s)
}

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, DVector, SMatrix, SVector};
    use num_rational::Ratio;

    use super::*;
    use crate::activation::{Identity, Tanh};

    type Q = Ratio<i64>;

    /// `x + σ(W x + b)` exactly (σ the identity), with and without a bias, against nalgebra's
    /// own products.
    fn exact<const D: usize>() {
        let w = SMatrix::<Q, D, D>::from_fn(|i, j| Q::new((i * D + j) as i64 % 7 - 3, 2));
        let x = SVector::<Q, D>::from_fn(|i, _| Q::new(i as i64 - 1, 3));
        let b = SVector::<Q, D>::from_fn(|i, _| Q::new(5 - i as i64, 4));
        let (y, update) = residual_keeping::<Q, Identity, D>(&w, &x, Some(&b));
        assert_eq!(update, w * x + b, "D = {D}");
        assert_eq!(y, x + w * x + b, "D = {D}");
        let (y, _) = residual_keeping::<Q, Identity, D>(&w, &x, None);
        assert_eq!(y, x + w * x, "D = {D}, no bias");
    }

    /// `δ = σ'(u) ⊙ ȳ` (here `σ' = 1 − σ²`, `tanh`'s from its value) and `x̄ = ȳ + Wᵀ δ`,
    /// exactly, at a compile-time size and the same values at a run-time one.
    #[test]
    fn the_residual_pullback_is_exact_in_rationals() {
        const D: usize = 4;
        let w = SMatrix::<Q, D, D>::from_fn(|i, j| Q::new((i * D + j) as i64 % 5 - 2, 3));
        let activated = SMatrix::<Q, D, 3>::from_fn(|i, t| Q::new((i + t) as i64 % 3 - 1, 2));
        let y_bar = SMatrix::<Q, D, 3>::from_fn(|i, t| Q::new(2 - (i * t) as i64 % 4, 5));
        let one = Q::from_integer(1);
        let delta_expected = activated.zip_map(&y_bar, |a, y| (one - a * a) * y);
        let x_bar_expected = y_bar + w.transpose() * delta_expected;
        let (mut delta, mut bar) = (activated, y_bar);
        let back = residual_pullback_in_place(
            &mut delta,
            |a| one - a * a,
            &mut bar,
            |d| w.transpose() * d,
        );
        assert_eq!(delta, delta_expected);
        assert_eq!(bar, x_bar_expected);
        assert_eq!(back, w.transpose() * delta_expected);
        let dynamic = |m: &SMatrix<Q, D, 3>| DMatrix::from_column_slice(D, 3, m.as_slice());
        let w_dyn = DMatrix::from_column_slice(D, D, w.as_slice());
        let (mut delta, mut bar) = (dynamic(&activated), dynamic(&y_bar));
        residual_pullback_in_place(
            &mut delta,
            |a| one - a * a,
            &mut bar,
            |d| w_dyn.transpose() * d,
        );
        assert_eq!(bar.as_slice(), x_bar_expected.as_slice());
    }

    /// The gradient layers' shears, `q ← q + Kᵀ(a ⊙ σ(K p + b))` and `p ← p + Kᵀ(a ⊙ σ(K q + b))`
    /// (σ the identity), exactly, at a compile-time size, and the same values from the kernel at
    /// a run-time one, a whole sequence at once.
    #[test]
    fn the_gradient_layers_shears_are_exact_in_rationals() {
        use crate::layer::ColumnLayer;
        const N: usize = 2;
        const HIDDEN: usize = 3;
        let k = SMatrix::<Q, HIDDEN, N>::from_fn(|i, j| Q::new((i * N + j) as i64 % 5 - 2, 3));
        let b = SVector::<Q, HIDDEN>::from_fn(|i, _| Q::new(i as i64 - 1, 2));
        let a = SVector::<Q, HIDDEN>::from_fn(|i, _| Q::new(3 - i as i64, 4));
        let columns: [SVector<Q, 4>; 3] = core::array::from_fn(|t| {
            SVector::from_fn(|i, _| Q::new((i + 2 * t) as i64 % 7 - 3, 5))
        });
        let q_layer = GradientLayerQ::<Q, N, HIDDEN, Identity>::new(k, b, a);
        let p_layer = GradientLayerP::<Q, N, HIDDEN, Identity>::new(k, b, a);
        for x in &columns {
            let (q, p) = (x.fixed_rows::<N>(0), x.fixed_rows::<N>(N));
            let shear_q = k.transpose() * (k * p + b).component_mul(&a);
            let shear_p = k.transpose() * (k * q + b).component_mul(&a);
            let y = q_layer.apply(x);
            assert_eq!(y.fixed_rows::<N>(0) - q, shear_q);
            assert_eq!(y.fixed_rows::<N>(N), p);
            let y = p_layer.apply(x);
            assert_eq!(y.fixed_rows::<N>(N) - p, shear_p);
            assert_eq!(y.fixed_rows::<N>(0), q);
        }
        let mut z = DMatrix::from_fn(2 * N, 3, |i, t| columns[t][i]);
        let k_dyn = DMatrix::from_column_slice(HIDDEN, N, k.as_slice());
        let mut hidden = &k_dyn * z.rows(N, N);
        let (b_dyn, a_dyn) = (
            DVector::from_column_slice(b.as_slice()),
            DVector::from_column_slice(a.as_slice()),
        );
        shear_after_product(
            &mut hidden,
            &b_dyn,
            &a_dyn,
            |_| {},
            |h| k_dyn.transpose() * h,
            (&mut z, 0),
        );
        for (t, x) in columns.iter().enumerate() {
            assert_eq!(
                z.column(t).as_slice(),
                q_layer.apply(x).as_slice(),
                "column {t}"
            );
        }
    }

    #[test]
    fn the_residual_update_is_exact_in_rationals() {
        exact::<1>();
        exact::<2>();
        exact::<3>();
        exact::<6>();
    }

    /// The compile-time layers' update and the same kernel on run-time sizes (a whole sequence
    /// at once, σ given over the whole matrix): the same bits, and nalgebra's own in `f64`.
    fn same_bits<const D: usize>() {
        let w = SMatrix::<f64, D, D>::from_fn(|i, j| ((i * D + j) as f64 * 0.57 + 0.2).sin());
        let b = SVector::<f64, D>::from_fn(|i, _| (i as f64 * 1.3).cos());
        let columns: [SVector<f64, D>; 5] = core::array::from_fn(|t| {
            SVector::from_fn(|i, _| ((i + 3 * t) as f64 * 0.9).sin() * 2.0)
        });
        let mut z = DMatrix::from_fn(D, 5, |i, t| columns[t][i]);
        let (w_dyn, b_dyn) = (
            DMatrix::from_column_slice(D, D, w.as_slice()),
            DVector::from_column_slice(b.as_slice()),
        );
        let mut update = &w_dyn * &z;
        residual_after_product(
            &mut update,
            Some(&b_dyn),
            |u| u.iter_mut().for_each(|v| *v = v.tanh()),
            &mut z,
        );
        for (t, x) in columns.iter().enumerate() {
            let (y, _) = residual_keeping::<f64, Tanh, D>(&w, x, Some(&b));
            assert_eq!(y.as_slice(), z.column(t).as_slice(), "D = {D}, column {t}");
            assert_eq!(y, x + (w * x + b).map(f64::tanh), "D = {D}, column {t}");
        }
    }

    #[test]
    fn at_run_time_sizes_the_residual_update_is_the_compiled_one_bit_for_bit() {
        same_bits::<1>();
        same_bits::<3>();
        same_bits::<5>();
        same_bits::<8>();
    }
}
