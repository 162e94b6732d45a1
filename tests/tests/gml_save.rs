//! `geomattn::gml::to_bytes` writes GML's own layout: every shipped fixture, loaded and saved
//! again, gives back the same file object for object — the same groups, datasets, element types,
//! shapes, `gml_type` attributes and values — so GML's `load` reads what geomattn writes as it
//! reads its own files; geomattn adds only the layer types it records, which GML ignores. Float64 storage gives the same layout with every weight widened, and
//! weights that cannot be stored finitely are refused with their path.

use geomattn::gml::{GmlFile, SaveError, Storage, load, load_file, load_file_boxed, to_bytes};
use geomattn::nalgebra::RealField;
use geomattn::{
    ClassificationTransformer, Euclidean, Identity, MultiHeadAttention, NoConnection, Schema,
    StandardTransformerIntegrator, Stiefel, Tanh, VolumePreservingFeedForward,
    VolumePreservingTransformer, from_flat, to_flat,
};
use geomattn_testkit::fixture;
use geomattn_testkit::gml_layout::{gml_objects, objects, split_recorded_types};

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, NoConnection>, 2, 3, Tanh>;
type Mnist<S, Proj> = ClassificationTransformer<S, 49, 7, 7, 16, 10, NoConnection, Proj, Tanh>;

/// The parameters of `net`, in GML's order.
fn params(net: &Vpt<f64>) -> Vec<f64> {
    let mut out = vec![0.0; <Vpt<f64> as Schema>::SCALARS];
    to_flat(net, &mut out).unwrap();
    out
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

/// The fixture `name` read as `N`, saved as Float32 and as Float64: the same objects as the
/// fixture, widened for Float64, and the layer types geomattn records.
fn assert_round_trip<N: Schema<Scalar: RealField + Copy>>(name: &str, network: &N) {
    let original = fixture_bytes(name);
    let saved = to_bytes(network, Storage::Float32).unwrap();
    let (types, _) = split_recorded_types(objects(saved.clone(), false));
    assert_eq!(types.len(), N::LAYERS, "one recorded type per layer group");
    assert_eq!(
        gml_objects(saved, false),
        objects(original.clone(), false),
        "{name}, Float32"
    );
    let saved = to_bytes(network, Storage::Float64).unwrap();
    assert_eq!(
        gml_objects(saved, false),
        objects(original, true),
        "{name}, Float64"
    );
}

#[test]
fn the_rigid_body_fixtures_save_as_gml_wrote_them() {
    let name = "transformer_rigid_body_nn_vpt.h5";
    assert_round_trip(name, &load_file::<Vpt<f32>>(fixture(name)).unwrap());
    assert_round_trip(name, &load_file::<Vpt<f64>>(fixture(name)).unwrap());
    let name = "transformer_rigid_body_nn_vpff.h5";
    assert_round_trip(name, &load_file::<Vpff<f64>>(fixture(name)).unwrap());
    let name = "transformer_rigid_body_nn_st.h5";
    assert_round_trip(name, &load_file::<St<f32>>(fixture(name)).unwrap());
}

/// The MNIST classifiers: multi-head weights in plain groups `PQ`/`PK`/`PV`, Stiefel heads as
/// `StiefelManifold` groups (nn2 … nn4), dense heads (nn1), the classification layer.
#[test]
fn the_mnist_fixtures_save_as_gml_wrote_them() {
    let name = "mnist_nn1.h5";
    assert_round_trip(
        name,
        &*load_file_boxed::<Mnist<f32, Euclidean>>(fixture(name)).unwrap(),
    );
    for name in ["mnist_nn2.h5", "mnist_nn3.h5", "mnist_nn4.h5"] {
        assert_round_trip(
            name,
            &*load_file_boxed::<Mnist<f32, Stiefel>>(fixture(name)).unwrap(),
        );
    }
}

/// An `f64` network with weights Float32 cannot hold: saved as Float64 exactly, loaded back equal;
/// as Float32, rounded once to nearest.
#[test]
fn float64_weights_round_trip_exactly_and_round_once_to_float32() {
    let name = "transformer_rigid_body_nn_vpt.h5";
    let fixture_net: Vpt<f64> = load_file(fixture(name)).unwrap();
    let mut flat = params(&fixture_net);
    for (k, x) in flat.iter_mut().enumerate() {
        // 1/3-ish perturbations no Float32 holds.
        *x += (k as f64 + 1.0) / 3.0e7;
    }
    let net: Vpt<f64> = from_flat(&flat).unwrap();
    let back: Vpt<f64> =
        load(&GmlFile::from_bytes(to_bytes(&net, Storage::Float64).unwrap()).unwrap()).unwrap();
    assert_eq!(params(&back), params(&net));
    let rounded: Vpt<f64> =
        load(&GmlFile::from_bytes(to_bytes(&net, Storage::Float32).unwrap()).unwrap()).unwrap();
    let stored = params(&rounded);
    for (s, x) in stored.iter().zip(&flat) {
        #[allow(clippy::cast_possible_truncation)]
        let once = f64::from(*x as f32);
        assert_eq!(s.to_bits(), once.to_bits(), "{x}");
    }
}

/// A NaN, an infinity, and a finite value beyond Float32's range (stored as Float32) are refused,
/// naming the dataset and the index; the last is fine as Float64.
#[test]
fn weights_that_cannot_be_stored_are_refused_with_their_path() {
    let net: Vpt<f64> = load_file(fixture("transformer_rigid_body_nn_vpt.h5")).unwrap();
    let flat = params(&net);
    // Parameter 1 is `A[2, 1]` of the attention layer `L1`; parameter 10 is the second packed
    // entry of the lower-triangular weight of `L2`, the feed-forward layer after it.
    for (at, (value, storage, fails)) in [1, 10].into_iter().flat_map(|at| {
        [
            (f64::NAN, Storage::Float64, true),
            (f64::INFINITY, Storage::Float64, true),
            (-1e39, Storage::Float32, true),
            (-1e39, Storage::Float64, false),
            (f64::from(f32::MAX), Storage::Float32, false),
        ]
        .map(|case| (at, case))
    }) {
        let mut bad = flat.clone();
        bad[at] = value;
        let net: Vpt<f64> = from_flat(&bad).unwrap();
        match to_bytes(&net, storage) {
            Err(SaveError::NotFinite {
                path,
                index,
                value: found,
                storage: s,
            }) => {
                assert!(fails, "{value} as {storage:?} refused");
                let expected = if at == 1 { "/L1/A" } else { "/L2/weight/S" };
                assert_eq!((path.as_str(), index, s), (expected, 1, storage));
                assert!(found.to_bits() == value.to_bits());
            }
            Ok(bytes) => {
                assert!(!fails, "{value} as {storage:?} written");
                let back: Vpt<f64> = load(&GmlFile::from_bytes(bytes).unwrap()).unwrap();
                assert_eq!(params(&back), params(&net));
            }
            Err(other) => panic!("{other}"),
        }
    }
}

/// A file geomattn wrote records each layer's type and reads only as it (issue 39, item 7), but
/// for the sequence length, which attention's weights do not depend on: a network trained on
/// windows of 3 runs on windows of 4, as GML's own file of it does.
#[test]
fn a_written_file_reads_as_its_own_type_at_any_sequence_length() {
    let name = "transformer_rigid_body_nn_vpt.h5";
    let net = load_file::<Vpt<f64>>(fixture(name)).unwrap();
    let written = GmlFile::from_bytes(to_bytes(&net, Storage::Float64).unwrap()).unwrap();
    assert!(load::<VolumePreservingTransformer<f64, 3, 4, 2, 1, 3, Tanh>>(&written).is_ok());
    let identity = load::<VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Identity>>(&written);
    // `/L2` and `/L3` are the linear layers (no activation), `/L4` the first nonlinear one.
    assert_eq!(
        identity.unwrap_err().to_string(),
        "`/L4` was written as VolumePreservingLowerLayer(dim = 3, activation = tanh, \
         use_bias = true), but is read as VolumePreservingLowerLayer(dim = 3, \
         activation = identity, use_bias = true)"
    );
    // GML's own file reads as either: it does not say.
    let gml = GmlFile::open(fixture(name)).unwrap();
    assert!(load::<VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Identity>>(&gml).is_ok());
}
