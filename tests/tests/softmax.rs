//! The softmaxes: finite for huge inputs, normalised, invariant under shifts, and equal to the
//! textbook formula computed independently (unshifted, in `f64`) where that formula is finite.

use geomattn::nalgebra::{SMatrix, Vector3};
use geomattn::{MatrixSoftmax, OneMatrixSoftmax, OneVectorSoftmax, Softmax, VectorSoftmax};
use proptest::prelude::*;

type C34 = SMatrix<f32, 3, 4>;

fn matrix_strategy(range: f32) -> impl Strategy<Value = C34> {
    proptest::collection::vec(-range..=range, 12).prop_map(|v| C34::from_column_slice(&v))
}

/// The unshifted textbook softmax of one group of values, with `plus` added to the denominator.
fn textbook(values: &[f64], plus: f64) -> Vec<f64> {
    let sum: f64 = values.iter().map(|v| v.exp()).sum::<f64>() + plus;
    values.iter().map(|v| v.exp() / sum).collect()
}

proptest! {
    #[test]
    fn finite_for_huge_inputs(c in matrix_strategy(1e4)) {
        for s in [
            VectorSoftmax::apply(&c),
            MatrixSoftmax::apply(&c),
            OneVectorSoftmax::apply(&c),
            OneMatrixSoftmax::apply(&c),
        ] {
            prop_assert!(s.iter().all(|x| x.is_finite() && *x >= 0.0 && *x <= 1.0), "{s}");
        }
    }

    #[test]
    fn columns_or_matrix_sum_to_one(c in matrix_strategy(1e4)) {
        let v = VectorSoftmax::apply(&c);
        for column in v.column_iter() {
            prop_assert!((column.sum() - 1.0).abs() < 1e-6);
        }
        prop_assert!((MatrixSoftmax::apply(&c).sum() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn one_softmax_sums_below_one(c in matrix_strategy(30.0)) {
        // In f64 so that the deficit 1/(1 + Σ e^c) ≥ e^{−30}/13 is representable.
        let c = c.map(f64::from);
        let one = OneVectorSoftmax::apply(&c);
        for (column, scores) in one.column_iter().zip(c.column_iter()) {
            let deficit = 1.0 / (1.0 + scores.iter().map(|x| x.exp()).sum::<f64>());
            prop_assert!(column.sum() < 1.0);
            prop_assert!((1.0 - column.sum() - deficit).abs() < 1e-15);
        }
        let deficit = 1.0 / (1.0 + c.iter().map(|x| x.exp()).sum::<f64>());
        let sum = OneMatrixSoftmax::apply(&c).sum();
        prop_assert!(sum < 1.0);
        prop_assert!((1.0 - sum - deficit).abs() < 1e-15);
    }

    #[test]
    fn matches_the_textbook_formula(c in matrix_strategy(20.0)) {
        let c = c.map(f64::from);
        let whole: Vec<f64> = c.iter().copied().collect();
        let plain = textbook(&whole, 0.0);
        let one = textbook(&whole, 1.0);
        let m = MatrixSoftmax::apply(&c);
        let m1 = OneMatrixSoftmax::apply(&c);
        for k in 0..12 {
            prop_assert!((m[k] - plain[k]).abs() < 1e-14);
            prop_assert!((m1[k] - one[k]).abs() < 1e-14);
        }
        let v = VectorSoftmax::apply(&c);
        let v1 = OneVectorSoftmax::apply(&c);
        for j in 0..4 {
            let column: Vec<f64> = c.column(j).iter().copied().collect();
            let (plain, one) = (textbook(&column, 0.0), textbook(&column, 1.0));
            for i in 0..3 {
                prop_assert!((v[(i, j)] - plain[i]).abs() < 1e-14);
                prop_assert!((v1[(i, j)] - one[i]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn plain_softmaxes_ignore_shifts(c in matrix_strategy(10.0), shift in -1e3_f64..1e3) {
        let c = c.map(f64::from);
        let shifted = c.add_scalar(shift);
        prop_assert!((VectorSoftmax::apply(&c) - VectorSoftmax::apply(&shifted)).amax() < 1e-12);
        prop_assert!((MatrixSoftmax::apply(&c) - MatrixSoftmax::apply(&shifted)).amax() < 1e-12);
    }
}

#[test]
fn one_softmax_of_very_negative_scores_attends_to_nothing() {
    let s = OneVectorSoftmax::apply(&Vector3::new(-1e4_f32, -2e4, -1e4));
    assert_eq!(s, Vector3::zeros());
    let s = OneMatrixSoftmax::apply(&Vector3::new(-700.0_f64, -700.0, -700.0));
    assert!(s.iter().all(|x| x.is_finite() && *x > 0.0 && *x < 1e-300));
    // And very positive ones behave like the plain softmax.
    let s = OneVectorSoftmax::apply(&Vector3::new(1e4_f32, 1e4, 0.0));
    assert_eq!(s, Vector3::new(0.5, 0.5, 0.0));
}

#[test]
fn column_softmax_normalises_over_the_first_index() {
    // A 2×3 matrix whose rows differ: column-wise weights depend only on the column.
    let c = SMatrix::<f64, 2, 3>::new(0.0, 1.0, 2.0, 0.0, 0.0, 0.0);
    let s = VectorSoftmax::apply(&c);
    let e = std::f64::consts::E;
    let expected = SMatrix::<f64, 2, 3>::new(
        0.5,
        e / (e + 1.0),
        e * e / (e * e + 1.0),
        0.5,
        1.0 / (e + 1.0),
        1.0 / (e * e + 1.0),
    );
    assert!((s - expected).amax() < 1e-15);
    assert_eq!(VectorSoftmax::NAME, "VectorSoftmax");
    assert_eq!(OneMatrixSoftmax::NAME, "OneMatrixSoftmax");
}
