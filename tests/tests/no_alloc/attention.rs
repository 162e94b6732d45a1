//! Softmaxes, multi-head attention, symplectic and linear symplectic attention.

use geomattn::nalgebra::SMatrix;
use geomattn::{
    AddConnection, LinearSymplecticAttentionP, LinearSymplecticAttentionQ, MatrixSoftmax,
    MultiHeadAttention, OneVectorSoftmax, SequenceLayer, Softmax, Stiefel, SymplecticAttentionP,
    SymplecticAttentionQ, VectorSoftmax,
};
use geomattn::{GmlCompatible, SymmetricA};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use crate::Probe;

pub fn check(probe: &mut Probe) {
    let mut rng = SmallRng::seed_from_u64(4);
    let c = SMatrix::<f32, 5, 5>::from_fn(|i, j| (i as f32 - 2.0 * j as f32) * 1e3);
    probe.run("VectorSoftmax", || {
        black_box(VectorSoftmax::apply(black_box(&c)));
    });
    probe.run("MatrixSoftmax", || {
        black_box(MatrixSoftmax::apply(black_box(&c)));
    });
    probe.run("OneVectorSoftmax", || {
        black_box(OneVectorSoftmax::apply(black_box(&c)));
    });

    let z = SMatrix::<f64, 6, 4>::from_fn(|i, j| (i as f64 - j as f64) / 5.0);
    let zs = [z; 6];
    let mut outs = [SMatrix::<f64, 6, 4>::zeros(); 6];
    let flat: Vec<f64> = zs.iter().flat_map(|m| m.iter().copied()).collect();
    let mut flat_out = vec![0.0; flat.len()];

    let mha = MultiHeadAttention::<f64, 6, 3, 2, AddConnection, Stiefel>::stiefel_random(&mut rng);
    probe.run("MHA forward", || {
        black_box(mha.forward(black_box(&z)));
    });
    probe.run("MHA forward_batch", || {
        mha.forward_batch(black_box(&zs), &mut outs).unwrap();
    });
    probe.run("MHA forward_flat", || {
        SequenceLayer::<f64, 6, 4>::forward_flat(&mha, black_box(&flat), &mut flat_out).unwrap();
    });

    let dense = SymplecticAttentionQ::<f64, 3>::glorot(&mut rng);
    probe.run("SymplecticAttentionQ dense forward", || {
        black_box(dense.forward(black_box(&z)));
    });
    probe.run("SymplecticAttentionQ dense forward_in_place", || {
        let mut w = z;
        dense.forward_in_place(black_box(&mut w));
        black_box(w);
    });
    let gml =
        SymplecticAttentionP::<f64, 3, VectorSoftmax, SymmetricA<f64, 3, GmlCompatible>>::glorot(
            &mut rng,
        );
    probe.run("SymplecticAttentionP GML symmetric forward_flat", || {
        SequenceLayer::<f64, 6, 4>::forward_flat(&gml, black_box(&flat), &mut flat_out).unwrap();
    });
    let exact = gml.with_mode::<geomattn::GradientExact>();
    probe.run("SymplecticAttentionP gradient-exact forward_batch", || {
        exact.forward_batch(black_box(&zs), &mut outs).unwrap();
    });

    let linear_q = LinearSymplecticAttentionQ::<f64, 3, 4>::glorot(&mut rng);
    let linear_p = LinearSymplecticAttentionP::<f32, 1, 7>::glorot(&mut rng);
    probe.run("LinearSymplecticAttentionQ forward_batch", || {
        linear_q.forward_batch(black_box(&zs), &mut outs).unwrap();
    });
    let z32 = SMatrix::<f32, 2, 7>::from_fn(|i, j| (i + j) as f32);
    probe.run("LinearSymplecticAttentionP forward (f32)", || {
        black_box(linear_p.forward(black_box(&z32)));
    });
}
