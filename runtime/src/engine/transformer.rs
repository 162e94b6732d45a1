//! GML's transformers at run-time sizes: blocks of attention and a feed-forward part, and the
//! standard transformer integrator's maps up to its `transformer_dim` and back.

use std::vec::Vec;

use nalgebra::{DMatrix, RealField};

use super::{
    Dense, Forward, MultiHeadAttention, ResNetStack, VolumePreservingAttention,
    VolumePreservingFeedForward,
};
use crate::error::INPUT;
use crate::layer::check_finite;
use crate::{Error, Field};

/// `L` blocks, each an attention layer `Att` then a feed-forward part `Ff` (the compile-time
/// [`crate::Transformer`]): GML's [`VolumePreservingTransformer`] and the blocks of its
/// [`StandardTransformerIntegrator`].
#[derive(Debug, Clone)]
pub struct Transformer<Att, Ff> {
    dim: usize,
    seq: Option<usize>,
    blocks: Vec<(Att, Ff)>,
}

/// GML's `VolumePreservingTransformer`: `L` blocks of volume-preserving attention and a whole
/// volume-preserving feed-forward network (the compile-time
/// [`crate::VolumePreservingTransformer`]).
pub type VolumePreservingTransformer<S> =
    Transformer<VolumePreservingAttention<S>, VolumePreservingFeedForward<S>>;

/// The attention of a [`Transformer`]'s blocks, and GML's name of the transformer (in errors).
pub trait BlockAttention<S: Field + RealField>: Forward<S> {
    /// GML's name of a transformer whose blocks start with this attention.
    const TRANSFORMER: &'static str;
}

impl<S: Field + RealField> BlockAttention<S> for VolumePreservingAttention<S> {
    const TRANSFORMER: &'static str = "VolumePreservingTransformer";
}

impl<S: Field + RealField> BlockAttention<S> for MultiHeadAttention<S> {
    const TRANSFORMER: &'static str = "StandardTransformerIntegrator";
}

impl<Att, Ff> Transformer<Att, Ff> {
    /// The blocks on sequences of states of dimension `dim`, of `seq` states if the attention
    /// takes only one length (`None`: any).
    ///
    /// # Errors
    /// [`Error::WeightShape`] if a block's layers are not of shape `dim` (and `seq`).
    pub fn new<S: Field + RealField>(
        dim: usize,
        seq: Option<usize>,
        blocks: Vec<(Att, Ff)>,
    ) -> Result<Self, Error>
    where
        Att: BlockAttention<S>,
        Ff: Forward<S>,
    {
        for (attention, feedforward) in &blocks {
            for (found, found_seq) in [attention.input_shape(), feedforward.input_shape()] {
                if found != dim || found_seq.is_some_and(|t| Some(t) != seq) {
                    let expected_seq = seq.or(found_seq).unwrap_or(0);
                    return Err(Error::WeightShape {
                        name: "A",
                        expected_rows: dim,
                        expected_cols: expected_seq,
                        found_rows: found,
                        found_cols: found_seq.unwrap_or(expected_seq),
                    });
                }
            }
        }
        Ok(Self { dim, seq, blocks })
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[(Att, Ff)] {
        &self.blocks
    }
}

impl<S: Field + RealField, Att: BlockAttention<S>, Ff: Forward<S>> Forward<S>
    for Transformer<Att, Ff>
{
    fn name(&self) -> &'static str {
        Att::TRANSFORMER
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, self.seq)
    }

    fn forward_unchecked(&self, z: &DMatrix<S>) -> DMatrix<S> {
        let mut x = z.clone();
        for (attention, feedforward) in &self.blocks {
            x = feedforward.forward_unchecked(&attention.forward_unchecked(&x));
        }
        x
    }

    /// As the compile-time transformer's: after every attention and feed-forward part, the
    /// error naming it and its block.
    fn forward_checked(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error> {
        self.check_shape(z)?;
        check_finite(z, INPUT, None)?;
        let mut x = z.clone();
        for (block, (attention, feedforward)) in self.blocks.iter().enumerate() {
            let y = attention.forward_unchecked(&x);
            check_finite(&y, attention.name(), Some(block))?;
            x = feedforward.forward_unchecked(&y);
            check_finite(&x, feedforward.name(), Some(block))?;
        }
        Ok(x)
    }
}

/// GML's `StandardTransformerIntegrator(sys_dim; transformer_dim, n_heads, n_blocks, L,
/// upscaling_activation, resnet_activation, attention_activation, add_connection)`: with
/// `transformer_dim ≠ sys_dim` a [`Dense`] map up first (with the upscaling activation) and one
/// down last, between them `L` blocks of [`MultiHeadAttention`] and a [`ResNetStack`]. Any
/// sequence length.
#[derive(Debug, Clone)]
pub struct StandardTransformerIntegrator<S> {
    up: Option<Dense<S>>,
    blocks: Transformer<MultiHeadAttention<S>, ResNetStack<S>>,
    down: Option<Dense<S>>,
}

impl<S: Field + RealField> StandardTransformerIntegrator<S> {
    /// The network: `blocks` between the maps `up` and `down`, both given or neither.
    ///
    /// # Errors
    /// [`Error::WeightShape`] if the maps do not lead from one dimension to the blocks' and
    /// back, or only one is given.
    pub fn new(
        up: Option<Dense<S>>,
        blocks: Transformer<MultiHeadAttention<S>, ResNetStack<S>>,
        down: Option<Dense<S>>,
    ) -> Result<Self, Error> {
        let inner = blocks.dim;
        let fits = match (&up, &down) {
            (Some(up), Some(down)) => {
                up.outputs() == inner
                    && down.input_shape().0 == inner
                    && down.outputs() == up.input_shape().0
            }
            (None, None) => true,
            _ => false,
        };
        if !fits {
            let (rows, cols) = down
                .as_ref()
                .map_or((0, 0), |d| (d.outputs(), d.input_shape().0));
            return Err(Error::WeightShape {
                name: "W",
                expected_rows: up.as_ref().map_or(0, |u| u.input_shape().0),
                expected_cols: inner,
                found_rows: rows,
                found_cols: cols,
            });
        }
        Ok(Self { up, blocks, down })
    }

    /// The blocks between the maps up and down.
    pub fn blocks(&self) -> &Transformer<MultiHeadAttention<S>, ResNetStack<S>> {
        &self.blocks
    }
}

impl<S: Field + RealField> Forward<S> for StandardTransformerIntegrator<S> {
    fn name(&self) -> &'static str {
        "StandardTransformerIntegrator"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        let dim = self
            .up
            .as_ref()
            .map_or(self.blocks.dim, |up| up.input_shape().0);
        (dim, None)
    }

    fn forward_unchecked(&self, z: &DMatrix<S>) -> DMatrix<S> {
        let up = self.up.as_ref().map(|up| up.forward_unchecked(z));
        let x = self.blocks.forward_unchecked(up.as_ref().unwrap_or(z));
        match &self.down {
            Some(down) => down.forward_unchecked(&x),
            None => x,
        }
    }

    /// The input, each map's output, and every block's parts as [`Transformer`]'s.
    fn forward_checked(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error> {
        self.check_shape(z)?;
        check_finite(z, INPUT, None)?;
        let up = match &self.up {
            Some(up) => {
                let x = up.forward_unchecked(z);
                check_finite(&x, up.name(), None)?;
                Some(x)
            }
            None => None,
        };
        let x = self.blocks.forward_checked(up.as_ref().unwrap_or(z))?;
        match &self.down {
            Some(down) => {
                let y = down.forward_unchecked(&x);
                check_finite(&y, down.name(), None)?;
                Ok(y)
            }
            None => Ok(x),
        }
    }
}
