//! The backward passes against forward-mode dual numbers: `∂L/∂Z` and `∂L/∂θ` for
//! `L = ⟨Ō, layer(Z)⟩`, one dual pass per input entry and per parameter.
//!
//! - Exactly, in rationals: the backward pass over [`Q`] equals the derivative carried by
//!   [`ExactDual`] through the same forward pass, entry for entry.
//! - In f64 against `num-dual`, for random sequences, weights and cotangents: within 1e-12
//!   relative (to the largest entry) at unit amplitude; the sweep prints how that grows with the
//!   amplitude of the sequence, and the test holds each amplitude to its measured edge.
//!
//! The phase-space layers and architectures are checked in [`symplectic`].

mod symplectic;

use geomattn::nalgebra::SMatrix;
use geomattn::{
    ActivationDerivative, ArbitraryVpa, ArbitraryWeight, Backward, Elimination, Field, Generated,
    GramSchmidt, Identity, Lower, LuSolve, MapScalar, OrthogonalMap, ResNetLayer, SequenceLayer,
    SkewSymmetric, SkewVpa, SkewWeight, StrictlyTriangular, Tanh, Upper,
    VolumePreservingFeedForward, VolumePreservingLayer, VolumePreservingTransformer,
};
use geomattn_testkit::backward_check::{
    Comparison, DualOver, centred_params, compare, input_gradient, network_case, relative_error,
    show, worst_of,
};
use geomattn_testkit::exact_dual::ExactDual;
use geomattn_testkit::{Q, q, random_matrix, unit};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The skew weighting with `Map`: its packed weight `params`.
fn skew_case<S, Dl, Map, const D: usize, const T: usize>(
    params: &[S],
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Comparison<S>
where
    S: Field,
    Dl: DualOver<S>,
    SkewVpa<S, D, T, Map>: Backward<S, D, T, Gradient = SkewVpa<S, D, T, Map>>,
    Map: OrthogonalMap<Dl, T>,
{
    compare(
        &SkewVpa::<S, D, T, Map>::skew_sym(SkewSymmetric::from_packed(params).unwrap()),
        params,
        |p: &[Dl]| SkewVpa::<Dl, D, T, Map>::skew_sym(SkewSymmetric::from_packed(p).unwrap()),
        |g| {
            let mut packed = vec![S::zero(); params.len()];
            g.weight().a().write_packed(&mut packed).unwrap();
            packed
        },
        z,
        out_bar,
    )
}

/// GML's default weighting with `Map` and the factor `scale`: its weight `a`.
fn arbitrary_case<S, Dl, Map, const D: usize, const T: usize>(
    a: &SMatrix<S, D, D>,
    scale: S,
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
    lift: impl Fn(S) -> Dl,
) -> Comparison<S>
where
    S: Field,
    Dl: DualOver<S>,
    ArbitraryVpa<S, D, T, Map>: Backward<S, D, T, Gradient = ArbitraryVpa<S, D, T, Map>>,
    Map: OrthogonalMap<Dl, T>,
{
    let scale_dual = lift(scale);
    compare(
        &ArbitraryVpa::<S, D, T, Map>::arbitrary_with_scale(*a, scale),
        a.as_slice(),
        |p: &[Dl]| {
            ArbitraryVpa::<Dl, D, T, Map>::arbitrary_with_scale(
                SMatrix::from_column_slice(p),
                scale_dual,
            )
        },
        |g| g.weight().a().as_slice().to_vec(),
        z,
        out_bar,
    )
}

/// A residual layer `x + σ(W x + b)` (volume-preserving or ResNet): parameters the weight's
/// entries (as `weight_of` lists them) then the bias; `make` builds it from that list.
fn residual_case<S, Dl, L, Ld, const D: usize, const T: usize>(
    params: &[S],
    make: impl Fn(&[S]) -> L,
    make_dual: impl Fn(&[Dl]) -> Ld,
    flatten: impl Fn(&L) -> Vec<S>,
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> Comparison<S>
where
    S: Field,
    Dl: DualOver<S>,
    L: Backward<S, D, T, Gradient = L>,
    Ld: SequenceLayer<Dl, D, T>,
{
    compare(&make(params), params, make_dual, flatten, z, out_bar)
}

// ---- exact ----------------------------------------------------------------------------------

/// Small rationals with varied signs and denominators, reproducible.
fn rationals<const R: usize, const C: usize>(offset: i128) -> SMatrix<Q, R, C> {
    SMatrix::from_fn(|i, j| {
        let k = (i + R * j) as i128 + offset;
        q((k * 7 % 11) - 5, 1 + k % 3)
    })
}

/// Integers in {−1, 0, 1}, reproducible.
fn small_integers<const R: usize, const C: usize>(offset: i128) -> SMatrix<Q, R, C> {
    SMatrix::from_fn(|i, j| q(((i + 2 * j) as i128 + offset) % 3 - 1, 1))
}

fn assert_exact<S: Field + std::fmt::Debug>(case: Comparison<S>) {
    let Comparison {
        input: (z_found, z_expected),
        weight: (w_found, w_expected),
    } = case;
    assert_eq!(z_found, z_expected, "∂L/∂Z");
    assert_eq!(w_found, w_expected, "∂L/∂A");
    assert!(
        z_expected.iter().any(|x| *x != S::zero()),
        "a zero reference tests nothing"
    );
    assert!(
        w_expected.iter().any(|x| *x != S::zero()),
        "a zero reference tests nothing"
    );
}

#[test]
fn skew_vpa_gradients_are_exact_in_rationals() {
    let params = [q(1, 2), q(-1, 3), q(2, 5)];
    assert_exact(skew_case::<_, ExactDual, Generated, 3, 3>(
        &params,
        &rationals(0),
        &rationals(3),
    ));
    assert_exact(skew_case::<_, ExactDual, Generated, 3, 4>(
        &params,
        &rationals(1),
        &rationals(5),
    ));
    assert_exact(skew_case::<_, ExactDual, GramSchmidt, 2, 5>(
        &[q(3, 4)],
        &rationals(2),
        &rationals(7),
    ));
    assert_exact(skew_case::<_, ExactDual, Elimination, 3, 5>(
        &params,
        &rationals(4),
        &rationals(1),
    ));
}

#[test]
fn arbitrary_vpa_gradients_are_exact_in_rationals() {
    // An exact factor in place of 1/√D (rational only for square D): the formula is the same.
    assert_exact(arbitrary_case::<_, _, Generated, 3, 3>(
        &rationals(6),
        q(1, 2),
        &rationals(0),
        &rationals(3),
        ExactDual::constant,
    ));
    assert_exact(arbitrary_case::<_, _, Generated, 2, 4>(
        &rationals(2),
        q(1, 3),
        &rationals(1),
        &rationals(4),
        ExactDual::constant,
    ));
    // Small integers: the Gram–Schmidt loop's dual pass outgrows `Ratio<i128>` on the
    // fractions above.
    assert_exact(arbitrary_case::<_, _, GramSchmidt, 2, 5>(
        &small_integers(1),
        q(1, 2),
        &small_integers(0),
        &small_integers(2),
        ExactDual::constant,
    ));
}

// ---- f64 ------------------------------------------------------------------------------------

/// The worst relative error of the skew weighting with `Map` over eight random draws.
fn skew_f64<Map, const D: usize, const T: usize>(seed: u64, amplitude: f64) -> f64
where
    SkewVpa<f64, D, T, Map>: Backward<f64, D, T, Gradient = SkewVpa<f64, D, T, Map>>,
    Map: OrthogonalMap<Dual64, T>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..8)
        .map(|_| {
            let params: Vec<f64> = (0..D * (D - 1) / 2)
                .map(|_| 2.0 * unit(&mut rng) - 1.0)
                .collect();
            let z = random_matrix::<D, T>(&mut rng) * amplitude;
            let out_bar = random_matrix::<D, T>(&mut rng);
            worst_of(skew_case::<_, Dual64, Map, D, T>(&params, &z, &out_bar))
        })
        .fold(0.0, f64::max)
}

/// The worst relative error of GML's default weighting (factor 1/√D) with `Map`.
fn arbitrary_f64<Map, const D: usize, const T: usize>(seed: u64, amplitude: f64) -> f64
where
    ArbitraryVpa<f64, D, T, Map>: Backward<f64, D, T, Gradient = ArbitraryVpa<f64, D, T, Map>>,
    Map: OrthogonalMap<Dual64, T>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    #[allow(clippy::cast_precision_loss)]
    let scale = 1.0 / (D as f64).sqrt();
    (0..8)
        .map(|_| {
            let a = random_matrix::<D, D>(&mut rng);
            let z = random_matrix::<D, T>(&mut rng) * amplitude;
            let out_bar = random_matrix::<D, T>(&mut rng);
            worst_of(arbitrary_case::<_, _, Map, D, T>(
                &a,
                scale,
                &z,
                &out_bar,
                Dual64::from_re,
            ))
        })
        .fold(0.0, f64::max)
}

#[test]
fn f64_gradients_match_dual_numbers_for_every_cayley_kernel() {
    let errors = [
        skew_f64::<Generated, 3, 3>(1, 1.0),
        skew_f64::<Generated, 3, 4>(2, 1.0),
        skew_f64::<Generated, 4, 5>(3, 1.0),
        skew_f64::<Generated, 3, 8>(4, 1.0),
        skew_f64::<GramSchmidt, 3, 6>(5, 1.0),
        skew_f64::<Elimination, 2, 5>(6, 1.0),
        skew_f64::<LuSolve, 5, 5>(7, 1.0),
        arbitrary_f64::<Generated, 3, 3>(11, 1.0),
        arbitrary_f64::<Generated, 3, 4>(12, 1.0),
        arbitrary_f64::<Generated, 2, 7>(13, 1.0),
        arbitrary_f64::<Generated, 3, 8>(14, 1.0),
        arbitrary_f64::<GramSchmidt, 4, 6>(15, 1.0),
        arbitrary_f64::<Elimination, 3, 5>(16, 1.0),
        arbitrary_f64::<LuSolve, 5, 5>(17, 1.0),
    ];
    assert!(errors.iter().all(|e| *e < 1e-12), "{}", show(&errors));
}

/// Large amplitudes: `‖C‖` grows like `|z|²`, and the backward pass, which forms `Λ + I` from the
/// kernel's `Λ`, loses relative accuracy in `Λ + I = 2(I + C)⁻¹` where it is small (about
/// `ε‖C‖²` for the Gram–Schmidt kernel at `T ≥ 5`; the closed forms at `T ≤ 4` keep it). Each
/// amplitude is held to its measured edge (about 3× the worst seen).
#[test]
fn amplitude_sweep_states_the_edge() {
    for (amplitude, edge_closed, edge_loop) in [
        (1.0, 1e-14, 1e-14),
        (10.0, 1e-13, 5e-11),
        (100.0, 2e-11, 2e-7),
        (300.0, 1e-10, 1e-4),
    ] {
        let closed = [
            skew_f64::<Generated, 3, 3>(41, amplitude),
            skew_f64::<Generated, 3, 4>(42, amplitude),
            arbitrary_f64::<Generated, 3, 3>(45, amplitude),
            arbitrary_f64::<Generated, 3, 4>(46, amplitude),
        ];
        let looped = [
            skew_f64::<Generated, 3, 5>(43, amplitude),
            skew_f64::<Generated, 3, 8>(44, amplitude),
            arbitrary_f64::<Generated, 3, 5>(47, amplitude),
            arbitrary_f64::<Generated, 3, 8>(48, amplitude),
        ];
        println!(
            "amplitude {amplitude}: T ≤ 4 {}, T ≥ 5 {}",
            show(&closed),
            show(&looped)
        );
        assert!(
            closed.iter().all(|e| *e < edge_closed),
            "{amplitude}: {}",
            show(&closed)
        );
        assert!(
            looped.iter().all(|e| *e < edge_loop),
            "{amplitude}: {}",
            show(&looped)
        );
    }
}

/// The check can fail: `Ō Λᵀ` alone (the correlation's share left out) is caught.
#[test]
fn the_dual_number_check_detects_a_missing_term() {
    let mut rng = SmallRng::seed_from_u64(21);
    let layer =
        SkewVpa::<f64, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[0.4, -0.7, 0.2]).unwrap());
    let z = random_matrix::<3, 4>(&mut rng);
    let out_bar = random_matrix::<3, 4>(&mut rng);
    let lambda = <Generated as OrthogonalMap<f64, 4>>::map(&layer.correlation(&z));
    let partial = out_bar * lambda.transpose();
    let expected = input_gradient(&layer.map_scalar(Dual64::from_re), &z, &out_bar);
    assert!(relative_error(partial.as_slice(), &expected) > 1e-3);
}

/// Gradients of a batch add up: two backward passes into one accumulator give the sum.
#[test]
fn gradients_accumulate_over_a_batch() {
    let mut rng = SmallRng::seed_from_u64(31);
    let layer = ArbitraryVpa::<f64, 3, 5>::arbitrary(random_matrix(&mut rng));
    let (z1, z2) = (
        random_matrix::<3, 5>(&mut rng),
        random_matrix::<3, 5>(&mut rng),
    );
    let (o1, o2) = (
        random_matrix::<3, 5>(&mut rng),
        random_matrix::<3, 5>(&mut rng),
    );
    let mut both = layer.zero_gradient();
    layer.backward(&z1, &o1, &mut both);
    layer.backward(&z2, &o2, &mut both);
    let (mut first, mut second) = (layer.zero_gradient(), layer.zero_gradient());
    layer.backward(&z1, &o1, &mut first);
    layer.backward(&z2, &o2, &mut second);
    let [both, first, second] = [both, first, second].map(|g| *g.weight().a());
    assert!(first.amax() > 0.0 && second.amax() > 0.0);
    assert!((both - (first + second)).amax() <= 1e-15 * both.amax());
}

// ---- the residual layers: volume-preserving feed-forward and ResNet --------------------------

/// The packed weight, then the bias (if any): the parameter list of a residual layer.
fn vp_parameters<S: Field, Layout: StrictlyTriangular, Act, const D: usize>(
    layer: &VolumePreservingLayer<S, D, Layout, Act>,
) -> Vec<S> {
    let mut params = vec![S::zero(); D * (D - 1) / 2];
    layer.weight().write_packed(&mut params).unwrap();
    params.extend(layer.bias().into_iter().flat_map(|b| b.iter().copied()));
    params
}

/// A volume-preserving layer from [`vp_parameters`]' list.
fn vp_layer<S: Field, Layout: StrictlyTriangular, Act, const D: usize>(
    params: &[S],
) -> VolumePreservingLayer<S, D, Layout, Act> {
    let (weight, bias) = params.split_at(D * (D - 1) / 2);
    VolumePreservingLayer::from_slices(weight, (!bias.is_empty()).then_some(bias)).unwrap()
}

/// The weight (column-major), then the bias (if any).
fn resnet_parameters<S: Field, Act, const D: usize>(layer: &ResNetLayer<S, D, Act>) -> Vec<S> {
    let mut params = layer.weight().as_slice().to_vec();
    params.extend(layer.bias().into_iter().flat_map(|b| b.iter().copied()));
    params
}

fn resnet_layer<S: Field, Act, const D: usize>(params: &[S]) -> ResNetLayer<S, D, Act> {
    let (weight, bias) = params.split_at(D * D);
    ResNetLayer::from_slices(weight, (!bias.is_empty()).then_some(bias)).unwrap()
}

/// Every residual layer kind on one sequence: lower with bias, upper without, ResNet with bias.
fn residual_cases<S, Dl, Act, const D: usize, const T: usize>(
    params: &[S],
    z: &SMatrix<S, D, T>,
    out_bar: &SMatrix<S, D, T>,
) -> [Comparison<S>; 3]
where
    S: Field,
    Dl: DualOver<S>,
    Act: ActivationDerivative<S> + ActivationDerivative<Dl>,
{
    let packed = D * (D - 1) / 2;
    [
        residual_case(
            &params[..packed + D],
            vp_layer::<S, Lower, Act, D>,
            vp_layer::<Dl, Lower, Act, D>,
            vp_parameters,
            z,
            out_bar,
        ),
        residual_case(
            &params[..packed],
            vp_layer::<S, Upper, Act, D>,
            vp_layer::<Dl, Upper, Act, D>,
            vp_parameters,
            z,
            out_bar,
        ),
        residual_case(
            &params[..D * D + D],
            resnet_layer::<S, Act, D>,
            resnet_layer::<Dl, Act, D>,
            resnet_parameters,
            z,
            out_bar,
        ),
    ]
}

#[test]
fn residual_layer_gradients_are_exact_in_rationals() {
    // The identity activation keeps them rational (tanh is checked in f64 below).
    let params: SMatrix<Q, 12, 1> = rationals(3);
    for case in residual_cases::<Q, ExactDual, Identity, 3, 4>(
        params.as_slice(),
        &rationals(0),
        &rationals(5),
    ) {
        assert_exact(case);
    }
}

#[test]
fn residual_layer_gradients_match_dual_numbers_with_tanh() {
    let mut rng = SmallRng::seed_from_u64(61);
    for amplitude in [1.0, 10.0] {
        let params = random_matrix::<20, 1>(&mut rng);
        let z = random_matrix::<4, 5>(&mut rng) * amplitude;
        let out_bar = random_matrix::<4, 5>(&mut rng);
        let errors = residual_cases::<f64, Dual64, Tanh, 4, 5>(params.as_slice(), &z, &out_bar)
            .map(worst_of);
        assert!(
            errors.iter().all(|e| *e < 1e-13),
            "{amplitude}: {}",
            show(&errors)
        );
    }
}

// ---- architectures ---------------------------------------------------------------------------

/// GML's rigid-body VPT shape (dim 3, seq 3, n_blocks 2, n_linear 1, L 3, tanh), both weightings.
#[test]
fn vpt_gradients_match_dual_numbers() {
    type Vpt<S, Corr> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh, Corr>;
    let mut rng = SmallRng::seed_from_u64(71);
    for amplitude in [1.0, 3.0] {
        let z = random_matrix::<3, 3>(&mut rng) * amplitude;
        let out_bar = random_matrix::<3, 3>(&mut rng);

        let params = centred_params::<Vpt<f64, ArbitraryWeight<f64, 3>>>(&mut rng);
        let error = worst_of(network_case::<
            Vpt<f64, ArbitraryWeight<f64, 3>>,
            Vpt<Dual64, ArbitraryWeight<Dual64, 3>>,
            3,
            3,
        >(&params, &z, &out_bar));
        assert!(
            error < 1e-12,
            "skew_sym = false, amplitude {amplitude}: {error:e}"
        );

        let params = centred_params::<Vpt<f64, SkewWeight<f64, 3>>>(&mut rng);
        let error = worst_of(network_case::<
            Vpt<f64, SkewWeight<f64, 3>>,
            Vpt<Dual64, SkewWeight<Dual64, 3>>,
            3,
            3,
        >(&params, &z, &out_bar));
        assert!(
            error < 1e-12,
            "skew_sym = true, amplitude {amplitude}: {error:e}"
        );
    }
}

/// The volume-preserving feed-forward network alone (GML's `VolumePreservingFeedForward`), a
/// longer window: every layer of every block gets its gradient.
#[test]
fn vpff_network_gradients_match_dual_numbers() {
    type Vpff<S> = VolumePreservingFeedForward<S, 4, 3, 2, Tanh>;
    let mut rng = SmallRng::seed_from_u64(81);
    let params = centred_params::<Vpff<f64>>(&mut rng);
    let z = random_matrix::<4, 6>(&mut rng);
    let out_bar = random_matrix::<4, 6>(&mut rng);
    let case = network_case::<Vpff<f64>, Vpff<Dual64>, 4, 6>(&params, &z, &out_bar);
    assert!(
        case.weight.0.iter().all(|g| *g != 0.0),
        "every parameter has a gradient"
    );
    let error = worst_of(case);
    assert!(error < 1e-12, "{error:e}");
}
