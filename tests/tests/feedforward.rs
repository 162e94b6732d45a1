//! The supporting layers: CONVENTIONS.md's exact vectors, volume preservation (det J = 1) of the
//! triangular layers, symplecticity (Jᵀ𝕁J = 𝕁) of the gradient layers, hand-computed cases, and
//! typed errors for wrong weight lengths.

use geomattn::nalgebra::{DMatrix, SMatrix, SVector, Vector2};
use geomattn::{Activation, Identity, MapScalar, Tanh};
use geomattn::{
    ColumnLayer, Dense, Error, GradientLayerP, GradientLayerQ, ResNetLayer, SequenceLayer,
    StrictlyLower, StrictlyUpper, VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
use geomattn_testkit::{Q, jacobian, q, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

#[test]
fn conventions_lower_vector_is_exact() {
    let layer =
        VolumePreservingLowerLayer::<Q, 2, Identity>::from_slices(&[q(1, 1)], None).unwrap();
    let x = Vector2::new(q(1, 1), q(1, 1));
    assert_eq!(layer.apply(&x), Vector2::new(q(1, 1), q(2, 1)));
}

#[test]
fn conventions_upper_vector_is_exact() {
    let w = StrictlyUpper::<Q, 2>::from_packed(&[q(1, 1)]).unwrap();
    let layer = VolumePreservingUpperLayer::<Q, 2, Identity>::new(w, None);
    let x = Vector2::new(q(1, 1), q(1, 1));
    assert_eq!(layer.apply(&x), Vector2::new(q(2, 1), q(1, 1)));
}

#[test]
fn triangular_layers_match_the_formula_entry_by_entry() {
    // W = LowerTriangular(1..6, 4), b = (1, −1, 2, 0), tanh: computed with explicit loops.
    let packed = [0.1, 0.2, -0.3, 0.4, 0.5, -0.6];
    let bias = [1.0, -1.0, 2.0, 0.0];
    let lower = VolumePreservingLowerLayer::<f64, 4, Tanh>::from_slices(&packed, Some(&bias));
    let upper = VolumePreservingUpperLayer::<f64, 4, Tanh>::from_slices(&packed, Some(&bias));
    let x = SVector::<f64, 4>::new(0.5, -1.0, 2.0, 1.5);
    // Lower packs row by row over (i > j); upper column by column over (i < j).
    let mut w_lower = [[0.0; 4]; 4];
    let mut w_upper = [[0.0; 4]; 4];
    let mut k = 0;
    for i in 0..4 {
        for j in 0..i {
            w_lower[i][j] = packed[k];
            w_upper[j][i] = packed[k];
            k += 1;
        }
    }
    for (layer_out, w) in [
        (lower.unwrap().apply(&x), w_lower),
        (upper.unwrap().apply(&x), w_upper),
    ] {
        for i in 0..4 {
            let pre: f64 = (0..4).map(|j| w[i][j] * x[j]).sum::<f64>() + bias[i];
            assert!((layer_out[i] - (x[i] + pre.tanh())).abs() < 1e-15);
        }
    }
}

fn det_of_layer<L, const D: usize, const T: usize>(lifted: &L, z: &SMatrix<f64, D, T>) -> f64
where
    L: SequenceLayer<Dual64, D, T>,
{
    jacobian(|z| lifted.forward(z), z).determinant()
}

#[test]
fn triangular_layers_preserve_volume() {
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..20 {
        let lower = VolumePreservingLowerLayer::<f64, 5, Tanh>::glorot(&mut rng, true);
        let upper = VolumePreservingUpperLayer::<f64, 5, Tanh>::glorot(&mut rng, true);
        let z: SMatrix<f64, 5, 3> = random_matrix::<5, 3>(&mut rng) * 3.0;
        let det_lower = det_of_layer(&lower.map_scalar(Dual64::from), &z);
        let det_upper = det_of_layer(&upper.map_scalar(Dual64::from), &z);
        assert!(
            (det_lower - 1.0).abs() < 1e-12,
            "lower: det J = {det_lower}"
        );
        assert!(
            (det_upper - 1.0).abs() < 1e-12,
            "upper: det J = {det_upper}"
        );
    }
}

#[test]
fn resnet_is_not_volume_preserving_in_general() {
    // The check above can fail: a dense residual layer has det J ≠ 1.
    let mut rng = SmallRng::seed_from_u64(12);
    let layer = ResNetLayer::<f64, 4, Tanh>::glorot(&mut rng, true);
    let z = random_matrix::<4, 2>(&mut rng);
    let det = det_of_layer(&layer.map_scalar(Dual64::from), &z);
    assert!((det - 1.0).abs() > 1e-3, "det J = {det}");
}

#[test]
fn resnet_and_dense_match_explicit_loops() {
    let mut rng = SmallRng::seed_from_u64(13);
    let w: SMatrix<f64, 3, 3> = random_matrix(&mut rng);
    let b: SVector<f64, 3> = random_matrix(&mut rng);
    let resnet = ResNetLayer::<f64, 3, Tanh>::new(w, Some(b));
    let no_bias = ResNetLayer::<f64, 3, Identity>::new(w, None);
    let wd: SMatrix<f64, 2, 3> = random_matrix(&mut rng);
    let bd: SVector<f64, 2> = random_matrix(&mut rng);
    let dense = Dense::<f64, 3, 2, Tanh>::new(wd, Some(bd));
    let z: SMatrix<f64, 3, 4> = random_matrix(&mut rng);
    let out = resnet.forward(&z);
    let out_no_bias = no_bias.forward(&z);
    let out_dense = dense.apply_columns(&z);
    for t in 0..4 {
        for i in 0..3 {
            let wz: f64 = (0..3).map(|j| w[(i, j)] * z[(j, t)]).sum();
            assert!((out[(i, t)] - (z[(i, t)] + (wz + b[i]).tanh())).abs() < 1e-15);
            assert!((out_no_bias[(i, t)] - (z[(i, t)] + wz)).abs() < 1e-15);
        }
        for i in 0..2 {
            let wz: f64 = (0..3).map(|j| wd[(i, j)] * z[(j, t)]).sum();
            assert!((out_dense[(i, t)] - (wz + bd[i]).tanh()).abs() < 1e-15);
        }
    }
}

/// `‖Jᵀ 𝕁 J − 𝕁‖_max` of a map on `R^{2N}`, `𝕁 = [0 I; −I 0]`.
fn symplecticity_error(jac: &DMatrix<f64>, n: usize) -> f64 {
    let mut j = DMatrix::<f64>::zeros(2 * n, 2 * n);
    for k in 0..n {
        j[(k, n + k)] = 1.0;
        j[(n + k, k)] = -1.0;
    }
    (jac.transpose() * &j * jac - j).amax()
}

fn random_gradient_weights(
    rng: &mut SmallRng,
) -> (SMatrix<f64, 5, 3>, SVector<f64, 5>, SVector<f64, 5>) {
    (
        random_matrix(rng) * 2.0,
        random_matrix(rng),
        random_matrix(rng) * 2.0,
    )
}

#[test]
fn gradient_layers_are_symplectic() {
    let mut rng = SmallRng::seed_from_u64(14);
    for _ in 0..20 {
        let (k, b, a) = random_gradient_weights(&mut rng);
        let q_layer = GradientLayerQ::<f64, 3, 5, Tanh>::new(k, b, a).map_scalar(Dual64::from);
        let p_layer = GradientLayerP::<f64, 3, 5, Tanh>::new(k, b, a).map_scalar(Dual64::from);
        let x: SMatrix<f64, 6, 1> = random_matrix::<6, 1>(&mut rng) * 2.0;
        for jac in [
            jacobian(|x| q_layer.forward(x), &x),
            jacobian(|x| p_layer.forward(x), &x),
        ] {
            let error = symplecticity_error(&jac, 3);
            assert!(error < 1e-9, "‖JᵀJJ − J‖ = {error}");
            // Not the identity: the check has something to find.
            assert!((jac - DMatrix::<f64>::identity(6, 6)).amax() > 1e-3);
        }
    }
}

#[test]
fn a_non_gradient_shear_fails_the_symplectic_check() {
    // q ← q + B p with B not symmetric is not symplectic: the check can fail.
    let x = SMatrix::<f64, 2, 1>::new(0.3, -0.2);
    let jac = jacobian(
        |x: &SMatrix<Dual64, 2, 1>| {
            SMatrix::<Dual64, 2, 1>::new(x[0] + x[1] * Dual64::from(2.0), x[1])
        },
        &x,
    );
    assert!(symplecticity_error(&jac, 1) < 1e-15);
    let jac4 = jacobian(
        |x: &SMatrix<Dual64, 4, 1>| SMatrix::<Dual64, 4, 1>::new(x[0] + x[3], x[1], x[2], x[3]),
        &SMatrix::<f64, 4, 1>::new(0.1, 0.2, 0.3, 0.4),
    );
    assert!(symplecticity_error(&jac4, 2) > 0.5);
}

#[test]
fn gradient_layers_match_explicit_loops_and_change_one_half() {
    let mut rng = SmallRng::seed_from_u64(15);
    let (k, b, a) = random_gradient_weights(&mut rng);
    let q_layer = GradientLayerQ::<f64, 3, 5, Tanh>::new(k, b, a);
    let p_layer = GradientLayerP::<f64, 3, 5, Tanh>::new(k, b, a);
    let x: SVector<f64, 6> = random_matrix(&mut rng);
    let update = |driver: &[f64]| -> [f64; 3] {
        let hidden: Vec<f64> = (0..5)
            .map(|h| {
                let pre: f64 = (0..3).map(|n| k[(h, n)] * driver[n]).sum::<f64>() + b[h];
                a[h] * pre.tanh()
            })
            .collect();
        core::array::from_fn(|n| (0..5).map(|h| k[(h, n)] * hidden[h]).sum())
    };
    let yq = q_layer.apply(&x);
    let yp = p_layer.apply(&x);
    let dq = update(&x.as_slice()[3..]);
    let dp = update(&x.as_slice()[..3]);
    for n in 0..3 {
        assert!((yq[n] - (x[n] + dq[n])).abs() < 1e-15);
        assert_eq!(yq[3 + n], x[3 + n]);
        assert_eq!(yp[n], x[n]);
        assert!((yp[3 + n] - (x[3 + n] + dp[n])).abs() < 1e-15);
    }
}

#[test]
fn tanh_is_accurate_and_saturates() {
    for x in [-20.0, -1.5, -1e-3, 0.0, 1e-8, 0.3, 2.0, 19.0] {
        let e = f64::exp_m1(2.0 * x);
        let reference = e / (e + 2.0);
        let value = <Tanh as Activation<f64>>::apply(x);
        assert!((value - reference).abs() <= 4.0 * f64::EPSILON * reference.abs().max(1e-300));
    }
    for x in [710.0, 1e300, f64::MAX, f64::INFINITY] {
        assert_eq!(<Tanh as Activation<f64>>::apply(x), 1.0);
        assert_eq!(<Tanh as Activation<f64>>::apply(-x), -1.0);
    }
    assert_eq!(<Tanh as Activation<f32>>::apply(100.0_f32), 1.0);
}

#[test]
fn wrong_lengths_are_typed_errors() {
    assert_eq!(
        VolumePreservingLowerLayer::<f64, 3, Tanh>::from_slices(&[1.0; 4], None),
        Err(Error::PackedLength {
            kind: "strictly lower triangular",
            n: 3,
            expected: 3,
            found: 4
        })
    );
    assert_eq!(
        VolumePreservingUpperLayer::<f64, 3, Tanh>::from_slices(&[1.0; 3], Some(&[0.0; 2])),
        Err(Error::WeightLength {
            name: "bias",
            expected: 3,
            found: 2
        })
    );
    assert!(matches!(
        StrictlyLower::<f64, 4>::from_packed(&[0.0; 5]),
        Err(Error::PackedLength { expected: 6, .. })
    ));
    assert_eq!(
        ResNetLayer::<f64, 2, Identity>::from_slices(&[1.0; 3], None),
        Err(Error::WeightLength {
            name: "weight",
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        Dense::<f64, 3, 2, Identity>::from_slices(&[1.0; 6], Some(&[0.0; 3])),
        Err(Error::WeightLength {
            name: "bias",
            expected: 2,
            found: 3
        })
    );
    assert_eq!(
        GradientLayerQ::<f64, 2, 4, Tanh>::from_slices(&[1.0; 7], &[0.0; 4], &[1.0; 4]),
        Err(Error::WeightLength {
            name: "weight",
            expected: 8,
            found: 7
        })
    );
    // Julia's column-major order: K = [1 3; 2 4] from [1, 2, 3, 4].
    let layer =
        GradientLayerQ::<f64, 2, 2, Tanh>::from_slices(&[1.0, 2.0, 3.0, 4.0], &[0.0; 2], &[1.0; 2])
            .unwrap();
    assert_eq!(layer.weight()[(0, 1)], 3.0);
    let dense = Dense::<f64, 2, 1, Identity>::from_slices(&[1.0, 2.0], None).unwrap();
    assert_eq!(dense.apply(&Vector2::new(1.0, 1.0))[0], 3.0);
}

#[test]
fn batches_and_glorot_bounds() {
    let mut rng = SmallRng::seed_from_u64(16);
    let layer = VolumePreservingLowerLayer::<f64, 4, Tanh>::glorot(&mut rng, true);
    let weight_bound = (6.0_f64 / 6.0).sqrt();
    assert!(
        layer
            .weight()
            .matrix()
            .iter()
            .all(|w| w.abs() <= weight_bound)
    );
    // GML's ZeroInitializer for the bias.
    assert!(layer.bias().unwrap().iter().all(|&b| b == 0.0));
    assert!(
        VolumePreservingUpperLayer::<f64, 4, Tanh>::glorot(&mut rng, false)
            .bias()
            .is_none()
    );
    let gradient = GradientLayerP::<f64, 2, 3, Tanh>::glorot(&mut rng);
    assert_eq!(*gradient.bias(), SVector::<f64, 3>::zeros());
    assert!(
        gradient
            .scale()
            .iter()
            .all(|a| a.abs() <= (6.0_f64 / 3.0).sqrt())
    );

    let zs: Vec<SMatrix<f64, 4, 3>> = (0..5).map(|_| random_matrix(&mut rng)).collect();
    let mut outs = vec![SMatrix::<f64, 4, 3>::zeros(); 5];
    layer.forward_batch(&zs, &mut outs).unwrap();
    for (z, out) in zs.iter().zip(&outs) {
        assert_eq!(*out, layer.forward(z));
    }
    assert!(layer.forward_batch(&zs, &mut outs[..4]).is_err());
    let dense = Dense::<f64, 4, 2, Identity>::glorot(&mut rng, true);
    let mut dense_outs = vec![SMatrix::<f64, 2, 3>::zeros(); 5];
    dense.apply_columns_batch(&zs, &mut dense_outs).unwrap();
    assert_eq!(dense_outs[2], dense.apply_columns(&zs[2]));
}
