//! The older orthonormal attention: `σ(C)` orthogonal (Cayley) and special orthogonal (exp) over
//! six decades of scale, the exponential's closed forms against scaling and squaring and against
//! a long Taylor series, a rotation by a known angle, and the layer against an independent
//! computation in exact arithmetic.

use geomattn::SequenceLayer;
use geomattn::nalgebra::{Const, DimMin, Matrix2, SMatrix};
use geomattn::{DefaultCayley, Exp, OrthogonalMap, OrthonormalAttention, ScalingSquaring};
use geomattn_testkit::conventions::CAYLEY_T2;
use geomattn_testkit::{Q, orthogonality_error, q, q_matrix, random_matrix, random_skew};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn det<const T: usize>(m: &SMatrix<f64, T, T>) -> f64
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    m.determinant()
}

/// `Σ_{k<terms} A^k/k!` after halving `A` until `‖A‖_max ≤ 1/8`, then squaring: an independent
/// reference for `exp`.
fn taylor_exp<const T: usize>(c: &SMatrix<f64, T, T>) -> SMatrix<f64, T, T> {
    let mut a = *c;
    let mut squarings = 0;
    while a.amax() > 0.125 {
        a /= 2.0;
        squarings += 1;
    }
    let mut term = SMatrix::<f64, T, T>::identity();
    let mut sum = term;
    for k in 1..30 {
        term = term * a / k as f64;
        sum += term;
    }
    for _ in 0..squarings {
        sum = sum * sum;
    }
    sum
}

fn check_maps<const T: usize>(c: &SMatrix<f64, T, T>, scale: f64) -> Result<(), TestCaseError>
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let cayley = <DefaultCayley as OrthogonalMap<f64, T>>::map(c);
    let exp = <Exp as OrthogonalMap<f64, T>>::map(c);
    let pade = <ScalingSquaring as OrthogonalMap<f64, T>>::map(c);
    // Rounding grows with the conditioning of I + C (Cayley) and with the number of squarings
    // (exp): a few ulp times T(1 + T‖C‖), as in the Cayley kernel tests. At scale ≤ 1 this is
    // below 1e-13.
    let tolerance = 64.0 * f64::EPSILON * T as f64 * (1.0 + scale * T as f64);
    for (name, q) in [("Cayley", &cayley), ("exp", &exp), ("Padé", &pade)] {
        let error = orthogonality_error(q);
        prop_assert!(error < tolerance, "{name}: ‖QᵀQ − I‖ = {error}");
        let det = det(q);
        prop_assert!(
            (det - 1.0).abs() < tolerance * T as f64,
            "{name}: det = {det}"
        );
    }
    // Closed forms against scaling and squaring.
    prop_assert!((exp - pade).amax() < tolerance, "{}", (exp - pade).amax());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn orthogonal_with_determinant_one(seed in any::<u64>(), log_scale in -3.0_f64..3.0) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let scale = 10f64.powf(log_scale);
        check_maps(&random_skew::<2>(&mut rng, scale), scale)?;
        check_maps(&random_skew::<3>(&mut rng, scale), scale)?;
        check_maps(&random_skew::<4>(&mut rng, scale), scale)?;
        check_maps(&random_skew::<5>(&mut rng, scale), scale)?;
        check_maps(&random_skew::<8>(&mut rng, scale), scale)?;
    }

    #[test]
    fn exp_matches_a_long_taylor_series(seed in any::<u64>(), log_scale in -3.0_f64..1.0) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let scale = 10f64.powf(log_scale);
        let c3 = random_skew::<3>(&mut rng, scale);
        let c6 = random_skew::<6>(&mut rng, scale);
        let e3 = <Exp as OrthogonalMap<f64, 3>>::map(&c3);
        let e6 = <Exp as OrthogonalMap<f64, 6>>::map(&c6);
        prop_assert!((e3 - taylor_exp(&c3)).amax() < 1e-13);
        prop_assert!((e6 - taylor_exp(&c6)).amax() < 1e-13);
    }
}

#[test]
fn exp_is_a_rotation_by_a_known_angle() {
    // θ = atan(4/3): cos θ = 3/5, sin θ = 4/5, the same matrix as CONVENTIONS.md's T = 2 Cayley
    // vector.
    let theta = 4.0_f64.atan2(3.0);
    let c = Matrix2::new(0.0, theta, -theta, 0.0);
    let expected = Matrix2::new(3.0, 4.0, -4.0, 3.0) / 5.0;
    let exp = <Exp as OrthogonalMap<f64, 2>>::map(&c);
    let pade = <ScalingSquaring as OrthogonalMap<f64, 2>>::map(&c);
    assert!((exp - expected).amax() < 2e-16);
    assert!((pade - expected).amax() < 1e-15);
    let cayley = <DefaultCayley as OrthogonalMap<Q, 2>>::map(&CAYLEY_T2.input_q());
    assert_eq!(cayley, CAYLEY_T2.expected_q());
}

#[test]
fn rodrigues_about_a_coordinate_axis_and_near_zero() {
    // Only c₁₂ = θ: a rotation in the (1, 2) plane, the third axis fixed.
    let theta = 0.7_f64;
    let mut c = SMatrix::<f64, 3, 3>::zeros();
    c[(0, 1)] = theta;
    c[(1, 0)] = -theta;
    let exp = <Exp as OrthogonalMap<f64, 3>>::map(&c);
    let mut expected = SMatrix::<f64, 3, 3>::identity();
    expected[(0, 0)] = theta.cos();
    expected[(1, 1)] = theta.cos();
    expected[(0, 1)] = theta.sin();
    expected[(1, 0)] = -theta.sin();
    assert!((exp - expected).amax() < 1e-15);
    // Tiny angles: no cancellation in (1 − cos θ)/θ².
    let mut rng = SmallRng::seed_from_u64(5);
    for scale in [1e-12, 1e-8, 1e-5, 1e-3] {
        let c = random_skew::<3>(&mut rng, scale);
        let exp = <Exp as OrthogonalMap<f64, 3>>::map(&c);
        let second_order = SMatrix::<f64, 3, 3>::identity() + c + c * c / 2.0;
        assert!((exp - second_order).amax() < 1e-15 + scale.powi(3));
    }
}

#[test]
fn layer_matches_an_independent_exact_computation() {
    // D = 2, T = 3 in exact arithmetic, with the scale 1/2 standing in for 1/√D.
    let pq = q_matrix([[1, 2], [0, -1]], 1);
    let pk = q_matrix([[1, 0], [1, 1]], 1);
    let z = q_matrix([[1, 0, 2], [1, 1, -1]], 1);
    let scale = q(1, 2);
    for add_connection in [false, true] {
        let layer =
            OrthonormalAttention::<Q, 2, DefaultCayley>::with_scale(pq, pk, scale, add_connection);
        // C = (PQᵀZ)ᵀ(PKᵀZ)·scale with loops, then upper_triangular_asymmetrize.
        let mut full = SMatrix::<Q, 3, 3>::zeros();
        for i in 0..3 {
            for j in 0..3 {
                for r in 0..2 {
                    let qi: Q = (0..2).map(|a| pq[(a, r)] * z[(a, i)]).sum();
                    let kj: Q = (0..2).map(|a| pk[(a, r)] * z[(a, j)]).sum();
                    full[(i, j)] += qi * kj * scale;
                }
            }
        }
        let asym = SMatrix::<Q, 3, 3>::from_fn(|i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => full[(i, j)],
            core::cmp::Ordering::Greater => -full[(j, i)],
            core::cmp::Ordering::Equal => q(0, 1),
        });
        assert_eq!(layer.correlation(&z.as_view()), asym);
        // out = Z Cay(C) (+ Z) ⇔ (out − Z·[add]) (I + C) = Z (I − C).
        let identity = SMatrix::<Q, 3, 3>::identity();
        let mut out = layer.forward(&z);
        if add_connection {
            out -= z;
        }
        assert_eq!(out * (identity + asym), z * (identity - asym));
    }
}

#[test]
fn exp_layer_keeps_row_norms_and_adds_the_connection() {
    let mut rng = SmallRng::seed_from_u64(9);
    let layer = OrthonormalAttention::<f64, 4, Exp>::glorot(&mut rng, false);
    let with_connection = OrthonormalAttention::<f64, 4, Exp>::new(*layer.pq(), *layer.pk(), true);
    let z: SMatrix<f64, 4, 6> = random_matrix::<4, 6>(&mut rng) * 2.0;
    let out = layer.forward(&z);
    let expected = z * taylor_exp(&layer.correlation(&z.as_view()));
    assert!((out - expected).amax() < 1e-13);
    for i in 0..4 {
        assert!((out.row(i).norm() - z.row(i).norm()).abs() < 1e-13);
    }
    assert!((with_connection.forward(&z) - (out + z)).amax() < 1e-15);
    // The correlation really is asymmetrised: skew, and not zero.
    let c = layer.correlation(&z.as_view());
    assert!((c + c.transpose()).amax() == 0.0 && c.amax() > 0.0);
}
