//! Files in GML's HDF5 layout, written with `hdf5-pure`'s writer: the phase-space layers of the
//! symplectic transformers (GML's `save` writes one group `L1`, `L2`, … per layer, Julia matrices
//! with their dimensions reversed, a `SymmetricMatrix` as a group with `S` and `n`). For tests that
//! need a symplectic network file of a given size (GML 0.4.8 fixtures have none). Values are
//! stored as GML stores them, in the element type of the layer's vectors: `Layer<f32>` writes
//! Float32 datasets (GML's default), `Layer<f64>` Float64 ones (a network trained in Float64).
//! [`widened`] rewrites any GML file with every Float32 dataset as Float64.
//!
//! ```
//! use geomattn::gml::{GmlFile, Layers};
//! use geomattn_testkit::gml_layout::{Layer, to_bytes};
//! let file = GmlFile::from_bytes(to_bytes(&[Layer::Symmetric(vec![1.0, 2.0, 3.0], 2)]))?;
//! assert_eq!(Layers::new(&file)?.remaining(), 1);
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```

use hdf5_pure::{AttrValue, DType, DatasetBuilder, File, FileBuilder, Group, GroupBuilder};
use rand::Rng;

/// An element type GML stores weights in: Float32 or Float64.
pub trait Stored: Copy {
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
    /// A dataset of these values.
    fn write(dataset: &mut DatasetBuilder, values: &[Self]);
}

impl Stored for f32 {
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn write(dataset: &mut DatasetBuilder, values: &[Self]) {
        dataset.with_f32_data(values);
    }
}

impl Stored for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn write(dataset: &mut DatasetBuilder, values: &[Self]) {
        dataset.with_f64_data(values);
    }
}

/// One layer group as GML writes it, its values stored as `E`.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer<E = f32> {
    /// A dense `A` (`n×n`, column-major values, `n`).
    Dense(Vec<E>, usize),
    /// A `SymmetricMatrix` `A` (packed values, size).
    Symmetric(Vec<E>, usize),
    /// A gradient layer: `weight` (`hidden×n`, column-major), `bias`, `scale` (`hidden` each).
    Gradient(Vec<E>, Vec<E>, Vec<E>),
    /// A ResNet layer: `weight` (`d×d`, column-major), `bias` (`d`).
    ResNet(Vec<E>, Vec<E>),
    /// A classification layer: `weight` (`classes×d`, column-major), `classes`.
    Classification(Vec<E>, usize),
    /// A `SkewSymMatrix` `A` (packed values, size): skew-symmetric volume-preserving attention.
    SkewSym(Vec<E>, usize),
    /// A volume-preserving feed-forward layer: `weight` a `LowerTriangular` (`UpperTriangular`
    /// with `upper`) of size `n` (packed values), and `bias` if it has one.
    Triangular {
        /// `UpperTriangular`, not `LowerTriangular`.
        upper: bool,
        /// The packed values.
        weight: Vec<E>,
        /// The size.
        n: usize,
        /// The bias.
        bias: Option<Vec<E>>,
    },
}

/// `len` values uniform in `(−1, 1)` (Float32, GML's default storage).
pub fn uniform<R: Rng + ?Sized>(rng: &mut R, len: usize) -> Vec<f32> {
    unit_interval(rng, len)
}

/// `len` values uniform in `(−1, 1)` with 53 random bits (Float64 storage): such a value is a
/// Float32 one with probability 2⁻²⁹.
pub fn uniform64<R: Rng + ?Sized>(rng: &mut R, len: usize) -> Vec<f64> {
    unit_interval(rng, len)
}

fn unit_interval<E: Stored, R: Rng + ?Sized>(rng: &mut R, len: usize) -> Vec<E> {
    #[allow(clippy::cast_precision_loss)]
    (0..len)
        .map(|_| E::from_f64(2.0 * ((rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64) - 1.0))
        .collect()
}

/// A random gradient layer of phase space `R^{2n}` with `hidden` hidden units.
pub fn gradient<E: Stored, R: Rng + ?Sized>(rng: &mut R, n: usize, hidden: usize) -> Layer<E> {
    let weight = unit_interval(rng, hidden * n);
    Layer::Gradient(
        weight,
        unit_interval(rng, hidden),
        unit_interval(rng, hidden),
    )
}

/// The layers of a (linear) symplectic transformer's chain: `l × [attention, n_sympnet gradient
/// layers, attention, n_sympnet gradient layers]`, the attention layers from `attention`.
pub fn chain<E: Stored, R: Rng>(
    rng: &mut R,
    (l, n_sympnet, n, hidden): (usize, usize, usize, usize),
    attention: impl Fn(&mut R) -> Layer<E>,
) -> Vec<Layer<E>> {
    let mut layers = Vec::new();
    for _ in 0..2 * l {
        layers.push(attention(rng));
        for _ in 0..n_sympnet {
            layers.push(gradient(rng, n, hidden));
        }
    }
    layers
}

/// A Julia `rows×cols` matrix as HDF5.jl writes it: dimensions reversed, column-major data.
fn matrix<E: Stored>(group: &mut GroupBuilder, name: &str, values: &[E], rows: usize, cols: usize) {
    vector(group, name, values).with_shape(&[cols as u64, rows as u64]);
}

/// A vector dataset.
fn vector<'g, E: Stored>(
    group: &'g mut GroupBuilder,
    name: &str,
    values: &[E],
) -> &'g mut DatasetBuilder {
    let dataset = group.create_dataset(name);
    E::write(dataset, values);
    dataset
}

/// A special matrix `name` of size `n`: a group tagged `gml_type` holding `S` and `n`.
fn special<E: Stored>(
    group: &mut GroupBuilder,
    name: &str,
    gml_type: &str,
    packed: &[E],
    n: usize,
) {
    let mut a = group.create_group(name);
    a.set_attr("gml_type", AttrValue::AsciiString(gml_type.into()));
    vector(&mut a, "S", packed);
    a.create_dataset("n")
        .with_i64_data(&[i64::try_from(n).expect("a small size")])
        .with_shape(&[]);
    group.add_group(a.finish());
}

/// The bytes of the HDF5 file of `layers`, in order.
///
/// # Panics
/// If `hdf5-pure` cannot write the file (a bug of the test, not of the code under test).
pub fn to_bytes<E: Stored>(layers: &[Layer<E>]) -> Vec<u8> {
    let mut file = FileBuilder::new();
    for (k, layer) in layers.iter().enumerate() {
        let mut group = file.create_group(&format!("L{}", k + 1));
        match layer {
            Layer::Dense(a, n) => matrix(&mut group, "A", a, *n, *n),
            Layer::Symmetric(packed, n) => special(&mut group, "A", "SymmetricMatrix", packed, *n),
            Layer::SkewSym(packed, n) => special(&mut group, "A", "SkewSymMatrix", packed, *n),
            Layer::Triangular {
                upper,
                weight,
                n,
                bias,
            } => {
                let gml_type = if *upper {
                    "UpperTriangular"
                } else {
                    "LowerTriangular"
                };
                special(&mut group, "weight", gml_type, weight, *n);
                if let Some(bias) = bias {
                    vector(&mut group, "bias", bias);
                }
            }
            Layer::Gradient(weight, bias, scale) => {
                let hidden = bias.len();
                matrix(&mut group, "weight", weight, hidden, weight.len() / hidden);
                vector(&mut group, "bias", bias);
                vector(&mut group, "scale", scale);
            }
            Layer::ResNet(weight, bias) => {
                matrix(&mut group, "weight", weight, bias.len(), bias.len());
                vector(&mut group, "bias", bias);
            }
            Layer::Classification(weight, classes) => {
                matrix(
                    &mut group,
                    "weight",
                    weight,
                    *classes,
                    weight.len() / classes,
                );
            }
        }
        file.add_group(group.finish());
    }
    file.finish().expect("hdf5-pure writes the file")
}

/// The GML file `bytes` with every Float32 dataset rewritten as Float64 (widened, so exactly the
/// same numbers), everything else as it was: what GML writes for the same network trained in
/// Float64 (its groups, `gml_type` attributes and Int64 sizes do not depend on the element type).
///
/// # Panics
/// If `bytes` is not an HDF5 file `hdf5-pure` reads, or holds a dataset of another type than
/// Float32, Float64 or Int64, or an attribute other than a string (not a GML file).
pub fn widened(bytes: Vec<u8>) -> Vec<u8> {
    let source = File::from_bytes(bytes).expect("an HDF5 file");
    let mut file = FileBuilder::new();
    let root = source.root();
    for name in root.groups().expect("the root's groups") {
        let group = root.group(&name).expect("a group");
        let copy = widened_group(&group, file.create_group(&name));
        file.add_group(copy);
    }
    file.finish().expect("hdf5-pure writes the file")
}

/// `group`'s attributes, datasets (Float32 widened) and subgroups, into `out`.
fn widened_group(group: &Group, mut out: GroupBuilder) -> hdf5_pure::FinishedGroup {
    for (name, value) in group.attrs().expect("the attributes") {
        let text = value.as_str().expect("GML writes string attributes only");
        out.set_attr(&name, AttrValue::AsciiString(text.into()));
    }
    for name in group.datasets().expect("the datasets") {
        let dataset = group.dataset(&name).expect("a dataset");
        let shape = dataset.shape().expect("a shape");
        let copy = out.create_dataset(&name);
        match dataset.dtype().expect("a type") {
            DType::F32 => copy.with_f64_data(
                &dataset
                    .read_f32()
                    .expect("Float32 values")
                    .into_iter()
                    .map(f64::from)
                    .collect::<Vec<_>>(),
            ),
            DType::F64 => copy.with_f64_data(&dataset.read_f64().expect("Float64 values")),
            DType::I64 => copy.with_i64_data(&dataset.read_i64().expect("Int64 values")),
            other => panic!("a GML file holds no {other} dataset"),
        }
        .with_shape(&shape);
    }
    for name in group.groups().expect("the subgroups") {
        let child = group.group(&name).expect("a group");
        let copy = widened_group(&child, out.create_group(&name));
        out.add_group(copy);
    }
    out.finish()
}

/// Every object of an HDF5 file, one line each, sorted by path: a group's attributes (with the
/// string type they were read as), a dataset's element type, shape and values (as `f64` bits, so
/// that equal lines mean equal numbers). With `widen`, Float32 datasets are described as the
/// Float64 datasets of the same values.
///
/// # Panics
/// If `bytes` is not an HDF5 file `hdf5-pure` reads, or holds a dataset other than Float32,
/// Float64 or Int64 (not a GML file).
pub fn objects(bytes: Vec<u8>, widen: bool) -> Vec<String> {
    fn walk(group: &Group, path: &str, widen: bool, out: &mut Vec<String>) {
        for (name, value) in group.attrs().unwrap() {
            out.push(format!("{path} @{name} = {value:?}"));
        }
        for name in group.datasets().unwrap() {
            let dataset = group.dataset(&name).unwrap();
            let shape = dataset.shape().unwrap();
            let (dtype, values): (_, Vec<u64>) = match dataset.dtype().unwrap() {
                DType::F32 => (
                    if widen { "F64" } else { "F32" },
                    dataset
                        .read_f32()
                        .unwrap()
                        .into_iter()
                        .map(|x| f64::from(x).to_bits())
                        .collect(),
                ),
                DType::F64 => (
                    "F64",
                    dataset
                        .read_f64()
                        .unwrap()
                        .into_iter()
                        .map(f64::to_bits)
                        .collect(),
                ),
                DType::I64 => (
                    "I64",
                    dataset
                        .read_i64()
                        .unwrap()
                        .into_iter()
                        .map(i64::cast_unsigned)
                        .collect(),
                ),
                other => panic!("{path}/{name}: a GML file holds no {other} dataset"),
            };
            let attributes = dataset.attrs().unwrap().len();
            out.push(format!(
                "{path}/{name} {dtype} {shape:?} {attributes} attributes {values:?}"
            ));
        }
        for name in group.groups().unwrap() {
            walk(
                &group.group(&name).unwrap(),
                &format!("{path}/{name}"),
                widen,
                out,
            );
        }
    }
    let file = File::from_bytes(bytes).unwrap();
    let mut out = Vec::new();
    walk(&file.root(), "", widen, &mut out);
    out.sort();
    out
}

/// The objects of a file without the layer types geomattn records
/// ([`geomattn::gml::LAYER_TYPE`], which GML ignores): for a file geomattn wrote, what GML's
/// `save` writes for the same network; a file GML wrote is all of its [`objects`].
///
/// # Panics
/// As [`objects`].
pub fn gml_objects(bytes: Vec<u8>, widen: bool) -> Vec<String> {
    let (_, gml) = split_recorded_types(objects(bytes, widen));
    gml
}

/// The lines of the layer types geomattn records, and the others.
pub fn split_recorded_types(objects: Vec<String>) -> (Vec<String>, Vec<String>) {
    let recorded = format!(" @{} = ", geomattn::gml::LAYER_TYPE);
    objects
        .into_iter()
        .partition(|line| line.contains(&recorded))
}

/// The layout of an HDF5 file, as GML's `save` writes it: its [`gml_objects`]
/// without the datasets' values (groups, attributes with their values, datasets with their
/// element type, shape and number of attributes), so that two networks of the same type written
/// the same way have equal layouts.
///
/// # Panics
/// As [`gml_objects`].
pub fn layout(bytes: Vec<u8>) -> Vec<String> {
    gml_objects(bytes, false)
        .into_iter()
        .map(|line| match line.split_once(" attributes ") {
            Some((description, _values)) => format!("{description} attributes"),
            None => line,
        })
        .collect()
}
