//! `#[derive(Network)]`: a user's struct of layers gives, bit for bit, what the built-in
//! architecture made of the same layers gives, loads from the same GML file, and its batch, flat
//! and checked passes agree with its single forward pass; the checked pass names the field.

use geomattn::gml::{load_file, load_file_boxed};
use geomattn::nalgebra::{Matrix3, SMatrix, Vector3};
use geomattn::{
    ArbitraryVpa, BlobError, Error, FieldPath, Identity, Network, NonFinite, ResNetLayer, Schema,
    SequenceLayer, SkewSymmetric, SkewVpa, Tanh, Transformer, VolumePreservingFeedForward,
    VolumePreservingTransformer, read_blob, read_blob_boxed, to_blob,
};
use geomattn_testkit::{fixture, rigid_body};
use proptest::prelude::*;

/// GML's `VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3, activation =
/// tanh)`, the built-in way.
type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;

type Feedforward = VolumePreservingFeedForward<f64, 3, 2, 1, Tanh>;

/// The same network, the user's way: its six layers named, in GML's order.
#[derive(Network)]
#[geomattn(scalar = f64, dim = 3, len = 3)]
struct RigidBodyVpt {
    attention_1: ArbitraryVpa<f64, 3, 3>,
    feedforward_1: Feedforward,
    attention_2: ArbitraryVpa<f64, 3, 3>,
    feedforward_2: Feedforward,
    attention_3: ArbitraryVpa<f64, 3, 3>,
    feedforward_3: Feedforward,
}

/// One block, generic in everything: a sequence layer for every `S`, `D`, `T` its layers handle.
#[derive(Network, Clone, Copy)]
struct Block<Att, Ff> {
    attention: Att,
    feedforward: Ff,
}

/// The same network again, as three generic blocks in a tuple struct.
#[derive(Network)]
#[geomattn(scalar = f64, dim = 3, len = 3)]
struct ThreeBlocks(
    Block<ArbitraryVpa<f64, 3, 3>, Feedforward>,
    Block<ArbitraryVpa<f64, 3, 3>, Feedforward>,
    Block<ArbitraryVpa<f64, 3, 3>, Feedforward>,
);

const VPT: &str = "transformer_rigid_body_nn_vpt.h5";

fn load<N: Schema<Scalar = f64>>() -> N {
    load_file(fixture(VPT)).unwrap()
}

/// Windows of three consecutive states of the rigid body the network was trained on.
fn windows() -> Vec<SMatrix<f64, 3, 3>> {
    let mut states = [Vector3::zeros(); 12];
    rigid_body::trajectory(&rigid_body::initial_state(1.1), rigid_body::H, &mut states);
    states.windows(3).map(SMatrix::from_columns).collect()
}

#[test]
fn the_users_network_is_the_built_in_one_bit_for_bit() {
    let built_in: Vpt = load();
    let derived: RigidBodyVpt = load();
    let blocks: ThreeBlocks = load();
    // The fields hold the built-in network's layers, in order (the attention layers compared by
    // their outputs: they are not `PartialEq`).
    let [(a1, f1), (a2, f2), (a3, f3)] = *built_in.blocks();
    assert_eq!(
        [
            derived.feedforward_1,
            derived.feedforward_2,
            derived.feedforward_3
        ],
        [f1, f2, f3]
    );
    assert_eq!(
        [
            blocks.0.feedforward,
            blocks.1.feedforward,
            blocks.2.feedforward
        ],
        [f1, f2, f3]
    );
    for z in windows() {
        for (derived, built_in) in [(derived.attention_1, a1), (blocks.1.attention, a2)] {
            assert_eq!(derived.forward(&z), built_in.forward(&z));
        }
        assert_eq!(derived.attention_3.forward(&z), a3.forward(&z));
        let expected = built_in.forward(&z);
        assert_eq!(derived.forward(&z), expected);
        assert_eq!(blocks.forward(&z), expected);
        assert_eq!(derived.forward_checked(&z).unwrap(), expected);
    }
}

#[test]
fn loading_in_place_reads_the_same_network() {
    let boxed: Box<RigidBodyVpt> = load_file_boxed(fixture(VPT)).unwrap();
    let by_value: RigidBodyVpt = load();
    let nested: Box<ThreeBlocks> = load_file_boxed(fixture(VPT)).unwrap();
    assert_eq!(boxed.feedforward_1, by_value.feedforward_1);
    assert_eq!(boxed.feedforward_3, by_value.feedforward_3);
    assert_eq!(nested.2.feedforward, by_value.feedforward_3);
    for z in windows() {
        assert_eq!(boxed.forward(&z), by_value.forward(&z));
        assert_eq!(nested.forward(&z), by_value.forward(&z));
    }
    // A file with another number of layers is refused, as for the built-in network.
    let short = load_file::<ThreeBlocks>(fixture("transformer_rigid_body_nn_vpff.h5"));
    assert!(short.is_err());
}

#[test]
fn the_schema_is_the_built_in_one_so_blobs_are_interchangeable() {
    assert_eq!(
        (RigidBodyVpt::SCALARS, RigidBodyVpt::LAYERS),
        (Vpt::SCALARS, Vpt::LAYERS)
    );
    // The same layer types: the struct adds none of its own, so the blobs are the same bytes.
    assert_eq!(RigidBodyVpt::DESCRIPTION_LEN, Vpt::DESCRIPTION_LEN);
    assert_eq!(ThreeBlocks::DESCRIPTION_LEN, Vpt::DESCRIPTION_LEN);
    let built_in: Vpt = load();
    let derived: RigidBodyVpt = load();
    let blob = to_blob(&built_in).unwrap();
    assert_eq!(to_blob(&derived).unwrap(), blob);
    let from_blob: RigidBodyVpt = read_blob(&blob).unwrap();
    let boxed: Box<ThreeBlocks> = read_blob_boxed(&blob).unwrap();
    for z in windows() {
        assert_eq!(from_blob.forward(&z), built_in.forward(&z));
        assert_eq!(boxed.forward(&z), built_in.forward(&z));
    }
    // Another architecture's blob is refused, by its type.
    let other: VolumePreservingFeedForward<f64, 3, 6, 1, Tanh> =
        load_file(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    let refused = read_blob::<RigidBodyVpt>(&to_blob(&other).unwrap()).map(drop);
    assert!(matches!(refused, Err(BlobError::Type(_))), "{refused:?}");
}

proptest! {
    #[test]
    fn batch_flat_and_checked_passes_agree_with_the_single_one(
        values in prop::collection::vec(-2.0..2.0f64, 9 * 4),
    ) {
        let net: RigidBodyVpt = load();
        let batch: Vec<SMatrix<f64, 3, 3>> = values.chunks(9).map(SMatrix::from_column_slice).collect();
        let single: Vec<_> = batch.iter().map(|z| net.forward(z)).collect();
        let mut out = vec![SMatrix::zeros(); batch.len()];
        net.forward_batch(&batch, &mut out).unwrap();
        prop_assert_eq!(&out, &single);
        net.forward_batch_checked(&batch, &mut out).unwrap();
        prop_assert_eq!(&out, &single);
        let mut flat = vec![0.0; values.len()];
        net.forward_flat(&values, &mut flat).unwrap();
        prop_assert_eq!(&flat, &single.iter().flat_map(|m| m.iter().copied()).collect::<Vec<_>>());
        let mut flat_checked = vec![0.0; values.len()];
        net.forward_flat_checked(&values, &mut flat_checked).unwrap();
        prop_assert_eq!(flat_checked, flat);
        let mut in_place = batch[0];
        net.forward_in_place(&mut in_place);
        prop_assert_eq!(in_place, single[0]);
    }
}

fn vpa() -> SkewVpa<f32, 3, 4> {
    SkewVpa::skew_sym(SkewSymmetric::from_packed(&[0.3, -0.2, 0.5]).unwrap())
}

fn resnet(entry: f32) -> ResNetLayer<f32, 3, Identity> {
    ResNetLayer::new(Matrix3::from_element(entry), None)
}

fn sequence() -> SMatrix<f32, 3, 4> {
    SMatrix::from_fn(|i, j| (i + j + 1) as f32 / 4.0)
}

fn non_finite(result: Result<impl Sized, Error>) -> NonFinite {
    match result {
        Err(Error::NonFinite(found)) => found,
        Ok(_) => panic!("a non-finite value went unreported"),
        Err(other) => panic!("wrong error: {other}"),
    }
}

/// Two levels of derived networks around a built-in transformer, generic over the scalar.
#[derive(Network)]
#[geomattn(scalar = S, dim = 3, len = 4)]
struct Encoder<S: geomattn::Field> {
    first: Block<SkewVpa<S, 3, 4>, ResNetLayer<S, 3, Identity>>,
    body: Transformer<SkewVpa<S, 3, 4>, ResNetLayer<S, 3, Identity>, 2>,
}

#[test]
fn the_checked_pass_names_the_field_path() {
    let calm = resnet(0.0);
    let first = Block {
        attention: vpa(),
        feedforward: calm,
    };
    let fine = Encoder {
        first,
        body: Transformer::new([(vpa(), calm); 2]),
    };
    assert_eq!(
        fine.forward_checked(&sequence()).unwrap(),
        fine.forward(&sequence())
    );

    // Overflow in the second block of the transformer in the field `body`.
    let body = Encoder {
        first,
        body: Transformer::new([(vpa(), calm), (vpa(), resnet(f32::MAX))]),
    };
    let found = non_finite(body.forward_checked(&sequence()));
    assert_eq!(
        (found.field.to_string(), found.layer, found.block),
        ("body".to_string(), "ResNetLayer", Some(1))
    );
    assert_eq!(
        found.to_string(),
        format!(
            "non-finite value at time step {} in the output of ResNetLayer (field `body`, block 1)",
            found.step
        )
    );

    // Overflow in the field `feedforward` of the block in the field `first`.
    let first = Encoder {
        first: Block {
            attention: vpa(),
            feedforward: resnet(f32::MAX),
        },
        ..fine
    };
    let found = non_finite(first.forward_checked(&sequence()));
    assert!(found.field.names().eq(["first", "feedforward"]));
    assert_eq!(found.block, None);
    assert!(
        found
            .to_string()
            .ends_with("in the output of ResNetLayer (field `first.feedforward`)"),
        "{found}"
    );

    // A bad input belongs to no field, and batches name the sequence.
    let mut bad = sequence();
    bad[(0, 3)] = f32::NAN;
    let batch = [sequence(), bad];
    let mut out = [SMatrix::zeros(); 2];
    let found = non_finite(fine.forward_batch_checked(&batch, &mut out));
    assert_eq!(
        found,
        NonFinite {
            sequence: Some(1),
            block: None,
            field: FieldPath::default(),
            layer: "input",
            step: 3,
        }
    );
}

#[test]
fn a_field_path_keeps_the_outermost_names() {
    let deep = [&"e", &"d", &"c", &"b", &"a"]
        .into_iter()
        .fold(FieldPath::default(), FieldPath::within);
    assert!(deep.names().eq(["a", "b", "c"]));
    assert_eq!(deep.to_string(), "a.b.c");
    assert!(FieldPath::default().is_empty());
    assert_eq!(FieldPath::default().to_string(), "");
    // Small enough to keep the crate's error small (a `Result` with it is returned everywhere).
    assert!(std::mem::size_of::<Error>() <= 96);
}

mod renamed {
    //! The derive under another name of the crate, through `crate = path`.
    use ::geomattn as ga;

    #[derive(ga::Network)]
    #[geomattn(crate = ga, scalar = f64, dim = 2, len = 3)]
    pub struct Twice(pub ga::SkewVpa<f64, 2, 3>, pub ga::SkewVpa<f64, 2, 3>);

    #[test]
    fn applies_both_layers() {
        use ga::SequenceLayer;
        let layer = ga::SkewVpa::skew_sym(ga::SkewSymmetric::from_packed(&[0.5]).unwrap());
        let z = ga::nalgebra::Matrix2x3::new(1.0, 0.0, 2.0, 0.0, 1.0, 1.0);
        assert_eq!(
            Twice(layer, layer).forward(&z),
            layer.forward(&layer.forward(&z))
        );
    }
}

// The derived networks embedded at compile time, like a built-in architecture.
geomattn::embed_gml!(static EMBEDDED: RigidBodyVpt = "../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
geomattn::embed_gml!(static EMBEDDED_BLOCKS: ThreeBlocks = "../fixtures/gml/transformer_rigid_body_nn_vpt.h5");

#[test]
fn the_users_network_embeds_at_compile_time_as_it_loads() {
    let loaded: RigidBodyVpt = load();
    let built_in: Vpt = load();
    for window in windows() {
        let expected = built_in.forward(&window);
        assert_eq!(loaded.forward(&window), expected);
        assert_eq!(EMBEDDED.forward(&window), expected);
        assert_eq!(EMBEDDED_BLOCKS.forward(&window), expected);
    }
}
