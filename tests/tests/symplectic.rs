//! Symplectic attention (GML's `SymplecticAttentionQ / P`) and linear symplectic attention:
//! exact vectors, an independent loop implementation, and `Jᵀ𝕁J = 𝕁` for every mode that is a
//! gradient, versus a measurable violation for GML's `2 A p S` with `VectorSoftmax`.

use geomattn::nalgebra::{DMatrix, Matrix1, Matrix2x3, SMatrix};
use geomattn::{DenseA, GmlCompatible, MapScalar, SymmetricA, SymplecticAttention};
use geomattn::{
    Error, LinearSymplecticAttentionP, LinearSymplecticAttentionQ, MatrixSoftmax, SequenceLayer,
    Softmax, Symmetric, SymplecticAttentionP, SymplecticAttentionQ, VectorSoftmax,
};
use geomattn::{PhaseSide, UpdateP, UpdateQ};
use geomattn_testkit::symplectic::{structure_matrix, symplecticity_error};
use geomattn_testkit::{Q, jacobian, q, q_matrix, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

const TOLERANCE: f64 = 1e-9;

// ---------------------------------------------------------------------------------------------
// The structure matrix itself: a helper that can be wrong must be tested too.

#[test]
fn structure_matrix_pairs_q_and_p_of_the_same_time_step() {
    // n = 1, T = 2: coordinates (q0, p0, q1, p1).
    // q0 ← q0 + p1, q1 ← q1 + p0 is the shear of V = p0·p1: symplectic.
    let coupled = |z: &SMatrix<Dual64, 2, 2>| {
        let mut out = *z;
        out[(0, 0)] += z[(1, 1)];
        out[(0, 1)] += z[(1, 0)];
        out
    };
    let z = SMatrix::<f64, 2, 2>::new(0.3, -0.2, 0.5, 0.7);
    assert!(symplecticity_error(&jacobian(coupled, &z), 1, 2) < 1e-15);
    // q0 ← q0 + p1 alone is not a gradient: not symplectic.
    let one_sided = |z: &SMatrix<Dual64, 2, 2>| {
        let mut out = *z;
        out[(0, 0)] += z[(1, 1)];
        out
    };
    assert_eq!(symplecticity_error(&jacobian(one_sided, &z), 1, 2), 1.0);
    // Scaling q by 2 doubles 𝕁.
    let scaled = |z: &SMatrix<Dual64, 2, 2>| {
        let mut out = *z;
        out.row_mut(0).scale_mut(Dual64::from(2.0));
        out
    };
    assert_eq!(symplecticity_error(&jacobian(scaled, &z), 1, 2), 1.0);
    let j = structure_matrix(2, 3);
    assert_eq!(&j.transpose(), &-&j);
    assert_eq!(&j * &j, -DMatrix::<f64>::identity(12, 12));
}

// ---------------------------------------------------------------------------------------------
// LinearSymplecticAttention

#[test]
fn linear_conventions_vector_exactly() {
    let packed: Vec<Q> = (1..=6).map(|k| q(k, 1)).collect();
    let z = q_matrix([[1, 2, 3], [0, 1, -1]], 1);
    let q_layer = LinearSymplecticAttentionQ::<Q, 1, 3>::from_packed(&packed).unwrap();
    assert_eq!(q_layer.forward(&z), q_matrix([[-1, 0, 2], [0, 1, -1]], 1));
    let p_layer = LinearSymplecticAttentionP::<Q, 1, 3>::from_packed(&packed).unwrap();
    assert_eq!(p_layer.forward(&z), q_matrix([[1, 2, 3], [17, 24, 31]], 1));
}

#[test]
fn linear_mixes_time_not_coordinates() {
    // n = 2: each coordinate row of p is multiplied by A on its own.
    let a = Symmetric::<Q, 2>::from_packed(&[q(1, 2), q(-1, 1), q(3, 1)]).unwrap();
    let layer = LinearSymplecticAttentionQ::<Q, 2, 2>::new(a);
    let z = q_matrix([[0, 0], [0, 0], [1, 0], [0, 1]], 1);
    // p rows (1, 0) and (0, 1) times A = [1/2 −1; −1 3].
    assert_eq!(
        layer.forward(&z),
        q_matrix([[1, -2], [-2, 6], [2, 0], [0, 2]], 2)
    );
    assert_eq!(
        LinearSymplecticAttentionQ::<Q, 2, 2>::from_packed(&[q(1, 1)]),
        Err(Error::PackedLength {
            kind: "symmetric",
            n: 2,
            expected: 3,
            found: 1
        })
    );
}

fn linear_symplecticity<Side: PhaseSide, const M: usize, const N: usize, const T: usize>(
    rng: &mut SmallRng,
) -> f64 {
    let layer =
        geomattn::LinearSymplecticAttention::<f64, N, T, Side>::glorot(rng).map_scalar(|x| x * 3.0);
    let lifted = layer.map_scalar(Dual64::from);
    let z = random_matrix::<M, T>(rng) * 2.0;
    symplecticity_error(&jacobian(|z| lifted.forward(z), &z), N, T)
}

#[test]
fn linear_layers_are_symplectic() {
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..10 {
        assert!(linear_symplecticity::<UpdateQ, 2, 1, 3>(&mut rng) < TOLERANCE);
        assert!(linear_symplecticity::<UpdateP, 2, 1, 3>(&mut rng) < TOLERANCE);
        assert!(linear_symplecticity::<UpdateQ, 6, 3, 5>(&mut rng) < TOLERANCE);
        assert!(linear_symplecticity::<UpdateP, 4, 2, 7>(&mut rng) < TOLERANCE);
    }
}

// ---------------------------------------------------------------------------------------------
// SymplecticAttention: an independent implementation with explicit loops.

/// `σ(C)` by the textbook formula, with explicit loops.
fn softmax_loops<const T: usize>(c: &[[f64; T]; T], column_wise: bool) -> [[f64; T]; T] {
    let mut s = [[0.0; T]; T];
    let total: f64 = c.iter().flatten().map(|x| x.exp()).sum();
    for j in 0..T {
        let column: f64 = (0..T).map(|i| c[i][j].exp()).sum();
        for i in 0..T {
            s[i][j] = c[i][j].exp() / if column_wise { column } else { total };
        }
    }
    s
}

/// Which kick formula the loop reference uses.
#[derive(Clone, Copy)]
enum Kick {
    /// `A x Sᵀ + Aᵀ x S`.
    Dense,
    /// `2 A x S`.
    TwiceAxs,
    /// `A x (S + Sᵀ)`.
    SymmetrisedS,
}

/// The layer's output by explicit loops: `x` drives (rows `driving..driving+n`), the other half
/// receives `K(x)`. Index loops on purpose: this is the formula written out entry by entry.
#[allow(clippy::needless_range_loop)]
fn reference<const M: usize, const N: usize, const T: usize>(
    a: &[[f64; N]; N],
    z: &SMatrix<f64, M, T>,
    updates_q: bool,
    column_wise: bool,
    kick: Kick,
) -> SMatrix<f64, M, T> {
    let (updated, driving) = if updates_q { (0, N) } else { (N, 0) };
    let x = |k: usize, t: usize| z[(driving + k, t)];
    let mut c = [[0.0; T]; T];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, cij) in row.iter_mut().enumerate() {
            for k in 0..N {
                for l in 0..N {
                    *cij += x(k, i) * a[k][l] * x(l, j);
                }
            }
        }
    }
    let s = softmax_loops(&c, column_wise);
    let mut out = *z;
    for k in 0..N {
        for t in 0..T {
            let mut delta = 0.0;
            for l in 0..N {
                for u in 0..T {
                    // (A x)[k,u] and (Aᵀ x)[k,u] contributions.
                    let ax = a[k][l] * x(l, u);
                    let atx = a[l][k] * x(l, u);
                    delta += match kick {
                        Kick::Dense => ax * s[t][u] + atx * s[u][t],
                        Kick::TwiceAxs => 2.0 * ax * s[u][t],
                        Kick::SymmetrisedS => ax * (s[u][t] + s[t][u]),
                    };
                }
            }
            out[(updated + k, t)] += delta;
        }
    }
    out
}

fn as_array<const N: usize>(a: &SMatrix<f64, N, N>) -> [[f64; N]; N] {
    core::array::from_fn(|i| core::array::from_fn(|j| a[(i, j)]))
}

fn check_against_loops<
    Side: PhaseSide,
    Sm: Softmax,
    const M: usize,
    const N: usize,
    const T: usize,
>(
    rng: &mut SmallRng,
) {
    let column_wise = Sm::NAME == "VectorSoftmax";
    let z = random_matrix::<M, T>(rng) * 1.5;
    let dense = SymplecticAttention::<f64, N, Side, Sm, DenseA<f64, N>>::arbitrary(
        random_matrix::<N, N>(rng) * 2.0,
    );
    let a = as_array(dense.weight().a());
    let expected = reference(&a, &z, Side::UPDATES_Q, column_wise, Kick::Dense);
    assert!((dense.forward(&z) - expected).amax() < 1e-13);

    let exact = SymplecticAttention::<f64, N, Side, Sm, SymmetricA<f64, N>>::glorot(rng)
        .map_scalar(|x| 2.0 * x);
    let a = as_array(exact.weight().a().matrix());
    let expected = reference(&a, &z, Side::UPDATES_Q, column_wise, Kick::SymmetrisedS);
    assert!((exact.forward(&z) - expected).amax() < 1e-13);
    let gml = exact.with_mode::<GmlCompatible>();
    let expected = reference(&a, &z, Side::UPDATES_Q, column_wise, Kick::TwiceAxs);
    assert!((gml.forward(&z) - expected).amax() < 1e-13);
}

#[test]
fn matches_an_explicit_loop_implementation() {
    let mut rng = SmallRng::seed_from_u64(5);
    for _ in 0..5 {
        check_against_loops::<UpdateQ, MatrixSoftmax, 4, 2, 3>(&mut rng);
        check_against_loops::<UpdateQ, VectorSoftmax, 4, 2, 3>(&mut rng);
        check_against_loops::<UpdateP, MatrixSoftmax, 6, 3, 4>(&mut rng);
        check_against_loops::<UpdateP, VectorSoftmax, 2, 1, 5>(&mut rng);
    }
}

#[test]
fn hand_computed_case() {
    // n = 1, T = 2, A = (1), P layer: q = (1, 0) drives, C = q qᵀ = [1 0; 0 0].
    // MatrixSoftmax: S = [e 1; 1 1]/(e + 3), symmetric, kick_t = 2 Σ_u q_u S[u,t] = 2 S[0,t].
    let layer = SymplecticAttentionP::<f64, 1>::arbitrary(Matrix1::new(1.0));
    let z = SMatrix::<f64, 2, 2>::new(1.0, 0.0, 0.5, -0.5);
    let e = std::f64::consts::E;
    let out = layer.forward(&z);
    assert_eq!(out.row(0), z.row(0));
    assert!((out[(1, 0)] - (0.5 + 2.0 * e / (e + 3.0))).abs() < 1e-15);
    assert!((out[(1, 1)] - (-0.5 + 2.0 / (e + 3.0))).abs() < 1e-15);
    // VectorSoftmax: S = [e/(e+1) 1/2; 1/(e+1) 1/2], kick_t = S[0,t] + S[t,0]:
    // t = 0: 2e/(e+1); t = 1: 1/2 + 1/(e+1).
    let out = layer.with_softmax::<VectorSoftmax>().forward(&z);
    assert!((out[(1, 0)] - (0.5 + 2.0 * e / (e + 1.0))).abs() < 1e-15);
    assert!((out[(1, 1)] - (-0.5 + 0.5 + 1.0 / (e + 1.0))).abs() < 1e-15);
    // GML's symmetric kick 2 A q S with VectorSoftmax: t = 1 gives 2·S[0,1] = 1 instead.
    let a = Symmetric::<f64, 1>::from_packed(&[1.0]).unwrap();
    let gml = SymplecticAttentionP::<f64, 1, VectorSoftmax>::symmetric_gml(a);
    let out = gml.forward(&z);
    assert!((out[(1, 0)] - (0.5 + 2.0 * e / (e + 1.0))).abs() < 1e-15);
    assert!((out[(1, 1)] - (-0.5 + 1.0)).abs() < 1e-15);
}

#[test]
fn dense_weight_from_julia_column_major() {
    let layer =
        SymplecticAttentionQ::<f64, 2>::arbitrary_from_column_major(&[1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(layer.weight().a()[(1, 0)], 2.0);
    assert_eq!(layer.weight().a()[(0, 1)], 3.0);
    assert_eq!(
        SymplecticAttentionQ::<f64, 2>::arbitrary_from_column_major(&[1.0; 3]),
        Err(Error::WeightLength {
            name: "A",
            expected: 4,
            found: 3
        })
    );
}

#[test]
fn matrix_softmax_makes_both_symmetric_formulas_agree() {
    let mut rng = SmallRng::seed_from_u64(8);
    let mut vector_gap: f64 = 0.0;
    for _ in 0..20 {
        let exact =
            SymplecticAttentionQ::<f64, 3, MatrixSoftmax, SymmetricA<f64, 3>>::glorot(&mut rng)
                .map_scalar(|x| 2.0 * x);
        let gml = exact.with_mode::<GmlCompatible>();
        let z = random_matrix::<6, 4>(&mut rng) * 2.0;
        assert!((exact.forward(&z) - gml.forward(&z)).amax() < 1e-14);
        let (exact, gml) = (
            exact.with_softmax::<VectorSoftmax>(),
            gml.with_softmax::<VectorSoftmax>(),
        );
        vector_gap = vector_gap.max((exact.forward(&z) - gml.forward(&z)).amax());
    }
    assert!(vector_gap > 1e-2, "{vector_gap}");
}

// ---------------------------------------------------------------------------------------------
// Symplecticity.

/// `‖Jᵀ𝕁J − 𝕁‖_max` of `layer` at `z`, through dual numbers.
fn error_at<L, const M: usize, const T: usize>(layer: &L, z: &SMatrix<f64, M, T>, n: usize) -> f64
where
    L: SequenceLayer<Dual64, M, T>,
{
    symplecticity_error(&jacobian(|z| layer.forward(z), z), n, T)
}

fn gradient_modes<Side: PhaseSide, Sm: Softmax, const M: usize, const N: usize, const T: usize>(
    rng: &mut SmallRng,
) -> f64 {
    let z = random_matrix::<M, T>(rng) * 2.0;
    let dense = SymplecticAttention::<f64, N, Side, Sm, DenseA<f64, N>>::glorot(rng)
        .map_scalar(|x| 2.0 * x);
    let exact = SymplecticAttention::<f64, N, Side, Sm, SymmetricA<f64, N>>::glorot(rng)
        .map_scalar(|x| 2.0 * x);
    let lifted_dense = dense.map_scalar(Dual64::from);
    let lifted_exact = exact.map_scalar(Dual64::from);
    error_at(&lifted_dense, &z, N).max(error_at(&lifted_exact, &z, N))
}

#[test]
fn gradient_modes_are_symplectic_with_both_softmaxes() {
    let mut rng = SmallRng::seed_from_u64(21);
    let mut worst: f64 = 0.0;
    for _ in 0..10 {
        worst = worst
            .max(gradient_modes::<UpdateQ, MatrixSoftmax, 4, 2, 3>(&mut rng))
            .max(gradient_modes::<UpdateQ, VectorSoftmax, 4, 2, 3>(&mut rng))
            .max(gradient_modes::<UpdateP, MatrixSoftmax, 6, 3, 4>(&mut rng))
            .max(gradient_modes::<UpdateP, VectorSoftmax, 6, 3, 4>(&mut rng))
            .max(gradient_modes::<UpdateQ, VectorSoftmax, 2, 1, 6>(&mut rng));
    }
    assert!(worst < TOLERANCE, "{worst}");
}

#[test]
fn gml_symmetric_mode_is_symplectic_only_with_matrix_softmax() {
    let a = Symmetric::<f64, 2>::from_packed(&[1.0, -0.5, 0.8]).unwrap();
    let z = SMatrix::<f64, 4, 3>::new(
        0.1, -0.4, 0.3, //
        0.7, 0.2, -0.5, //
        1.0, -0.6, 0.4, //
        -0.3, 0.9, 0.8,
    );
    let lift = |a: &Symmetric<f64, 2>| a.map_scalar(Dual64::from);
    let matrix = SymplecticAttentionQ::<Dual64, 2>::symmetric_gml(lift(&a));
    assert!(error_at(&matrix, &z, 2) < TOLERANCE);
    let vector = matrix.with_softmax::<VectorSoftmax>();
    let violation = error_at(&vector, &z, 2);
    assert!(violation > 1e-2, "{violation}");
    // The structure-preserving default on the same weight and input.
    let exact = vector.with_mode::<geomattn::GradientExact>();
    assert!(error_at(&exact, &z, 2) < TOLERANCE);
    // The P layer the same way round.
    let p_vector = SymplecticAttentionP::<Dual64, 2, VectorSoftmax>::symmetric_gml(lift(&a));
    assert!(error_at(&p_vector, &z, 2) > 1e-2);
}

#[test]
fn batch_entry_points_agree_with_forward() {
    let mut rng = SmallRng::seed_from_u64(2);
    let layer = SymplecticAttentionQ::<f64, 2, VectorSoftmax, SymmetricA<f64, 2>>::glorot(&mut rng);
    let batch: Vec<SMatrix<f64, 4, 3>> = (0..4).map(|_| random_matrix(&mut rng)).collect();
    let mut outs = vec![SMatrix::zeros(); 4];
    layer.forward_batch(&batch, &mut outs).unwrap();
    let flat: Vec<f64> = batch.iter().flat_map(|z| z.iter().copied()).collect();
    let mut flat_out = vec![0.0; flat.len()];
    // The layer works for every T, so the flat form names it.
    SequenceLayer::<f64, 4, 3>::forward_flat(&layer, &flat, &mut flat_out).unwrap();
    for (k, z) in batch.iter().enumerate() {
        let expected = layer.forward(z);
        assert_eq!(outs[k], expected);
        assert_eq!(&flat_out[12 * k..12 * (k + 1)], expected.as_slice());
    }
    // One layer, any sequence length.
    let z = Matrix2x3::new(1.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let short = SymplecticAttentionQ::<f64, 1>::arbitrary(Matrix1::new(1.0));
    assert_eq!(short.forward(&z).row(1), z.row(1));
}
