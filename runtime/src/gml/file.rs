//! Reading GML's HDF5 layout: numbered layer groups, transposed dense matrices, special matrices
//! tagged by a `gml_type` attribute.

use std::format;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use hdf5_pure::{DType, Dataset, File, Group};
use nalgebra::{RealField, SMatrix, SVector};

use super::LoadError;
use crate::packed::{Lower, Packed, PackedLayout, Skew, Sym, Upper};

/// A GML file opened for reading.
pub struct GmlFile {
    file: File,
    name: String,
}

/// One group of a GML file (a layer, or a group of parameters inside one), with its path for error
/// messages.
pub struct Node {
    group: Group,
    path: String,
}

/// The `gml_type` attribute GML writes for each packed layout.
pub trait GmlType: PackedLayout {
    /// The attribute's value.
    const GML_TYPE: &'static str;
}

impl GmlType for Skew {
    const GML_TYPE: &'static str = "SkewSymMatrix";
}
impl GmlType for Sym {
    const GML_TYPE: &'static str = "SymmetricMatrix";
}
impl GmlType for Lower {
    const GML_TYPE: &'static str = "LowerTriangular";
}
impl GmlType for Upper {
    const GML_TYPE: &'static str = "UpperTriangular";
}

const STIEFEL: &str = "StiefelManifold";

impl GmlFile {
    /// Opens a file.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if it cannot be read or is not HDF5.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let name = path.as_ref().display().to_string();
        let file = File::open(path).map_err(|source| LoadError::Hdf5 {
            path: name.clone(),
            source,
        })?;
        Ok(Self { file, name })
    }

    /// Parses a file held in memory.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the bytes are not a readable HDF5 file.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, LoadError> {
        let file = File::from_bytes(bytes).map_err(|source| LoadError::Hdf5 {
            path: "<memory>".into(),
            source,
        })?;
        Ok(Self {
            file,
            name: "<memory>".into(),
        })
    }

    /// The file's name, as given to [`open`](Self::open).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The layer groups `L1 … Ln`, in numerical order.
    ///
    /// # Errors
    /// [`LoadError::Missing`] if the numbering has a gap, [`LoadError::Hdf5`] if the file is
    /// corrupt.
    pub fn layers(&self) -> Result<Vec<Node>, LoadError> {
        let root = Node {
            group: self.file.root(),
            path: String::new(),
        };
        root.numbered_groups("L")
    }
}

impl Node {
    /// The group's path inside the file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The subgroup `name`.
    ///
    /// # Errors
    /// [`LoadError::Missing`] if there is none.
    pub fn group(&self, name: &str) -> Result<Node, LoadError> {
        let path = self.child_path(name);
        if !self.group_names()?.iter().any(|g| g == name) {
            return Err(LoadError::Missing { path });
        }
        let group = self.group.group(name).map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        Ok(Node { group, path })
    }

    /// The subgroups `<prefix>1 … <prefix>n` (GML's `L1 … Ln`, `head_1 … head_n`) in numerical
    /// order; other names are ignored.
    ///
    /// # Errors
    /// [`LoadError::Missing`] for a gap in the numbering.
    pub fn numbered_groups(&self, prefix: &str) -> Result<Vec<Node>, LoadError> {
        let mut numbers: Vec<usize> = self
            .group_names()?
            .iter()
            .filter_map(|name| name.strip_prefix(prefix)?.parse().ok())
            .collect();
        numbers.sort_unstable();
        (1..=numbers.len())
            .map(|k| self.group(&format!("{prefix}{k}")))
            .collect()
    }

    /// Whether a dataset `name` exists here.
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the group cannot be listed.
    pub fn has_dataset(&self, name: &str) -> Result<bool, LoadError> {
        Ok(self.dataset_names()?.iter().any(|d| d == name))
    }

    /// Whether `name` is a group tagged as a point of the Stiefel manifold (GML's
    /// `StiefelManifold`, written for `Stiefel = true` weights).
    ///
    /// # Errors
    /// [`LoadError::Hdf5`] if the group cannot be read.
    pub fn is_stiefel(&self, name: &str) -> Result<bool, LoadError> {
        if !self.group_names()?.iter().any(|g| g == name) {
            return Ok(false);
        }
        Ok(self.group(name)?.expect_gml_type(STIEFEL).is_ok())
    }

    /// Checks that there is no dataset or group `name` (a parameter the architecture does not have
    /// there).
    ///
    /// # Errors
    /// [`LoadError::Unexpected`] if there is one.
    pub fn reject(&self, name: &str) -> Result<(), LoadError> {
        if self.has_dataset(name)? || self.group_names()?.iter().any(|g| g == name) {
            Err(LoadError::Unexpected {
                path: self.child_path(name),
            })
        } else {
            Ok(())
        }
    }

    /// A Julia `R×C` dense Float32 matrix: a dataset of HDF5 shape `(C, R)`, or a
    /// `StiefelManifold` group holding one as `A`.
    ///
    /// # Errors
    /// [`LoadError::Missing`], [`LoadError::Shape`], [`LoadError::DataType`],
    /// [`LoadError::GmlType`] (a special-matrix group of another kind), [`LoadError::NonFinite`].
    pub fn matrix<S: RealField + Copy, const ROWS: usize, const COLS: usize>(
        &self,
        name: &str,
    ) -> Result<SMatrix<S, ROWS, COLS>, LoadError> {
        if !self.has_dataset(name)? && self.group_names()?.iter().any(|g| g == name) {
            let group = self.group(name)?;
            group.expect_gml_type(STIEFEL)?;
            return group.matrix("A");
        }
        // Column-major Julia data is the row-major HDF5 data of the reversed shape.
        let data = self.floats(name, &[COLS as u64, ROWS as u64])?;
        Ok(SMatrix::from_iterator(data.into_iter().map(convert)))
    }

    /// A Float32 vector of length `LEN`.
    ///
    /// # Errors
    /// As [`matrix`](Self::matrix).
    pub fn vector<S: RealField + Copy, const LEN: usize>(
        &self,
        name: &str,
    ) -> Result<SVector<S, LEN>, LoadError> {
        let data = self.floats(name, &[LEN as u64])?;
        Ok(SVector::from_iterator(data.into_iter().map(convert)))
    }

    /// A special matrix: a group `name` with `gml_type` naming layout `Layout`, the packed vector `S`
    /// and the size `n`.
    ///
    /// # Errors
    /// [`LoadError::GmlType`], [`LoadError::Size`] (wrong `n`), [`LoadError::Invalid`] (wrong
    /// length of `S`), and those
    /// of [`matrix`](Self::matrix).
    pub fn packed<S: RealField + Copy, const SIZE: usize, Layout: GmlType>(
        &self,
        name: &str,
    ) -> Result<Packed<S, SIZE, Layout>, LoadError> {
        let group = self.group(name)?;
        group.expect_gml_type(Layout::GML_TYPE)?;
        let n = group.int("n")?;
        if n != SIZE as i64 {
            return Err(LoadError::Size {
                path: group.child_path("n"),
                expected: SIZE,
                found: n,
            });
        }
        let s = group.dataset("S")?;
        let shape = group.shape(&s, "S")?;
        let values = group.checked_floats(&s, "S")?;
        if shape.len() != 1 {
            return Err(LoadError::Shape {
                path: group.child_path("S"),
                expected: std::vec![Layout::packed_len(SIZE) as u64],
                found: shape,
            });
        }
        let values: Vec<S> = values.into_iter().map(convert).collect();
        Packed::from_packed(&values).map_err(|source| LoadError::Invalid {
            path: group.path.clone(),
            source,
        })
    }

    fn expect_gml_type(&self, expected: &'static str) -> Result<(), LoadError> {
        let attrs = self.group.attrs().map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })?;
        let found = attrs
            .get("gml_type")
            .and_then(|value| value.as_str())
            .map(String::from);
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

    fn int(&self, name: &str) -> Result<i64, LoadError> {
        let dataset = self.dataset(name)?;
        let path = self.child_path(name);
        let dtype = dtype(&dataset, &path)?;
        let values = match dtype {
            DType::I64 | DType::I32 | DType::U64 | DType::U32 => dataset.read_i64(),
            other => {
                return Err(LoadError::DataType {
                    path,
                    expected: "Int64",
                    found: format!("{other}"),
                });
            }
        }
        .map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        match values.as_slice() {
            [n] => Ok(*n),
            _ => Err(LoadError::Shape {
                path,
                expected: Vec::new(),
                found: std::vec![values.len() as u64],
            }),
        }
    }

    fn floats(&self, name: &str, expected: &[u64]) -> Result<Vec<f32>, LoadError> {
        let dataset = self.dataset(name)?;
        let shape = self.shape(&dataset, name)?;
        if shape != expected {
            return Err(LoadError::Shape {
                path: self.child_path(name),
                expected: expected.to_vec(),
                found: shape,
            });
        }
        self.checked_floats(&dataset, name)
    }

    fn checked_floats(&self, dataset: &Dataset, name: &str) -> Result<Vec<f32>, LoadError> {
        let path = self.child_path(name);
        match dtype(dataset, &path)? {
            DType::F32 => {}
            other => {
                return Err(LoadError::DataType {
                    path,
                    expected: "Float32",
                    found: format!("{other}"),
                });
            }
        }
        let values = dataset.read_f32().map_err(|source| LoadError::Hdf5 {
            path: path.clone(),
            source,
        })?;
        match values.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(LoadError::NonFinite { path, index }),
            None => Ok(values),
        }
    }

    fn shape(&self, dataset: &Dataset, name: &str) -> Result<Vec<u64>, LoadError> {
        dataset.shape().map_err(|source| LoadError::Hdf5 {
            path: self.child_path(name),
            source,
        })
    }

    fn dataset(&self, name: &str) -> Result<Dataset, LoadError> {
        let path = self.child_path(name);
        if !self.has_dataset(name)? {
            return Err(LoadError::Missing { path });
        }
        self.group
            .dataset(name)
            .map_err(|source| LoadError::Hdf5 { path, source })
    }

    fn group_names(&self) -> Result<Vec<String>, LoadError> {
        self.group.groups().map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })
    }

    fn dataset_names(&self) -> Result<Vec<String>, LoadError> {
        self.group.datasets().map_err(|source| LoadError::Hdf5 {
            path: self.path.clone(),
            source,
        })
    }

    fn child_path(&self, name: &str) -> String {
        format!("{}/{name}", self.path)
    }
}

fn dtype(dataset: &Dataset, path: &str) -> Result<DType, LoadError> {
    dataset.dtype().map_err(|source| LoadError::Hdf5 {
        path: path.into(),
        source,
    })
}

fn convert<S: RealField + Copy>(x: f32) -> S {
    nalgebra::convert(f64::from(x))
}
