//! GML's transformers at run-time sizes: blocks of attention and a feed-forward part, and the
//! maps up to a `transformer_dim` and back of the standard and the symplectic transformer.

use std::vec::Vec;

use nalgebra::{DMatrix, RealField};

use super::{
    Dense, Element, Forward, LinearSymplecticAttention, MultiHeadAttention, PsdLayer, ResNetStack,
    Scratch, SympNetStack, SymplecticAttention, VolumePreservingAttention,
    VolumePreservingFeedForward,
};
use crate::error::Error;
use crate::error::INPUT;
use crate::layer::check_finite;
use crate::scalar::{Field, MapScalar};

/// `L` blocks, each an attention layer `Att` then a feed-forward part `Ff` (the compile-time
/// [`crate::Transformer`]): GML's [`VolumePreservingTransformer`] and
/// [`LinearSymplecticTransformer`], and the blocks of its [`StandardTransformerIntegrator`] and
/// [`SymplecticTransformer`].
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
pub trait BlockAttention<S: Element>: Forward<S> {
    /// GML's name of a transformer whose blocks start with this attention.
    const TRANSFORMER: &'static str;
}

impl<S: Element> BlockAttention<S> for VolumePreservingAttention<S> {
    const TRANSFORMER: &'static str = "VolumePreservingTransformer";
}

impl<S: Element> BlockAttention<S> for MultiHeadAttention<S> {
    const TRANSFORMER: &'static str = "StandardTransformerIntegrator";
}

impl<Att, Ff> Transformer<Att, Ff> {
    /// The blocks on sequences of states of dimension `dim`, of `seq` states if the attention
    /// takes only one length (`None`: any).
    ///
    /// # Errors
    /// [`Error::WeightShape`] if a block's layers are not of shape `dim` (and `seq`).
    pub fn new<S: Element>(
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

impl<S: Element, Att: BlockAttention<S>, Ff: Forward<S>> Forward<S> for Transformer<Att, Ff> {
    fn name(&self) -> &'static str {
        Att::TRANSFORMER
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, self.seq)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        for (attention, feedforward) in &self.blocks {
            attention.forward_in_place(z, scratch);
            feedforward.forward_in_place(z, scratch);
        }
    }

    /// As the compile-time transformer's: after every attention and feed-forward part, the
    /// error naming it and its block.
    fn forward_checked(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error>
    where
        S: RealField,
    {
        self.check_shape(z)?;
        check_finite(z, INPUT, None)?;
        let (mut x, mut scratch) = (z.clone(), Scratch::new());
        for (block, (attention, feedforward)) in self.blocks.iter().enumerate() {
            attention.forward_in_place(&mut x, &mut scratch);
            check_finite(&x, attention.name(), Some(block))?;
            feedforward.forward_in_place(&mut x, &mut scratch);
            check_finite(&x, feedforward.name(), Some(block))?;
        }
        Ok(x)
    }
}

/// A network of one dimension between a map up to it and one back down, both or neither:
/// GML's [`StandardTransformerIntegrator`] ([`Dense`] maps) and, with `transformer_dim ≠ dim`,
/// its [`SymplecticTransformer`] ([`PsdLayer`] maps). Its name in errors is the network's.
#[derive(Debug, Clone)]
pub struct Upscaled<Map, Net> {
    up: Option<Map>,
    net: Net,
    down: Option<Map>,
}

/// A map of states from one dimension to another, as [`Upscaled`] uses.
pub trait Upscaling<S: Element>: Forward<S> {
    /// The dimension of its output.
    fn outputs(&self) -> usize;
}

impl<S: Element> Upscaling<S> for Dense<S> {
    fn outputs(&self) -> usize {
        Dense::outputs(self)
    }
}

/// GML's `StandardTransformerIntegrator(sys_dim; transformer_dim, n_heads, n_blocks, L,
/// upscaling_activation, resnet_activation, attention_activation, add_connection)`: with
/// `transformer_dim ≠ sys_dim` a [`Dense`] map up first (with the upscaling activation) and one
/// down last, between them `L` blocks of [`MultiHeadAttention`] and a [`ResNetStack`]. Any
/// sequence length.
pub type StandardTransformerIntegrator<S> =
    Upscaled<Dense<S>, Transformer<MultiHeadAttention<S>, ResNetStack<S>>>;

/// GML's `SymplecticTransformer(dim; transformer_dim, n_sympnet, upscaling_dimension, L,
/// sympnet_activation, attention_activation, init_upper, symmetric)`: with `transformer_dim ≠
/// dim` a [`PsdLayer`] up first and one down last, between them `2L` blocks, a
/// [`SymplecticAttention`] on `q` then one on `p`, each followed by a [`SympNetStack`]. Any
/// sequence length.
pub type SymplecticTransformer<S> =
    Upscaled<PsdLayer<S>, Transformer<SymplecticAttention<S>, SympNetStack<S>>>;

/// GML's `LinearSymplecticTransformer(dim, seq_length; n_sympnet, upscaling_dimension, L,
/// activation, init_upper)`: `2L` blocks, a [`LinearSymplecticAttention`] on `q` then one on
/// `p`, each followed by a [`SympNetStack`]. Sequences of `seq_length` states.
pub type LinearSymplecticTransformer<S> =
    Transformer<LinearSymplecticAttention<S>, SympNetStack<S>>;

impl<Map, Net> Upscaled<Map, Net> {
    /// The network `net` between the maps `up` and `down`, both given or neither.
    ///
    /// # Errors
    /// [`Error::WeightShape`] if the maps do not lead from one dimension to the network's and
    /// back, or only one is given.
    pub fn new<S: Element>(up: Option<Map>, net: Net, down: Option<Map>) -> Result<Self, Error>
    where
        Map: Upscaling<S>,
        Net: Forward<S>,
    {
        let inner = net.input_shape().0;
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
        Ok(Self { up, net, down })
    }

    /// The network between the maps up and down.
    pub fn blocks(&self) -> &Net {
        &self.net
    }

    /// The maps up and down, if any.
    pub fn maps(&self) -> Option<(&Map, &Map)> {
        self.up.as_ref().zip(self.down.as_ref())
    }
}

impl<S: Element, Map: Upscaling<S>, Net: Forward<S>> Forward<S> for Upscaled<Map, Net> {
    fn name(&self) -> &'static str {
        self.net.name()
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        let (inner, seq) = self.net.input_shape();
        (self.up.as_ref().map_or(inner, |up| up.input_shape().0), seq)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        if let Some(up) = &self.up {
            up.forward_in_place(z, scratch);
        }
        self.net.forward_in_place(z, scratch);
        if let Some(down) = &self.down {
            down.forward_in_place(z, scratch);
        }
    }

    /// The input, each map's output, and the network's parts as its own checked pass names them.
    fn forward_checked(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error>
    where
        S: RealField,
    {
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
        let mut x = self.net.forward_checked(up.as_ref().unwrap_or(z))?;
        if let Some(down) = &self.down {
            down.forward_in_place(&mut x, &mut Scratch::new());
            check_finite(&x, down.name(), None)?;
        }
        Ok(x)
    }
}

impl<Att: MapScalar, Ff: MapScalar<Scalar = Att::Scalar>> MapScalar for Transformer<Att, Ff> {
    type Scalar = Att::Scalar;
    type Over<X: Field> = Transformer<Att::Over<X>, Ff::Over<X>>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(Att::Scalar) -> X) -> Self::Over<X> {
        Transformer {
            dim: self.dim,
            seq: self.seq,
            blocks: self
                .blocks
                .iter()
                .map(|(attention, feedforward)| {
                    (attention.map_scalar(&mut f), feedforward.map_scalar(&mut f))
                })
                .collect(),
        }
    }
}

impl<Map: MapScalar, Net: MapScalar<Scalar = Map::Scalar>> MapScalar for Upscaled<Map, Net> {
    type Scalar = Map::Scalar;
    type Over<X: Field> = Upscaled<Map::Over<X>, Net::Over<X>>;

    fn map_scalar<X: Field>(&self, mut f: impl FnMut(Map::Scalar) -> X) -> Self::Over<X> {
        Upscaled {
            up: self.up.as_ref().map(|up| up.map_scalar(&mut f)),
            net: self.net.map_scalar(&mut f),
            down: self.down.as_ref().map(|down| down.map_scalar(&mut f)),
        }
    }
}
