//! Files of any architecture's chain as GML's `save` writes them (one group `L1`, `L2`, … per
//! layer, Julia matrices with their dimensions reversed, special matrices as groups with
//! `gml_type`, `S` and `n`, a Stiefel point as a group holding `A`), from the chain as data
//! ([`geomattn_networks::layout`]) and seeded values: a network of every architecture at every size,
//! for the loader, `inspect` and the run-time engine.
//!
//! ```
//! use geomattn_networks::{Arch, layout};
//! use geomattn_testkit::gml_chain::file_of;
//! let spec = "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)";
//! let arch: Arch = spec.parse()?;
//! let file = file_of(&layout::layers(&arch), 7);
//! assert_eq!(file.layers()?.len(), layout::layers(&arch).len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use geomattn::gml::GmlFile;
use geomattn_networks::layout::{self, Values};
use hdf5_pure::{AttrValue, FileBuilder, GroupBuilder};

/// SplitMix64: the file's values, seeded.
pub struct Values64(pub u64);

impl Values64 {
    /// The next `len` values, uniform in `[−1, 1)` on a grid of `2⁻²³`.
    pub fn take(&mut self, len: usize) -> Vec<f32> {
        (0..len)
            .map(|_| {
                self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = self.0;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                ((z >> 40) as f32 / (1_u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }
}

fn dataset(group: &mut GroupBuilder, name: &str, values: &[f32], julia_shape: &[usize]) {
    let shape: Vec<u64> = julia_shape.iter().rev().map(|&d| d as u64).collect();
    group
        .create_dataset(name)
        .with_f32_data(values)
        .with_shape(&shape);
}

/// Writes the parameter `values` of shape `shape` under `name` in `group`.
fn parameter(group: &mut GroupBuilder, name: &str, shape: Values, values: &[f32]) {
    match shape {
        Values::Dense { rows, cols } => dataset(group, name, values, &[rows, cols]),
        Values::Vector(len) => dataset(group, name, values, &[len]),
        Values::Packed(kind, n) => {
            let mut special = group.create_group(name);
            special.set_attr("gml_type", AttrValue::AsciiString(kind.gml_type().into()));
            dataset(&mut special, "S", values, &[kind.len(n)]);
            special
                .create_dataset("n")
                .with_i64_data(&[n as i64])
                .with_shape(&[]);
            group.add_group(special.finish());
        }
        Values::Stiefel { rows, cols } => {
            let mut special = group.create_group(name);
            special.set_attr("gml_type", AttrValue::AsciiString("StiefelManifold".into()));
            dataset(&mut special, "A", values, &[rows, cols]);
            group.add_group(special.finish());
        }
    }
}

/// The values [`file_of`] writes for `layers` from `seed`: per layer, per parameter in the
/// chain's order, Julia's column-major entries (a Stiefel point: the first columns of the
/// identity, which are orthonormal; everything else seeded).
pub fn values_of(layers: &[layout::Layer], seed: u64) -> Vec<Vec<Vec<f32>>> {
    let mut rng = Values64(seed);
    layers
        .iter()
        .map(|layer| {
            layer
                .parameters
                .iter()
                .map(|p| match p.values {
                    Values::Stiefel { rows, cols } => (0..rows * cols)
                        .map(|k| f32::from(u8::from(k % rows == k / rows)))
                        .collect(),
                    other => rng.take(other.len()),
                })
                .collect()
        })
        .collect()
}

/// The file of `layers`, as GML's `save` writes it, its values from `seed` (Float32, GML's
/// default).
///
/// # Panics
/// As [`bytes_of`].
pub fn file_of(layers: &[layout::Layer], seed: u64) -> GmlFile {
    GmlFile::from_bytes(bytes_of(layers, seed)).expect("a GML file")
}

/// The bytes of [`file_of`].
///
/// # Panics
/// If `hdf5-pure` cannot write the file (a bug of the test, not of the code under test).
pub fn bytes_of(layers: &[layout::Layer], seed: u64) -> Vec<u8> {
    let mut file = FileBuilder::new();
    for (k, (layer, values)) in layers.iter().zip(values_of(layers, seed)).enumerate() {
        let mut group = file.create_group(&format!("L{}", k + 1));
        // Parameters under one prefix (`PQ/head_1`, `PQ/head_2`, …) share its plain group.
        let mut prefixes: Vec<&str> = Vec::new();
        for (p, values) in layer.parameters.iter().zip(&values) {
            match p.name.split_once('/') {
                Some((prefix, _)) if !prefixes.contains(&prefix) => prefixes.push(prefix),
                Some(_) => {}
                None => parameter(&mut group, &p.name, p.values, values),
            }
        }
        for prefix in prefixes {
            let mut inner = group.create_group(prefix);
            for (p, values) in layer.parameters.iter().zip(&values) {
                if let Some(rest) = p.name.strip_prefix(&format!("{prefix}/")) {
                    parameter(&mut inner, rest, p.values, values);
                }
            }
            group.add_group(inner.finish());
        }
        file.add_group(group.finish());
    }
    file.finish().expect("hdf5-pure writes the file")
}
