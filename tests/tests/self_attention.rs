//! Softmax self-attention with its three correlations, each against an independent computation
//! with explicit loops; the low-rank form against the dense one with `W = W_U W_Vᵀ`.

use geomattn::nalgebra::{Matrix2x3, SMatrix, SVector};
use geomattn::{Additive, Bilinear, Correlation, LowRank, SoftmaxAttention};
use geomattn::{MatrixSoftmax, SequenceLayer};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// `Z · softmax(C)` with the column softmax written out.
fn attend<const D: usize, const T: usize>(
    z: &SMatrix<f64, D, T>,
    c: &[[f64; T]; T],
) -> SMatrix<f64, D, T> {
    let mut out = SMatrix::<f64, D, T>::zeros();
    for j in 0..T {
        let max = (0..T).map(|i| c[i][j]).fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = (0..T).map(|i| (c[i][j] - max).exp()).sum();
        for i in 0..T {
            let weight = (c[i][j] - max).exp() / total;
            for d in 0..D {
                out[(d, j)] += weight * z[(d, i)];
            }
        }
    }
    out
}

#[test]
fn bilinear_by_hand() {
    // W = [1 0; 0 −1], Z = [1 0 1; 0 1 1]: C = ZᵀWZ = [1 0 1; 0 −1 −1; 1 −1 0].
    let w = SMatrix::<f64, 2, 2>::new(1.0, 0.0, 0.0, -1.0);
    let z = Matrix2x3::new(1.0, 0.0, 1.0, 0.0, 1.0, 1.0);
    let layer = SoftmaxAttention::new(Bilinear::new(w));
    let c = [[1.0, 0.0, 1.0], [0.0, -1.0, -1.0], [1.0, -1.0, 0.0]];
    let corr = layer.correlation().correlation(&z.as_view());
    assert_eq!(corr, SMatrix::<f64, 3, 3>::from_fn(|i, j| c[i][j]));
    // Column 0 of softmax(C) is (e, 1, e)/(2e + 1): output column 0 = (2e, e + 1)/(2e + 1).
    let e = 1.0_f64.exp();
    let out = layer.forward(&z);
    assert!((out[(0, 0)] - 2.0 * e / (2.0 * e + 1.0)).abs() < 1e-15);
    assert!((out[(1, 0)] - (e + 1.0) / (2.0 * e + 1.0)).abs() < 1e-15);
    assert!((out - attend(&z, &c)).amax() < 1e-15);
}

#[test]
fn bilinear_and_low_rank_match_explicit_loops() {
    let mut rng = SmallRng::seed_from_u64(21);
    let u: SMatrix<f64, 5, 2> = random_matrix(&mut rng);
    let v: SMatrix<f64, 5, 2> = random_matrix(&mut rng);
    let z: SMatrix<f64, 5, 4> = random_matrix::<5, 4>(&mut rng) * 2.0;
    let low_rank = SoftmaxAttention::new(LowRank::new(u, v));
    let dense = SoftmaxAttention::new(low_rank.correlation().dense());
    let mut c = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..2 {
                let left: f64 = (0..5).map(|d| u[(d, k)] * z[(d, i)]).sum();
                let right: f64 = (0..5).map(|d| v[(d, k)] * z[(d, j)]).sum();
                c[i][j] += left * right;
            }
        }
    }
    let expected = attend(&z, &c);
    assert!((low_rank.forward(&z) - expected).amax() < 1e-14);
    assert!((dense.forward(&z) - expected).amax() < 1e-14);
    let w = u * v.transpose();
    let by_w = SMatrix::<f64, 4, 4>::from_fn(|i, j| (z.column(i).transpose() * w * z.column(j))[0]);
    assert!((low_rank.correlation().correlation(&z.as_view()) - by_w).amax() < 1e-14);
}

#[test]
fn additive_matches_explicit_loops() {
    let mut rng = SmallRng::seed_from_u64(22);
    let w: SMatrix<f64, 3, 2> = random_matrix(&mut rng);
    let u: SMatrix<f64, 3, 2> = random_matrix(&mut rng);
    let v: SVector<f64, 3> = random_matrix::<3, 1>(&mut rng) * 3.0;
    let z: SMatrix<f64, 2, 5> = random_matrix(&mut rng);
    let layer = SoftmaxAttention::new(Additive::<f64, 2, 3>::new(w, u, v));
    let mut c = [[0.0; 5]; 5];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            for h in 0..3 {
                let pre: f64 = (0..2)
                    .map(|d| w[(h, d)] * z[(d, i)] + u[(h, d)] * z[(d, j)])
                    .sum();
                *entry += v[h] * pre.tanh();
            }
        }
    }
    assert!((layer.forward(&z) - attend(&z, &c)).amax() < 1e-15);
    // v = 0: every score 0, every output column the mean of the inputs.
    let flat = SoftmaxAttention::new(Additive::<f64, 2, 3>::new(w, u, SVector::zeros()));
    let mean = z.column_mean();
    let out = flat.forward(&z);
    for j in 0..5 {
        assert!((out.column(j) - mean).amax() < 1e-15);
    }
}

#[test]
fn large_scores_stay_finite_and_other_softmaxes_plug_in() {
    let w = SMatrix::<f64, 2, 2>::identity() * 1e4;
    let z = Matrix2x3::new(1.0, 0.0, 1.0, 0.0, 1.0, 1.0);
    let layer = SoftmaxAttention::new(Bilinear::new(w));
    let out = layer.forward(&z);
    assert!(out.iter().all(|x| x.is_finite()));
    // Column 0: scores (1e4, 0, 1e4) → weights (½, 0, ½).
    assert!((out.column(0) - SVector::<f64, 2>::new(1.0, 0.5)).amax() < 1e-15);
    let whole = layer.with_softmax::<MatrixSoftmax>();
    // Matrix softmax: the largest score (2e4 at [2,2]) takes all the weight: column 2 = z₂.
    let out = whole.forward(&z);
    assert!((out.column(2) - z.column(2)).amax() < 1e-12);
    assert!(out.column(0).amax() < 1e-12);
}

#[test]
fn glorot_layers_run_in_batches() {
    let mut rng = SmallRng::seed_from_u64(23);
    let bilinear = SoftmaxAttention::new(Bilinear::<f64, 4>::glorot(&mut rng));
    let low_rank = SoftmaxAttention::new(LowRank::<f64, 4, 2>::glorot(&mut rng));
    let additive = SoftmaxAttention::new(Additive::<f64, 4, 6>::glorot(&mut rng));
    let zs: Vec<SMatrix<f64, 4, 3>> = (0..4).map(|_| random_matrix(&mut rng)).collect();
    let mut outs = vec![SMatrix::<f64, 4, 3>::zeros(); 4];
    bilinear.forward_batch(&zs, &mut outs).unwrap();
    assert_eq!(outs[1], bilinear.forward(&zs[1]));
    low_rank.forward_batch(&zs, &mut outs).unwrap();
    assert_eq!(outs[2], low_rank.forward(&zs[2]));
    additive.forward_batch(&zs, &mut outs).unwrap();
    assert_eq!(outs[3], additive.forward(&zs[3]));
    assert!(additive.forward_batch(&zs[..3], &mut outs).is_err());
}
