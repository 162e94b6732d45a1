//! Packed special matrices: GML's index maps, round trips, structure, typed length errors, and
//! Glorot initialisation.

use geomattn::{Error, SkewSymmetric, StrictlyLower, StrictlyUpper, Symmetric, init};
use geomattn::{Lower, Packed, PackedLayout, Skew, Sym, Upper};
use geomattn_testkit::{Q, q};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// GML's 1-based formula for skew/lower: `A[i,j] = S[(i−2)(i−1)/2 + j]`, i > j.
#[test]
fn skew_matches_gml_formula_for_every_entry() {
    let n = 7;
    let packed: Vec<Q> = (1..=21).map(|k| q(k, 1)).collect();
    let a = SkewSymmetric::<Q, 7>::from_packed(&packed).unwrap();
    for i in 1..=n {
        for j in 1..=n {
            let expected = match i.cmp(&j) {
                std::cmp::Ordering::Greater => packed[(i - 2) * (i - 1) / 2 + j - 1],
                std::cmp::Ordering::Less => -packed[(j - 2) * (j - 1) / 2 + i - 1],
                std::cmp::Ordering::Equal => q(0, 1),
            };
            assert_eq!(a.matrix()[(i - 1, j - 1)], expected, "entry ({i},{j})");
        }
    }
}

fn round_trip<const N: usize, Layout: PackedLayout>(values: &[f64]) -> Result<(), TestCaseError> {
    let len = Packed::<f64, N, Layout>::packed_len();
    let packed = &values[..len];
    let m = Packed::<f64, N, Layout>::from_packed(packed).unwrap();
    let mut back = vec![0.0; len];
    m.write_packed(&mut back).unwrap();
    prop_assert_eq!(&back[..], packed);
    let a = m.matrix();
    for i in 0..N {
        for j in 0..N {
            let ok = match Layout::MIRROR {
                geomattn::Mirror::Symmetric => a[(i, j)] == a[(j, i)],
                geomattn::Mirror::Antisymmetric => a[(i, j)] == -a[(j, i)],
                // Strict triangles: one of each mirrored pair is zero, so is the diagonal (i = j).
                geomattn::Mirror::Zero => a[(i, j)] == 0.0 || a[(j, i)] == 0.0,
            };
            prop_assert!(ok, "{} structure broken at ({}, {})", Layout::KIND, i, j);
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn packed_round_trips_and_keeps_structure(values in proptest::collection::vec(-1e3..1e3_f64, 28)) {
        round_trip::<7, Skew>(&values)?;
        round_trip::<7, Sym>(&values)?;
        round_trip::<7, Lower>(&values)?;
        round_trip::<7, Upper>(&values)?;
        round_trip::<1, Skew>(&values)?;
        round_trip::<1, Sym>(&values)?;
    }
}

#[test]
fn strict_triangles_are_zero_where_gml_says() {
    let s: Vec<f64> = (1..=6).map(f64::from).collect();
    let lower = StrictlyLower::<f64, 4>::from_packed(&s).unwrap();
    let upper = StrictlyUpper::<f64, 4>::from_packed(&s).unwrap();
    assert_eq!(
        lower.matrix().upper_triangle(),
        geomattn::nalgebra::Matrix4::zeros()
    );
    assert_eq!(
        upper.matrix().lower_triangle(),
        geomattn::nalgebra::Matrix4::zeros()
    );
    // Upper is filled column by column: S[5] = 6 sits at (3, 4) 1-based, S[3] = 4 at (1, 4).
    assert_eq!(upper.matrix()[(2, 3)], 6.0);
    assert_eq!(upper.matrix()[(0, 3)], 4.0);
}

#[test]
fn wrong_lengths_are_typed_errors() {
    assert_eq!(
        SkewSymmetric::<f64, 4>::from_packed(&[1.0; 5]),
        Err(Error::PackedLength {
            kind: "skew-symmetric",
            n: 4,
            expected: 6,
            found: 5
        })
    );
    assert_eq!(
        Symmetric::<f64, 3>::from_packed(&[1.0; 3]).unwrap_err(),
        Error::PackedLength {
            kind: "symmetric",
            n: 3,
            expected: 6,
            found: 3
        }
    );
    let upper = StrictlyUpper::<f64, 3>::from_packed(&[1.0, 2.0, 3.0]).unwrap();
    assert!(upper.write_packed(&mut [0.0; 4]).is_err());
    let message = SkewSymmetric::<f64, 4>::from_packed(&[])
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "packed skew-symmetric matrix of size 4×4 needs 6 entries, got 0"
    );
}

#[test]
fn glorot_bounds_and_seeds() {
    let bound = |fan: f64| (6.0 / fan).sqrt();
    let a = SkewSymmetric::<f64, 10>::glorot(&mut SmallRng::seed_from_u64(1));
    let b = SkewSymmetric::<f64, 10>::glorot(&mut SmallRng::seed_from_u64(1));
    let c = SkewSymmetric::<f64, 10>::glorot(&mut SmallRng::seed_from_u64(2));
    assert_eq!(a, b, "same seed, same weights");
    assert_ne!(a, c);
    let mut packed = [0.0; 45];
    a.write_packed(&mut packed).unwrap();
    assert!(packed.iter().all(|x| x.abs() <= bound(45.0)));
    // The draws fill the interval: the largest is near the bound, the mean near zero.
    let max = packed.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(max > 0.8 * bound(45.0));

    let w = init::glorot_dense::<f64, 40, 60, _>(&mut SmallRng::seed_from_u64(3));
    assert!(w.iter().all(|x| x.abs() <= bound(100.0)));
    let mean = w.sum() / 2400.0;
    let variance = w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2400.0;
    // U(−b, b) has variance b²/3 = 2/(m+n).
    assert!(mean.abs() < 0.01, "mean {mean}");
    assert!(
        (variance / (2.0 / 100.0) - 1.0).abs() < 0.1,
        "variance {variance}"
    );
}
