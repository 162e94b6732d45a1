//! GML's `ClassificationLayer` and `ClassificationTransformer` at run-time sizes.

use nalgebra::{DMatrix, DVector, RealField};

use super::{Forward, MultiHeadAttention, ResNetStack, Transformer, matrix};
use crate::error::Error;
use crate::scalar::Field;
use crate::softmax::Function as Softmax;

/// GML's `ClassificationLayer(dim, classes, softmax; average = false)`: the class probabilities
/// `softmax(W · z_T)` of the last column `z_T` of a sequence, `W` dense `classes×dim` (the
/// compile-time [`crate::ClassificationLayer`], whose sums it runs).
///
/// ```
/// use geomattn::engine::ClassificationLayer;
/// use geomattn::nalgebra::DMatrix;
/// // W = I: the last column (3, 1) → softmax(3, 1).
/// let layer = ClassificationLayer::new(2, 2, &[1.0, 0.0, 0.0, 1.0])?;
/// let z = DMatrix::from_column_slice(2, 3, &[1.0, 1.0, 2.0, 1.0, 3.0, 1.0]);
/// let p = layer.probabilities(&z);
/// assert!((p[0] - 1.0 / (1.0 + (-2.0f64).exp())).abs() < 1e-15);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ClassificationLayer<S> {
    weight: DMatrix<S>,
}

impl<S: Field + RealField> ClassificationLayer<S> {
    /// The layer from GML's `weight` (`classes×dim`, column-major as Julia stores it).
    ///
    /// # Errors
    /// [`Error::WeightLength`] for a weight of another length.
    pub fn new(dim: usize, classes: usize, weight: &[S]) -> Result<Self, Error> {
        Ok(Self {
            weight: matrix("weight", classes, dim, weight)?,
        })
    }

    /// The dimension of the states it reads.
    pub fn dim(&self) -> usize {
        self.weight.ncols()
    }

    /// The number of classes.
    pub fn classes(&self) -> usize {
        self.weight.nrows()
    }

    /// The class probabilities `softmax(W · z_T)` of the sequence `z` (`dim` rows, at least one
    /// column: an empty sequence has probabilities `softmax(0)`).
    pub fn probabilities(&self, z: &DMatrix<S>) -> DVector<S> {
        let mut p = match z.ncols().checked_sub(1) {
            Some(last) => &self.weight * z.column(last),
            None => DVector::zeros(self.classes()),
        };
        let classes = self.classes();
        Softmax::Vector.apply_in_place(p.as_mut_slice(), classes);
        p
    }
}

/// GML's `ClassificationTransformer`: `L` blocks of [`MultiHeadAttention`] and a [`ResNetStack`]
/// of one `tanh` layer, then a [`ClassificationLayer`] (the compile-time
/// [`crate::ClassificationTransformer`]). Any sequence length.
#[derive(Debug, Clone)]
pub struct ClassificationTransformer<S> {
    blocks: Transformer<MultiHeadAttention<S>, ResNetStack<S>>,
    head: ClassificationLayer<S>,
}

impl<S: Field + RealField> ClassificationTransformer<S> {
    /// The classifier: `blocks`, then `head`.
    ///
    /// # Errors
    /// [`Error::WeightShape`] if the head does not read the blocks' dimension.
    pub fn new(
        blocks: Transformer<MultiHeadAttention<S>, ResNetStack<S>>,
        head: ClassificationLayer<S>,
    ) -> Result<Self, Error> {
        let dim = blocks.input_shape().0;
        if head.dim() != dim {
            return Err(Error::WeightShape {
                name: "weight",
                expected_rows: head.classes(),
                expected_cols: dim,
                found_rows: head.classes(),
                found_cols: head.dim(),
            });
        }
        Ok(Self { blocks, head })
    }

    /// The blocks before the classification layer.
    pub fn blocks(&self) -> &Transformer<MultiHeadAttention<S>, ResNetStack<S>> {
        &self.blocks
    }

    /// The classification layer.
    pub fn head(&self) -> &ClassificationLayer<S> {
        &self.head
    }

    /// The class probabilities of the sequence `z`.
    ///
    /// # Errors
    /// [`Error::SequenceShape`] if `z` does not have the blocks' dimension.
    pub fn probabilities(&self, z: &DMatrix<S>) -> Result<DVector<S>, Error> {
        Ok(self.head.probabilities(&self.blocks.forward(z)?))
    }
}
