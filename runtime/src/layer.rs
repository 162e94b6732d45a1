//! The interface every sequence-to-sequence layer shares, and the batch entry points built on it.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use crate::{Error, Field};

/// A map `R^{D×T} → R^{D×T}` applied to one sequence (one column per time step) at a time.
///
/// Implementors write [`forward_into`](Self::forward_into); the one-sequence, batched and
/// flat-buffer forms are provided on top of it and allocate nothing.
pub trait SequenceLayer<S: Field, const D: usize, const T: usize> {
    /// Writes the layer's output for the sequence `z` into `out`.
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, out: SMatrixViewMut<'_, S, D, T>);

    /// The output for one sequence.
    fn forward(&self, z: &SMatrix<S, D, T>) -> SMatrix<S, D, T> {
        let mut out = SMatrix::<S, D, T>::zeros();
        self.forward_into(z.as_view(), out.as_view_mut());
        out
    }

    /// Replaces the sequence `z` by the layer's output (through one copy on the stack).
    fn forward_in_place(&self, z: &mut SMatrix<S, D, T>) {
        let input = *z;
        self.forward_into(input.as_view(), z.as_view_mut());
    }

    /// Applies the layer to every sequence of a batch.
    ///
    /// # Errors
    /// [`Error::BatchShape`] if `inputs` and `outputs` differ in length.
    fn forward_batch(
        &self,
        inputs: &[SMatrix<S, D, T>],
        outputs: &mut [SMatrix<S, D, T>],
    ) -> Result<(), Error> {
        check_batch_lengths(inputs, outputs)?;
        for (z, out) in inputs.iter().zip(outputs.iter_mut()) {
            self.forward_into(z.as_view(), out.as_view_mut());
        }
        Ok(())
    }

    /// Applies the layer to a flat buffer in Julia's `(D, T, B)` column-major layout (identical to
    /// a row-major `[B][T][D]` array), viewing each sequence in place, without copying.
    ///
    /// ```
    /// use geomattn::{SequenceLayer, SkewSymmetric, VolumePreservingAttention};
    /// let a = SkewSymmetric::<f64, 2>::from_packed(&[0.5])?;
    /// let layer = VolumePreservingAttention::<f64, 2, 3, _>::skew_sym(a);
    /// let batch = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, /* second sequence */ 2.0, 0.0, 0.0, 2.0, 1.0, -1.0];
    /// let mut out = [0.0; 12];
    /// layer.forward_flat(&batch, &mut out)?;
    /// assert!(layer.forward_flat(&batch[..11], &mut out[..11]).is_err());
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::BatchShape`] if the buffers differ in length or are not a whole number of
    /// `D·T` sequences.
    fn forward_flat(&self, input: &[S], output: &mut [S]) -> Result<(), Error> {
        let per_item = D * T;
        let shape_error = |detail| Error::BatchShape {
            detail,
            input: input.len(),
            output: output.len(),
            per_item,
        };
        if input.len() != output.len() {
            return Err(shape_error("input and output buffers differ in length"));
        }
        if per_item == 0 {
            return Ok(());
        }
        if !input.len().is_multiple_of(per_item) {
            return Err(shape_error("buffer length is not a multiple of d·T"));
        }
        for (z, out) in input
            .chunks_exact(per_item)
            .zip(output.chunks_exact_mut(per_item))
        {
            self.forward_into(
                SMatrixView::<S, D, T>::from_slice(z),
                SMatrixViewMut::<S, D, T>::from_slice(out),
            );
        }
        Ok(())
    }
}

/// The check every batched entry point starts with: as many outputs as inputs.
pub(crate) fn check_batch_lengths<A, B>(inputs: &[A], outputs: &[B]) -> Result<(), Error> {
    if inputs.len() == outputs.len() {
        Ok(())
    } else {
        Err(Error::BatchShape {
            detail: "input and output batches differ in length",
            input: inputs.len(),
            output: outputs.len(),
            per_item: 1,
        })
    }
}
