//! Multi-head attention built from a GML file at compile time ([`EmbedFrom`]): its heads'
//! projections, checked orthonormal where they are Stiefel.

use core::mem::MaybeUninit;

use nalgebra::{ArrayStorage, SMatrix};

use super::schema::PROJECTIONS;
use super::{Head, MultiHeadAttention, Projection, STIEFEL_TOLERANCE};
use crate::schema::embed::fit::{Fit, Mismatch};
use crate::schema::embed::layers::{file_of, per_scalar};
use crate::schema::params::matrix_param;
use crate::schema::{EmbedFrom, Embedded, Fitted, Kind, Name};

per_scalar! {
    impl<Src, const D: usize, const H: usize, const DH: usize, Conn, Proj, Sm>
        EmbedFrom<Src> for MultiHeadAttention<S, D, H, DH, Conn, Proj, Sm>
    where
        Src: Embedded,
        Proj: Projection,
    {
        const VALUE: Fitted<Self> = {
            let mut fit = file_of::<Src>();
            let heads = heads::<D, H, DH, Proj>(&mut fit, Src::LAYER + 1);
            fit.fitted(Self::from_heads(heads))
        };
    }

    /// The heads of multi-head attention at layer group `layer`: `PQ/head_1 …`, then
    /// `PK`, then `PV`, each checked, and (for Stiefel projections) checked orthonormal
    /// to [`STIEFEL_TOLERANCE`], as the loader checks them.
    const fn heads<const D: usize, const H: usize, const DH: usize, Proj: Projection>(
        fit: &mut Fit<'_>,
        layer: usize,
    ) -> [Head<S, D, DH>; H] {
        let first = fit.first_of(layer);
        let mut heads = MaybeUninit::<[Head<S, D, DH>; H]>::uninit();
        let slots = heads.as_mut_ptr().cast::<Head<S, D, DH>>();
        let mut h = 0;
        while h < H {
            let mut projections = [SMatrix::<S, D, DH>::from_array_storage(ArrayStorage(
                [[0.0; D]; DH],
            )); 3];
            let mut g = 0;
            while g < 3 {
                let name = Name::numbered(PROJECTIONS[g], "head_", h + 1);
                let wanted = matrix_param::<D, DH>(name, Proj::KIND);
                let at = fit.check(layer, first, g * H + h, wanted);
                projections[g] = matrix_at(fit, at);
                if fit.fits()
                    && matches!(Proj::KIND, Kind::Stiefel)
                    && !orthonormal(&projections[g])
                {
                    fit.fail(
                        Mismatch::new()
                            .path(layer, name)
                            .text("`: the columns are not orthonormal to 1e-2 (GML's Stiefel weights drift to 6.2e-3 at most)"),
                    );
                }
                g += 1;
            }
            let [query, key, value] = projections;
            // SAFETY: `h < H`, inside the array.
            unsafe { slots.add(h).write(Head::new(query, key, value)) };
            h += 1;
        }
        fit.check_end(layer, first, 3 * H);
        // SAFETY: all `H` heads have been written.
        unsafe { heads.assume_init() }
    }

    /// `‖WᵀW − I‖_max ≤ STIEFEL_TOLERANCE`, computed in `f64`.
    // For `S = f64` the casts to `f64` are no-ops (the function is written once for both).
    #[allow(clippy::unnecessary_cast)]
    const fn orthonormal<const D: usize, const DH: usize>(w: &SMatrix<S, D, DH>) -> bool {
        let columns = &w.data.0;
        let mut a = 0;
        while a < DH {
            let mut b = 0;
            while b < DH {
                let mut dot = if a == b { -1.0 } else { 0.0 };
                let mut i = 0;
                while i < D {
                    dot += columns[a][i] as f64 * columns[b][i] as f64;
                    i += 1;
                }
                if dot.is_nan() || dot.abs() > STIEFEL_TOLERANCE {
                    return false;
                }
                b += 1;
            }
            a += 1;
        }
        true
    }
}
