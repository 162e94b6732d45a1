//! A layer group's parameters read into the network's scalar and shapes: the file's values
//! ([`Node::stored`], in `f64`) converted once, each checked to stay finite.

use std::format;
use std::string::String;
use std::vec::Vec;

use nalgebra::{RealField, SMatrix, SVector};

use super::{LoadError, Node};
use crate::packed::{Packed, PackedLayout};
use crate::schema::{Kind, Param};

/// A layer group's parameters in a network's scalar `S` and compile-time shapes: for reading a
/// file part by part ([`Layers`](super::Layers) shows it). Each reads the file's values as
/// [`Node::stored`] does, converted once to `S` (see the [loader's docs](super)).
pub trait ReadWeights {
    /// A Julia `ROWS×COLS` dense matrix: a Float32 or Float64 dataset of HDF5 shape `(COLS,
    /// ROWS)`.
    ///
    /// # Errors
    /// As [`Node::stored`], and [`LoadError::OutOfRange`].
    fn matrix<S: RealField + Copy, const ROWS: usize, const COLS: usize>(
        &self,
        name: &str,
    ) -> Result<SMatrix<S, ROWS, COLS>, LoadError>;

    /// A Float32 or Float64 vector of length `LEN`.
    ///
    /// # Errors
    /// As [`matrix`](Self::matrix).
    fn vector<S: RealField + Copy, const LEN: usize>(
        &self,
        name: &str,
    ) -> Result<SVector<S, LEN>, LoadError>;

    /// A special matrix: a group `name` whose `gml_type` names the layout `Layout`, its packed
    /// vector `S` and size `n = SIZE`.
    ///
    /// # Errors
    /// As [`matrix`](Self::matrix).
    fn packed<S: RealField + Copy, const SIZE: usize, Layout: PackedLayout>(
        &self,
        name: &str,
    ) -> Result<Packed<S, SIZE, Layout>, LoadError>;

    /// The parameter at `path` (`A`, or `PQ/head_1` through plain groups), a `rows×cols`
    /// parameter of kind `kind` whose sizes are known only at run time ([`crate::engine`]), in
    /// GML's column-major or packed order.
    ///
    /// # Errors
    /// As [`matrix`](Self::matrix).
    fn parameter<S: RealField + Copy>(
        &self,
        path: &str,
        kind: Kind,
        rows: usize,
        cols: usize,
    ) -> Result<Vec<S>, LoadError>;
}

impl ReadWeights for Node {
    fn matrix<S: RealField + Copy, const ROWS: usize, const COLS: usize>(
        &self,
        name: &str,
    ) -> Result<SMatrix<S, ROWS, COLS>, LoadError> {
        let mut matrix = SMatrix::<S, ROWS, COLS>::zeros();
        read(self, name, Kind::Dense, ROWS, COLS, matrix.as_mut_slice())?;
        Ok(matrix)
    }

    fn vector<S: RealField + Copy, const LEN: usize>(
        &self,
        name: &str,
    ) -> Result<SVector<S, LEN>, LoadError> {
        let mut vector = SVector::<S, LEN>::zeros();
        read(self, name, Kind::Vector, LEN, 1, vector.as_mut_slice())?;
        Ok(vector)
    }

    fn packed<S: RealField + Copy, const SIZE: usize, Layout: PackedLayout>(
        &self,
        name: &str,
    ) -> Result<Packed<S, SIZE, Layout>, LoadError> {
        let mut scratch = SMatrix::<S, SIZE, SIZE>::zeros();
        let values = &mut scratch.as_mut_slice()[..Layout::packed_len(SIZE)];
        read(self, name, Layout::PARAM_KIND, SIZE, SIZE, values)?;
        Packed::from_packed(values).map_err(|source| LoadError::Invalid {
            path: self.child_path(name),
            source: source.into(),
        })
    }

    fn parameter<S: RealField + Copy>(
        &self,
        path: &str,
        kind: Kind,
        rows: usize,
        cols: usize,
    ) -> Result<Vec<S>, LoadError> {
        // The file's values decide the length: `stored` has checked them against the shape.
        let values = self.stored(path, kind, rows, cols)?;
        let mut out = std::vec![S::zero(); values.len()];
        convert(self, path, kind, &values, &mut out)?;
        Ok(out)
    }
}

/// The values of the parameter `param` of the layer group `node` into `out`, in the kind's order.
pub(crate) fn param<S: RealField + Copy>(
    node: &Node,
    param: &Param,
    out: &mut [S],
) -> Result<(), LoadError> {
    let path = match param.name.parent {
        Some(parent) => format!("{parent}/{}", param_name(param)),
        None => param_name(param),
    };
    read(node, &path, param.kind, param.rows, param.cols, out)
}

/// The values of the `rows×cols` parameter at `path` in `node`, of kind `kind`, into `out`, each
/// checked to stay finite in `S`.
fn read<S: RealField + Copy>(
    node: &Node,
    path: &str,
    kind: Kind,
    rows: usize,
    cols: usize,
    out: &mut [S],
) -> Result<(), LoadError> {
    let values = node.stored(path, kind, rows, cols)?;
    if values.len() != out.len() {
        return Err(LoadError::ValueCount {
            path: node.child_path(path),
            shape: std::vec![out.len() as u64],
            expected: out.len() as u64,
            found: values.len(),
        });
    }
    convert(node, path, kind, &values, out)
}

/// `values` (of the parameter at `path` in `node`, of kind `kind`) converted into `out`, each
/// checked to stay finite in `S`.
fn convert<S: RealField + Copy>(
    node: &Node,
    path: &str,
    kind: Kind,
    values: &[f64],
    out: &mut [S],
) -> Result<(), LoadError> {
    for (index, (slot, &x)) in out.iter_mut().zip(values).enumerate() {
        *slot = nalgebra::convert(x);
        // A finite Float64 value beyond the scalar's range would become an infinity.
        if !slot.is_finite() {
            // The dataset holding it: the parameter, or `A` / `S` in its special-matrix group.
            let dataset = match kind {
                Kind::Stiefel => "/A",
                _ if kind.is_packed() => "/S",
                _ => "",
            };
            return Err(LoadError::OutOfRange {
                path: format!("{}{dataset}", node.child_path(path)),
                index,
                value: x,
            });
        }
    }
    Ok(())
}

/// The name of a parameter inside its holder: `stem`, or `stem` and its number.
pub(crate) fn param_name(param: &Param) -> String {
    match param.name.number {
        Some(number) => format!("{}{number}", param.name.stem),
        None => param.name.stem.into(),
    }
}
