//! The schema of multi-head attention: GML's layer, its options and its heads' projections.

use nalgebra::{RealField, SMatrix};

use super::{Connection, Head, MultiHeadAttention, Projection, STIEFEL_TOLERANCE, check_stiefel};

use crate::schema::params::{read_matrix, write_matrix};
use crate::schema::{
    Kind, LayerType, Name, Param, Schema, Setting, Sink, Source, layer_type_description,
};
use crate::softmax::Softmax;

/// GML's names of the three projections of multi-head attention, in its order.
pub(crate) const PROJECTIONS: [&str; 3] = ["PQ", "PK", "PV"];

/// GML's name of multi-head attention.
pub(crate) const MHA: &str = "MultiHeadAttention";

/// The options of `MultiHeadAttention(dim, n_heads; Stiefel, add_connection)` with `softmax`.
pub(crate) const fn mha_settings(
    dim: usize,
    n_heads: usize,
    stiefel: bool,
    add_connection: bool,
    softmax: &'static str,
) -> [Setting; 5] {
    [
        Setting::number("dim", dim),
        Setting::number("n_heads", n_heads),
        Setting::flag("Stiefel", stiefel),
        Setting::flag("add_connection", add_connection),
        Setting::name("softmax", softmax),
    ]
}

/// Head `h` (from 0) of the projection group `group` (from 0, in [`PROJECTIONS`]): a `dim×dh`
/// matrix of `kind` (dense or Stiefel).
pub(crate) const fn mha_head(group: usize, h: usize, dim: usize, dh: usize, kind: Kind) -> Param {
    Param::new(
        Name::numbered(PROJECTIONS[group], "head_", h + 1),
        kind,
        dim,
        dh,
    )
}

impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
    MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    Conn: Connection,
    Proj: Projection,
    Sm: Softmax,
{
    /// The projections, group by group (`PQ`, `PK`, `PV`), head by head.
    const HEADS: [[Param; H]; 3] = {
        let mut heads = [[mha_head(0, 0, D, DH, Proj::KIND); H]; 3];
        let mut group = 0;
        while group < 3 {
            let mut h = 0;
            while h < H {
                heads[group][h] = mha_head(group, h, D, DH, Proj::KIND);
                h += 1;
            }
            group += 1;
        }
        heads
    };
    const HEADS_REF: &[[Param; H]; 3] = &Self::HEADS;

    const TYPE: LayerType<'static> = LayerType {
        name: MHA,
        settings: &mha_settings(
            D,
            H,
            matches!(Proj::KIND, Kind::Stiefel),
            Conn::ADD,
            Sm::NAME,
        ),
        params: Self::HEADS_REF.as_flattened(),
    };
}

/// GML's `MultiHeadAttention`: plain groups `PQ`, `PK`, `PV`, each with `head_1 … head_H`
/// (`D×DH`, dense or, for [`Stiefel`](crate::Stiefel) projections, `StiefelManifold` checked to
/// [`STIEFEL_TOLERANCE`]); all of `PQ`, then `PK`, then `PV`.
impl<S, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm> Schema
    for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
where
    S: RealField + Copy,
    Conn: Connection,
    Proj: Projection,
    Sm: Softmax,
{
    type Scalar = S;
    const SCALARS: usize = 3 * H * D * DH;
    const LAYERS: usize = 1;
    layer_type_description!();

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        source.begin_layer()?;
        let zero = SMatrix::zeros();
        let mut heads = [Head::new(zero, zero, zero); H];
        for group in PROJECTIONS {
            for (h, head) in heads.iter_mut().enumerate() {
                let name = Name::numbered(group, "head_", h + 1);
                let weight = match group {
                    "PQ" => &mut head.query,
                    "PK" => &mut head.key,
                    _ => &mut head.value,
                };
                *weight = read_matrix(source, name, Proj::KIND)?;
            }
        }
        source.end_layer()?;
        if matches!(Proj::KIND, Kind::Stiefel) {
            check_stiefel(&heads, nalgebra::convert(STIEFEL_TOLERANCE))
                .map_err(|error| source.invalid(error))?;
        }
        Ok(Self::from_heads(heads))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        sink.begin_layer()?;
        for group in PROJECTIONS {
            for (h, head) in self.heads().iter().enumerate() {
                let name = Name::numbered(group, "head_", h + 1);
                let weight = match group {
                    "PQ" => &head.query,
                    "PK" => &head.key,
                    _ => &head.value,
                };
                write_matrix(sink, name, Proj::KIND, weight)?;
            }
        }
        Ok(())
    }
}
