//! The Cayley kernels of the runtime: exact vectors of CONVENTIONS.md in rational arithmetic,
//! agreement between kernels, and orthogonality with determinant 1 over six decades of scale.

use geomattn::nalgebra::{Const, DMatrix, DimMin, SMatrix};
use geomattn::{Cayley, Elimination, LuSolve, NalgebraInverse, SkewSymmetric};
use geomattn_testkit::{Q, orthogonality_error, q, q_matrix, random_skew};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn skew_one_to<const N: usize>(len: usize, denominator: i128) -> SMatrix<Q, N, N> {
    let packed: Vec<Q> = (1..=len as i128).map(|k| q(k, denominator)).collect();
    *SkewSymmetric::<Q, N>::from_packed(&packed)
        .unwrap()
        .matrix()
}

#[test]
fn t2_vector_is_exact() {
    let c = q_matrix([[0, -1], [1, 0]], 2);
    let expected = q_matrix([[3, 4], [-4, 3]], 5);
    assert_eq!(<Elimination as Cayley<Q, 2>>::cayley(&c), expected);
}

#[test]
fn t4_vector_is_exact() {
    let c = skew_one_to::<4>(6, 3);
    let expected = q_matrix(
        [
            [229, -63, -255, 333],
            [-405, 103, -111, 213],
            [-123, -465, -23, -21],
            [-27, 39, -393, -275],
        ],
        482,
    );
    assert_eq!(<Elimination as Cayley<Q, 4>>::cayley(&c), expected);
}

/// CONVENTIONS.md gives T = 5 with mixed denominators; all divide 6222.
pub fn t5_expected() -> SMatrix<Q, 5, 5> {
    let rows = [
        [
            q(3367, 6222),
            q(-421, 2074),
            q(-881, 6222),
            q(-2857, 6222),
            q(684, 1037),
        ],
        [
            q(-4553, 6222),
            q(743, 2074),
            q(-263, 6222),
            q(-1771, 6222),
            q(522, 1037),
        ],
        [
            q(-2461, 6222),
            q(-1871, 2074),
            q(947, 6222),
            q(13, 6222),
            q(84, 1037),
        ],
        [
            q(-239, 2074),
            q(-267, 2074),
            q(-2009, 2074),
            q(-67, 2074),
            q(-182, 1037),
        ],
        [
            q(-46, 1037),
            q(-8, 1037),
            q(134, 1037),
            q(-872, 1037),
            q(-543, 1037),
        ],
    ];
    SMatrix::from_fn(|i, j| rows[i][j])
}

#[test]
fn t5_vector_is_exact() {
    let c = skew_one_to::<5>(10, 5);
    assert_eq!(<Elimination as Cayley<Q, 5>>::cayley(&c), t5_expected());
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
        <Elimination as Cayley<f64, 5>>::cayley(&garbage),
        <Elimination as Cayley<f64, 5>>::cayley(&c)
    );
    assert_eq!(
        <NalgebraInverse as Cayley<f64, 5>>::cayley(&garbage),
        <NalgebraInverse as Cayley<f64, 5>>::cayley(&c)
    );
    assert_eq!(
        <LuSolve as Cayley<f64, 5>>::cayley(&garbage),
        <LuSolve as Cayley<f64, 5>>::cayley(&c)
    );
}

fn check_kernels<const T: usize>(seed: u64, scale: f64) -> Result<(), TestCaseError>
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let c = random_skew::<T>(&mut rng, scale);
    let elimination = <Elimination as Cayley<f64, T>>::cayley(&c);
    let inverse = <NalgebraInverse as Cayley<f64, T>>::cayley(&c);
    let lu = <LuSolve as Cayley<f64, T>>::cayley(&c);
    // ‖(I + C)⁻¹‖₂ ≤ 1 and the condition number of I + C is at most 1 + ‖C‖, so the kernels
    // agree to a few ulp times that.
    let tolerance = 64.0 * f64::EPSILON * T as f64 * (1.0 + scale * T as f64);
    prop_assert!(
        orthogonality_error(&elimination) < tolerance,
        "elimination not orthogonal"
    );
    prop_assert!(
        orthogonality_error(&inverse) < tolerance,
        "try_inverse not orthogonal"
    );
    prop_assert!((elimination - inverse).amax() < tolerance);
    prop_assert!((elimination - lu).amax() < tolerance);
    let det = DMatrix::from_column_slice(T, T, elimination.as_slice()).determinant();
    prop_assert!((det - 1.0).abs() < tolerance * T as f64, "det ≠ 1");
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
