//! The two ways of reading a file agree, and a file that is not GML's is refused by both, naming
//! the object: `GmlFile::contents` (every parameter, without the architecture; what
//! `embed_gml!` reads) and `Node::stored` (a parameter of a known kind and shape; what the
//! loader reads).

use std::path::{Path, PathBuf};

use geomattn_gml_file::{GmlFile, Kind, LoadError, Object};
use hdf5_pure::{AttrValue, FileBuilder};

fn workspace(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "h5"))
        .collect();
    files.sort();
    files
}

/// Every parameter `contents` lists, asked for again by its kind and shape, gives the same
/// values: on all nine GML networks of the fixtures (dense matrices and vectors, strictly lower and
/// upper triangular ones, Stiefel heads in plain groups, Float32 and Float64; the skew-symmetric
/// kind is the synthetic file's below).
#[test]
fn contents_and_stored_read_every_fixture_alike() {
    let fixtures = workspace("fixtures/gml");
    assert_eq!(fixtures.len(), 9);
    let mut kinds = Vec::new();
    for path in fixtures {
        let file = GmlFile::open(&path).unwrap();
        let contents = file.contents().unwrap();
        let layers = file.layers().unwrap();
        assert_eq!(contents.layers, layers.len(), "{}", path.display());
        for param in &contents.params {
            let name = match param.number {
                Some(number) => format!("{}{number}", param.stem),
                None => param.stem.clone(),
            };
            let at = match &param.parent {
                Some(parent) => format!("{parent}/{name}"),
                None => name,
            };
            let node = &layers[param.layer - 1];
            let stored = node
                .stored(&at, param.kind, param.rows, param.cols)
                .unwrap();
            assert_eq!(stored, param.values, "{} {at}", path.display());
            assert_eq!(param.values.len(), param.kind.len(param.rows, param.cols));
            if !kinds.contains(&param.kind) {
                kinds.push(param.kind);
            }
        }
    }
    kinds.sort_by_key(|kind| kind.code());
    assert_eq!(
        kinds,
        [
            Kind::Dense,
            Kind::Stiefel,
            Kind::StrictlyLower,
            Kind::StrictlyUpper,
            Kind::Vector
        ]
    );
}

/// The regression files of the loader (`tests/malformed/`): each is refused by `contents` as by
/// the loader (the Stiefel point of zero rows, as `inspect` refuses it), with the same error as
/// their README's table gives.
#[test]
fn every_malformed_file_is_refused() {
    let malformed = workspace("tests/malformed");
    assert_eq!(malformed.len(), 6);
    for path in malformed {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let error = GmlFile::open(&path).unwrap().contents().unwrap_err();
        let expected = if name.starts_with("null_dataspace") {
            matches!(error, LoadError::ValueCount { found: 0, .. })
        } else if name.starts_with("wide_stiefel") {
            matches!(
                error,
                LoadError::WideStiefel {
                    rows: 0,
                    cols: 700_000,
                    ..
                }
            )
        } else {
            matches!(error, LoadError::TooLarge { .. })
        };
        assert!(expected, "{name}: {error}");
    }
}

/// A file of one layer group `L1` holding `A` (a skew-symmetric 3×3 matrix, packed, with size
/// `n`) and whatever `extra` adds.
fn one_layer(n: i64, extra: impl FnOnce(&mut hdf5_pure::GroupBuilder)) -> GmlFile {
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    let mut a = layer.create_group("A");
    a.set_attr("gml_type", AttrValue::String("SkewSymMatrix".into()));
    a.create_dataset("S")
        .with_f64_data(&[1.0, 2.0, 3.0])
        .with_shape(&[3]);
    a.create_dataset("n").with_i64_data(&[n]).with_shape(&[]);
    layer.add_group(a.finish());
    extra(&mut layer);
    file.add_group(layer.finish());
    GmlFile::from_bytes(file.finish().unwrap()).unwrap()
}

#[test]
fn a_packed_matrix_is_read_with_its_size() {
    let contents = one_layer(3, |_| {}).contents().unwrap();
    let [a] = contents.params.as_slice() else {
        panic!("{contents:?}")
    };
    assert_eq!((a.kind, a.rows, a.cols), (Kind::Skew, 3, 3));
    assert_eq!(a.values, [1.0, 2.0, 3.0]);
}

#[test]
fn a_size_that_does_not_fit_the_values_is_refused() {
    let error = one_layer(4, |_| {}).contents().unwrap_err();
    assert_eq!(
        error.to_string(),
        "`/L1/A/S` has 3 values, a 4×4 `SkewSymMatrix` has 6"
    );
    let error = one_layer(-3, |_| {}).contents().unwrap_err();
    assert!(
        matches!(&error, LoadError::NegativeSize { path, found: -3 } if path == "/L1/A/n"),
        "{error}"
    );
}

#[test]
fn anything_but_a_parameter_gml_writes_is_refused() {
    let file = one_layer(3, |layer| {
        layer
            .create_dataset("junk")
            .with_f64_data(&[0.0])
            .with_shape(&[1]);
    });
    let error = file.contents().unwrap_err();
    assert!(
        matches!(&error, LoadError::Unexpected { path, found: Object::Dataset { .. } }
            if path == "/L1/junk"),
        "{error}"
    );
    // Inside a plain group of heads, only `head_1 … head_n`.
    let file = one_layer(3, |layer| {
        let mut heads = layer.create_group("PQ");
        heads
            .create_dataset("head_1")
            .with_f64_data(&[1.0, 0.0])
            .with_shape(&[1, 2]);
        heads
            .create_dataset("tail")
            .with_f64_data(&[1.0])
            .with_shape(&[1]);
        layer.add_group(heads.finish());
    });
    let error = file.contents().unwrap_err();
    assert!(
        matches!(&error, LoadError::Unexpected { path, .. } if path == "/L1/PQ/tail"),
        "{error}"
    );
    // A gap in the numbering of the heads.
    let file = one_layer(3, |layer| {
        let mut heads = layer.create_group("PQ");
        heads
            .create_dataset("head_2")
            .with_f64_data(&[1.0, 0.0])
            .with_shape(&[1, 2]);
        layer.add_group(heads.finish());
    });
    let error = file.contents().unwrap_err();
    assert!(
        matches!(&error, LoadError::NumberingGap { path, .. } if path == "/L1/PQ/head_1"),
        "{error}"
    );
}

/// A special matrix's group with a `gml_type` GML does not write.
#[test]
fn an_unknown_special_matrix_is_refused() {
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    let mut a = layer.create_group("A");
    a.set_attr("gml_type", AttrValue::String("Diagonal".into()));
    layer.add_group(a.finish());
    file.add_group(layer.finish());
    let file = GmlFile::from_bytes(file.finish().unwrap()).unwrap();
    let error = file.contents().unwrap_err();
    assert!(
        matches!(&error, LoadError::Unexpected { path, found: Object::Group { gml_type: Some(t) } }
            if path == "/L1/A" && t == "Diagonal"),
        "{error}"
    );
}
