//! The supporting layers, the older orthonormal attention and softmax self-attention.

use geomattn::nalgebra::{SMatrix, SVector};
use geomattn::{Additive, Bilinear, LowRank, SoftmaxAttention};
use geomattn::{
    ColumnLayer, Dense, GradientLayerP, GradientLayerQ, ResNetLayer, SequenceLayer,
    VolumePreservingLowerLayer, VolumePreservingUpperLayer,
};
use geomattn::{Exp, OrthonormalAttention, ScalingSquaring};
use geomattn::{Identity, Tanh};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use crate::Probe;

fn sequence<S: SequenceLayer<f64, 6, 5>>(probe: &mut Probe, name: &'static str, layer: &S) {
    let z = SMatrix::<f64, 6, 5>::from_fn(|i, j| (i as f64 - 2.0 * j as f64) / 9.0);
    let zs = [z; 4];
    let mut outs = [SMatrix::<f64, 6, 5>::zeros(); 4];
    probe.run(name, || {
        black_box(layer.forward(black_box(&z)));
        layer.forward_batch(black_box(&zs), &mut outs).unwrap();
    });
}

pub fn check(probe: &mut Probe) {
    let mut rng = SmallRng::seed_from_u64(4);
    let lower = VolumePreservingLowerLayer::<f64, 6, Tanh>::glorot(&mut rng, true);
    let upper = VolumePreservingUpperLayer::<f64, 6, Identity>::glorot(&mut rng, false);
    let resnet = ResNetLayer::<f64, 6, Tanh>::glorot(&mut rng, true);
    let gradient_q = GradientLayerQ::<f64, 3, 8, Tanh>::glorot(&mut rng);
    let gradient_p = GradientLayerP::<f64, 3, 8, Tanh>::glorot(&mut rng);
    sequence(probe, "VolumePreservingLowerLayer", &lower);
    sequence(probe, "VolumePreservingUpperLayer", &upper);
    sequence(probe, "ResNetLayer", &resnet);
    sequence(probe, "GradientLayerQ", &gradient_q);
    sequence(probe, "GradientLayerP", &gradient_p);
    sequence(
        probe,
        "OrthonormalAttention (Cayley)",
        &OrthonormalAttention::<f64, 6>::glorot(&mut rng, true),
    );
    sequence(
        probe,
        "OrthonormalAttention (exp)",
        &OrthonormalAttention::<f64, 6, Exp>::glorot(&mut rng, false),
    );
    sequence(
        probe,
        "OrthonormalAttention (scaling and squaring)",
        &OrthonormalAttention::<f64, 6, ScalingSquaring>::glorot(&mut rng, false),
    );
    sequence(
        probe,
        "SoftmaxAttention (bilinear)",
        &SoftmaxAttention::new(Bilinear::glorot(&mut rng)),
    );
    sequence(
        probe,
        "SoftmaxAttention (low rank)",
        &SoftmaxAttention::new(LowRank::<f64, 6, 2>::glorot(&mut rng)),
    );
    sequence(
        probe,
        "SoftmaxAttention (additive)",
        &SoftmaxAttention::new(Additive::<f64, 6, 4>::glorot(&mut rng)),
    );
    let x = SVector::<f64, 6>::from_fn(|i, _| i as f64 / 5.0);
    probe.run("ColumnLayer::apply", || {
        black_box(lower.apply(black_box(&x)));
        black_box(gradient_q.apply(black_box(&x)));
    });
    let dense = Dense::<f64, 6, 3, Tanh>::glorot(&mut rng, true);
    let z = SMatrix::<f64, 6, 5>::from_fn(|i, j| (i * j) as f64 / 30.0);
    let zs = [z; 4];
    let mut outs = [SMatrix::<f64, 3, 5>::zeros(); 4];
    probe.run("Dense", || {
        black_box(dense.apply_columns(black_box(&z)));
        dense
            .apply_columns_batch(black_box(&zs), &mut outs)
            .unwrap();
    });
}
