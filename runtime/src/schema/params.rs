//! What the layers' schemas share: their parameters described, read and written as GML's files
//! hold them (each layer's own schema lives with the layer, e.g. `crate::vpa::schema`).

use nalgebra::{SMatrix, SVector};

use super::{Kind, Name, Param, Setting, Sink, Source};
use crate::error::Error;
use crate::packed::{Packed, PackedLayout};
use crate::scalar::Field;

/// The parameter `name`, a dense (or Stiefel) `ROWS×COLS` matrix.
pub(crate) const fn matrix_param<const ROWS: usize, const COLS: usize>(
    name: Name,
    kind: Kind,
) -> Param {
    Param::new(name, kind, ROWS, COLS)
}

/// The parameter `name`, a vector of `LEN` entries.
pub(crate) const fn vector_param<const LEN: usize>(name: &'static str) -> Param {
    Param::new(Name::new(name), Kind::Vector, LEN, 1)
}

/// The parameter `name`, a packed `SIZE×SIZE` matrix of layout `Layout`.
pub(crate) const fn packed_param<const SIZE: usize, Layout: PackedLayout>(
    name: &'static str,
) -> Param {
    Param::new(Name::new(name), Layout::PARAM_KIND, SIZE, SIZE)
}

/// Reads a dense (or Stiefel) matrix.
pub(crate) fn read_matrix<S: Field, const ROWS: usize, const COLS: usize, Src>(
    source: &mut Src,
    name: Name,
    kind: Kind,
) -> Result<SMatrix<S, ROWS, COLS>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let mut matrix = SMatrix::<S, ROWS, COLS>::zeros();
    source.param(
        &matrix_param::<ROWS, COLS>(name, kind),
        matrix.as_mut_slice(),
    )?;
    Ok(matrix)
}

/// Writes a dense (or Stiefel) matrix.
pub(crate) fn write_matrix<S: Field, const ROWS: usize, const COLS: usize, K>(
    sink: &mut K,
    name: Name,
    kind: Kind,
    matrix: &SMatrix<S, ROWS, COLS>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    sink.param(&matrix_param::<ROWS, COLS>(name, kind), matrix.as_slice())
}

/// Reads a vector.
pub(crate) fn read_vector<S: Field, const LEN: usize, Src>(
    source: &mut Src,
    name: &'static str,
) -> Result<SVector<S, LEN>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let mut vector = SVector::<S, LEN>::zeros();
    source.param(&vector_param::<LEN>(name), vector.as_mut_slice())?;
    Ok(vector)
}

/// Writes a vector.
pub(crate) fn write_vector<S: Field, const LEN: usize, K>(
    sink: &mut K,
    name: &'static str,
    vector: &SVector<S, LEN>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    sink.param(&vector_param::<LEN>(name), vector.as_slice())
}

/// Reads a packed matrix: its packed entries pass through a `SIZE×SIZE` scratch matrix on the
/// stack (they are never more than `SIZE²`), so nothing is allocated.
pub(crate) fn read_packed<S: Field, const SIZE: usize, Layout: PackedLayout, Src>(
    source: &mut Src,
    name: &'static str,
) -> Result<Packed<S, SIZE, Layout>, Src::Error>
where
    Src: Source<S> + ?Sized,
{
    let param = packed_param::<SIZE, Layout>(name);
    let mut scratch = SMatrix::<S, SIZE, SIZE>::zeros();
    let values = &mut scratch.as_mut_slice()[..param.len()];
    source.param(&param, values)?;
    Packed::from_packed(values).map_err(|error| source.invalid(error))
}

/// Writes a packed matrix (through a scratch matrix, as [`read_packed`]).
pub(crate) fn write_packed<S: Field, const SIZE: usize, Layout: PackedLayout, K>(
    sink: &mut K,
    name: &'static str,
    packed: &Packed<S, SIZE, Layout>,
) -> Result<(), K::Error>
where
    K: Sink<S> + ?Sized,
{
    let param = packed_param::<SIZE, Layout>(name);
    let mut scratch = SMatrix::<S, SIZE, SIZE>::zeros();
    let values = &mut scratch.as_mut_slice()[..param.len()];
    packed
        .write_packed(values)
        .map_err(|error| sink.invalid(error))?;
    sink.param(&param, values)
}

/// The bias of a layer whose architecture has one: an error if the layer was built without.
pub(crate) fn required_bias<'a, S, const LEN: usize, K: Sink<S> + ?Sized>(
    sink: &mut K,
    layer: &'static str,
    bias: Option<&'a SVector<S, LEN>>,
) -> Result<&'a SVector<S, LEN>, K::Error> {
    bias.ok_or_else(|| {
        sink.invalid(Error::NotInSchema {
            layer,
            what: "no bias, where the architecture has one",
        })
    })
}

/// The options of a layer on each time step, `ResNetLayer` or `VolumePreserving{Lower,Upper}Layer`
/// `(dim, activation; use_bias)` (a ResNet layer always has its bias).
pub(crate) const fn step_layer_settings(
    dim: usize,
    activation: &'static str,
    use_bias: bool,
) -> [Setting; 3] {
    [
        Setting::number("dim", dim),
        Setting::name("activation", activation),
        Setting::flag("use_bias", use_bias),
    ]
}
