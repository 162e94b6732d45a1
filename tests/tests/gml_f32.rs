//! Every GML fixture network in `f32` agrees with its `f64` run to the precision `f32` allows
//! (the weights are Float32 in the files, so both runs have the same weights; only the
//! arithmetic differs).
//!
//! Measured, as the largest difference between the `f32` and the `f64` outputs relative to the
//! largest `f64` output (`f32`'s ε is 1.2e-7):
//!
//! | network | inputs | relative difference |
//! |---|---|---|
//! | VolumePreservingTransformer | 54 windows of the rigid body | 5.7e-7 |
//! | VolumePreservingFeedForward | 59 states | 4.6e-7 |
//! | StandardTransformerIntegrator | 54 windows | 6.4e-7 |
//! | MNIST body, nn1 … nn4 (32 layers, dim 49) | 4 seeded patch sequences | 2.5e-7, 4.0e-7, 5.1e-7, 7.4e-7 |
//!
//! The bounds asserted are about three times these: a few ε, as rounding in a network of a few
//! dozen layers gives.

use geomattn::gml::{GmlFile, Layers, load_file};
use geomattn::nalgebra::{Matrix3, RealField, SMatrix, Vector3};
use geomattn::{
    ColumnLayer, Euclidean, MultiHeadAttention, NoConnection, Projection, ResNetLayer, Schema,
    SequenceLayer, StandardTransformerIntegrator, Stiefel, Tanh, Transformer,
    VolumePreservingFeedForward, VolumePreservingTransformer, read_boxed,
};
use geomattn_testkit::{fixture, rigid_body};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, NoConnection>, 2, 3, Tanh>;
type MnistBody<S, Proj> =
    Transformer<MultiHeadAttention<S, 49, 7, 7, NoConnection, Proj>, ResNetLayer<S, 49, Tanh>, 16>;

fn load<N: Schema<Scalar: RealField>>(name: &str) -> N {
    load_file(fixture(name)).unwrap()
}

/// `max |f32 − f64| / max |f64|` over the pairs of outputs.
fn relative<const R: usize, const C: usize>(
    pairs: impl IntoIterator<Item = (SMatrix<f32, R, C>, SMatrix<f64, R, C>)>,
) -> f64 {
    let (mut difference, mut scale) = (0.0_f64, 0.0_f64);
    for (single, double) in pairs {
        difference = difference.max((single.cast::<f64>() - double).amax());
        scale = scale.max(double.amax());
    }
    difference / scale
}

fn states() -> [Vector3<f64>; 60] {
    let mut states = [Vector3::zeros(); 60];
    rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut states);
    states
}

fn windows() -> Vec<Matrix3<f64>> {
    let states = states();
    (0..states.len() - 6)
        .map(|t| Matrix3::from_columns(&states[t..t + 3]))
        .collect()
}

fn transformer<N32, N64>(file: &str) -> f64
where
    N32: Schema<Scalar = f32> + SequenceLayer<f32, 3, 3>,
    N64: Schema<Scalar = f64> + SequenceLayer<f64, 3, 3>,
{
    let (single, double): (N32, N64) = (load(file), load(file));
    relative(
        windows()
            .iter()
            .map(|z| (single.forward(&z.cast()), double.forward(z))),
    )
}

#[test]
fn rigid_body_networks_in_f32_agree_with_f64() {
    let vpt = transformer::<Vpt<f32>, Vpt<f64>>("transformer_rigid_body_nn_vpt.h5");
    assert!(vpt < 2e-6, "{vpt}");
    let st = transformer::<St<f32>, St<f64>>("transformer_rigid_body_nn_st.h5");
    assert!(st < 2e-6, "{st}");
    let file = "transformer_rigid_body_nn_vpff.h5";
    let (single, double): (Vpff<f32>, Vpff<f64>) = (load(file), load(file));
    let vpff = relative(
        states()[..59]
            .iter()
            .map(|z| (single.apply(&z.cast()), double.apply(z))),
    );
    assert!(vpff < 2e-6, "{vpff}");
    println!("relative f32/f64 differences: VPT {vpt:.1e}, ST {st:.1e}, VPFF {vpff:.1e}");
}

fn mnist_body<S: RealField + Copy, Proj: Projection>(name: &str) -> Box<MnistBody<S, Proj>> {
    let file = GmlFile::open(fixture(name)).unwrap();
    let mut layers = Layers::new(&file).unwrap();
    read_boxed(&mut layers).unwrap()
}

fn mnist<Proj: Projection>(name: &str) -> f64 {
    let single = mnist_body::<f32, Proj>(name);
    let double = mnist_body::<f64, Proj>(name);
    let mut rng = SmallRng::seed_from_u64(3);
    // Patches of pixels in [0, 1], as the classifier's inputs.
    let inputs: Vec<SMatrix<f64, 49, 16>> = (0..4)
        .map(|_| SMatrix::from_fn(|_, _| rng.random::<f64>()))
        .collect();
    relative(
        inputs
            .iter()
            .map(|z| (single.forward(&z.cast()), double.forward(z))),
    )
}

#[test]
fn mnist_networks_in_f32_agree_with_f64() {
    // The body is 1.2 MB in f64: run where the stack has room for a few sequences of it.
    let run = || {
        [
            mnist::<Euclidean>("mnist_nn1.h5"),
            mnist::<Stiefel>("mnist_nn2.h5"),
            mnist::<Stiefel>("mnist_nn3.h5"),
            mnist::<Stiefel>("mnist_nn4.h5"),
        ]
    };
    let differences = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
    println!("relative f32/f64 differences, MNIST nn1 … nn4: {differences:?}");
    for difference in differences {
        assert!(difference < 2e-6, "{difference}");
    }
}
