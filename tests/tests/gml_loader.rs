//! The GML loader on malformed input: every case gives its typed error, none panics. The files are
//! written with hdf5-pure's writer (or cut from a fixture) in memory or a temporary directory.

use geomattn::MultiHeadAttention;
use geomattn::Tanh;
use geomattn::VolumePreservingFeedForward;
use geomattn::gml::Object;
use geomattn::gml::{GmlFile, LoadError, ReadWeights, load, load_file};
use geomattn::{ArbitraryVpa, SkewVpa};
use geomattn_testkit::fixture;
use hdf5_pure::{AttrValue, FileBuilder, GroupBuilder};

/// `VolumePreservingFeedForward(3, 0, 1, tanh)`: a lower layer without bias, an upper one with.
type Tiny = VolumePreservingFeedForward<f64, 3, 0, 1, Tanh>;

/// What to write for the tiny network, correct by default.
struct Spec {
    lower_type: AttrValue,
    packed: Vec<f32>,
    n: i64,
    upper_bias: Option<Vec<f32>>,
    lower_bias: bool,
}

impl Default for Spec {
    fn default() -> Self {
        Self {
            lower_type: AttrValue::AsciiString("LowerTriangular".into()),
            packed: vec![0.5, -0.25, 1.0],
            n: 3,
            upper_bias: Some(vec![0.1, 0.2, 0.3]),
            lower_bias: false,
        }
    }
}

fn special(parent: &mut GroupBuilder, gml_type: AttrValue, packed: &[f32], n: i64) {
    let mut weight = parent.create_group("weight");
    weight.set_attr("gml_type", gml_type);
    weight
        .create_dataset("S")
        .with_f32_data(packed)
        .with_shape(&[packed.len() as u64]);
    weight
        .create_dataset("n")
        .with_i64_data(&[n])
        .with_shape(&[]);
    parent.add_group(weight.finish());
}

fn write(spec: &Spec) -> Vec<u8> {
    let mut file = FileBuilder::new();
    let mut lower = file.create_group("L1");
    special(&mut lower, spec.lower_type.clone(), &spec.packed, spec.n);
    if spec.lower_bias {
        lower.create_dataset("bias").with_f32_data(&[0.0; 3]);
    }
    file.add_group(lower.finish());
    let mut upper = file.create_group("L2");
    let upper_type = AttrValue::AsciiString("UpperTriangular".into());
    special(&mut upper, upper_type, &[1.0, 2.0, 3.0], 3);
    if let Some(bias) = &spec.upper_bias {
        upper.create_dataset("bias").with_f32_data(bias);
    }
    file.add_group(upper.finish());
    file.finish().unwrap()
}

fn read(spec: &Spec) -> Result<Tiny, LoadError> {
    load(&GmlFile::from_bytes(write(spec))?)
}

#[test]
fn a_well_formed_file_loads_with_either_string_kind() {
    let net = read(&Spec::default()).unwrap();
    assert_eq!(net.last().0.weight().matrix()[(1, 0)], 0.5);
    assert_eq!(net.last().1.weight().matrix()[(0, 2)], 2.0);
    let variable = Spec {
        lower_type: AttrValue::VarLenString("LowerTriangular".into()),
        ..Spec::default()
    };
    assert_eq!(read(&variable).unwrap(), net);
}

#[test]
fn wrong_gml_type() {
    let spec = Spec {
        lower_type: AttrValue::AsciiString("UpperTriangular".into()),
        ..Spec::default()
    };
    let err = read(&spec).unwrap_err();
    assert!(
        matches!(&err, LoadError::GmlType { path, expected: "LowerTriangular", found: Some(f) }
            if path == "/L1/weight" && f == "UpperTriangular"),
        "{err}"
    );
    let untagged = Spec {
        lower_type: AttrValue::I64(1),
        ..Spec::default()
    };
    assert!(matches!(
        read(&untagged),
        Err(LoadError::GmlType { found: None, .. })
    ));
}

#[test]
fn wrong_packed_length_and_size() {
    let short = Spec {
        packed: vec![1.0, 2.0],
        ..Spec::default()
    };
    let error = read(&short).unwrap_err();
    assert!(
        matches!(
            error,
            LoadError::PackedLength {
                gml_type: "LowerTriangular",
                n: 3,
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "`/L1/weight/S` has 2 values, a 3×3 `LowerTriangular` has 3"
    );
    let four = Spec {
        n: 4,
        ..Spec::default()
    };
    assert!(matches!(
        read(&four),
        Err(LoadError::Size {
            expected: 3,
            found: 4,
            ..
        })
    ));
}

#[test]
fn non_finite_weights() {
    let spec = Spec {
        upper_bias: Some(vec![0.0, f32::NAN, 0.0]),
        ..Spec::default()
    };
    let err = read(&spec).unwrap_err();
    assert!(
        matches!(&err, LoadError::NonFinite { path, index: 1 } if path == "/L2/bias"),
        "{err}"
    );
    let infinite = Spec {
        packed: vec![0.0, f32::INFINITY, 0.0],
        ..Spec::default()
    };
    assert!(matches!(
        read(&infinite),
        Err(LoadError::NonFinite { index: 1, .. })
    ));
}

#[test]
fn missing_and_unexpected_parameters() {
    let no_bias = Spec {
        upper_bias: None,
        ..Spec::default()
    };
    let err = read(&no_bias).unwrap_err();
    assert!(
        matches!(&err, LoadError::Missing { path, .. } if path == "/L2/bias"),
        "{err}"
    );
    let extra_bias = Spec {
        lower_bias: true,
        ..Spec::default()
    };
    let err = read(&extra_bias).unwrap_err();
    assert!(
        matches!(&err, LoadError::Unexpected { path, .. } if path == "/L1/bias"),
        "{err}"
    );
    let wrong_length = Spec {
        upper_bias: Some(vec![0.0; 4]),
        ..Spec::default()
    };
    assert!(matches!(read(&wrong_length), Err(LoadError::Shape { .. })));
}

#[test]
fn wrong_architecture() {
    let file = GmlFile::from_bytes(write(&Spec::default())).unwrap();
    let more_blocks = load::<VolumePreservingFeedForward<f64, 3, 1, 1, Tanh>>(&file);
    assert!(matches!(
        more_blocks,
        Err(LoadError::LayerCount {
            expected: 6,
            found: 2
        })
    ));
    let wider = load::<VolumePreservingFeedForward<f64, 4, 0, 1, Tanh>>(&file);
    assert!(matches!(
        wider,
        Err(LoadError::Size {
            expected: 4,
            found: 3,
            ..
        })
    ));
}

fn dense_layer(shape: &[u64], data: Option<&[f64]>) -> Vec<u8> {
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    let count = shape.iter().product::<u64>() as usize;
    match data {
        Some(values) => layer
            .create_dataset("A")
            .with_f64_data(values)
            .with_shape(shape),
        None => layer
            .create_dataset("A")
            .with_f32_data(&vec![0.5; count])
            .with_shape(shape),
    };
    file.add_group(layer.finish());
    file.finish().unwrap()
}

#[test]
fn dense_weights_are_transposed_and_checked() {
    // Julia's 2×3 matrix [1 2 3; 4 5 6] is written column-major under the reversed shape (3, 2).
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    layer
        .create_dataset("A")
        .with_f32_data(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0])
        .with_shape(&[3, 2]);
    file.add_group(layer.finish());
    let file = GmlFile::from_bytes(file.finish().unwrap()).unwrap();
    let layers = file.layers().unwrap();
    let a: geomattn::nalgebra::Matrix2x3<f64> = layers[0].matrix("A").unwrap();
    assert_eq!(
        a,
        geomattn::nalgebra::Matrix2x3::new(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    );
    // Read as a 3×2 matrix, the shape is wrong.
    let err = layers[0].matrix::<f64, 3, 2>("A").unwrap_err();
    assert!(
        matches!(err, LoadError::Shape { ref expected, ref found, .. }
        if expected == &[2, 3] && found == &[3, 2])
    );

    let vpa = |bytes| load::<ArbitraryVpa<f64, 3, 3>>(&GmlFile::from_bytes(bytes).unwrap());
    assert!(vpa(dense_layer(&[3, 3], None)).is_ok());
    assert!(matches!(
        vpa(dense_layer(&[3, 2], None)),
        Err(LoadError::Shape { .. })
    ));
    // GML's Float64 storage (a network trained in Float64) reads as the same weights.
    let float64 = vpa(dense_layer(&[3, 3], Some(&[0.5; 9]))).unwrap();
    let float32 = vpa(dense_layer(&[3, 3], None)).unwrap();
    assert!(geomattn::to_blob(&float64).unwrap() == geomattn::to_blob(&float32).unwrap());
}

#[test]
fn truncated_and_foreign_files() {
    let bytes = std::fs::read(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    let dir = std::env::temp_dir().join(format!("geomattn-gml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    type St = geomattn::StandardTransformerIntegrator<
        f64,
        3,
        MultiHeadAttention<f64, 3, 1, 3, geomattn::NoConnection>,
        2,
        3,
        Tanh,
    >;
    let cut = |keep: usize| {
        let path = dir.join(format!("cut-{keep}.h5"));
        std::fs::write(&path, &bytes[..keep]).unwrap();
        load_file::<St>(&path)
    };
    for keep in [0, 8, 100, 1000, bytes.len() / 2, 3 * bytes.len() / 4] {
        assert!(cut(keep).is_err(), "kept {keep} bytes");
    }
    // The file's last bytes hold nothing the network needs (cutting them still loads), but no
    // cut panics.
    for keep in (bytes.len() - 200..bytes.len()).step_by(7) {
        let _ = cut(keep);
    }
    let text = dir.join("text.h5");
    std::fs::write(&text, b"not an HDF5 file, just text").unwrap();
    assert!(matches!(
        load_file::<St>(&text),
        Err(LoadError::Hdf5 { .. })
    ));
    let absent = dir.join("absent.h5");
    assert!(matches!(
        load_file::<St>(&absent),
        Err(LoadError::Hdf5 { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
    // The intact file loads.
    assert!(load_file::<St>(fixture("transformer_rigid_body_nn_st.h5")).is_ok());
}

/// The tiny network's file with one more group at the root.
fn with_extra_group(name: &str) -> Vec<u8> {
    let mut file = FileBuilder::new();
    for (layer, gml_type, bias) in [
        ("L1", "LowerTriangular", None),
        ("L2", "UpperTriangular", Some([0.1_f32, 0.2, 0.3])),
    ] {
        let mut group = file.create_group(layer);
        special(
            &mut group,
            AttrValue::AsciiString(gml_type.into()),
            &[1.0, 2.0, 3.0],
            3,
        );
        if let Some(bias) = bias {
            group.create_dataset("bias").with_f32_data(&bias);
        }
        file.add_group(group.finish());
    }
    let extra = file.create_group(name);
    file.add_group(extra.finish());
    file.finish().unwrap()
}

/// Before: "`/L3` is missing" for an extra `L0` (the 3 numbered groups were taken to be L1 … L3).
#[test]
fn an_extra_layer_group_is_named() {
    let err = load::<Tiny>(&GmlFile::from_bytes(with_extra_group("L0")).unwrap()).unwrap_err();
    assert!(
        matches!(&err, LoadError::Misnumbered { path, prefix } if path == "/L0" && prefix == "L"),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the file has an unexpected group `/L0`: the groups `L…` are numbered `L1 … Ln` from 1, \
         without leading zeros"
    );
    let err = load::<Tiny>(&GmlFile::from_bytes(with_extra_group("L02")).unwrap()).unwrap_err();
    assert!(matches!(&err, LoadError::Misnumbered { path, .. } if path == "/L02"));
    // L1, L2, L4: L3 is missing.
    let err = load::<Tiny>(&GmlFile::from_bytes(with_extra_group("L4")).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`/L3` is missing: the numbering of the groups `L…` has a gap (the highest is `L4`, there \
         are 3)"
    );
    // L1, L2, L3: one layer too many for the architecture.
    let err = load::<Tiny>(&GmlFile::from_bytes(with_extra_group("L3")).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the file has 3 layers (`/L1 … /L3`), the architecture has 2"
    );
    // Other names are not layers, and ignored.
    assert!(load::<Tiny>(&GmlFile::from_bytes(with_extra_group("meta")).unwrap()).is_ok());
}

/// A VPA layer whose `A` is a skew-symmetric group.
fn skew_layer() -> Vec<u8> {
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    let mut a = layer.create_group("A");
    a.set_attr("gml_type", AttrValue::AsciiString("SkewSymMatrix".into()));
    a.create_dataset("S")
        .with_f32_data(&[0.1, 0.2, 0.3])
        .with_shape(&[3]);
    a.create_dataset("n").with_i64_data(&[3]).with_shape(&[]);
    layer.add_group(a.finish());
    file.add_group(layer.finish());
    file.finish().unwrap()
}

/// Before: "`/L1/A` is missing" for a dense `A` read as a skew VPA, and "`/L1/A` has gml_type
/// Some("SkewSymMatrix"), expected `StiefelManifold`" the other way round.
#[test]
fn a_dense_weight_where_a_skew_one_is_expected_and_vice_versa() {
    let dense = GmlFile::from_bytes(dense_layer(&[3, 3], None)).unwrap();
    assert!(load::<SkewVpa<f64, 3, 3>>(&GmlFile::from_bytes(skew_layer()).unwrap()).is_ok());
    let err = load::<SkewVpa<f64, 3, 3>>(&dense).unwrap_err();
    assert!(
        matches!(&err, LoadError::Kind { path, expected: Object::Group { gml_type: Some(t) },
            found: Object::Dataset { shape, .. } } if path == "/L1/A" && t == "SkewSymMatrix" && shape == &[3, 3]),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "`/L1/A`: found a dense matrix (a Float32 dataset of shape [3, 3]) where a skew-symmetric \
         matrix (a group with gml_type `SkewSymMatrix`) is expected"
    );
    let err =
        load::<ArbitraryVpa<f64, 3, 3>>(&GmlFile::from_bytes(skew_layer()).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`/L1/A`: found a skew-symmetric matrix (a group with gml_type `SkewSymMatrix`) where a \
         dense matrix (a Float32 or Float64 dataset of shape [3, 3]) is expected"
    );
    // Missing and unexpected parameters say what is expected or found there.
    let err = read(&Spec {
        upper_bias: None,
        ..Spec::default()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`/L2/bias` is missing: the architecture expects a vector (a Float32 or Float64 dataset of shape \
         [3]) there"
    );
    let err = read(&Spec {
        lower_bias: true,
        ..Spec::default()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`/L1/bias` is not part of the architecture (found a vector (a Float32 dataset of shape \
         [3]) there)"
    );
}

/// A multi-head attention layer (`D = 2`, heads of width 1) with the given head numbers in each of
/// `PQ`, `PK`, `PV`, and a stray dataset `extra` in the layer group if asked.
fn attention_layer(heads: &[usize], extra: bool) -> Vec<u8> {
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    for projection in ["PQ", "PK", "PV"] {
        let mut group = layer.create_group(projection);
        for head in heads {
            group
                .create_dataset(&format!("head_{head}"))
                .with_f32_data(&[1.0, 0.0])
                .with_shape(&[1, 2]);
        }
        layer.add_group(group.finish());
    }
    if extra {
        layer.create_dataset("extra").with_f32_data(&[0.0]);
    }
    file.add_group(layer.finish());
    file.finish().unwrap()
}

/// The loader reads every layer group through the network's schema and rejects whatever the
/// schema does not have: a head too many, a stray dataset; a head too few is missing.
#[test]
fn every_object_of_a_layer_group_belongs_to_the_schema() {
    type Mha = MultiHeadAttention<f64, 2, 2, 1, geomattn::NoConnection>;
    let read = |bytes| load::<Mha>(&GmlFile::from_bytes(bytes).unwrap());
    assert!(read(attention_layer(&[1, 2], false)).is_ok());
    let err = read(attention_layer(&[1, 2, 3], false)).unwrap_err();
    assert!(
        matches!(&err, LoadError::Unexpected { path, .. } if path == "/L1/PQ/head_3"),
        "{err}"
    );
    let err = read(attention_layer(&[1], false)).unwrap_err();
    assert!(
        matches!(&err, LoadError::Missing { path, .. } if path == "/L1/PQ/head_2"),
        "{err}"
    );
    let err = read(attention_layer(&[1, 2], true)).unwrap_err();
    assert!(
        matches!(&err, LoadError::Unexpected { path, .. } if path == "/L1/extra"),
        "{err}"
    );
}
