//! The transformer skeleton shared by GML's integrators: `L` blocks of an attention layer followed
//! by a per-time-step feed-forward part.

use nalgebra::{RealField, SMatrixView, SMatrixViewMut};

use super::{ResNetStack, VolumePreservingFeedForward};
use crate::error::INPUT;
use crate::layer::check_finite;
use crate::{
    ArbitraryWeight, DefaultCayley, Error, Field, SequenceLayer, VolumePreservingAttention,
};

/// `L` blocks, each an attention layer `Att` then a feed-forward part `Ff`, applied in order.
///
/// ```
/// use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, Transformer, nalgebra::SMatrix};
/// let vpa = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.3])?);
/// let net = Transformer::new([(vpa, vpa), (vpa, vpa)]);
/// let z = SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + j) as f64);
/// let by_hand = vpa.forward(&vpa.forward(&vpa.forward(&vpa.forward(&z))));
/// assert!((net.forward(&z) - by_hand).amax() < 1e-15);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transformer<Att, Ff, const L: usize> {
    pub(crate) blocks: [(Att, Ff); L],
}

/// GML's `VolumePreservingTransformer(D, T; n_blocks = NB, n_linear = NL, L, activation = Act,
/// skew_sym)`: `L × [VolumePreservingAttention, VolumePreservingFeedForward]`. The weighting `Corr`
/// is [`ArbitraryWeight`] for GML's default `skew_sym = false`, [`crate::SkewWeight`] for
/// `skew_sym = true`; `Map` is the attention's orthogonal map.
pub type VolumePreservingTransformer<
    S,
    const D: usize,
    const T: usize,
    const NB: usize,
    const NL: usize,
    const L: usize,
    Act,
    Corr = ArbitraryWeight<S, D>,
    Map = DefaultCayley,
> = Transformer<
    VolumePreservingAttention<S, D, T, Corr, Map>,
    VolumePreservingFeedForward<S, D, NB, NL, Act>,
    L,
>;

/// GML's `StandardTransformerIntegrator(D; n_heads, n_blocks = NB, L, resnet_activation = Act,
/// add_connection)` with `transformer_dim = D` (no up/down projection): `L × [attention Att
/// (multi-head), NB × ResNetLayer(Act), ResNetLayer(identity)]`.
pub type StandardTransformerIntegrator<
    S,
    const D: usize,
    Att,
    const NB: usize,
    const L: usize,
    Act,
> = Transformer<Att, ResNetStack<S, D, NB, Act>, L>;

impl<Att, Ff, const L: usize> Transformer<Att, Ff, L> {
    /// The network from its blocks, in order.
    pub const fn new(blocks: [(Att, Ff); L]) -> Self {
        Self { blocks }
    }

    /// The blocks, in order.
    pub const fn blocks(&self) -> &[(Att, Ff); L] {
        &self.blocks
    }
}

impl<S, const D: usize, const T: usize, Att, Ff, const L: usize> SequenceLayer<S, D, T>
    for Transformer<Att, Ff, L>
where
    S: Field,
    Att: SequenceLayer<S, D, T>,
    Ff: SequenceLayer<S, D, T>,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut x = z.into_owned();
        for (attention, feedforward) in &self.blocks {
            feedforward.forward_into(attention.forward(&x).as_view(), x.as_view_mut());
        }
        out.copy_from(&x);
    }

    /// Checks the input, then the output of every layer: the error names the first layer (and its
    /// block) whose output is not finite.
    fn forward_checked_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        mut out: SMatrixViewMut<'_, S, D, T>,
    ) -> Result<(), Error>
    where
        S: RealField,
    {
        check_finite(&z, INPUT, None)?;
        let mut x = z.into_owned();
        for (block, (attention, feedforward)) in self.blocks.iter().enumerate() {
            let y = attention.forward(&x);
            check_finite(&y.as_view(), attention.layer_name(), Some(block))?;
            feedforward.forward_into(y.as_view(), x.as_view_mut());
            check_finite(&x.as_view(), feedforward.layer_name(), Some(block))?;
        }
        out.copy_from(&x);
        Ok(())
    }
}
