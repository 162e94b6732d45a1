//! GML's `ClassificationTransformer`: a transformer on a sequence, then a classification layer
//! that turns its last column into class probabilities (GML's MNIST classifier).

use nalgebra::{RealField, SMatrix, SVector};

use crate::architectures::Transformer;
use crate::feedforward::ResNetLayer;
use crate::layer::SequenceLayer;
use crate::mha::MultiHeadAttention;
use crate::scalar::Field;
use crate::softmax::{Softmax, VectorSoftmax};

/// GML's `ClassificationLayer(D, CLASSES, softmax; average = false)`: the class probabilities
/// `softmax(W · z_T)` of the **last** column `z_T` of a sequence, `W` dense `CLASSES×D` (GML's
/// `weight`; no bias).
///
/// ```
/// use geomattn::{ClassificationLayer, nalgebra::{Matrix2, Matrix2x3}};
/// let layer = ClassificationLayer::<f64, 2, 2>::new(Matrix2::identity());
/// // GML's docstring example with softmax: the last column (3, 1) → softmax(3, 1).
/// let z = Matrix2x3::new(1.0, 2.0, 3.0,
///                        1.0, 1.0, 1.0);
/// let p = layer.probabilities(&z);
/// assert!((p[0] - 1.0 / (1.0 + (-2.0f64).exp())).abs() < 1e-15);
/// assert_eq!(layer.predict(&z), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassificationLayer<S, const D: usize, const CLASSES: usize> {
    weight: SMatrix<S, CLASSES, D>,
}

impl<S: Field, const D: usize, const CLASSES: usize> ClassificationLayer<S, D, CLASSES> {
    /// The layer with GML's `weight` `W` (`CLASSES×D`).
    pub const fn new(weight: SMatrix<S, CLASSES, D>) -> Self {
        Self { weight }
    }

    /// The weight `W`.
    pub const fn weight(&self) -> &SMatrix<S, CLASSES, D> {
        &self.weight
    }

    /// The scores `W · z_T` before the softmax.
    pub fn logits<const T: usize>(&self, z: &SMatrix<S, D, T>) -> SVector<S, CLASSES> {
        const { assert!(T > 0, "a sequence to classify has at least one column") };
        self.weight * z.column(T - 1)
    }
}

impl<S: RealField + Copy, const D: usize, const CLASSES: usize> ClassificationLayer<S, D, CLASSES> {
    /// The class probabilities `softmax(W · z_T)`.
    pub fn probabilities<const T: usize>(&self, z: &SMatrix<S, D, T>) -> SVector<S, CLASSES> {
        VectorSoftmax::apply(&self.logits(z))
    }

    /// The predicted class: the first index of the largest score (GML's `argmax` of the
    /// probabilities; the softmax is monotone, so it is skipped). A NaN score is never the
    /// largest; all NaN gives class 0.
    pub fn predict<const T: usize>(&self, z: &SMatrix<S, D, T>) -> usize {
        first_argmax(&self.logits(z))
    }
}

/// The first index of the largest entry (NaN entries are skipped).
fn first_argmax<S: RealField + Copy, const N: usize>(x: &SVector<S, N>) -> usize {
    let mut best = 0;
    for (i, value) in x.iter().enumerate() {
        #[allow(clippy::eq_op)] // `x != x` is the NaN test of a `RealField`.
        let nan = |y: &S| y != y;
        if *value > x[best] || nan(&x[best]) && !nan(value) {
            best = i;
        }
    }
    best
}

/// A sequence network `Body` followed by a [`ClassificationLayer`]: GML's
/// `Chain(body..., ClassificationLayer)`. See [`ClassificationTransformer`] for GML's MNIST
/// classifier.
///
/// Its parameters are the body's then the layer's ([`Schema`](crate::Schema)), filled in place
/// when loaded onto the heap: the MNIST classifier is 1.2 MB in `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Classifier<Body, Head> {
    pub(crate) body: Body,
    pub(crate) head: Head,
}

impl<Body, Head> Classifier<Body, Head> {
    /// The classifier from its body and its classification layer.
    pub const fn new(body: Body, head: Head) -> Self {
        Self { body, head }
    }

    /// The sequence network.
    pub const fn body(&self) -> &Body {
        &self.body
    }

    /// The classification layer.
    pub const fn head(&self) -> &Head {
        &self.head
    }
}

impl<S, const D: usize, const CLASSES: usize, Body>
    Classifier<Body, ClassificationLayer<S, D, CLASSES>>
where
    S: RealField + Copy,
{
    /// The class probabilities of the sequence `z` (`T` columns in `R^D`). Allocates nothing.
    pub fn probabilities<const T: usize>(&self, z: &SMatrix<S, D, T>) -> SVector<S, CLASSES>
    where
        Body: SequenceLayer<S, D, T>,
    {
        self.head.probabilities(&self.body.forward(z))
    }

    /// The predicted class of the sequence `z` (see [`ClassificationLayer::predict`]).
    pub fn predict<const T: usize>(&self, z: &SMatrix<S, D, T>) -> usize
    where
        Body: SequenceLayer<S, D, T>,
    {
        self.head.predict(&self.body.forward(z))
    }
}

/// GML's `ClassificationTransformer(dl; n_heads = H, L, activation = softmax, Stiefel,
/// add_connection)` on sequences in `R^D` with `CLASSES` classes: `L × [MultiHeadAttention(D, H;
/// Stiefel, add_connection), ResNetLayer(D, Act)]`, then `ClassificationLayer(D, CLASSES, softmax)`.
/// GML's ResNet layers there use `tanh` (`Act` = [`Tanh`](crate::Tanh)); `Conn` is
/// `add_connection` ([`NoConnection`](crate::NoConnection) for GML's MNIST files), `Proj` the
/// `Stiefel` option ([`Stiefel`](crate::Stiefel) or [`Euclidean`](crate::Euclidean)). None of
/// these is in GML's file.
///
/// GML's MNIST networks are `ClassificationTransformer<S, 49, 7, 7, 16, 10, NoConnection, Proj,
/// Tanh>` on images cut into 16 patches of 7×7 ([`mnist_patches`]) (the example loads a GML file,
/// so it runs with the feature `hdf5`):
///
#[cfg_attr(feature = "hdf5", doc = "```")]
#[cfg_attr(not(feature = "hdf5"), doc = "```ignore")]
/// use geomattn::{ClassificationTransformer, Euclidean, NoConnection, Tanh, mnist_patches};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/mnist_nn1.h5");
/// type Mnist = ClassificationTransformer<f32, 49, 7, 7, 16, 10, NoConnection, Euclidean, Tanh>;
/// let net: Box<Mnist> = geomattn::gml::load_file_boxed(path)?;
/// let blank = mnist_patches::<f32>(&[0; 784]);
/// let p = net.probabilities(&blank);
/// assert!((p.sum() - 1.0).abs() < 1e-5);
/// // GML's nn1 is stuck: it predicts 8 for every image.
/// assert_eq!(net.predict(&blank), 8);
/// # Ok::<(), geomattn::gml::LoadError>(())
/// ```
pub type ClassificationTransformer<
    S,
    const D: usize,
    const H: usize,
    const DH: usize,
    const L: usize,
    const CLASSES: usize,
    Conn,
    Proj,
    Act,
> = Classifier<
    Transformer<MultiHeadAttention<S, D, H, DH, Conn, Proj>, ResNetLayer<S, D, Act>, L>,
    ClassificationLayer<S, D, CLASSES>,
>;

/// Side of an MNIST image, in pixels.
const SIDE: usize = 28;
/// Side of a patch, in pixels.
const PATCH: usize = 7;

/// An MNIST image (28×28 bytes, row after row of the upright image, as in the MNIST files) as
/// the sequence GML's MNIST classifier reads: 16 patches of 7×7, pixels `byte / 255`. Patch (column)
/// `t = 4·rb + cb` is the one in block row `rb`, block column `cb`; inside it, feature (row)
/// `f = 7·ri + ci` is the pixel in row `ri`, column `ci` of the patch (GML's `split_and_flatten`
/// of its transposed image, as the fixtures' README derives).
///
/// ```
/// let mut image = [0u8; 784];
/// image[28 * 8 + 15] = 255; // row 8, column 15: block (1, 2), pixel (1, 1) inside it
/// let z = geomattn::mnist_patches::<f64>(&image);
/// assert_eq!(z[(7 + 1, 4 + 2)], 1.0);
/// assert_eq!(z.sum(), 1.0);
/// ```
pub fn mnist_patches<S: RealField + Copy>(pixels: &[u8; SIDE * SIDE]) -> SMatrix<S, 49, 16> {
    const BLOCKS: usize = SIDE / PATCH;
    SMatrix::from_fn(|f, t| {
        let row = PATCH * (t / BLOCKS) + f / PATCH;
        let col = PATCH * (t % BLOCKS) + f % PATCH;
        nalgebra::convert::<f64, S>(f64::from(pixels[row * SIDE + col]) / 255.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_takes_the_first_of_equals_and_skips_nan() {
        let x = SVector::<f64, 4>::new(f64::NAN, 1.0, 3.0, 3.0);
        assert_eq!(first_argmax(&x), 2);
        assert_eq!(first_argmax(&SVector::<f64, 2>::new(f64::NAN, f64::NAN)), 0);
    }
}
