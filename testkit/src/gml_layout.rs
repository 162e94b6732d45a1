//! Files in GML's HDF5 layout, written with `hdf5-pure`'s writer: the phase-space layers of the
//! symplectic transformers (GML's `save` writes one group `L1`, `L2`, … per layer, Julia matrices
//! with their dimensions reversed, a `SymmetricMatrix` as a group with `S` and `n`). For tests that
//! need a symplectic network file of a given size (GML 0.4.8 fixtures have none).
//!
//! ```
//! use geomattn::gml::{GmlFile, Layers};
//! use geomattn_testkit::gml_layout::{Layer, to_bytes};
//! let file = GmlFile::from_bytes(to_bytes(&[Layer::Symmetric(vec![1.0, 2.0, 3.0], 2)]))?;
//! assert_eq!(Layers::new(&file)?.remaining(), 1);
//! # Ok::<(), geomattn::gml::LoadError>(())
//! ```

use hdf5_pure::{AttrValue, FileBuilder, GroupBuilder};
use rand::Rng;

/// One layer group as GML writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    /// A dense `A` (`n×n`, column-major values, `n`).
    Dense(Vec<f32>, usize),
    /// A `SymmetricMatrix` `A` (packed values, size).
    Symmetric(Vec<f32>, usize),
    /// A gradient layer: `weight` (`hidden×n`, column-major), `bias`, `scale` (`hidden` each).
    Gradient(Vec<f32>, Vec<f32>, Vec<f32>),
    /// A ResNet layer: `weight` (`d×d`, column-major), `bias` (`d`).
    ResNet(Vec<f32>, Vec<f32>),
    /// A classification layer: `weight` (`classes×d`, column-major), `classes`.
    Classification(Vec<f32>, usize),
}

/// `len` values uniform in `(−1, 1)`.
pub fn uniform<R: Rng + ?Sized>(rng: &mut R, len: usize) -> Vec<f32> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    (0..len)
        .map(|_| (2.0 * ((rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64) - 1.0) as f32)
        .collect()
}

/// A random gradient layer of phase space `R^{2n}` with `hidden` hidden units.
pub fn gradient<R: Rng + ?Sized>(rng: &mut R, n: usize, hidden: usize) -> Layer {
    let weight = uniform(rng, hidden * n);
    Layer::Gradient(weight, uniform(rng, hidden), uniform(rng, hidden))
}

/// The layers of a (linear) symplectic transformer's chain: `l × [attention, n_sympnet gradient
/// layers, attention, n_sympnet gradient layers]`, the attention layers from `attention`.
pub fn chain<R: Rng>(
    rng: &mut R,
    (l, n_sympnet, n, hidden): (usize, usize, usize, usize),
    attention: impl Fn(&mut R) -> Layer,
) -> Vec<Layer> {
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
fn matrix(group: &mut GroupBuilder, name: &str, values: &[f32], rows: usize, cols: usize) {
    group
        .create_dataset(name)
        .with_f32_data(values)
        .with_shape(&[cols as u64, rows as u64]);
}

/// The bytes of the HDF5 file of `layers`, in order.
///
/// # Panics
/// If `hdf5-pure` cannot write the file (a bug of the test, not of the code under test).
pub fn to_bytes(layers: &[Layer]) -> Vec<u8> {
    let mut file = FileBuilder::new();
    for (k, layer) in layers.iter().enumerate() {
        let mut group = file.create_group(&format!("L{}", k + 1));
        match layer {
            Layer::Dense(a, n) => matrix(&mut group, "A", a, *n, *n),
            Layer::Symmetric(packed, n) => {
                let mut a = group.create_group("A");
                a.set_attr("gml_type", AttrValue::AsciiString("SymmetricMatrix".into()));
                a.create_dataset("S").with_f32_data(packed);
                a.create_dataset("n")
                    .with_i64_data(&[i64::try_from(*n).expect("a small size")])
                    .with_shape(&[]);
                group.add_group(a.finish());
            }
            Layer::Gradient(weight, bias, scale) => {
                let hidden = bias.len();
                matrix(&mut group, "weight", weight, hidden, weight.len() / hidden);
                group.create_dataset("bias").with_f32_data(bias);
                group.create_dataset("scale").with_f32_data(scale);
            }
            Layer::ResNet(weight, bias) => {
                matrix(&mut group, "weight", weight, bias.len(), bias.len());
                group.create_dataset("bias").with_f32_data(bias);
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
