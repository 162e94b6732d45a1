//! GML's volume-preserving transformer at run-time sizes.

use std::vec::Vec;

use nalgebra::{DMatrix, RealField};

use super::{FeedForward, Forward, VolumePreservingAttention};
use crate::error::INPUT;
use crate::layer::check_finite;
use crate::{Error, Field};

/// GML's `VolumePreservingTransformer`: `L` blocks of attention and a whole feed-forward network
/// (the compile-time [`crate::VolumePreservingTransformer`]).
#[derive(Debug, Clone)]
pub struct Transformer<S> {
    dim: usize,
    seq: usize,
    blocks: Vec<(VolumePreservingAttention<S>, FeedForward<S>)>,
}

impl<S: Field + RealField> Transformer<S> {
    /// The blocks on sequences of `seq` states of dimension `dim`.
    ///
    /// # Errors
    /// [`Error::WeightShape`] if a block's layers are not of shape `dim` (and `seq`).
    pub fn new(
        dim: usize,
        seq: usize,
        blocks: Vec<(VolumePreservingAttention<S>, FeedForward<S>)>,
    ) -> Result<Self, Error> {
        for (attention, feedforward) in &blocks {
            for (found, found_seq) in [attention.input_shape(), feedforward.input_shape()] {
                if found != dim || found_seq.is_some_and(|t| t != seq) {
                    return Err(Error::WeightShape {
                        name: "A",
                        expected_rows: dim,
                        expected_cols: seq,
                        found_rows: found,
                        found_cols: found_seq.unwrap_or(seq),
                    });
                }
            }
        }
        Ok(Self { dim, seq, blocks })
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[(VolumePreservingAttention<S>, FeedForward<S>)] {
        &self.blocks
    }
}

impl<S: Field + RealField> Forward<S> for Transformer<S> {
    fn name(&self) -> &'static str {
        "VolumePreservingTransformer"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        (self.dim, Some(self.seq))
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
