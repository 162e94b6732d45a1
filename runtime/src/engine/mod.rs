//! Layers and networks whose sizes are known only at run time: what a tool that reads a network
//! from a file runs (the `geomattn` command, the Python package), at any size GML allows.
//!
//! Every layer of compile-time size is a type with its sizes as parameters (`SkewVpa<f64, 3, 4>`):
//! typed, allocation-free, right for a program that knows its network. Here the sizes are values
//! (held in nalgebra's [`DMatrix`]), and so is the structure that GML keeps as data (the number of
//! blocks and layers, the activations). The Cayley transform picks, once per layer, the
//! compile-time kernel of its sequence length ([`crate::Generated`] up to
//! [`MAX_SPECIALISED_SEQ`], then nalgebra's LU); the skew correlations and the residual update
//! of the feed-forward layers run the compile-time layers' own kernels, written once over
//! nalgebra's [`Dim`](nalgebra::Dim) (`correlation::lower_correlation`'s sums and their
//! `L − Lᵀ`; the update's bias, `σ` and sum after its product), so that on the same sizes the two
//! give the same bits (tested). Only how a matrix is stored differs: arrays built in place for
//! compile-time sizes (inside a lane kernel, nalgebra's uninitialised matrices are not always
//! inlined: built through them, the lane path ran 22× slower), a [`Scratch`]'s buffers here.
//!
//! Each layer's pass writes its output over its input ([`Forward::forward_in_place`]) and takes
//! its intermediate matrices from a [`Scratch`] and gives them back, so a pass run again on
//! windows of a shape it has seen allocates nothing (tested with a counting allocator; sequences
//! longer than [`MAX_SPECIALISED_SEQ`], whose LU allocates, excepted).
//!
//! The forward passes are written once over [`Element`]: a plain scalar, or [`crate::Lanes`] of
//! them. A batch runs the network's *lane twin* (the same network with every weight splatted
//! across the lanes, [`crate::MapScalar::map_scalar`]) on several windows at a time, one per lane,
//! each bit for bit its own scalar pass ([`forward_in_lanes`]).
//!
//! Training runs backward through the same layers: [`Backward`] is a layer's exact
//! vector-Jacobian product (its gradient a flat slice in GML's order and packing), and [`Chain`]
//! a network as GML's chain of its layers, forward and backward (the volume-preserving layers
//! and the standard transformer's so far).
//!
//! | GML | here |
//! |---|---|
//! | `VolumePreservingTransformer` | [`VolumePreservingTransformer`]: [`Transformer`] of [`VolumePreservingAttention`] and [`VolumePreservingFeedForward`] |
//! | `VolumePreservingFeedForward` | [`VolumePreservingFeedForward`]: [`FeedForward`] of [`VolumePreservingLayer`]s |
//! | `StandardTransformerIntegrator` | [`StandardTransformerIntegrator`]: [`Dense`] up, [`Transformer`] of [`MultiHeadAttention`] and [`ResNetStack`] (of [`ResNetLayer`]s), [`Dense`] down |
//! | `SymplecticTransformer` | [`SymplecticTransformer`]: [`PsdLayer`] up, [`Transformer`] of [`SymplecticAttention`] and [`SympNetStack`] (of [`GradientLayer`]s), [`PsdLayer`] down |
//! | `ClassificationTransformer` | [`ClassificationTransformer`]: [`Transformer`] of [`MultiHeadAttention`] and [`ResNetStack`], [`ClassificationLayer`] |
//! | `LinearSymplecticTransformer` | [`LinearSymplecticTransformer`]: [`Transformer`] of [`LinearSymplecticAttention`] and [`SympNetStack`] |
//!
//! ```
//! use geomattn::activation::Function;
//! use geomattn::engine::{FeedForward, Forward, VolumePreservingLayer};
//! use geomattn::nalgebra::DMatrix;
//! let lower = VolumePreservingLayer::<f64>::lower(3, &[1.0, 2.0, 3.0], None, Function::Identity)?;
//! let net = FeedForward::new(3, vec![lower])?;
//! let z = DMatrix::from_column_slice(3, 2, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
//! // x + W x with W strictly lower: [x₀, x₁ + x₀, x₂ + 2x₀ + 3x₁].
//! assert_eq!(net.forward(&z)?.as_slice(), [1.0, 1.0, 2.0, 0.0, 1.0, 3.0]);
//! # Ok::<(), geomattn::Error>(())
//! ```

pub(crate) mod backward;
mod batch;
pub(crate) mod cayley;
mod classification;
mod element;
mod fast_lanes;
pub(crate) mod feedforward;
#[cfg(test)]
pub(crate) mod sample;
mod scratch;
pub(crate) mod softmax;
pub(crate) mod transformer;

pub use crate::feedforward::dense::engine::Dense;
pub use crate::feedforward::gradient::engine::{GradientLayer, SympNetStack};
pub use crate::feedforward::resnet::engine::ResNetLayer;
pub use crate::feedforward::volume_preserving::engine::VolumePreservingLayer;
pub use crate::mha::engine::MultiHeadAttention;
pub use crate::symplectic::attention::engine::SymplecticAttention;
pub use crate::symplectic::linear::engine::LinearSymplecticAttention;
pub use crate::symplectic::psd::PsdLayer;
pub use crate::vpa::engine::VolumePreservingAttention;
pub use backward::{Backward, Chain};
pub use batch::{Batched, LanesOf, forward_in_lanes};
pub use cayley::MAX_SPECIALISED_SEQ;
pub use classification::{ClassificationLayer, ClassificationTransformer};
pub use element::Element;
pub use fast_lanes::FastLanes;
pub use feedforward::{FeedForward, ResNetStack, StackLayer, VolumePreservingFeedForward};
pub use scratch::Scratch;
pub use transformer::{
    BlockAttention, LinearSymplecticTransformer, StandardTransformerIntegrator,
    SymplecticTransformer, Transformer, Upscaled, Upscaling, VolumePreservingTransformer,
};

use nalgebra::{DMatrix, DMatrixView, DVector, RealField};

use crate::error::Error;
use crate::error::INPUT;
use crate::layer::check_finite;
use crate::scalar::Field;

/// A layer or network of run-time size on sequences `Z ∈ R^{dim×T}` (columns are time steps):
/// the run-time counterpart of [`crate::SequenceLayer`].
pub trait Forward<S: Element> {
    /// GML's name of it, in errors.
    fn name(&self) -> &'static str;

    /// The dimension of a state, and the sequence length if it takes only one.
    fn input_shape(&self) -> (usize, Option<usize>);

    /// The output for `z`, whose shape has been checked against
    /// [`input_shape`](Self::input_shape), written over `z` (which takes the output's shape),
    /// every intermediate matrix from `scratch` and given back to it.
    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>);

    /// The output for `z`, whose shape has been checked against
    /// [`input_shape`](Self::input_shape): [`forward_in_place`](Self::forward_in_place) on a
    /// copy, with buffers of its own.
    fn forward_unchecked(&self, z: &DMatrix<S>) -> DMatrix<S> {
        let mut out = z.clone();
        self.forward_in_place(&mut out, &mut Scratch::new());
        out
    }

    /// The output for `z`.
    ///
    /// # Errors
    /// [`Error::SequenceShape`] if `z` does not have the [`input_shape`](Self::input_shape).
    fn forward(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error> {
        self.check_shape(z)?;
        Ok(self.forward_unchecked(z))
    }

    /// [`forward`](Self::forward), checking the input and the output for NaN and infinities
    /// (networks made of blocks check after every block, as their compile-time twins do).
    ///
    /// # Errors
    /// As [`forward`](Self::forward), and [`Error::NonFinite`] for the first non-finite value.
    fn forward_checked(&self, z: &DMatrix<S>) -> Result<DMatrix<S>, Error>
    where
        S: RealField,
    {
        self.check_shape(z)?;
        check_finite(z, INPUT, None)?;
        let out = self.forward_unchecked(z);
        check_finite(&out, self.name(), None)?;
        Ok(out)
    }

    /// `Ok` if `z` has the [`input_shape`](Self::input_shape).
    ///
    /// # Errors
    /// [`Error::SequenceShape`] otherwise.
    fn check_shape(&self, z: &DMatrix<S>) -> Result<(), Error> {
        let (rows, cols) = self.input_shape();
        let cols = cols.unwrap_or(z.ncols());
        if z.shape() == (rows, cols) {
            Ok(())
        } else {
            Err(Error::SequenceShape {
                layer: self.name(),
                expected_rows: rows,
                expected_cols: cols,
                found_rows: z.nrows(),
                found_cols: z.ncols(),
            })
        }
    }
}

/// The `rows×cols` matrix of the column-major `values` (as Julia stores it), named `name` in the
/// error.
pub(crate) fn matrix<S: Field>(
    name: &'static str,
    rows: usize,
    cols: usize,
    values: &[S],
) -> Result<DMatrix<S>, Error> {
    if Some(values.len()) != rows.checked_mul(cols) {
        return Err(Error::WeightLength {
            name,
            expected: rows.saturating_mul(cols),
            found: values.len(),
        });
    }
    Ok(DMatrix::from_column_slice(rows, cols, values))
}

/// The vector of `values`, which must have `len` entries, named `name` in the error.
pub(crate) fn vector<S: Field>(
    name: &'static str,
    len: usize,
    values: &[S],
) -> Result<DVector<S>, Error> {
    if values.len() != len {
        return Err(Error::WeightLength {
            name,
            expected: len,
            found: values.len(),
        });
    }
    Ok(DVector::from_column_slice(values))
}

/// `aᵀ·b` ([`Element::tr_mul_to`]), on a buffer of `scratch`.
pub(crate) fn tr_mul<'a, 'b, S: Element>(
    a: impl Into<DMatrixView<'a, S>>,
    b: impl Into<DMatrixView<'b, S>>,
    scratch: &mut Scratch<S>,
) -> DMatrix<S> {
    let (a, b) = (a.into(), b.into());
    // Every entry written, unless the sums are empty.
    let mut out = if a.nrows() > 0 {
        scratch.unfilled(a.ncols(), b.ncols())
    } else {
        scratch.zeros(a.ncols(), b.ncols())
    };
    S::tr_mul_to(&a, &b, &mut out);
    out
}

/// `a·b` ([`Element::mul_to`]), on a buffer of `scratch`.
pub(crate) fn mul<'a, 'b, S: Element>(
    a: impl Into<DMatrixView<'a, S>>,
    b: impl Into<DMatrixView<'b, S>>,
    scratch: &mut Scratch<S>,
) -> DMatrix<S> {
    let (a, b) = (a.into(), b.into());
    // Every entry written, unless the sums are empty.
    let mut out = if a.ncols() > 0 {
        scratch.unfilled(a.nrows(), b.ncols())
    } else {
        scratch.zeros(a.nrows(), b.ncols())
    };
    S::mul_to(&a, &b, &mut out);
    out
}

/// The half `n` of a phase space `R^dim = (q, p)`, or [`Error::PhaseSpace`] naming `layer` for
/// an odd `dim`.
pub(crate) fn half(layer: &'static str, dim: usize) -> Result<usize, Error> {
    if dim.is_multiple_of(2) {
        Ok(dim / 2)
    } else {
        Err(Error::PhaseSpace { layer, dim })
    }
}
