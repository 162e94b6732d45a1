//! One minibatch of training: the transformer loss, its gradient through the backward passes,
//! and an Adam step on the network's flat parameters.

use geomattn::nalgebra::SMatrix;
use geomattn::{
    AdamOptimizer, AddConnection, Backward, MultiHeadAttention, Schema, SkewWeight,
    StandardTransformerIntegrator, Tanh, VolumePreservingTransformer, from_flat, loss_and_gradient,
    train_step,
};
use std::hint::black_box;

use crate::Probe;

type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh, SkewWeight<f64, 3>>;
const P: usize = <Vpt as Schema>::SCALARS;
type Integrator = StandardTransformerIntegrator<
    f64,
    4,
    MultiHeadAttention<f64, 4, 2, 2, AddConnection>,
    1,
    2,
    Tanh,
>;
const P_INTEGRATOR: usize = <Integrator as Schema>::SCALARS;

pub fn check(probe: &mut Probe) {
    let params: Vec<f64> = (0..P).map(|k| ((k * 7 % 11) as f64 - 5.0) / 20.0).collect();
    let mut net: Vpt = from_flat(&params).unwrap();
    let inputs =
        [0, 1, 2, 3].map(|w| SMatrix::<f64, 3, 3>::from_fn(|i, j| (i + j + w) as f64 / 5.0));
    let targets = inputs.map(|x| x * 0.9);
    let mut adam = AdamOptimizer::<f64, P>::default();

    probe.run("transformer loss and gradient", || {
        let mut gradient = net.zero_gradient();
        black_box(loss_and_gradient(&net, black_box(&inputs), &targets, &mut gradient).unwrap());
        black_box(gradient);
    });
    probe.run("train_step with Adam", || {
        black_box(train_step(&mut net, &mut adam, black_box(&inputs), &targets).unwrap());
    });

    let params: Vec<f64> = (0..P_INTEGRATOR)
        .map(|k| ((k * 5 % 13) as f64 - 6.0) / 30.0)
        .collect();
    let mut integrator: Integrator = from_flat(&params).unwrap();
    let inputs =
        [0, 1, 2].map(|w| SMatrix::<f64, 4, 3>::from_fn(|i, j| (i + 2 * j + w) as f64 / 7.0));
    let targets = inputs.map(|x| x * 0.8);
    let mut adam = AdamOptimizer::<f64, P_INTEGRATOR>::default();
    probe.run("train_step of a standard transformer integrator", || {
        black_box(train_step(&mut integrator, &mut adam, black_box(&inputs), &targets).unwrap());
    });
}
