//! Multi-head attention: a hand-computed case that pins GML's conventions (√ of the full dim,
//! column softmax, head order), an explicit-loop reference, the Stiefel check and projection.

use geomattn::nalgebra::{Matrix4x2, SMatrix};
use geomattn::{
    AddConnection, Connection, Head, MultiHeadAttention, NoConnection, Projection, Stiefel,
    project_to_stiefel, stiefel_error,
};
use geomattn::{Error, SequenceLayer};
use geomattn_testkit::random_matrix;
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn unit<const D: usize>(k: usize) -> SMatrix<f64, D, 1> {
    SMatrix::from_fn(|i, _| if i == k { 1.0 } else { 0.0 })
}

#[test]
fn hand_computed_case_pins_scaling_softmax_direction_and_head_order() {
    // D = 4, four heads of width 1, head h reads coordinate h. z_0 = (2, 0, 0, 0), z_1 = 0.
    let heads = core::array::from_fn(|h| Head::new(unit::<4>(h), unit(h), unit(h)));
    let layer = MultiHeadAttention::<f64, 4, 4, 1, NoConnection, Stiefel>::stiefel(heads).unwrap();
    let z = Matrix4x2::new(2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    // Head 0: Q = K = V = (2, 0); C = QᵀK/√4 = [2 0; 0 0]; column softmax:
    // column 0 = (e², 1)/(e² + 1), column 1 = (½, ½); output V·S = (2e²/(e² + 1), 1).
    // (√(D/H) = 1 would give C = [4 0; 0 0]; a row softmax would give 2/(e² + 1) in column 1.)
    let e2 = 2.0_f64.exp();
    let out = layer.forward(&z);
    assert!((out[(0, 0)] - 2.0 * e2 / (e2 + 1.0)).abs() < 1e-15);
    assert!((out[(0, 1)] - 1.0).abs() < 1e-15);
    assert_eq!(out.rows(1, 3).amax(), 0.0);
    // add_connection adds the input.
    let with_input =
        MultiHeadAttention::<f64, 4, 4, 1, AddConnection>::new(*layer.heads()).forward(&z);
    assert_eq!(with_input, out + z);
    // Heads are stacked in head order: rotate the heads and the output rows rotate with them.
    let rotated = core::array::from_fn(|h| layer.heads()[(h + 1) % 4]);
    let out = MultiHeadAttention::<f64, 4, 4, 1, NoConnection>::new(rotated).forward(&z);
    assert!((out[(3, 0)] - 2.0 * e2 / (e2 + 1.0)).abs() < 1e-15);
    assert_eq!(out.rows(0, 3).amax(), 0.0);
}

/// GML's formula written out with explicit loops.
#[allow(clippy::needless_range_loop)]
fn reference<const D: usize, const H: usize, const DH: usize, const T: usize, C, P>(
    layer: &MultiHeadAttention<f64, D, H, DH, C, P>,
    z: &SMatrix<f64, D, T>,
) -> SMatrix<f64, D, T>
where
    C: Connection,
    P: Projection,
{
    let mut out = if layer.add_connection() {
        *z
    } else {
        SMatrix::zeros()
    };
    let project = |w: &SMatrix<f64, D, DH>, a: usize, t: usize| -> f64 {
        (0..D).map(|i| w[(i, a)] * z[(i, t)]).sum()
    };
    for (h, head) in layer.heads().iter().enumerate() {
        let mut c = [[0.0; T]; T];
        for m in 0..T {
            for n in 0..T {
                let dot: f64 = (0..DH)
                    .map(|a| project(&head.query, a, m) * project(&head.key, a, n))
                    .sum();
                c[m][n] = dot / (D as f64).sqrt();
            }
        }
        for n in 0..T {
            let total: f64 = (0..T).map(|m| c[m][n].exp()).sum();
            for a in 0..DH {
                let value: f64 = (0..T)
                    .map(|m| project(&head.value, a, m) * c[m][n].exp() / total)
                    .sum();
                out[(h * DH + a, n)] += value;
            }
        }
    }
    out
}

fn matches_reference<Conn: Connection>(rng: &mut SmallRng) {
    for _ in 0..5 {
        let layer = MultiHeadAttention::<f64, 6, 3, 2, Conn>::glorot(rng);
        let z = random_matrix::<6, 5>(rng) * 3.0;
        assert!((layer.forward(&z) - reference(&layer, &z)).amax() < 1e-13);
        let layer = MultiHeadAttention::<f64, 4, 1, 4, Conn, Stiefel>::stiefel_random(rng);
        let z = random_matrix::<4, 3>(rng) * 3.0;
        assert!((layer.forward(&z) - reference(&layer, &z)).amax() < 1e-13);
    }
}

#[test]
fn matches_an_explicit_loop_implementation() {
    let mut rng = SmallRng::seed_from_u64(4);
    matches_reference::<NoConnection>(&mut rng);
    matches_reference::<AddConnection>(&mut rng);
}

#[test]
fn glorot_bounds_and_stiefel_initialisation() {
    let mut rng = SmallRng::seed_from_u64(9);
    let layer = MultiHeadAttention::<f64, 6, 2, 3, AddConnection>::glorot(&mut rng);
    let bound = (6.0_f64 / 9.0).sqrt();
    let all = layer
        .heads()
        .iter()
        .flat_map(|h| [h.query, h.key, h.value])
        .flat_map(|w| w.iter().copied().collect::<Vec<_>>());
    let max = all.fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(max <= bound && max > 0.8 * bound, "{max}");
    assert!(!layer.is_stiefel() && layer.add_connection());
    let stiefel =
        MultiHeadAttention::<f64, 6, 2, 3, NoConnection, Stiefel>::stiefel_random(&mut rng);
    assert!(stiefel.is_stiefel() && !stiefel.add_connection());
    for head in stiefel.heads() {
        for w in [head.query, head.key, head.value] {
            assert!(stiefel_error(&w) < 1e-14);
        }
    }
    // What stiefel_random builds, the checked constructor accepts.
    assert!(
        MultiHeadAttention::<f64, 6, 2, 3, NoConnection, Stiefel>::stiefel(*stiefel.heads())
            .is_ok()
    );
}

#[test]
fn non_orthonormal_weights_are_rejected_with_their_name_and_head() {
    let mut rng = SmallRng::seed_from_u64(1);
    type Layer = MultiHeadAttention<f64, 4, 2, 2, AddConnection, Stiefel>;
    let good = Layer::stiefel_random(&mut rng);
    let mut heads = *good.heads();
    heads[1].key *= 1.0 + 1e-6;
    assert_eq!(
        Layer::stiefel(heads),
        Err(Error::NotOrthonormal {
            name: "PK",
            head: 1
        })
    );
    // A looser tolerance accepts it; the projection repairs it.
    assert!(Layer::stiefel_with_tolerance(heads, 1e-5).is_ok());
    heads[1] = heads[1].project_to_stiefel();
    assert!(Layer::stiefel(heads).is_ok());
    heads[0].value[(0, 0)] = f64::NAN;
    assert!(Layer::stiefel(heads).is_err());
    // f32 weights get f32's tolerance, √ε ≈ 3.5e-4.
    let f32_heads = [Head::new(
        SMatrix::<f32, 2, 2>::identity(),
        SMatrix::identity() * 1.0001,
        SMatrix::identity(),
    )];
    assert!(MultiHeadAttention::<f32, 2, 1, 2, NoConnection, Stiefel>::stiefel(f32_heads).is_ok());
}

#[test]
fn qr_projection_gives_orthonormal_columns_with_positive_r() {
    let mut rng = SmallRng::seed_from_u64(6);
    for _ in 0..20 {
        let w = random_matrix::<5, 3>(&mut rng);
        let q = project_to_stiefel(&w);
        assert!(stiefel_error(&q) < 1e-14);
        // W = Q R with R = QᵀW upper triangular with a positive diagonal.
        let r = q.tr_mul(&w);
        assert!((q * r - w).amax() < 1e-14);
        for j in 0..3 {
            assert!(r[(j, j)] > 0.0);
            for i in j + 1..3 {
                assert!(r[(i, j)].abs() < 1e-14);
            }
        }
        // Already on the manifold: unchanged.
        assert!((project_to_stiefel(&q) - q).amax() < 1e-14);
    }
}

#[test]
fn heads_from_julia_column_major_arrays() {
    let values: Vec<f64> = (0..8).map(f64::from).collect();
    let head = Head::<f64, 4, 2>::from_column_major(&values, &values, &values).unwrap();
    assert_eq!(head.query[(1, 0)], 1.0);
    assert_eq!(head.query[(0, 1)], 4.0);
    assert_eq!(
        Head::<f64, 4, 2>::from_column_major(&values, &values[..7], &values),
        Err(Error::WeightLength {
            name: "PK",
            expected: 8,
            found: 7
        })
    );
}

#[test]
fn batch_entry_points_agree_with_forward() {
    let mut rng = SmallRng::seed_from_u64(12);
    let layer = MultiHeadAttention::<f32, 4, 2, 2, AddConnection>::glorot(&mut rng);
    let batch: Vec<SMatrix<f32, 4, 3>> = (0..3)
        .map(|_| random_matrix::<4, 3>(&mut rng).map(|x| x as f32))
        .collect();
    let mut outs = vec![SMatrix::zeros(); 3];
    layer.forward_batch(&batch, &mut outs).unwrap();
    let flat: Vec<f32> = batch.iter().flat_map(|z| z.iter().copied()).collect();
    let mut flat_out = vec![0.0; flat.len()];
    SequenceLayer::<f32, 4, 3>::forward_flat(&layer, &flat, &mut flat_out).unwrap();
    for (k, z) in batch.iter().enumerate() {
        assert_eq!(outs[k], layer.forward(z));
        assert_eq!(&flat_out[12 * k..12 * (k + 1)], outs[k].as_slice());
    }
}
