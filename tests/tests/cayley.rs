//! The Cayley kernels of the runtime: exact vectors of CONVENTIONS.md in rational arithmetic,
//! agreement between kernels, and orthogonality with determinant 1 over six decades of scale.

use geomattn::nalgebra::{Const, DMatrix, DimMin, SMatrix};
use geomattn::{
    Elimination, Generated, GramSchmidt, LuSolve, NalgebraInverse, OrthogonalMap, SkewSymmetric,
};
use geomattn_testkit::conventions::{CAYLEY_T2, CAYLEY_T4, CAYLEY_T5, CayleyVector};
use geomattn_testkit::{Q, orthogonality_error, q, random_matrix, random_skew};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

#[test]
fn t2_vector_is_exact() {
    let c = CAYLEY_T2.input_q();
    assert_eq!(
        <Elimination as OrthogonalMap<Q, 2>>::map(&c),
        CAYLEY_T2.expected_q()
    );
}

/// The vector's `C`, unpacked by the runtime (`SkewSymmetric::from_packed`) and checked against
/// the testkit's own unpacking of CONVENTIONS.md.
fn unpacked<const T: usize>(vector: &CayleyVector<T>) -> SMatrix<Q, T, T> {
    let c = *SkewSymmetric::<Q, T>::from_packed(&vector.packed_q())
        .unwrap()
        .matrix();
    assert_eq!(c, vector.input_q());
    c
}

#[test]
fn t4_vector_is_exact() {
    let c = unpacked(&CAYLEY_T4);
    assert_eq!(
        <Elimination as OrthogonalMap<Q, 4>>::map(&c),
        CAYLEY_T4.expected_q()
    );
}

#[test]
fn t5_vector_is_exact() {
    let c = unpacked(&CAYLEY_T5);
    assert_eq!(
        <Elimination as OrthogonalMap<Q, 5>>::map(&c),
        CAYLEY_T5.expected_q()
    );
}

/// A kernel reads only the strict upper triangle: garbage below the diagonal changes nothing.
#[test]
fn kernels_read_only_the_upper_triangle() {
    let mut rng = SmallRng::seed_from_u64(11);
    let c = random_skew::<5>(&mut rng, 1.0);
    let mut garbage = c;
    for i in 0..5 {
        for j in 0..=i {
            garbage[(i, j)] = 1e3 * (i + j) as f64 + 7.0;
        }
    }
    assert_eq!(
        <Elimination as OrthogonalMap<f64, 5>>::map(&garbage),
        <Elimination as OrthogonalMap<f64, 5>>::map(&c)
    );
    assert_eq!(
        <NalgebraInverse as OrthogonalMap<f64, 5>>::map(&garbage),
        <NalgebraInverse as OrthogonalMap<f64, 5>>::map(&c)
    );
    assert_eq!(
        <LuSolve as OrthogonalMap<f64, 5>>::map(&garbage),
        <LuSolve as OrthogonalMap<f64, 5>>::map(&c)
    );
}

/// `z·map(c)` by `multiply_to`, which kernels may override to multiply from their own columns.
fn product_by_multiply_to<
    M: OrthogonalMap<S, T>,
    S: geomattn::Field,
    const D: usize,
    const T: usize,
>(
    z: &SMatrix<S, D, T>,
    c: &SMatrix<S, T, T>,
) -> SMatrix<S, D, T> {
    let mut out = SMatrix::<S, D, T>::from_element(S::one());
    M::multiply_to(&z.as_view(), c, &mut out.as_view_mut());
    out
}

/// `multiply_to` is `z·map(c)` bit for bit, for every kernel, with garbage below the diagonal
/// of `c` (the overrides of `GramSchmidt` and `Generated` skip the `T×T` result).
fn multiply_to_is_the_product_with_map<const D: usize, const T: usize>(seed: u64)
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let z = random_matrix::<D, T>(&mut rng);
    let mut c = random_skew::<T>(&mut rng, 2.0);
    for i in 0..T {
        for j in 0..=i {
            c[(i, j)] = 1e3 * (i + j) as f64 + 7.0;
        }
    }
    fn check<M: OrthogonalMap<f64, T>, const D: usize, const T: usize>(
        z: &SMatrix<f64, D, T>,
        c: &SMatrix<f64, T, T>,
    ) {
        let expected = z * M::map(c);
        let got = product_by_multiply_to::<M, f64, D, T>(z, c);
        let bits = |m: &SMatrix<f64, D, T>| m.map(f64::to_bits);
        assert_eq!(
            bits(&got),
            bits(&expected),
            "{} at D = {D}, T = {T}",
            M::NAME
        );
    }
    check::<Generated, D, T>(&z, &c);
    check::<GramSchmidt, D, T>(&z, &c);
    check::<Elimination, D, T>(&z, &c);
    check::<NalgebraInverse, D, T>(&z, &c);
    check::<LuSolve, D, T>(&z, &c);
}

#[test]
fn multiply_to_equals_the_product_with_the_map_bit_for_bit() {
    for seed in 0..20 {
        multiply_to_is_the_product_with_map::<3, 1>(seed);
        multiply_to_is_the_product_with_map::<3, 2>(seed);
        multiply_to_is_the_product_with_map::<2, 3>(seed);
        multiply_to_is_the_product_with_map::<4, 4>(seed);
        multiply_to_is_the_product_with_map::<5, 5>(seed);
        multiply_to_is_the_product_with_map::<3, 6>(seed);
        multiply_to_is_the_product_with_map::<8, 8>(seed);
        multiply_to_is_the_product_with_map::<2, 9>(seed);
    }
}

/// In rationals `multiply_to` is exactly `z·Cay(C)`: CONVENTIONS.md's `T = 5` vector through
/// the overriding kernels, against the exact product.
#[test]
fn multiply_to_is_exact_in_rationals() {
    let c = unpacked(&CAYLEY_T5);
    let z = SMatrix::<Q, 2, 5>::from_fn(|i, j| q((3 * i + j) as i128 - 4, 1 + (i + 2 * j) as i128));
    let expected = z * CAYLEY_T5.expected_q();
    assert_eq!(
        product_by_multiply_to::<GramSchmidt, Q, 2, 5>(&z, &c),
        expected
    );
    assert_eq!(
        product_by_multiply_to::<Generated, Q, 2, 5>(&z, &c),
        expected
    );
    assert_eq!(
        product_by_multiply_to::<Elimination, Q, 2, 5>(&z, &c),
        expected
    );
}

fn check_kernels<const T: usize>(seed: u64, scale: f64) -> Result<(), TestCaseError>
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let c = random_skew::<T>(&mut rng, scale);
    let elimination = <Elimination as OrthogonalMap<f64, T>>::map(&c);
    let gram_schmidt = <GramSchmidt as OrthogonalMap<f64, T>>::map(&c);
    let inverse = <NalgebraInverse as OrthogonalMap<f64, T>>::map(&c);
    let lu = <LuSolve as OrthogonalMap<f64, T>>::map(&c);
    // ‖(I + C)⁻¹‖₂ ≤ 1 and the condition number of I + C is at most 1 + ‖C‖, so the stable
    // kernels (LU, Gram–Schmidt) agree to a few ulp times that. Pivot-free elimination has a
    // growth factor up to 1 + ‖C‖² (the symmetric part of I + C is I), so its error grows with
    // the square: the bound it has always been held to was too tight at large ‖C‖, and failed on
    // a seed proptest found (kept in cayley.proptest-regressions).
    let tolerance = 64.0 * f64::EPSILON * T as f64 * (1.0 + scale * T as f64);
    let pivot_free = 64.0 * f64::EPSILON * T as f64 * (1.0 + scale * T as f64).powi(2);
    prop_assert!(
        orthogonality_error(&gram_schmidt) < tolerance,
        "Gram–Schmidt not orthogonal"
    );
    prop_assert!(
        orthogonality_error(&inverse) < tolerance,
        "try_inverse not orthogonal"
    );
    prop_assert!(
        orthogonality_error(&elimination) < pivot_free,
        "elimination not orthogonal"
    );
    prop_assert!((gram_schmidt - lu).amax() < tolerance);
    prop_assert!((gram_schmidt - inverse).amax() < tolerance);
    prop_assert!((elimination - lu).amax() < pivot_free);
    for (name, q) in [("Gram–Schmidt", gram_schmidt), ("elimination", elimination)] {
        let det = DMatrix::from_column_slice(T, T, q.as_slice()).determinant();
        prop_assert!(
            (det - 1.0).abs() < pivot_free * T as f64,
            "det ≠ 1 ({})",
            name
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn cayley_is_orthogonal_with_unit_determinant(seed in any::<u64>(), decade in -3.0..3.0_f64) {
        let scale = 10f64.powf(decade);
        check_kernels::<1>(seed, scale)?;
        check_kernels::<2>(seed, scale)?;
        check_kernels::<3>(seed, scale)?;
        check_kernels::<4>(seed, scale)?;
        check_kernels::<5>(seed, scale)?;
        check_kernels::<6>(seed, scale)?;
        check_kernels::<8>(seed, scale)?;
        check_kernels::<12>(seed, scale)?;
    }
}
