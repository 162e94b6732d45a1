//! The backward passes of GML's symplectic transformers, one sequence each.

use geomattn::nalgebra::SMatrix;
use geomattn::{
    Backward, GmlCompatible, LinearSymplecticTransformer, Schema, SymmetricA,
    SymplecticTransformer, Tanh, VectorSoftmax, from_flat,
};
use std::hint::black_box;

use crate::Probe;

type Symplectic = SymplecticTransformer<f64, 2, 3, 2, 2, Tanh, VectorSoftmax>;
type SymmetricGml =
    SymplecticTransformer<f64, 2, 3, 2, 2, Tanh, VectorSoftmax, SymmetricA<f64, 2, GmlCompatible>>;
type Linear = LinearSymplecticTransformer<f64, 2, 4, 3, 2, 2, Tanh>;

/// `net`'s backward pass on one window, its parameters read from a fixed list.
fn run<Net: Schema<Scalar = f64> + Backward<f64, 4, 4>>(probe: &mut Probe, name: &'static str) {
    let params: Vec<f64> = (0..Net::SCALARS)
        .map(|k| ((k * 7 % 11) as f64 - 5.0) / 20.0)
        .collect();
    let net: Net = from_flat(&params).unwrap();
    let z = SMatrix::<f64, 4, 4>::from_fn(|i, j| (i + 2 * j) as f64 / 7.0 - 0.5);
    let out_bar = z * 0.3;
    probe.run(name, || {
        let mut gradient = net.zero_gradient();
        black_box(net.backward(black_box(&z), &out_bar, &mut gradient));
        black_box(gradient);
    });
}

pub fn check(probe: &mut Probe) {
    run::<Symplectic>(probe, "SymplecticTransformer backward (dense A)");
    run::<SymmetricGml>(
        probe,
        "SymplecticTransformer backward (GML's symmetric kick)",
    );
    run::<Linear>(probe, "LinearSymplecticTransformer backward");
}
