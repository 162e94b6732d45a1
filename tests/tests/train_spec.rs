//! Training from a spec (`geomattn_networks::train`, what `geomattn train` runs): the network it
//! writes has GML's own layout (the same objects as GML's rigid-body fixture), it is the network
//! the runtime's training of the same const-generic type reaches from the same seed (the run-time
//! engine's backward passes in `f64` lanes, the runtime's `train_epoch` the compile-time type's
//! scalar ones: equal to 1e-12, the gradients differing only in the order of their sums and the
//! vectorised functions), and every bad option or data file is a clear error.

use geomattn::gml::{GmlFile, Storage, load};
use geomattn::init::glorot_network;
use geomattn::train::{AdamOptimizer, Trajectories, train_epoch};
use geomattn::{Schema, Tanh, VolumePreservingTransformer, to_flat};
use geomattn_networks::Error;
use geomattn_networks::train::{Data, Optimizer, Options, train};
use geomattn_testkit::fixture;
use geomattn_testkit::gml_layout::{layout, objects, split_recorded_types};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// GML's rigid-body VPT, `VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3,
/// activation = tanh, skew_sym = false)`.
const TUTORIAL: &str =
    "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;

fn params(net: &Vpt) -> Vec<f64> {
    let mut out = vec![0.0; <Vpt as Schema>::SCALARS];
    to_flat(net, &mut out).unwrap();
    out
}

#[test]
fn the_written_network_has_gml_s_own_layout() {
    let data = Data::rigid_body(4, 12);
    let options = Options {
        epochs: 1,
        batch: 16,
        ..Options::default()
    };
    let trained = train(&TUTORIAL.parse().unwrap(), &data, &options, &mut |_| {}).unwrap();
    let fixture = std::fs::read(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    assert_eq!(layout(trained.file.clone()), layout(fixture));
    // And, beside GML's layout, the type of each of the 33 layer groups, which GML ignores.
    let (types, _) = split_recorded_types(objects(trained.file.clone(), false));
    assert_eq!(types.len(), 33);
    assert!(
        types[0].contains("VolumePreservingAttention(dim = 3, seq_length = 3"),
        "{types:?}"
    );
    let net: Vpt = load(&GmlFile::from_bytes(trained.file).unwrap()).unwrap();
    assert!(params(&net).iter().all(|x| x.is_finite()));
}

/// The skew-symmetric weighting trains too, and is written as GML writes it (`SkewSymMatrix`
/// groups).
#[test]
fn the_skew_weighting_trains_and_is_written_as_skew_sym_matrices() {
    let arch = TUTORIAL.replace("skew_sym=false", "skew_sym=true");
    let options = Options {
        epochs: 3,
        batch: 8,
        ..Options::default()
    };
    let trained = train(
        &arch.parse().unwrap(),
        &Data::rigid_body(4, 12),
        &options,
        &mut |_| {},
    )
    .unwrap();
    assert!(
        trained.losses[2] < trained.losses[0],
        "{:?}",
        trained.losses
    );
    let skew = objects(trained.file, false)
        .iter()
        .filter(|line| line.ends_with("@gml_type = String(\"SkewSymMatrix\")"))
        .count();
    assert_eq!(skew, 3);
}

/// The spec's training (units known at run time, one optimiser per part) and the runtime's
/// (`train_epoch` on the const-generic type, one optimiser over every parameter) are the same
/// computation: from the same seed (the same Glorot draws, then the same shuffles) both reach the
/// same weights after three epochs of Adam, to rounding.
#[test]
fn spec_training_is_the_runtime_s_training_of_the_same_type() {
    let data = Data::rigid_body(6, 14);
    let options = Options {
        epochs: 3,
        batch: 10,
        storage: Storage::Float64,
        ..Options::default()
    };
    let mut spec_losses = Vec::new();
    let trained = train(&TUTORIAL.parse().unwrap(), &data, &options, &mut |e| {
        spec_losses.push(e.loss);
    })
    .unwrap();
    let from_spec: Vpt = load(&GmlFile::from_bytes(trained.file).unwrap()).unwrap();

    let mut rng = SmallRng::seed_from_u64(options.seed);
    let mut net: Vpt = glorot_network(&mut rng).unwrap();
    let trajectories: Vec<Vec<_>> = data
        .iter()
        .map(|t| {
            t.chunks(3)
                .map(geomattn::nalgebra::Vector3::from_column_slice)
                .collect()
        })
        .collect();
    let trajectories = Trajectories::new(&trajectories).unwrap();
    let mut adam = AdamOptimizer::<f64, { <Vpt as Schema>::SCALARS }>::default();
    let mut losses = Vec::new();
    for _ in 0..options.epochs {
        losses.push(
            train_epoch(&mut net, &mut adam, &trajectories, options.batch, &mut rng).unwrap(),
        );
    }
    let (a, b) = (params(&from_spec), params(&net));
    let scale = b.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let difference = a
        .iter()
        .zip(&b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
    assert!(difference <= 1e-12 * scale, "{difference}");
    for (x, y) in spec_losses.iter().zip(&losses) {
        assert!((x - y).abs() <= 1e-12 * y, "{x} {y}");
    }
    // And it learns: the loss falls.
    assert!(losses[2] < losses[0], "{losses:?}");
}

/// Every optimiser runs, and the learning rate reaches it: GML's default given explicitly trains
/// exactly as the default does (to the same weights, or to the same divergence: plain gradient
/// descent with GML's η = 1e-2 diverges from these Glorot weights, whose relative loss is about
/// 200), and a smaller rate trains to other weights.
#[test]
fn every_optimiser_trains_and_takes_its_learning_rate() {
    let data = Data::rigid_body(2, 10);
    let arch = TUTORIAL.parse().unwrap();
    let start: Vpt = glorot_network(&mut SmallRng::seed_from_u64(0)).unwrap();
    for (optimizer, default) in [
        (Optimizer::Adam, f64::from(1e-3_f32)),
        (Optimizer::AdamWithDecay, f64::from(1e-2_f32)),
        (Optimizer::Momentum, 1e-3),
        (Optimizer::Gradient, 1e-2),
    ] {
        let trained = |learning_rate| {
            let options = Options {
                epochs: 2,
                batch: 4,
                optimizer,
                learning_rate,
                storage: Storage::Float64,
                ..Options::default()
            };
            let trained = train(&arch, &data, &options, &mut |_| {}).map_err(|e| e.to_string())?;
            let net: Vpt = load(&GmlFile::from_bytes(trained.file).unwrap()).unwrap();
            Ok::<_, String>(params(&net))
        };
        assert_eq!(trained(Some(default)), trained(None), "{optimizer:?}");
        let slower = trained(Some(default / 1e3)).unwrap();
        assert_ne!(Ok(slower.clone()), trained(None), "{optimizer:?}");
        assert_ne!(slower, params(&start), "{optimizer:?} moved nothing");
    }
}

/// `AdamOptimizerWithDecay`'s `n_epochs` apart from the epochs trained (GML's constructor takes
/// it so): given as the epochs it is the default; a longer decay keeps η higher, so the weights
/// move further from where the default leaves them than a repeat of the default does (not at all).
#[test]
fn the_decay_s_n_epochs_is_its_own_option() {
    let data = Data::rigid_body(2, 10);
    let arch = TUTORIAL.parse().unwrap();
    let trained = |decay_epochs| {
        let options = Options {
            epochs: 2,
            batch: 4,
            optimizer: Optimizer::AdamWithDecay,
            decay_epochs,
            storage: Storage::Float64,
            ..Options::default()
        };
        let trained = train(&arch, &data, &options, &mut |_| {}).unwrap();
        let net: Vpt = load(&GmlFile::from_bytes(trained.file).unwrap()).unwrap();
        params(&net)
    };
    let default = trained(None);
    assert_eq!(trained(Some(2)), default);
    assert_ne!(trained(Some(1000)), default);
}

/// A learning rate the network cannot take: the loss stops being finite, and training stops
/// with an error saying so, in the epoch where it happened.
#[test]
fn a_diverging_training_stops_with_an_error() {
    let options = Options {
        optimizer: Optimizer::Gradient,
        learning_rate: Some(1e3),
        batch: 2,
        ..Options::default()
    };
    match train(
        &TUTORIAL.parse().unwrap(),
        &Data::rigid_body(2, 10),
        &options,
        &mut |_| {},
    ) {
        Err(Error::Train { reason }) => {
            assert!(
                reason.starts_with("epoch ") && reason.contains("not finite"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn options_that_cannot_train_are_errors() {
    let arch = TUTORIAL.parse().unwrap();
    let data = Data::rigid_body(2, 10);
    let fails = |options: Options, data: &Data| match train(&arch, data, &options, &mut |_| {}) {
        Err(Error::Train { reason }) => reason,
        other => panic!("{other:?}"),
    };
    let reason = fails(
        Options {
            epochs: 0,
            ..Options::default()
        },
        &data,
    );
    assert!(reason.contains("epochs"), "{reason}");
    let reason = fails(
        Options {
            batch: 0,
            ..Options::default()
        },
        &data,
    );
    assert!(reason.contains("batch"), "{reason}");
    let reason = fails(
        Options {
            optimizer: Optimizer::AdamWithDecay,
            decay_epochs: Some(0),
            ..Options::default()
        },
        &data,
    );
    assert!(reason.contains("n_epochs must be at least 1"), "{reason}");
    let reason = fails(
        Options {
            decay_epochs: Some(10),
            ..Options::default()
        },
        &data,
    );
    assert!(reason.contains("adam-with-decay"), "{reason}");
    // seq = 3 needs 6 states per trajectory.
    let reason = fails(Options::default(), &Data::rigid_body(2, 5));
    assert!(reason.contains("at least 6"), "{reason}");
    let two_d = Data::from_csv("z1,z2\n1,2\n3,4\n", "plane.csv").unwrap();
    assert!(matches!(
        train(&arch, &two_d, &Options::default(), &mut |_| {}),
        Err(Error::Length { expected, found: 2, .. }) if expected == "3"
    ));
    // At another size too, an `L` whose training cannot be allocated is refused
    // before anything is.
    let huge = "vpt(dim=3, seq=5, n_blocks=1, n_linear=2, L=1000000000000, activation=sigmoid, \
                skew_sym=false)";
    match train(
        &huge.parse().unwrap(),
        &data,
        &Options::default(),
        &mut |_| {},
    ) {
        Err(Error::Train { reason }) => {
            assert!(reason.contains("more than can be allocated"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // A classifier is not an integrator: refused, saying so.
    let ct = "classification_transformer(dim=3, seq=3, classes=10, n_heads=1, L=1, \
              Stiefel=true, add_connection=false)";
    match train(
        &ct.parse().unwrap(),
        &data,
        &Options::default(),
        &mut |_| {},
    ) {
        Err(Error::Unsupported { reason, .. }) => {
            assert!(reason.contains("not an integrator"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_tutorial_s_data_are_rigid_body_trajectories() {
    let data = Data::rigid_body(1238, 101);
    assert_eq!((data.count(), data.length(), data.dim()), (1238, 101, 3));
    let trajectories: Vec<&[f64]> = data.iter().collect();
    // (sin α, 0, cos α) and (0, sin α, cos α) for α = 0.1, then α = 0.11.
    assert_eq!(trajectories[0][..3], [0.1_f64.sin(), 0.0, 0.1_f64.cos()]);
    assert_eq!(trajectories[1][..3], [0.0, 0.1_f64.sin(), 0.1_f64.cos()]);
    assert_eq!(trajectories[2][..3], [0.11_f64.sin(), 0.0, 0.11_f64.cos()]);
    // The last α is 0.1 + 618 · 0.01 ≤ 2π.
    let last = trajectories[1237];
    assert!((last[1] - (0.1 + 618.0 * 0.01_f64).sin()).abs() < 1e-14);
    // The implicit midpoint rule keeps |z| = 1.
    for state in trajectories.iter().flat_map(|t| t.chunks(3)) {
        let norm = state.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-13, "{norm}");
    }
}

#[test]
fn csv_data_files_and_their_errors() {
    // geomattn rollout's output is one trajectory; the reference columns are ignored.
    let rollout = "step,z1,z2,z3,ref1,ref2,ref3,error\n0,1,0,0,1,0,0,0\n1,0.5,0.5,0,0.5,0.5,0,0\n";
    let data = Data::from_csv(rollout, "r.csv").unwrap();
    assert_eq!((data.count(), data.length(), data.dim()), (1, 2, 3));
    assert_eq!(data.iter().next().unwrap(), [1.0, 0.0, 0.0, 0.5, 0.5, 0.0]);
    for (text, line, says) in [
        ("", 1, "empty"),
        ("step,x\n0,1\n", 1, "no column `z1`"),
        ("z1,z3\n1,2\n", 1, "`z3` but no `z2`"),
        ("z1,z2\n", 1, "no rows"),
        ("z1,z2\n1,2\n3\n", 3, "1 fields"),
        ("z1,z2\n1,x\n", 2, "not a number"),
        ("z1,z2\n1,NaN\n", 2, "not finite"),
        ("z1,z2\n1,inf\n", 2, "not finite"),
        (
            "trajectory,z1\na,1\na,2\nb,1\n",
            1,
            "trajectory `b` has 1 states",
        ),
        ("trajectory,z1\na,1\nb,2\na,1\nb,3\n", 4, "comes back"),
    ] {
        match Data::from_csv(text, "d.csv") {
            Err(Error::Data {
                file,
                line: at,
                reason,
            }) => {
                assert_eq!((file.as_str(), at), ("d.csv", line), "{text:?}: {reason}");
                assert!(reason.contains(says), "{text:?}: {reason}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

/// Checkpoints come every `checkpoint_every` epochs, each the network as it is then: the
/// checkpoint of epoch 4 in a run of 5 epochs is the file a run of 4 epochs (same seed) writes,
/// and the network changes between checkpoints. An interval of 0 is refused.
#[test]
fn checkpoints_are_the_network_of_their_epoch() {
    let data = Data::rigid_body(3, 12);
    let arch = TUTORIAL.parse().unwrap();
    let options = Options {
        epochs: 5,
        batch: 8,
        checkpoint_every: Some(2),
        ..Options::default()
    };
    let mut checkpoints = Vec::new();
    let five = train(&arch, &data, &options, &mut |e| {
        checkpoints.push((e.epoch, e.checkpoint.map(<[u8]>::to_vec)));
    })
    .unwrap();
    let at: Vec<u64> = checkpoints
        .iter()
        .filter(|(_, file)| file.is_some())
        .map(|(epoch, _)| *epoch)
        .collect();
    assert_eq!(at, [2, 4]);
    let (second, fourth) = (
        checkpoints[1].1.clone().unwrap(),
        checkpoints[3].1.clone().unwrap(),
    );
    assert_ne!(second, fourth);
    assert_ne!(fourth, five.file);
    let four = train(
        &arch,
        &data,
        &Options {
            epochs: 4,
            checkpoint_every: None,
            ..options.clone()
        },
        &mut |e| assert!(e.checkpoint.is_none()),
    )
    .unwrap();
    assert_eq!(four.file, fourth);
    let refused = train(
        &arch,
        &data,
        &Options {
            checkpoint_every: Some(0),
            ..options
        },
        &mut |_| {},
    );
    assert!(
        matches!(&refused, Err(Error::Train { reason }) if reason.contains("checkpoint")),
        "{refused:?}"
    );
}

/// Training can start from a GML file (a checkpoint, or a network trained in GML) instead of
/// Glorot weights: with a step too small to move an `f32` weight, the written network is the
/// fixture's, weight for weight. A missing file, or a file of another architecture, is an error
/// naming it.
#[test]
fn training_starts_from_a_gml_file() {
    let data = Data::rigid_body(2, 12);
    let path = fixture("transformer_rigid_body_nn_vpt.h5");
    let options = Options {
        epochs: 1,
        batch: 8,
        optimizer: Optimizer::Gradient,
        learning_rate: Some(1e-30),
        initial: Some(path.clone()),
        ..Options::default()
    };
    let trained = train(&TUTORIAL.parse().unwrap(), &data, &options, &mut |_| {}).unwrap();
    let started: Vpt = load(&GmlFile::from_bytes(trained.file).unwrap()).unwrap();
    let fixture_net: Vpt = load(&GmlFile::open(&path).unwrap()).unwrap();
    assert_eq!(params(&started), params(&fixture_net));
    // From Glorot weights instead, the network is another.
    let glorot = train(
        &TUTORIAL.parse().unwrap(),
        &data,
        &Options {
            initial: None,
            ..options.clone()
        },
        &mut |_| {},
    )
    .unwrap();
    let glorot: Vpt = load(&GmlFile::from_bytes(glorot.file).unwrap()).unwrap();
    assert_ne!(params(&glorot), params(&fixture_net));

    let missing = train(
        &TUTORIAL.parse().unwrap(),
        &data,
        &Options {
            initial: Some("missing.h5".into()),
            ..options.clone()
        },
        &mut |_| {},
    );
    assert!(
        matches!(&missing, Err(Error::Unreadable { file, .. }) if file.contains("missing.h5")),
        "{missing:?}"
    );
    let other = train(
        &TUTORIAL.parse().unwrap(),
        &data,
        &Options {
            initial: Some(fixture("transformer_rigid_body_nn_vpff.h5")),
            ..options
        },
        &mut |_| {},
    );
    assert!(
        matches!(&other, Err(Error::Load { file, .. } | Error::Mismatch { file, .. })
            if file.contains("nn_vpff.h5")),
        "{other:?}"
    );
}
