//! The GML loader on malformed input: every case gives its typed error, none panics. The files are
//! written with hdf5-pure's writer (or cut from a fixture) in memory or a temporary directory.

use geomattn::MultiHeadAttention;
use geomattn::Tanh;
use geomattn::VolumePreservingFeedForward;
use geomattn::gml::{GmlFile, LoadError, Settings, load, load_file};
use geomattn::{ArbitraryVpa, Error};
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
    assert!(matches!(
        read(&short),
        Err(LoadError::Invalid {
            source: Error::PackedLength {
                expected: 3,
                found: 2,
                ..
            },
            ..
        })
    ));
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
    let float64 = vpa(dense_layer(&[3, 3], Some(&[0.5; 9])));
    assert!(matches!(
        float64,
        Err(LoadError::DataType {
            expected: "Float32",
            ..
        })
    ));
}

#[test]
fn truncated_and_foreign_files() {
    let bytes = std::fs::read(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    let dir = std::env::temp_dir().join(format!("geomattn-gml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    type St = geomattn::StandardTransformerIntegrator<
        f64,
        3,
        MultiHeadAttention<f64, 3, 1, 3>,
        2,
        3,
        Tanh,
    >;
    let settings = Settings {
        add_connection: false,
    };
    let cut = |keep: usize| {
        let path = dir.join(format!("cut-{keep}.h5"));
        std::fs::write(&path, &bytes[..keep]).unwrap();
        load_file::<St>(&path, settings)
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
        load_file::<St>(&text, settings),
        Err(LoadError::Hdf5 { .. })
    ));
    let absent = dir.join("absent.h5");
    assert!(matches!(
        load_file::<St>(&absent, settings),
        Err(LoadError::Hdf5 { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
    // The intact file loads.
    assert!(load_file::<St>(fixture("transformer_rigid_body_nn_st.h5"), settings).is_ok());
}
