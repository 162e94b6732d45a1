//! The schema of the SympNet stacks of the symplectic transformers: their gradient layers, one
//! after the other.

use nalgebra::RealField;

use super::{Schema, Sink, Source, Visit};
use crate::activation::Activation;
use crate::architectures::SympNetStack;
use crate::feedforward::{GradientLayer, GradientLayerQ};
use crate::symplectic::{PhaseSide, UpdateP, UpdateQ};

/// `NS` gradient layers, one after the other, alternating sides from `First` (the sides are the
/// type's, not GML's file's; a blob records them).
impl<S: RealField + Copy, const N: usize, const HIDDEN: usize, const NS: usize, Act, First> Schema
    for SympNetStack<S, N, HIDDEN, NS, Act, First>
where
    Act: Activation<S>,
    First: PhaseSide,
{
    type Scalar = S;
    const SCALARS: usize = <[GradientLayerQ<S, N, HIDDEN, Act>; NS]>::SCALARS;
    const LAYERS: usize = NS;
    const DESCRIPTION_LEN: usize = {
        let q_layers = if First::UPDATES_Q {
            NS.div_ceil(2)
        } else {
            NS / 2
        };
        q_layers * GradientLayer::<S, N, HIDDEN, UpdateQ, Act>::DESCRIPTION_LEN
            + (NS - q_layers) * GradientLayer::<S, N, HIDDEN, UpdateP, Act>::DESCRIPTION_LEN
    };

    fn describe<V: Visit + ?Sized>(visitor: &mut V) {
        for i in 0..NS {
            if Self::layer_updates_q(i) {
                GradientLayer::<S, N, HIDDEN, UpdateQ, Act>::describe(visitor);
            } else {
                GradientLayer::<S, N, HIDDEN, UpdateP, Act>::describe(visitor);
            }
        }
    }

    fn read<Src: Source<S> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
        Ok(Self::new(Schema::read(source)?))
    }

    fn write<K: Sink<S> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
        self.layers().write(sink)
    }
}
