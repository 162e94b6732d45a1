//! The supporting layers, the older orthonormal attention and softmax self-attention: the
//! structure each is meant to keep, measured, and the time per sequence.
//!
//! Structure errors: `|det J − 1|` (Jacobian on `R^{D×T}` by dual numbers) for the
//! volume-preserving layers, `‖Jᵀ𝕁J − 𝕁‖_max` (one phase-space vector) for the gradient layers,
//! `max ‖σᵀσ − I‖` and `max |det σ − 1|` over the batch for the orthonormal activations. ResNet
//! and the softmax layers keep no structure; their `det J` is shown for contrast.

use geomattn::nalgebra::{DMatrix, SMatrix};
use geomattn::{
    Additive, Bilinear, ColumnLayer, DefaultCayley, Dense, Exp, GradientLayerP, GradientLayerQ,
    LowRank, OrthogonalMap, OrthonormalAttention, ResNetLayer, ScalingSquaring, SequenceLayer,
    SoftmaxAttention, VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
use geomattn::{MapScalar, Tanh};
use geomattn_testkit::{jacobian, orthogonality_error, random_matrix};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use super::{Table, batch_len, nanos, sci, time_per_call};

const D: usize = 6;
const T: usize = 8;
type Sequence = SMatrix<f64, D, T>;

/// The table, one row per layer family (`D = 6`, `T = 8`, seeded Glorot weights, `f64`).
pub fn table() -> Table {
    let mut table = Table::new(
        "Supporting layers, orthonormal and softmax attention (D = 6, T = 8, seeded Glorot weights, f64)",
        &["layer", "structure", "max error", "ns/seq"],
    );
    let mut rng = SmallRng::seed_from_u64(606);
    let batch: Vec<Sequence> = (0..batch_len()).map(|_| random_matrix(&mut rng)).collect();

    let lower = VolumePreservingLowerLayer::<f64, D, Tanh>::glorot(&mut rng, true);
    let det = det_error(&lower.map_scalar(Dual64::from), &batch);
    row(
        &mut table,
        "VolumePreservingLowerLayer (tanh, bias)",
        "|det J − 1|",
        det,
        &lower,
        &batch,
    );
    let upper = VolumePreservingUpperLayer::<f64, D, Tanh>::glorot(&mut rng, true);
    let det = det_error(&upper.map_scalar(Dual64::from), &batch);
    row(
        &mut table,
        "VolumePreservingUpperLayer (tanh, bias)",
        "|det J − 1|",
        det,
        &upper,
        &batch,
    );
    let resnet = ResNetLayer::<f64, D, Tanh>::glorot(&mut rng, true);
    let det = det_error(&resnet.map_scalar(Dual64::from), &batch);
    row(
        &mut table,
        "ResNetLayer (tanh; keeps nothing)",
        "|det J − 1|",
        det,
        &resnet,
        &batch,
    );

    let gradient_q = GradientLayerQ::<f64, 3, 8, Tanh>::glorot(&mut rng);
    let error = symplecticity_error(&gradient_q.map_scalar(Dual64::from), &batch);
    row(
        &mut table,
        "GradientLayerQ (N = 3, H = 8, tanh)",
        "‖Jᵀ𝕁J − 𝕁‖",
        error,
        &gradient_q,
        &batch,
    );
    let gradient_p = GradientLayerP::<f64, 3, 8, Tanh>::glorot(&mut rng);
    let error = symplecticity_error(&gradient_p.map_scalar(Dual64::from), &batch);
    row(
        &mut table,
        "GradientLayerP (N = 3, H = 8, tanh)",
        "‖Jᵀ𝕁J − 𝕁‖",
        error,
        &gradient_p,
        &batch,
    );

    let cayley = OrthonormalAttention::<f64, D, DefaultCayley>::glorot(&mut rng, false);
    orthonormal_rows(&mut table, "OrthonormalAttention (Cayley)", &cayley, &batch);
    let exp = cayley.with_map::<Exp>();
    orthonormal_rows(&mut table, "OrthonormalAttention (exp)", &exp, &batch);
    let pade = cayley.with_map::<ScalingSquaring>();
    orthonormal_rows(
        &mut table,
        "OrthonormalAttention (exp, scaling and squaring)",
        &pade,
        &batch,
    );

    let bilinear = SoftmaxAttention::new(Bilinear::<f64, D>::glorot(&mut rng));
    row(
        &mut table,
        "SoftmaxAttention (bilinear)",
        "none",
        f64::NAN,
        &bilinear,
        &batch,
    );
    let low_rank = SoftmaxAttention::new(LowRank::<f64, D, 2>::glorot(&mut rng));
    let dense_form = SoftmaxAttention::new(low_rank.correlation().dense());
    let agreement = batch
        .iter()
        .map(|z| (low_rank.forward(z) - dense_form.forward(z)).amax())
        .fold(0.0, f64::max);
    row(
        &mut table,
        "SoftmaxAttention (low rank K = 2)",
        "vs dense W_U W_Vᵀ",
        agreement,
        &low_rank,
        &batch,
    );
    let additive = SoftmaxAttention::new(Additive::<f64, D, 4>::glorot(&mut rng));
    row(
        &mut table,
        "SoftmaxAttention (additive H = 4, tanh)",
        "none",
        f64::NAN,
        &additive,
        &batch,
    );

    let dense = Dense::<f64, D, 3, Tanh>::glorot(&mut rng, true);
    let mut outs = vec![SMatrix::<f64, 3, T>::zeros(); batch_len()];
    let time = time_per_call(3, 5, || {
        dense
            .apply_columns_batch(black_box(&batch), &mut outs)
            .unwrap()
    });
    table.row(vec![
        "Dense (6 → 3, tanh)".into(),
        "none".into(),
        "—".into(),
        nanos(time / batch_len() as u32),
    ]);
    table
}

fn row(
    table: &mut Table,
    name: &str,
    structure: &str,
    error: f64,
    layer: &impl SequenceLayer<f64, D, T>,
    batch: &[Sequence],
) {
    let mut outs = batch.to_vec();
    let time = time_per_call(3, 5, || {
        layer.forward_batch(black_box(batch), &mut outs).unwrap()
    });
    let error = if error.is_nan() {
        "—".into()
    } else {
        sci(error)
    };
    table.row(vec![
        name.into(),
        structure.into(),
        error,
        nanos(time / batch_len() as u32),
    ]);
}

/// `max |det J − 1|` over the first sequences of the batch.
fn det_error(lifted: &impl SequenceLayer<Dual64, D, T>, batch: &[Sequence]) -> f64 {
    batch[..16]
        .iter()
        .map(|z| (jacobian(|z| lifted.forward(z), z).determinant() - 1.0).abs())
        .fold(0.0, f64::max)
}

/// `max ‖Jᵀ𝕁J − 𝕁‖_max` over the first columns of the batch, one phase-space vector each.
fn symplecticity_error(lifted: &impl SequenceLayer<Dual64, D, 1>, batch: &[Sequence]) -> f64 {
    let n = D / 2;
    let mut j = DMatrix::<f64>::zeros(D, D);
    for k in 0..n {
        j[(k, n + k)] = 1.0;
        j[(n + k, k)] = -1.0;
    }
    batch[..64]
        .iter()
        .map(|z| {
            let x = SMatrix::<f64, D, 1>::from_column_slice(z.column(0).as_slice()) * 2.0;
            let jac = jacobian(|x| lifted.forward(x), &x);
            (jac.transpose() * &j * &jac - &j).amax()
        })
        .fold(0.0, f64::max)
}

/// Two rows' worth of structure for one orthonormal activation: orthogonality and `det σ`.
fn orthonormal_rows<M: OrthogonalMap<f64, T>>(
    table: &mut Table,
    name: &str,
    layer: &OrthonormalAttention<f64, D, M>,
    batch: &[Sequence],
) {
    let sigmas = batch
        .iter()
        .map(|z| M::map(&layer.correlation(&z.as_view())));
    let (orthogonality, det) = sigmas.fold((0.0, 0.0), |(o, d): (f64, f64), sigma| {
        (
            o.max(orthogonality_error(&sigma)),
            d.max((sigma.determinant() - 1.0).abs()),
        )
    });
    row(table, name, "‖σᵀσ − I‖", orthogonality, layer, batch);
    table.row(vec![
        String::new(),
        "|det σ − 1|".into(),
        sci(det),
        String::new(),
    ]);
}
