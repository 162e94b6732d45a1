//! The transformer skeleton shared by GML's integrators: `L` blocks of an attention layer followed
//! by a per-time-step feed-forward part.

use nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut};

use super::{ResNetStack, VolumePreservingFeedForward};
use crate::correlation::ArbitraryWeight;
use crate::error::Error;
use crate::error::INPUT;
use crate::lanewise::LaneTwin;
use crate::layer::SequenceLayer;
use crate::layer::check_finite;
use crate::orthogonal::DefaultCayley;
use crate::product;
use crate::scalar::{Field, MapScalar, Real};
use crate::vpa::VolumePreservingAttention;

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

/// The same network over another scalar, weight by weight.
impl<Att, Ff, const L: usize> MapScalar for Transformer<Att, Ff, L>
where
    Att: MapScalar,
    Ff: MapScalar<Scalar = Att::Scalar>,
{
    type Scalar = Att::Scalar;
    type Over<S2: Field> = Transformer<Att::Over<S2>, Ff::Over<S2>, L>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2> {
        Transformer::new(self.blocks.each_ref().map(|(attention, feedforward)| {
            (attention.map_scalar(&mut f), feedforward.map_scalar(&mut f))
        }))
    }
}

/// The lane twin of every block's attention and feed-forward part.
impl<Att, Ff, const D: usize, const T: usize, const L: usize> LaneTwin<D, T>
    for Transformer<Att, Ff, L>
where
    Att: LaneTwin<D, T>,
    Ff: LaneTwin<D, T, Scalar = Att::Scalar>,
{
    type Twin<X: Real> = Transformer<Att::Twin<X>, Ff::Twin<X>, L>;

    fn twin<X: Real>(&self, mut f: impl FnMut(Self::Scalar) -> X) -> Self::Twin<X> {
        Transformer::new(
            self.blocks
                .each_ref()
                .map(|(attention, feedforward)| (attention.twin(&mut f), feedforward.twin(&mut f))),
        )
    }
}

impl<S, const D: usize, const T: usize, Att, Ff, const L: usize> SequenceLayer<S, D, T>
    for Transformer<Att, Ff, L>
where
    S: Field,
    Att: SequenceLayer<S, D, T>,
    Ff: SequenceLayer<S, D, T>,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut x: SMatrix<S, D, T> = product::matrix(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i, j| z[(i, j)],
        );
        for (attention, feedforward) in &self.blocks {
            let mut y = x;
            attention.forward_into(x.as_view(), y.as_view_mut());
            feedforward.forward_into(y.as_view(), x.as_view_mut());
        }
        for j in 0..T {
            for i in 0..D {
                out[(i, j)] = x[(i, j)];
            }
        }
    }

    /// Checks the input, then the output of every layer: the error names the first layer (and its
    /// block) whose output is not finite.
    fn forward_checked_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out: SMatrixViewMut<'_, S, D, T>,
    ) -> Result<(), Error>
    where
        S: RealField,
    {
        forward_blocks_checked(&self.blocks, z, out)
    }
}

/// The checked forward pass of `blocks`, each an attention layer then a feed-forward part,
/// applied in order: what [`Transformer`] runs with `L` known at compile time, for networks whose
/// number of blocks is known only at run time (a spec read from text). The input is checked, then
/// the output of every layer: the error names the first layer, and its block (0-based), whose
/// output is not finite.
///
/// ```
/// use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, forward_blocks_checked};
/// use geomattn::{Error, nalgebra::SMatrix};
/// let vpa = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[1e300])?);
/// let blocks = vec![(vpa, vpa); 2];
/// let z = SMatrix::<f64, 2, 3>::from_fn(|i, j| (i + j) as f64 * 1e10);
/// let mut out = SMatrix::<f64, 2, 3>::zeros();
/// let Err(Error::NonFinite(at)) = forward_blocks_checked(&blocks, z.as_view(), out.as_view_mut())
/// else { panic!() };
/// assert_eq!((at.layer, at.block), ("VolumePreservingAttention", Some(0)));
/// # Ok::<(), geomattn::Error>(())
/// ```
///
/// # Errors
/// [`Error::NonFinite`] for the first non-finite value, in the input or a layer's output.
pub fn forward_blocks_checked<S, Att, Ff, const D: usize, const T: usize>(
    blocks: &[(Att, Ff)],
    z: SMatrixView<'_, S, D, T>,
    mut out: SMatrixViewMut<'_, S, D, T>,
) -> Result<(), Error>
where
    S: Field + RealField,
    Att: SequenceLayer<S, D, T>,
    Ff: SequenceLayer<S, D, T>,
{
    check_finite(&z, INPUT, None)?;
    let mut x = z.into_owned();
    for (block, (attention, feedforward)) in blocks.iter().enumerate() {
        let y = attention.forward(&x);
        check_finite(&y, attention.layer_name(), Some(block))?;
        feedforward.forward_into(y.as_view(), x.as_view_mut());
        check_finite(&x, feedforward.layer_name(), Some(block))?;
    }
    out.copy_from(&x);
    Ok(())
}
