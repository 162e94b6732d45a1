//! GML's HDF5 files read by their own structure, for the compile-time embedding (`embed_gml!`):
//! every parameter of every layer group, in GML's order, with its kind, shape and values.
//!
//! The runtime's loader (`geomattn::gml`) reads a file the other way round, asked by a network
//! type's schema for each parameter by name. The proc-macro cannot know the type (it sees only
//! tokens, and cannot depend on `geomattn`, which depends on it), so it reads what the file has
//! and leaves the check against the type to `const` evaluation in `geomattn`. This reader lives
//! here, in the build-time crate that already turns data into Rust, rather than in a crate of its
//! own: it is the only HDF5 code the macro needs, and `hdf5-pure` does the parsing.

use std::path::Path;

use hdf5_pure::{DType, Dataset, File, Group};

/// The kind of a parameter, as the file says it (`geomattn::Kind`'s variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A 2-D Float32 or Float64 dataset.
    Dense,
    /// A `StiefelManifold` group holding `A`.
    Stiefel,
    /// A `SkewSymMatrix` group.
    Skew,
    /// A `SymmetricMatrix` group.
    Symmetric,
    /// A `LowerTriangular` group.
    StrictlyLower,
    /// An `UpperTriangular` group.
    StrictlyUpper,
    /// A 1-D Float32 or Float64 dataset.
    Vector,
}

impl FileKind {
    /// The variant's name in `geomattn::Kind`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dense => "Dense",
            Self::Stiefel => "Stiefel",
            Self::Skew => "Skew",
            Self::Symmetric => "Symmetric",
            Self::StrictlyLower => "StrictlyLower",
            Self::StrictlyUpper => "StrictlyUpper",
            Self::Vector => "Vector",
        }
    }

    /// The kind a special-matrix group's `gml_type` names.
    fn special(gml_type: &str) -> Option<Self> {
        Some(match gml_type {
            "SkewSymMatrix" => Self::Skew,
            "SymmetricMatrix" => Self::Symmetric,
            "LowerTriangular" => Self::StrictlyLower,
            "UpperTriangular" => Self::StrictlyUpper,
            _ => return None,
        })
    }

    /// The number of packed values of an `n×n` special matrix (`None` past `usize`: `n` is read
    /// from the file).
    fn packed_len(self, n: usize) -> Option<usize> {
        let product = match self {
            Self::Symmetric => n.checked_mul(n.checked_add(1)?),
            _ => n.checked_mul(n.saturating_sub(1)),
        };
        Some(product? / 2)
    }
}

/// One parameter of a layer group.
#[derive(Debug, Clone, PartialEq)]
pub struct FileParam {
    /// The layer group `L<layer>`, from 1.
    pub layer: usize,
    /// The plain group holding it (`PQ`), if any.
    pub parent: Option<String>,
    /// Its name, or the prefix of a numbered one (`head_`).
    pub stem: String,
    /// The number of a numbered one (`head_3`).
    pub number: Option<usize>,
    /// Its kind.
    pub kind: FileKind,
    /// Julia's rows (`n` of a special matrix, the length of a vector).
    pub rows: usize,
    /// Julia's columns (`1` for a vector, `n` for a special matrix).
    pub cols: usize,
    /// Its values: column-major for a matrix, GML's packed order for a special one; Float32
    /// ones widened to `f64` exactly.
    pub values: Vec<f64>,
}

/// A whole file: its number of layer groups and their parameters, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct GmlContents {
    /// The number of layer groups `L1 … Ln`.
    pub layers: usize,
    /// The parameters, layer group after layer group.
    pub params: Vec<FileParam>,
}

/// GML's order of the parameters inside a layer group (the order of its Julia named tuples):
/// what every `geomattn` schema follows.
const ORDER: [&str; 9] = ["A", "PQ", "PK", "PV", "weight", "bias", "scale", "W", "b"];

/// Reads the GML file at `path` (`shown` in messages).
///
/// # Errors
/// A message naming the object of the file that is not what GML writes.
pub fn read(path: &Path, shown: &str) -> Result<GmlContents, String> {
    let file = File::open(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?
        .len();
    let root = file.root();
    let layers = numbered(&names(&root, "")?, "L", "")?;
    let mut params = Vec::new();
    for (k, name) in layers.iter().enumerate() {
        let group = root.group(name).map_err(|e| format!("`/{name}`: {e}"))?;
        read_layer(&group, k + 1, &format!("/{name}"), size, &mut params)?;
    }
    Ok(GmlContents {
        layers: layers.len(),
        params,
    })
}

/// The names of the groups and datasets of `group`.
fn names(group: &Group, path: &str) -> Result<Vec<String>, String> {
    let mut names = group.groups().map_err(|e| format!("`{path}`: {e}"))?;
    names.extend(group.datasets().map_err(|e| format!("`{path}`: {e}"))?);
    Ok(names)
}

/// The names `<prefix>1 … <prefix>n`, in order; every name must be one of them.
fn numbered(names: &[String], prefix: &str, path: &str) -> Result<Vec<String>, String> {
    let mut numbers = Vec::new();
    for name in names {
        let number = name
            .strip_prefix(prefix)
            .filter(|digits| !digits.starts_with('0'))
            .and_then(|digits| digits.parse::<usize>().ok());
        match number {
            Some(number) => numbers.push(number),
            None => {
                return Err(format!(
                    "`{path}/{name}` is not one of GML's numbered groups `{prefix}1 … {prefix}n`"
                ));
            }
        }
    }
    numbers.sort_unstable();
    for (expected, &number) in (1..).zip(&numbers) {
        if number != expected {
            return Err(format!("`{path}/{prefix}{expected}` is missing"));
        }
    }
    Ok(numbers.iter().map(|k| format!("{prefix}{k}")).collect())
}

/// The parameters of one layer group, in GML's order.
fn read_layer(
    group: &Group,
    layer: usize,
    path: &str,
    size: u64,
    params: &mut Vec<FileParam>,
) -> Result<(), String> {
    let mut children = names(group, path)?;
    for child in &children {
        if !ORDER.contains(&child.as_str()) {
            return Err(format!(
                "`{path}/{child}` is not a parameter of any layer GML writes"
            ));
        }
    }
    children.sort_by_key(|child| ORDER.iter().position(|name| name == child));
    for child in children {
        let child_path = format!("{path}/{child}");
        let param = |stem: &str, number, parent: Option<String>| FileParam {
            layer,
            parent,
            stem: stem.into(),
            number,
            kind: FileKind::Vector,
            rows: 0,
            cols: 0,
            values: Vec::new(),
        };
        if group
            .datasets()
            .map_err(|e| e.to_string())?
            .contains(&child)
        {
            let dataset = group
                .dataset(&child)
                .map_err(|e| format!("`{child_path}`: {e}"))?;
            let param = param(&child, None, None);
            params.push(dense(&dataset, &child_path, size, param)?);
            continue;
        }
        let sub = group
            .group(&child)
            .map_err(|e| format!("`{child_path}`: {e}"))?;
        match gml_type(&sub, &child_path)? {
            None => {
                // A plain group of numbered heads (`PQ/head_1 …`).
                for head in numbered(&names(&sub, &child_path)?, "head_", &child_path)? {
                    let head_path = format!("{child_path}/{head}");
                    let number = head["head_".len()..].parse().ok();
                    let param = param("head_", number, Some(child.clone()));
                    params.push(matrix(&sub, &head, &head_path, size, param)?);
                }
            }
            Some(_) => params.push(matrix(
                group,
                &child,
                &child_path,
                size,
                param(&child, None, None),
            )?),
        }
    }
    Ok(())
}

/// A dense matrix, vector, Stiefel or special matrix named `name` in `group`.
fn matrix(
    group: &Group,
    name: &str,
    path: &str,
    size: u64,
    param: FileParam,
) -> Result<FileParam, String> {
    if group
        .datasets()
        .map_err(|e| e.to_string())?
        .iter()
        .any(|d| d == name)
    {
        let dataset = group.dataset(name).map_err(|e| format!("`{path}`: {e}"))?;
        return dense(&dataset, path, size, param);
    }
    let sub = group.group(name).map_err(|e| format!("`{path}`: {e}"))?;
    let gml_type = gml_type(&sub, path)?.unwrap_or_default();
    if gml_type == "StiefelManifold" {
        let a = sub.dataset("A").map_err(|e| format!("`{path}/A`: {e}"))?;
        let param = dense(&a, &format!("{path}/A"), size, param)?;
        return Ok(FileParam {
            kind: FileKind::Stiefel,
            ..param
        });
    }
    let kind = FileKind::special(&gml_type)
        .ok_or_else(|| format!("`{path}` has gml_type {gml_type:?}, not one GML writes"))?;
    let n = sub.dataset("n").map_err(|e| format!("`{path}/n`: {e}"))?;
    fits(&n, &format!("{path}/n"), size)?;
    let n = match n
        .read_i64()
        .map_err(|e| format!("`{path}/n`: {e}"))?
        .as_slice()
    {
        [n] => usize::try_from(*n).map_err(|_| format!("`{path}/n` is {n}"))?,
        other => return Err(format!("`{path}/n` has {} values", other.len())),
    };
    let s = sub.dataset("S").map_err(|e| format!("`{path}/S`: {e}"))?;
    let values = floats(&s, &format!("{path}/S"), size)?;
    match kind.packed_len(n) {
        Some(len) if len == values.len() => {}
        len => {
            return Err(format!(
                "`{path}/S` has {} values, a {n}×{n} {gml_type} has {}",
                values.len(),
                len.map_or_else(|| "more than can be counted".into(), |l| l.to_string())
            ));
        }
    }
    Ok(FileParam {
        kind,
        rows: n,
        cols: n,
        values,
        ..param
    })
}

/// A 1-D (vector) or 2-D (dense matrix, Julia's shape reversed) Float32 or Float64 dataset.
fn dense(dataset: &Dataset, path: &str, size: u64, param: FileParam) -> Result<FileParam, String> {
    let shape = dataset.shape().map_err(|e| format!("`{path}`: {e}"))?;
    let (kind, rows, cols) = match shape.as_slice() {
        [len] => (FileKind::Vector, *len, 1),
        [cols, rows] => (FileKind::Dense, *rows, *cols),
        _ => {
            return Err(format!(
                "`{path}` has shape {shape:?}: not a vector or a matrix"
            ));
        }
    };
    let values = floats(dataset, path, size)?;
    // `floats` bounded both by the file's size: they fit `usize` and so does their product.
    let (rows, cols) = (rows as usize, cols as usize);
    if values.len() != rows * cols {
        return Err(format!(
            "`{path}` has shape {shape:?} but {} values",
            values.len()
        ));
    }
    Ok(FileParam {
        kind,
        rows,
        cols,
        values,
        ..param
    })
}

/// The values of a Float32 or Float64 dataset (the element types GML trains in), widened to `f64`
/// exactly, checked finite.
fn floats(dataset: &Dataset, path: &str, size: u64) -> Result<Vec<f64>, String> {
    fits(dataset, path, size)?;
    let values = match dataset.dtype().map_err(|e| format!("`{path}`: {e}"))? {
        DType::F32 => dataset
            .read_f32()
            .map(|single| single.into_iter().map(f64::from).collect()),
        DType::F64 => dataset.read_f64(),
        other => {
            return Err(format!(
                "`{path}` holds {other}, GML writes Float32 or Float64"
            ));
        }
    }
    .map_err(|e| format!("`{path}`: {e}"))?;
    match values.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(format!("`{path}` has a non-finite value at index {index}")),
        None => Ok(values),
    }
}

/// Refuses a dataset whose declared shape a file of `size` bytes cannot hold, before anything is
/// read or allocated: every dimension and their product at most `size` (an empty dataset may
/// declare a dimension of 2⁶³ + 1; the runtime's reader has the same bound).
fn fits(dataset: &Dataset, path: &str, size: u64) -> Result<(), String> {
    let shape = dataset.shape().map_err(|e| format!("`{path}`: {e}"))?;
    let len = shape.iter().try_fold(1_u64, |n, &d| n.checked_mul(d));
    if shape.iter().all(|&d| d <= size) && len.is_some_and(|n| n <= size) {
        Ok(())
    } else {
        Err(format!(
            "`{path}` has shape {shape:?}, more values than a file of {size} bytes holds"
        ))
    }
}

/// A group's `gml_type` attribute, if it has one.
fn gml_type(group: &Group, path: &str) -> Result<Option<String>, String> {
    let attrs = group.attrs().map_err(|e| format!("`{path}`: {e}"))?;
    Ok(attrs
        .get("gml_type")
        .and_then(|value| value.as_str())
        .map(String::from))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::read;

    /// The runtime's regression file: an MNIST classifier whose Stiefel weight declares the shape
    /// `[2⁶³ + 1, 0]` (no value, so its product fitted the file). This reader took it for a
    /// `0 × (2⁶³ + 1)` parameter; now its shape is refused before anything is read.
    #[test]
    fn a_shape_larger_than_the_file_is_refused() {
        let malformed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/malformed/huge_empty_stiefel_mnist_nn2.h5");
        let error = read(&malformed, "huge").unwrap_err();
        assert!(
            error.contains("/L1/PQ/head_1/A") && error.contains("more values than a file"),
            "{error}"
        );
        let intact = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/gml/mnist_nn2.h5");
        assert!(read(&intact, "mnist_nn2.h5").is_ok());
    }
}
