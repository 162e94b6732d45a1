//! Writing a network in GML's HDF5 layout, so that GML's own `load` reads it: the inverse of
//! [`load`](super::load).
//!
//! The file is what GML 0.4.8's `save` writes for the same network: one group `/L1 … /Ln` per
//! layer of the flattened chain, each parameter under GML's name; dense matrices with their
//! dimensions reversed (Julia's column-major data); vectors as one-dimensional datasets; the
//! special matrices as groups tagged with a `gml_type` attribute (`SkewSymMatrix`,
//! `SymmetricMatrix`, `LowerTriangular`, `UpperTriangular`: the packed vector `S` and the size `n`
//! as a scalar Int64; `StiefelManifold`: the matrix `A`); multi-head weights in the plain groups
//! `PQ`, `PK`, `PV` as `head_1 … head_k`. `tests/tests/gml_save.rs` checks this against every
//! shipped fixture: loading a fixture and saving it again gives the same groups, datasets, types,
//! shapes, attributes and values.
//!
//! One thing is added, which GML ignores: each layer group's attribute
//! [`geomattn_layer`](super::LAYER_TYPE), the layer's type with every option the Rust type fixes
//! (`GradientLayerQ(dim = 4, upscaling_dimension = 8, activation = tanh)`). GML's file does not
//! say what it cannot tell from the weights (an activation, whether attention is linear), so that
//! two architectures can read the same file: geomattn's loader reads a file it wrote only as what
//! it was written from ([`LoadError::LayerType`](super::LoadError::LayerType)).
//!
//! The values are stored in the element type the caller names ([`Storage`]): Float32 (GML's
//! default, what its tutorials train in; an `f64` network is rounded once to nearest) or Float64.
//!
//! ```
//! use geomattn::activation::Tanh;
//! use geomattn::architectures::VolumePreservingTransformer;
//! use geomattn::gml::{GmlFile, Storage, load, load_file, to_bytes};
//! use geomattn::{Schema, to_flat};
//! type Vpt = VolumePreservingTransformer<f64, 3, 3, 2, 1, 3, Tanh>;
//! let net: Vpt = load_file(concat!(env!("CARGO_MANIFEST_DIR"),
//!     "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5"))?;
//! let bytes = to_bytes(&net, Storage::Float64)?;
//! let again: Vpt = load(&GmlFile::from_bytes(bytes)?)?;
//! let (mut a, mut b) = ([0.0; <Vpt as Schema>::SCALARS], [0.0; <Vpt as Schema>::SCALARS]);
//! to_flat(&again, &mut a)?;
//! to_flat(&net, &mut b)?;
//! assert_eq!(a, b);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::format;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use hdf5_pure::{AttrValue, FileBuilder, GroupBuilder};
use nalgebra::RealField;

use super::LAYER_TYPE;
use super::networks::LayerTypes;
use super::weights::param_name;
use crate::schema::{Kind, Param, Schema, Sink};

/// The element type the weights are stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// Julia's `Float32`: GML's default element type. `f64` weights are rounded once to nearest.
    Float32,
    /// Julia's `Float64`.
    Float64,
}

/// Why a network could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// A weight is NaN or infinite, or finite but beyond Float32's range when stored as
    /// [`Storage::Float32`]: GML would load a network that computes infinities and NaNs.
    #[error(
        "`{path}` holds {value} at index {index}, which {storage:?} cannot store as a finite number"
    )]
    NotFinite {
        /// The dataset (its path in the file).
        path: String,
        /// The index of the value in the dataset's (column-major) order.
        index: usize,
        /// The value.
        value: f64,
        /// The storage asked for.
        storage: Storage,
    },
    /// The network does not fit its own schema.
    #[error("the network does not fit its schema: {0}")]
    Invalid(crate::error::Error),
    /// The HDF5 writer refused the file.
    #[error("cannot write HDF5: {0}")]
    Hdf5(hdf5_pure::Error),
    /// The file could not be written to disk.
    #[error("cannot write `{path}`: {source}")]
    Io {
        /// The path.
        path: String,
        /// What the system reported.
        source: std::io::Error,
    },
}

/// The bytes of `network`'s HDF5 file in GML's layout, its weights stored as `storage`.
///
/// # Errors
/// [`SaveError::NotFinite`] for a weight that is not finite in `storage`; [`SaveError::Hdf5`] if
/// the writer fails.
pub fn to_bytes<N>(network: &N, storage: Storage) -> Result<Vec<u8>, SaveError>
where
    N: Schema,
    N::Scalar: RealField + Copy,
{
    let mut writer = GmlWriter::new(storage);
    writer.write(network)?;
    writer.finish()
}

/// Writes `network` to the file `path` in GML's layout (see [`to_bytes`]); the file is replaced.
///
/// # Errors
/// As [`to_bytes`], and [`SaveError::Io`] if the file cannot be written.
pub fn save_file<N>(network: &N, path: impl AsRef<Path>, storage: Storage) -> Result<(), SaveError>
where
    N: Schema,
    N::Scalar: RealField + Copy,
{
    let bytes = to_bytes(network, storage)?;
    let path = path.as_ref();
    std::fs::write(path, bytes).map_err(|source| SaveError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// A dataset's values in the storage's element type.
enum Values {
    Float32(Vec<f32>),
    Float64(Vec<f64>),
}

/// One parameter of a layer group, ready to be written.
struct Entry {
    /// The plain group holding it (`PQ`), if any.
    parent: Option<&'static str>,
    name: String,
    kind: Kind,
    rows: usize,
    cols: usize,
    values: Values,
}

/// A GML file written part by part: the layer groups of each part [`write`](Self::write) hands
/// it follow those of the parts before, as in one network whose chain is the parts' chains one
/// after the other (a network whose number of layers is known only at run time, written unit by
/// unit).
///
/// ```
/// use geomattn::activation::Tanh;
/// use geomattn::architectures::VolumePreservingTransformer;
/// use geomattn::gml::{GmlWriter, Storage, load_file, to_bytes};
/// type Vpt = VolumePreservingTransformer<f32, 3, 3, 2, 1, 3, Tanh>;
/// let net: Vpt = load_file(concat!(env!("CARGO_MANIFEST_DIR"),
///     "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5"))?;
/// let mut writer = GmlWriter::new(Storage::Float32);
/// for (attention, feedforward) in net.blocks() {
///     writer.write(attention)?;
///     writer.write(feedforward)?;
/// }
/// // The same file as the whole network's, all 33 layer groups.
/// assert_eq!(writer.finish()?, to_bytes(&net, Storage::Float32)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GmlWriter {
    storage: Storage,
    file: FileBuilder,
    layers: usize,
    entries: Vec<Entry>,
    /// The type of every layer group handed out so far (as GML's constructor reads), recorded
    /// on its group.
    types: Vec<String>,
}

impl GmlWriter {
    /// An empty file whose weights will be stored as `storage`.
    pub fn new(storage: Storage) -> Self {
        Self {
            storage,
            file: FileBuilder::new(),
            layers: 0,
            entries: Vec::new(),
            types: Vec::new(),
        }
    }

    /// The current layer group, written into the file.
    fn write_layer(&mut self) {
        if self.layers == 0 {
            return;
        }
        let mut layer = self.file.create_group(&format!("L{}", self.layers));
        if let Some(layer_type) = self.types.get(self.layers - 1) {
            layer.set_attr(LAYER_TYPE, AttrValue::String(layer_type.clone()));
        }
        let mut parents: Vec<&'static str> = Vec::new();
        for entry in &self.entries {
            match entry.parent {
                None => write_entry(&mut layer, entry),
                Some(parent) if !parents.contains(&parent) => parents.push(parent),
                Some(_) => {}
            }
        }
        for parent in parents {
            let mut group = layer.create_group(parent);
            for entry in self.entries.iter().filter(|e| e.parent == Some(parent)) {
                write_entry(&mut group, entry);
            }
            layer.add_group(group.finish());
        }
        self.file.add_group(layer.finish());
        self.entries.clear();
    }

    /// Appends the layer groups of `part`.
    ///
    /// # Errors
    /// As [`to_bytes`]: then the part may be half written; drop the writer.
    pub fn write<N>(&mut self, part: &N) -> Result<(), SaveError>
    where
        N: Schema,
        N::Scalar: RealField + Copy,
    {
        let mut types = LayerTypes(core::mem::take(&mut self.types));
        N::describe(&mut types);
        self.types = types.0;
        part.write(self)
    }

    /// Appends the layer groups of the layer types `types` (of sizes known only at run time, as
    /// [`described`](crate::schema::described) builds them), their parameters holding `values`
    /// one after the other in GML's order: a network of the run-time engine, such as one trained
    /// at a size read from a file.
    ///
    /// ```
    /// use geomattn::gml::{GmlFile, GmlWriter, Storage};
    /// use geomattn::schema::described;
    /// let types = [described::resnet_layer(2, "tanh")];
    /// let mut writer = GmlWriter::new(Storage::Float64);
    /// writer.write_described(&types, &[1.0, 2.0, 3.0, 4.0, 0.5, -0.5])?;
    /// let file = GmlFile::from_bytes(writer.finish()?)?;
    /// assert_eq!(file.layers()?.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`SaveError::Invalid`] if `values` does not hold as many scalars as the types'
    /// parameters; otherwise as [`write`](Self::write).
    pub fn write_described<S: RealField + Copy>(
        &mut self,
        types: &[crate::schema::OwnedLayerType],
        values: &[S],
    ) -> Result<(), SaveError> {
        let expected: usize = types.iter().flat_map(|t| &t.params).map(Param::len).sum();
        if expected != values.len() {
            return Err(SaveError::Invalid(crate::error::Error::WeightLength {
                name: "parameters",
                expected,
                found: values.len(),
            }));
        }
        let mut rest = values;
        for layer in types {
            self.types.push(layer.as_type().to_string());
            Sink::<S>::begin_layer(self)?;
            for param in &layer.params {
                let (these, after) = rest.split_at(param.len());
                self.param(param, these)?;
                rest = after;
            }
        }
        Ok(())
    }

    /// The bytes of the file.
    ///
    /// # Errors
    /// [`SaveError::Hdf5`] if the writer fails.
    pub fn finish(mut self) -> Result<Vec<u8>, SaveError> {
        self.write_layer();
        self.file.finish().map_err(SaveError::Hdf5)
    }

    fn path(&self, param: &Param) -> String {
        let dataset = match param.kind {
            Kind::Stiefel => "/A",
            kind if kind.is_packed() => "/S",
            _ => "",
        };
        let parent = param
            .name
            .parent
            .map(|p| format!("{p}/"))
            .unwrap_or_default();
        format!("/L{}/{parent}{}{dataset}", self.layers, param_name(param))
    }
}

impl<S: RealField + Copy> Sink<S> for GmlWriter {
    type Error = SaveError;

    fn begin_layer(&mut self) -> Result<(), SaveError> {
        self.write_layer();
        self.layers += 1;
        Ok(())
    }

    fn param(&mut self, param: &Param, values: &[S]) -> Result<(), SaveError> {
        // Every real scalar widens to f64 exactly (f32, f64); one that does not is reported.
        let wide: Vec<f64> = values
            .iter()
            .map(|x| x.to_subset().unwrap_or(f64::NAN))
            .collect();
        let (values, first_bad) = match self.storage {
            Storage::Float64 => {
                let bad = wide.iter().position(|x| !x.is_finite());
                (Values::Float64(wide.clone()), bad)
            }
            Storage::Float32 => {
                #[allow(clippy::cast_possible_truncation)]
                let narrow: Vec<f32> = wide.iter().map(|&x| x as f32).collect();
                let bad = narrow.iter().position(|x| !x.is_finite());
                (Values::Float32(narrow), bad)
            }
        };
        if let Some(index) = first_bad {
            return Err(SaveError::NotFinite {
                path: self.path(param),
                index,
                value: wide[index],
                storage: self.storage,
            });
        }
        self.entries.push(Entry {
            parent: param.name.parent,
            name: param_name(param),
            kind: param.kind,
            rows: param.rows,
            cols: param.cols,
            values,
        });
        Ok(())
    }

    fn invalid(&mut self, error: crate::error::Error) -> SaveError {
        SaveError::Invalid(error)
    }
}

/// `entry` into `holder`, as GML writes a parameter of its kind.
fn write_entry(holder: &mut GroupBuilder, entry: &Entry) {
    let reversed = [entry.cols as u64, entry.rows as u64];
    match (entry.kind, entry.kind.gml_type()) {
        (Kind::Vector, _) => {
            dataset(holder, &entry.name, &entry.values).with_shape(&[entry.rows as u64]);
        }
        (Kind::Stiefel, Some(gml_type)) => {
            let mut group = holder.create_group(&entry.name);
            group.set_attr("gml_type", AttrValue::String(gml_type.into()));
            dataset(&mut group, "A", &entry.values).with_shape(&reversed);
            holder.add_group(group.finish());
        }
        (_, None) => {
            dataset(holder, &entry.name, &entry.values).with_shape(&reversed);
        }
        (_, Some(gml_type)) => {
            let mut group = holder.create_group(&entry.name);
            group.set_attr("gml_type", AttrValue::String(gml_type.into()));
            let len = match &entry.values {
                Values::Float32(v) => v.len(),
                Values::Float64(v) => v.len(),
            };
            dataset(&mut group, "S", &entry.values).with_shape(&[len as u64]);
            #[allow(clippy::cast_possible_wrap)]
            group
                .create_dataset("n")
                .with_i64_data(&[entry.rows as i64])
                .with_shape(&[]);
            holder.add_group(group.finish());
        }
    }
}

/// A dataset `name` of `values` in `holder`.
fn dataset<'g>(
    holder: &'g mut GroupBuilder,
    name: &str,
    values: &Values,
) -> &'g mut hdf5_pure::DatasetBuilder {
    let dataset = holder.create_dataset(name);
    match values {
        Values::Float32(v) => dataset.with_f32_data(v),
        Values::Float64(v) => dataset.with_f64_data(v),
    }
}
