//! Reading GML's HDF5 layout: numbered layer groups, transposed dense matrices, special matrices
//! tagged by a `gml_type` attribute.
//!
//! GML writes its parameters in the element type the network was trained in: Float32 (GML's
//! default, and every fixture) or Float64 (common for integrators). Both are read, into either
//! scalar: values are widened to `f64` exactly, then converted once to the network's scalar, so
//! a Float64 file read into an `f32` network is rounded once to nearest, and a Float32 file read
//! into an `f64` network is exact. A Float64 value beyond the scalar's range is an error
//! ([`LoadError::OutOfRange`]), not an infinity.

use std::collections::BTreeMap;
use std::format;
use std::path::Path;
use std::string::{String, ToString};
use std::sync::OnceLock;
use std::vec::Vec;

use hdf5_pure::{DType, Dataset, File, Group};

use crate::{Kind, LoadError, Object};

/// A GML file opened for reading.
pub struct GmlFile {
    file: File,
    name: String,
    size: u64,
}

/// One group of a GML file (a layer, or a group of parameters inside one), with its path for error
/// messages.
pub struct Node {
    group: Group,
    path: String,
    /// The size of the file: no dataset is read whose shape claims more bytes.
    file_size: u64,
    /// The names of the group's subgroups and of its datasets, each list read once: every
    /// lookup of a parameter asks whether it is there and what it is, and hdf5-pure lists a
    /// group by parsing the object header of each child again. (`OnceLock`, not `OnceCell`: a
    /// `Node` stays `Sync`.)
    groups: OnceLock<Vec<String>>,
    datasets: OnceLock<Vec<String>>,
}

// A `Node` is `Send` and `Sync`, as it was before it kept its listings: checked at compile time.
const _: fn() = || {
    fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Node>();
};

/// The attribute on each layer group of a file geomattn writes: the layer's type, displayed as
/// GML's constructor with every option the Rust type fixes
/// (`LinearSymplecticAttentionQ(dim = 4, seq_length = 2)`). GML ignores it; geomattn's loader
/// refuses to read the group as another type.
pub const LAYER_TYPE: &str = "geomattn_layer";

/// Refuses a path that names a FIFO (opening it blocks until a writer comes, forever if none
/// does), a device or a socket: every file the crate and the command read is read whole or by
/// seeking; a pipe's output can be saved to a file first. A missing file and a folder pass:
/// reading them reports the system's error (`NotFound`, `IsADirectory`), which Python turns into
/// `FileNotFoundError` and `IsADirectoryError`.
///
/// # Errors
/// [`std::io::ErrorKind::InvalidInput`], saying what the path names.
pub fn regular_file(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, a device or a socket); give a file (a pipe's output can \
             be saved to one first)",
        )),
        _ => Ok(()),
    }
}

impl GmlFile {
    /// Opens a file.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if it cannot be read or is not HDF5.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let name = path.as_ref().display().to_string();
        Self::open_as(path, name)
    }

    /// Opens a file, named `name` in messages (the path as the user wrote it, where `path` is
    /// resolved against a folder).
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn open_as(path: impl AsRef<Path>, name: impl Into<String>) -> Result<Self, LoadError> {
        let name = name.into();
        regular_file(path.as_ref()).map_err(|source| LoadError::NotAFile {
            path: name.clone(),
            source,
        })?;
        let file = File::open(path).map_err(|source| LoadError::Hdf5 {
            path: name.clone(),
            source,
        })?;
        let size = file.file_size();
        Ok(Self { file, name, size })
    }

    /// Parses a file held in memory.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the bytes are not a readable HDF5 file.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, LoadError> {
        let size = bytes.len() as u64;
        let file = File::from_bytes(bytes).map_err(|source| LoadError::Hdf5 {
            path: "<memory>".into(),
            source,
        })?;
        Ok(Self {
            file,
            name: "<memory>".into(),
            size,
        })
    }

    /// The file's name, as given to [`open`](Self::open).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's size in bytes: the bound on what reading any of its datasets may allocate.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The layer groups `L1 … Ln`, in numerical order.
    ///
    /// # Errors
    /// [`LoadError::Misnumbered`] for a group named like a layer outside the numbering (`L0`,
    /// `L01`), [`LoadError::NumberingGap`] if the numbering has a gap, [`LoadError::Hdf5`] if the
    /// file is corrupt.
    pub fn layers(&self) -> Result<Vec<Node>, LoadError> {
        Node::new(self.file.root(), String::new(), self.size).numbered_groups("L")
    }
}

/// What one numbered name (`L12`, `head_3`) says: `None` if it is not of the form
/// `<prefix><digits>`, `Some(None)` if it is but does not count in the numbering `1 … n` (zero, a
/// leading zero, too large).
pub(crate) fn number(name: &str, prefix: &str) -> Option<Option<usize>> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.starts_with('0') {
        return Some(None);
    }
    Some(digits.parse().ok())
}

impl Node {
    fn new(group: Group, path: String, file_size: u64) -> Self {
        Self {
            group,
            path,
            file_size,
            groups: OnceLock::new(),
            datasets: OnceLock::new(),
        }
    }

    /// The group's path inside the file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The subgroup `name`, a plain group (a layer, `PQ`, …).
    ///
    /// # Errors
    /// [`LoadError::Missing`] if there is none, [`LoadError::Kind`] if `name` is a dataset.
    pub fn group(&self, name: &str) -> Result<Node, LoadError> {
        self.group_expecting(name, Object::Group { gml_type: None })
    }

    /// The subgroup `name`, where the architecture expects `expected` (for the error messages).
    fn group_expecting(&self, name: &str, expected: Object) -> Result<Node, LoadError> {
        let path = self.child_path(name);
        if !self.has_group(name)? {
            return Err(self.absent(name, path, expected)?);
        }
        let group = self.group.group(name).map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        Ok(Node::new(group, path, self.file_size))
    }

    /// The subgroups `<prefix>1 … <prefix>n` (GML's `L1 … Ln`) in numerical order; names not of
    /// the form `<prefix><digits>` are ignored.
    ///
    /// # Errors
    /// [`LoadError::Misnumbered`] for `<prefix>0` or a leading zero, [`LoadError::NumberingGap`]
    /// for a gap in the numbering.
    pub fn numbered_groups(&self, prefix: &str) -> Result<Vec<Node>, LoadError> {
        // Every subgroup opened in one walk of this group's links: opening each by name walked
        // them again, quadratic in their number (a file of 4 000 layers took 7.7 s, 10 000
        // took 50 s).
        let listed: Vec<(String, Group)> = self
            .group
            .iter_groups()
            .map_err(|source| LoadError::Hdf5 {
                path: self.path.clone(),
                source,
            })?
            .collect();
        // Every name as listed (a name listed twice is a gap in the numbering, as before).
        let names = self.numbered(
            listed.iter().map(|(name, _)| name.clone()).collect(),
            prefix,
        )?;
        let mut groups: BTreeMap<String, Group> = listed.into_iter().collect();
        Ok(names
            .into_iter()
            .filter_map(|name| {
                let group = groups.remove(&name)?;
                Some(Node::new(group, self.child_path(&name), self.file_size))
            })
            .collect())
    }

    /// Checks that the names of the form `<prefix><digits>` are exactly `<prefix>1 …
    /// <prefix>n`, and returns them in order.
    pub(crate) fn numbered(
        &self,
        names: Vec<String>,
        prefix: &str,
    ) -> Result<Vec<String>, LoadError> {
        let mut numbered = Vec::new();
        for name in names {
            match number(&name, prefix) {
                None => {}
                Some(None | Some(0)) => {
                    return Err(LoadError::Misnumbered {
                        path: self.child_path(&name),
                        prefix: prefix.into(),
                    });
                }
                Some(Some(k)) => numbered.push((k, name)),
            }
        }
        numbered.sort_unstable();
        let count = numbered.len();
        let highest = numbered.last().map_or(0, |(k, _)| *k);
        // Sorted distinct numbers from 1 are 1 … n exactly when the k-th is k; the first that is
        // not shows the gap.
        for (expected, (k, _)) in (1..).zip(&numbered) {
            if *k != expected {
                return Err(LoadError::NumberingGap {
                    path: self.child_path(&format!("{prefix}{expected}")),
                    prefix: prefix.into(),
                    highest,
                    count,
                });
            }
        }
        Ok(numbered.into_iter().map(|(_, name)| name).collect())
    }

    /// Everything directly inside this group, sorted by name: each dataset with its type and
    /// shape, each group with its `gml_type` (for tools that describe a file without knowing its
    /// architecture, such as `geomattn inspect`).
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the group or one of its children cannot be read.
    pub fn entries(&self) -> Result<Vec<(String, Object)>, LoadError> {
        let mut names = self.group_names()?;
        names.extend(self.dataset_names()?);
        names.sort_unstable();
        let mut entries = Vec::with_capacity(names.len());
        for name in names {
            if let Some(object) = self.describe(&name)? {
                entries.push((name, object));
            }
        }
        Ok(entries)
    }

    /// The floating-point dataset `name` (Float32 or Float64) as a Julia matrix of the reversed
    /// shape: its values in column-major order (the file's row-major data as it is, widened to
    /// `f64` exactly), with its row and column counts. A vector is one column. For describing a
    /// file without knowing its architecture. `rows · cols` is the number of values, and neither
    /// is larger than the file's size in bytes (an empty matrix too).
    ///
    /// # Errors
    /// As [`stored`](Self::stored), and [`LoadError::Shape`] for an array of rank above 2.
    pub fn dynamic_matrix(&self, name: &str) -> Result<(usize, usize, Vec<f64>), LoadError> {
        let dataset = self.dataset(name, Object::floats(&[]))?;
        let shape = self.shape(&dataset, name)?;
        let (rows, cols) = match *shape.as_slice() {
            [len] => (len, 1),
            [cols, rows] => (rows, cols),
            _ => {
                return Err(LoadError::Shape {
                    path: self.child_path(name),
                    expected: Vec::new(),
                    found: shape,
                });
            }
        };
        let values = self.checked_floats(&dataset, name, &shape)?;
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        Ok((size(rows), size(cols), values))
    }

    /// Whether a dataset `name` exists here.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the group cannot be listed.
    pub fn has_dataset(&self, name: &str) -> Result<bool, LoadError> {
        Ok(self.datasets()?.iter().any(|d| d == name))
    }

    fn has_group(&self, name: &str) -> Result<bool, LoadError> {
        Ok(self.groups()?.iter().any(|g| g == name))
    }

    /// Checks that there is no dataset or group `name` (a parameter the architecture does not have
    /// there).
    ///
    /// # Errors
    /// [`LoadError::Unexpected`] if there is one.
    pub fn reject(&self, name: &str) -> Result<(), LoadError> {
        match self.describe(name)? {
            Some(found) => Err(LoadError::Unexpected {
                path: self.child_path(name),
                found,
            }),
            None => Ok(()),
        }
    }

    /// Why `name` is not the object the architecture expects at `path`: something else is there
    /// ([`LoadError::Kind`]), or nothing ([`LoadError::Missing`]).
    fn absent(&self, name: &str, path: String, expected: Object) -> Result<LoadError, LoadError> {
        Ok(match self.describe(name)? {
            Some(found) => LoadError::Kind {
                path,
                expected,
                found,
            },
            None => LoadError::Missing { path, expected },
        })
    }

    /// What the file has at `name`: a dataset (its type and shape), a group (its `gml_type`), or
    /// nothing.
    pub fn describe(&self, name: &str) -> Result<Option<Object>, LoadError> {
        if self.has_group(name)? {
            let group = self.group(name)?;
            return Ok(Some(Object::Group {
                gml_type: group.gml_type()?,
            }));
        }
        if !self.has_dataset(name)? {
            return Ok(None);
        }
        let path = self.child_path(name);
        let dataset = self.group.dataset(name).map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        Ok(Some(Object::Dataset {
            dtype: dtype_name(&dtype(&dataset, &path)?),
            shape: self.shape(&dataset, name)?,
        }))
    }

    /// The values of the parameter at `path` inside this group (`A`, or `PQ/head_1` through
    /// plain groups), a `rows×cols` parameter of kind `kind` (`rows = cols = n` for a packed
    /// one): GML's column-major order, or its packed order for the special matrices, each
    /// widened to `f64` exactly and finite. The file's shapes are checked before anything of
    /// that size is allocated.
    ///
    /// # Errors
    /// [`LoadError::Missing`], [`LoadError::Kind`] (a dataset where a special matrix's group is
    /// expected, or the other way round), [`LoadError::Shape`], [`LoadError::DataType`],
    /// [`LoadError::GmlType`], [`LoadError::Size`] (a special matrix's `n`),
    /// [`LoadError::PackedLength`], [`LoadError::ValueCount`], [`LoadError::NonFinite`],
    /// [`LoadError::TooLarge`].
    pub fn stored(
        &self,
        path: &str,
        kind: Kind,
        rows: usize,
        cols: usize,
    ) -> Result<Vec<f64>, LoadError> {
        if let Some((parent, rest)) = path.split_once('/') {
            return self.group(parent)?.stored(rest, kind, rows, cols);
        }
        // Column-major Julia data is the row-major HDF5 data of the reversed shape.
        let reversed = [cols as u64, rows as u64];
        match (kind, kind.gml_type()) {
            (Kind::Vector, _) => self.floats(path, &[rows as u64]),
            (_, None) => self.floats(path, &reversed),
            (Kind::Stiefel, Some(gml_type)) => self.tagged(path, gml_type)?.floats("A", &reversed),
            (_, Some(gml_type)) => self
                .tagged(path, gml_type)?
                .packed_values(kind, gml_type, rows),
        }
    }

    /// The group `name`, checked to have the `gml_type` attribute `gml_type`.
    fn tagged(&self, name: &str, gml_type: &'static str) -> Result<Node, LoadError> {
        let group = self.group_expecting(name, Object::tagged(gml_type))?;
        group.expect_gml_type(gml_type)?;
        Ok(group)
    }

    /// The packed values `S` of this special-matrix group, checked to be an `n×n` matrix of kind
    /// `kind` (tagged `gml_type`).
    fn packed_values(
        &self,
        kind: Kind,
        gml_type: &'static str,
        n: usize,
    ) -> Result<Vec<f64>, LoadError> {
        let found = self.int("n")?;
        if found != n as i64 {
            return Err(LoadError::Size {
                path: self.child_path("n"),
                expected: n,
                found,
            });
        }
        let expected_len = kind.len(n, n);
        let expected = [expected_len as u64];
        let s = self.dataset("S", Object::floats(&expected))?;
        let shape = self.shape(&s, "S")?;
        if shape.len() != 1 {
            return Err(LoadError::Shape {
                path: self.child_path("S"),
                expected: expected.to_vec(),
                found: shape,
            });
        }
        // A vector of another length is read (within the file's size) and rejected as the layer
        // would reject it, naming both lengths.
        let values = self.checked_floats(&s, "S", &shape)?;
        if values.len() != expected_len {
            return Err(LoadError::PackedLength {
                path: self.path.clone(),
                gml_type,
                n,
                expected: expected_len,
                found: values.len(),
            });
        }
        Ok(values)
    }

    /// The group's `gml_type` attribute, `None` if it has none or it is not a string.
    fn gml_type(&self) -> Result<Option<String>, LoadError> {
        let attrs = self.group.attrs().map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })?;
        Ok(attrs
            .get("gml_type")
            .and_then(|value| value.as_str())
            .map(String::from))
    }

    /// The layer's type that geomattn records on each layer group it writes
    /// ([`LAYER_TYPE`]), `None` if the group has none (GML's files) or it is not a string.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the group's attributes cannot be read.
    pub fn recorded_type(&self) -> Result<Option<String>, LoadError> {
        let attrs = self.group.attrs().map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })?;
        Ok(attrs
            .get(LAYER_TYPE)
            .and_then(|value| value.as_str())
            .map(String::from))
    }

    fn expect_gml_type(&self, expected: &'static str) -> Result<(), LoadError> {
        let found = self.gml_type()?;
        if found.as_deref() == Some(expected) {
            Ok(())
        } else {
            Err(LoadError::GmlType {
                path: self.path.clone(),
                expected,
                found,
            })
        }
    }

    /// The size `n` of this special-matrix group, whatever it is (for reading a file without
    /// its architecture).
    pub(crate) fn size(&self) -> Result<usize, LoadError> {
        let found = self.int("n")?;
        usize::try_from(found).map_err(|_| LoadError::NegativeSize {
            path: self.child_path("n"),
            found,
        })
    }

    /// The scalar Int64 dataset `name` (GML's size `n` of a special matrix).
    fn int(&self, name: &str) -> Result<i64, LoadError> {
        let int64 = Object::Dataset {
            dtype: "Int64".into(),
            shape: Vec::new(),
        };
        let dataset = self.dataset(name, int64)?;
        let path = self.child_path(name);
        let shape = self.shape(&dataset, name)?;
        // One value, whatever the shape says it as: `()`, `(1,)`, `(1, 1)`.
        if count(&shape) != Some(1) {
            return Err(LoadError::Shape {
                path,
                expected: Vec::new(),
                found: shape,
            });
        }
        let values = match dtype(&dataset, &path)? {
            DType::I64 | DType::I32 | DType::U64 | DType::U32 => dataset.read_i64(),
            other => {
                return Err(LoadError::DataType {
                    path,
                    expected: "Int64",
                    found: dtype_name(&other),
                });
            }
        }
        .map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        match values.as_slice() {
            [n] => Ok(*n),
            _ => Err(LoadError::ValueCount {
                path,
                shape,
                expected: 1,
                found: values.len(),
            }),
        }
    }

    /// The floating-point dataset `name` of shape `expected`, all of it, finite.
    fn floats(&self, name: &str, expected: &[u64]) -> Result<Vec<f64>, LoadError> {
        let dataset = self.dataset(name, Object::floats(expected))?;
        let shape = self.shape(&dataset, name)?;
        if shape != expected {
            return Err(LoadError::Shape {
                path: self.child_path(name),
                expected: expected.to_vec(),
                found: shape,
            });
        }
        self.checked_floats(&dataset, name, &shape)
    }

    /// The values of a Float32 or Float64 dataset of shape `shape`, widened to `f64` (exactly):
    /// checked to fit in the file before anything is read, then to be as many as the shape says,
    /// and finite.
    fn checked_floats(
        &self,
        dataset: &Dataset,
        name: &str,
        shape: &[u64],
    ) -> Result<Vec<f64>, LoadError> {
        let path = self.child_path(name);
        let width = match dtype(dataset, &path)? {
            DType::F32 => 4,
            DType::F64 => 8,
            other => {
                return Err(LoadError::DataType {
                    path,
                    expected: FLOATS,
                    found: dtype_name(&other),
                });
            }
        };
        let expected = self.fits(&path, shape, width)?;
        let hdf5 = |source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        };
        let values = if width == 4 {
            let single = dataset.read_f32().map_err(hdf5)?;
            single.into_iter().map(f64::from).collect()
        } else {
            dataset.read_f64().map_err(hdf5)?
        };
        if values.len() as u64 != expected {
            return Err(LoadError::ValueCount {
                path,
                shape: shape.to_vec(),
                expected,
                found: values.len(),
            });
        }
        match values.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(LoadError::NonFinite { path, index }),
            None => Ok(values),
        }
    }

    /// The number of elements of `shape`, if they fit in the file at `element_size` bytes each.
    fn fits(&self, path: &str, shape: &[u64], element_size: u64) -> Result<u64, LoadError> {
        // Each dimension too, not only their product: beside a zero, any dimension gives an empty
        // dataset, and a caller that loops or allocates by one dimension (a `cols × cols` Gram
        // matrix, a row-by-row copy) must never be handed 2^63.
        let dimensions_fit = shape.iter().all(|&d| d <= self.file_size);
        match count(shape) {
            Some(n)
                if dimensions_fit
                    && n.checked_mul(element_size)
                        .is_some_and(|b| b <= self.file_size) =>
            {
                Ok(n)
            }
            _ => Err(LoadError::TooLarge {
                path: path.into(),
                shape: shape.to_vec(),
                file_size: self.file_size,
            }),
        }
    }

    fn shape(&self, dataset: &Dataset, name: &str) -> Result<Vec<u64>, LoadError> {
        dataset.shape().map_err(|source| LoadError::Hdf5 {
            path: self.child_path(name),
            source,
        })
    }

    /// The dataset `name`, where the architecture expects `expected` (for the error messages).
    fn dataset(&self, name: &str, expected: Object) -> Result<Dataset, LoadError> {
        let path = self.child_path(name);
        if !self.has_dataset(name)? {
            return Err(self.absent(name, path, expected)?);
        }
        self.group
            .dataset(name)
            .map_err(|source| LoadError::Hdf5 { path, source })
    }

    pub fn group_names(&self) -> Result<Vec<String>, LoadError> {
        self.groups().cloned()
    }

    pub fn dataset_names(&self) -> Result<Vec<String>, LoadError> {
        self.datasets().cloned()
    }

    /// The names of the group's subgroups, read from the file the first time only (a listing that
    /// fails is read again, and fails again, at the next lookup).
    fn groups(&self) -> Result<&Vec<String>, LoadError> {
        self.listed(&self.groups, Group::groups)
    }

    /// The names of the group's datasets, as [`groups`](Self::groups).
    fn datasets(&self) -> Result<&Vec<String>, LoadError> {
        self.listed(&self.datasets, Group::datasets)
    }

    fn listed<'a>(
        &self,
        cache: &'a OnceLock<Vec<String>>,
        list: fn(&Group) -> Result<Vec<String>, hdf5_pure::Error>,
    ) -> Result<&'a Vec<String>, LoadError> {
        if let Some(names) = cache.get() {
            return Ok(names);
        }
        let names = list(&self.group).map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })?;
        Ok(cache.get_or_init(|| names))
    }

    pub fn child_path(&self, name: &str) -> String {
        format!("{}/{name}", self.path)
    }
}

/// The number of elements of a shape, `None` if it overflows.
fn count(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1_u64, |n, &d| n.checked_mul(d))
}

fn dtype(dataset: &Dataset, path: &str) -> Result<DType, LoadError> {
    dataset.dtype().map_err(|source| LoadError::Hdf5 {
        path: path.into(),
        source,
    })
}

/// Julia's name of an element type, hdf5-pure's for those Julia has no plain name for.
fn dtype_name(dtype: &DType) -> String {
    match dtype {
        DType::F32 => "Float32".into(),
        DType::F64 => "Float64".into(),
        DType::I8 => "Int8".into(),
        DType::I16 => "Int16".into(),
        DType::I32 => "Int32".into(),
        DType::I64 => "Int64".into(),
        DType::U8 => "UInt8".into(),
        DType::U16 => "UInt16".into(),
        DType::U32 => "UInt32".into(),
        DType::U64 => "UInt64".into(),
        DType::String | DType::VariableLengthString => "String".into(),
        other => format!("{other}"),
    }
}

/// The element types a weight may be stored in, as GML names them (for [`LoadError::DataType`]).
pub(crate) const FLOATS: &str = "Float32 or Float64";
