//! Every integrator trains from a spec on the run-time engine's backward passes, at the sizes of
//! GML's tutorials and beyond (the feed-forward network on one-state windows, as GML's
//! `Batch(batch_size)`): each
//! reaches, from the same seed, the weights and losses of the runtime's `train_epoch` on its
//! const-generic type (to 1e-12); what it writes has GML's layout (the standard transformer's
//! and the feed-forward network's are their fixtures'), loads back, and keeps the structure the
//! architecture promises.

use geomattn::gml::{GmlFile, Storage, load};
use geomattn::init::glorot_network;
use geomattn::nalgebra::SVector;
use geomattn::train::{AdamOptimizer, Trajectories, train_epoch};
use geomattn::{
    AddConnection, ArbitraryWeight, Backward, DenseA, GmlCompatible, GradientExact,
    LinearSymplecticTransformer, MatrixSoftmax, MultiHeadAttention, NoConnection, Relu, Schema,
    Sigmoid, SkewWeight, Softplus, StandardTransformerIntegrator, SymmetricA,
    SymplecticTransformer, Tanh, UpdateP, UpdateQ, VectorSoftmax, VolumePreservingFeedForward,
    VolumePreservingTransformer, to_flat,
};
use geomattn_networks::train::{Data, Options, train};
use geomattn_networks::{Arch, check};
use geomattn_testkit::fixture;
use geomattn_testkit::gml_layout::layout;
use rand::SeedableRng;
use rand::rngs::SmallRng;

const ST: &str =
    "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=2, activation=tanh, add_connection=false)";
type St = StandardTransformerIntegrator<
    f64,
    3,
    MultiHeadAttention<f64, 3, 1, 3, NoConnection>,
    2,
    2,
    Tanh,
>;

const SYMPT: &str = "SymplecticTransformer(4; seq = 3, n_sympnet = 2, upscaling_dimension = 8, \
                     L = 2, activation = tanh, attention_activation = MatrixSoftmax(), \
                     init_upper = true, symmetric = false)";
type Sympt = SymplecticTransformer<f64, 2, 4, 2, 2, Tanh, MatrixSoftmax, DenseA<f64, 2>, UpdateQ>;

const LSYMPT: &str = "LinearSymplecticTransformer(4, 3; n_sympnet = 2, upscaling_dimension = 8, \
                      L = 2, activation = tanh, init_upper = false)";
type Lsympt = LinearSymplecticTransformer<f64, 2, 3, 4, 2, 2, Tanh, UpdateP>;

const VPFF: &str = "VolumePreservingFeedForward(3, 6, 1, tanh)";
type Vpff = VolumePreservingFeedForward<f64, 3, 6, 1, Tanh>;

/// Two harmonic oscillators in each of `pairs` planes, `(q₁ … q_n, p₁ … p_n)` at `h = 0.1`: a
/// CSV file's text with a `trajectory` column, read as a user's file is.
fn oscillators(pairs: usize, count: usize, states: usize) -> Data {
    let names: Vec<String> = (1..=2 * pairs).map(|k| format!("z{k}")).collect();
    let mut csv = format!("trajectory,{}\n", names.join(","));
    for k in 0..count {
        for step in 0..states {
            let t = 0.1 * step as f64;
            let amplitude = |i: usize| 0.4 + 0.3 * (k + i) as f64;
            let q = (0..pairs).map(|i| amplitude(i) * (t + i as f64).cos());
            let p = (0..pairs).map(|i| -amplitude(i) * (t + i as f64).sin());
            let values: Vec<String> = q.chain(p).map(|x| x.to_string()).collect();
            csv += &format!("{k},{}\n", values.join(","));
        }
    }
    Data::from_csv(&csv, "oscillators.csv").unwrap()
}

/// `count` trajectories of `states` states in `R^dim`, each coordinate a wave of its own
/// phase: a CSV file's text, read as a user's file is.
fn waves(dim: usize, count: usize, states: usize) -> Data {
    let names: Vec<String> = (1..=dim).map(|k| format!("z{k}")).collect();
    let mut csv = format!("trajectory,{}\n", names.join(","));
    for k in 0..count {
        for step in 0..states {
            let t = 0.1 * step as f64 + 0.3 * k as f64;
            let values: Vec<String> = (0..dim)
                .map(|i| (0.5 + 0.1 * i as f64) * (t + 0.7 * i as f64).cos())
                .map(|x| x.to_string())
                .collect();
            csv += &format!("{k},{}\n", values.join(","));
        }
    }
    Data::from_csv(&csv, "waves.csv").unwrap()
}

fn flat<Net: Schema<Scalar = f64>>(net: &Net) -> Vec<f64> {
    let mut out = vec![0.0; Net::SCALARS];
    to_flat(net, &mut out).unwrap();
    out
}

/// Three epochs of Adam from seed 0: the spec's training of `spec` and the runtime's
/// `train_epoch` on `Net` (`P` its parameter count) reach the same weights and losses, and the
/// loss falls. Returns the spec's file.
fn trains_as_the_runtime<Net, const D: usize, const T: usize, const P: usize>(
    spec: &str,
    data: &Data,
) -> Vec<u8>
where
    Net: Backward<f64, D, T> + Schema<Scalar = f64>,
    Net::Gradient: Schema<Scalar = f64>,
{
    let options = Options {
        epochs: 3,
        batch: 10,
        storage: Storage::Float64,
        ..Options::default()
    };
    let mut spec_losses = Vec::new();
    let trained = train(&spec.parse().unwrap(), data, &options, &mut |e| {
        spec_losses.push(e.loss);
    })
    .unwrap();
    let from_spec: Net = load(&GmlFile::from_bytes(trained.file.clone()).unwrap()).unwrap();

    let mut rng = SmallRng::seed_from_u64(options.seed);
    let mut net: Net = glorot_network(&mut rng).unwrap();
    let trajectories: Vec<Vec<SVector<f64, D>>> = data
        .iter()
        .map(|t| t.chunks(D).map(SVector::from_column_slice).collect())
        .collect();
    let trajectories = Trajectories::new(&trajectories).unwrap();
    let mut adam = AdamOptimizer::<f64, P>::default();
    let losses: Vec<f64> = (0..options.epochs)
        .map(|_| train_epoch(&mut net, &mut adam, &trajectories, options.batch, &mut rng).unwrap())
        .collect();
    let (a, b) = (flat(&from_spec), flat(&net));
    let scale = b.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let difference = a
        .iter()
        .zip(&b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
    assert!(difference <= 1e-12 * scale, "{spec}: {difference}");
    assert_eq!(spec_losses.len(), losses.len());
    for (x, y) in spec_losses.iter().zip(&losses) {
        assert!((x - y).abs() <= 1e-12 * y, "{spec}: {x} {y}");
    }
    assert!(losses[2] < losses[0], "{spec}: {losses:?}");
    trained.file
}

/// The promised structure of a trained network, measured by the structure check.
fn keeps_its_structure(file: Vec<u8>, spec: &str) {
    let arch: Arch = spec.parse().unwrap();
    let measured = check(&GmlFile::from_bytes(file).unwrap(), &arch, 8, 1).unwrap();
    assert!(measured.iter().any(|m| m.promised), "{spec}: {measured:?}");
    assert!(measured.iter().all(|m| m.passes()), "{spec}: {measured:?}");
}

#[test]
fn the_standard_transformer_trains_as_the_runtime_does_in_gml_s_layout() {
    let file = trains_as_the_runtime::<St, 3, 3, { <St as Schema>::SCALARS }>(
        ST,
        &Data::rigid_body(6, 14),
    );
    // The fixture stores Float32 and 3 units (L = 3): compare a Float32 file of L = 3.
    let options = Options {
        epochs: 1,
        batch: 16,
        ..Options::default()
    };
    let three = ST.replace("L=2", "L=3");
    let float32 = train(
        &three.parse().unwrap(),
        &Data::rigid_body(2, 12),
        &options,
        &mut |_| {},
    )
    .unwrap();
    let fixture = std::fs::read(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    assert_eq!(layout(float32.file), layout(fixture));
    assert!(!file.is_empty());
}

#[test]
fn the_symplectic_transformer_trains_as_the_runtime_does_and_stays_symplectic() {
    let file = trains_as_the_runtime::<Sympt, 4, 3, { <Sympt as Schema>::SCALARS }>(
        SYMPT,
        &oscillators(2, 4, 14),
    );
    keeps_its_structure(file, SYMPT);
}

#[test]
fn the_linear_symplectic_transformer_trains_as_the_runtime_does_and_stays_symplectic() {
    let file = trains_as_the_runtime::<Lsympt, 4, 3, { <Lsympt as Schema>::SCALARS }>(
        LSYMPT,
        &oscillators(2, 4, 14),
    );
    keeps_its_structure(file, LSYMPT);
}

#[test]
fn the_feed_forward_network_trains_on_one_state_windows_as_the_runtime_does() {
    let data = Data::rigid_body(6, 14);
    let file = trains_as_the_runtime::<Vpff, 3, 1, { <Vpff as Schema>::SCALARS }>(VPFF, &data);
    keeps_its_structure(file, VPFF);
    // One epoch draws each state with the next: 13 windows per trajectory of 14 states.
    let mut windows = Vec::new();
    let options = Options {
        epochs: 1,
        batch: 16,
        ..Options::default()
    };
    let float32 = train(&VPFF.parse().unwrap(), &data, &options, &mut |e| {
        windows.push(e.windows);
    })
    .unwrap();
    assert_eq!(windows, [6 * 13]);
    let fixture = std::fs::read(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    assert_eq!(layout(float32.file), layout(fixture));
}

const VPT_SIGMOID: &str = "vpt(dim=5, seq=4, n_blocks=1, n_linear=2, L=2, activation=sigmoid, \
                            skew_sym=false)";
type VptSigmoid = VolumePreservingTransformer<f64, 5, 4, 1, 2, 2, Sigmoid, ArbitraryWeight<f64, 5>>;

const VPT_SKEW: &str = "VolumePreservingTransformer(4, 5; n_blocks = 2, n_linear = 1, \
                                 L = 1, activation = softplus, skew_sym = true)";
type VptSkew = VolumePreservingTransformer<f64, 4, 5, 2, 1, 1, Softplus, SkewWeight<f64, 4>>;

const VPFF_RELU: &str = "VolumePreservingFeedForward(5, 2, 2, relu)";
type VpffRelu = VolumePreservingFeedForward<f64, 5, 2, 2, Relu>;

#[test]
fn volume_preserving_networks_train_on_the_engine_as_the_runtime_does() {
    let data = waves(5, 6, 16);
    let file = trains_as_the_runtime::<VptSigmoid, 5, 4, { <VptSigmoid as Schema>::SCALARS }>(
        VPT_SIGMOID,
        &data,
    );
    keeps_its_structure(file, VPT_SIGMOID);
    let file = trains_as_the_runtime::<VpffRelu, 5, 1, { <VpffRelu as Schema>::SCALARS }>(
        VPFF_RELU, &data,
    );
    keeps_its_structure(file, VPFF_RELU);
    let data = waves(4, 5, 17);
    let file =
        trains_as_the_runtime::<VptSkew, 4, 5, { <VptSkew as Schema>::SCALARS }>(VPT_SKEW, &data);
    keeps_its_structure(file, VPT_SKEW);
}

const ST_HEADS: &str = "st(dim=4, seq=5, n_heads=2, n_blocks=2, L=2, activation=tanh, \
                           add_connection=true)";
type StHeads = StandardTransformerIntegrator<
    f64,
    4,
    MultiHeadAttention<f64, 4, 2, 2, AddConnection>,
    2,
    2,
    Tanh,
>;

const ST_UPSCALED: &str = "StandardTransformerIntegrator(2; transformer_dim = 12, n_blocks = 2, \
                           n_heads = 3, L = 2, upscaling_activation = tanh, seq = 4)";

#[test]
fn standard_transformers_train_on_the_engine() {
    let data = waves(4, 5, 17);
    trains_as_the_runtime::<StHeads, 4, 5, { <StHeads as Schema>::SCALARS }>(ST_HEADS, &data);
    // With Dense maps up and down (no compile-time type to compare with): the loss falls, and
    // the file loads back as the architecture.
    let data = waves(2, 6, 20);
    let options = Options {
        epochs: 4,
        batch: 8,
        ..Options::default()
    };
    let mut losses = Vec::new();
    let arch: Arch = ST_UPSCALED.parse().unwrap();
    let trained = train(&arch, &data, &options, &mut |e| losses.push(e.loss)).unwrap();
    assert!(losses[3] < losses[0], "{losses:?}");
    let file = GmlFile::from_bytes(trained.file).unwrap();
    geomattn_networks::open(&file, &arch, geomattn_networks::Precision::F64).unwrap();
}

const SYMPT_EXACT: &str = "SymplecticTransformer(6; seq = 5, n_sympnet = 3, \
                           upscaling_dimension = 10, L = 2, activation = sigmoid, \
                           attention_activation = VectorSoftmax(), init_upper = false, \
                           symmetric = true, kick = exact)";
type SymptExact = SymplecticTransformer<
    f64,
    3,
    5,
    3,
    2,
    Sigmoid,
    VectorSoftmax,
    SymmetricA<f64, 3, GradientExact>,
    UpdateP,
>;

const SYMPT_GML: &str = "SymplecticTransformer(2; seq = 4, n_sympnet = 2, \
                         upscaling_dimension = 4, L = 1, activation = tanh, \
                         attention_activation = MatrixSoftmax(), init_upper = true, \
                         symmetric = true)";
type SymptGml = SymplecticTransformer<
    f64,
    1,
    2,
    2,
    1,
    Tanh,
    MatrixSoftmax,
    SymmetricA<f64, 1, GmlCompatible>,
    UpdateQ,
>;

const LSYMPT_SOFTPLUS: &str = "LinearSymplecticTransformer(6, 4; n_sympnet = 3, \
                               upscaling_dimension = 20, L = 2, activation = softplus, \
                               init_upper = true)";
type LsymptSoftplus = LinearSymplecticTransformer<f64, 3, 4, 10, 3, 2, Softplus, UpdateQ>;

#[test]
fn symplectic_transformers_train_on_the_engine_as_the_runtime_does() {
    let data = oscillators(3, 4, 16);
    let file = trains_as_the_runtime::<SymptExact, 6, 5, { <SymptExact as Schema>::SCALARS }>(
        SYMPT_EXACT,
        &data,
    );
    keeps_its_structure(file, SYMPT_EXACT);
    let file = trains_as_the_runtime::<LsymptSoftplus, 6, 4, { <LsymptSoftplus as Schema>::SCALARS }>(
        LSYMPT_SOFTPLUS,
        &data,
    );
    keeps_its_structure(file, LSYMPT_SOFTPLUS);
    let data = oscillators(1, 5, 18);
    let file = trains_as_the_runtime::<SymptGml, 2, 4, { <SymptGml as Schema>::SCALARS }>(
        SYMPT_GML, &data,
    );
    keeps_its_structure(file, SYMPT_GML);
}

const SYMPT_PSD: &str = "SymplecticTransformer(2; transformer_dim = 6, seq = 3, n_sympnet = 1, \
                         upscaling_dimension = 4, L = 1, activation = tanh, \
                         attention_activation = MatrixSoftmax(), init_upper = true, \
                         symmetric = false)";

/// `transformer_dim ≠ dim`: the `PSDLayer`s' `Φ` train on the Stiefel manifold, as GML trains
/// them (its global sections and Cayley retraction), with every optimiser: the loss falls, the
/// file loads back as the architecture, and `Φ` keeps orthonormal columns to rounding (the
/// loaders accept GML's to 1e-2).
#[test]
fn a_symplectic_transformer_with_psd_layers_trains_its_stiefel_weights_on_the_manifold() {
    use geomattn_networks::train::Optimizer;
    let arch: Arch = SYMPT_PSD.parse().unwrap();
    let data = oscillators(1, 4, 14);
    for (optimizer, learning_rate) in [
        (Optimizer::Adam, None),
        (Optimizer::AdamWithDecay, None),
        (Optimizer::Momentum, Some(0.05)),
        (Optimizer::Gradient, Some(0.05)),
    ] {
        let options = Options {
            epochs: 6,
            batch: 8,
            optimizer,
            learning_rate,
            storage: Storage::Float64,
            ..Options::default()
        };
        let mut losses = Vec::new();
        let trained = train(&arch, &data, &options, &mut |e| losses.push(e.loss)).unwrap();
        assert!(losses[5] < losses[0], "{optimizer:?}: {losses:?}");
        let file = GmlFile::from_bytes(trained.file).unwrap();
        let measured = check(&file, &arch, 8, 1).unwrap();
        let phi = measured
            .iter()
            .find(|m| m.property.contains("ΦᵀΦ"))
            .unwrap();
        assert!(phi.worst < 1e-13, "{optimizer:?}: {phi:?}");
        assert!(measured.iter().all(|m| m.passes()), "{measured:?}");
    }
}

#[test]
fn engine_training_starts_from_a_file_it_wrote() {
    // One epoch from a file is the second epoch of a run of two: the weights are the file's
    // (Float64, so exactly), the optimiser starts afresh, so the losses differ but the first
    // epoch's loss from the file is the loss of those weights.
    let data = waves(4, 5, 17);
    let arch: Arch = ST_HEADS.parse().unwrap();
    let options = Options {
        epochs: 1,
        batch: 8,
        storage: Storage::Float64,
        ..Options::default()
    };
    let first = train(&arch, &data, &options, &mut |_| {}).unwrap();
    let path =
        std::env::temp_dir().join(format!("geomattn-engine-start-{}.h5", std::process::id()));
    std::fs::write(&path, &first.file).unwrap();
    let from_file = Options {
        initial: Some(path.clone()),
        epochs: 1,
        ..options.clone()
    };
    let again = train(&arch, &data, &from_file, &mut |_| {}).unwrap();
    std::fs::remove_file(&path).unwrap();
    let fresh = train(&arch, &data, &options, &mut |_| {}).unwrap();
    assert_eq!(fresh, first, "a seed reproduces a run");
    assert_ne!(again.file, first.file);
    assert!(
        again.losses[0] < first.losses[0],
        "{:?} {:?}",
        again.losses,
        first.losses
    );
    // A file of another architecture is refused, naming it.
    let other = Options {
        initial: Some(fixture("transformer_rigid_body_nn_vpt.h5")),
        ..options
    };
    assert!(train(&arch, &data, &other, &mut |_| {}).is_err());
}
