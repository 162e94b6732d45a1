//! The two layer traits: [`SequenceLayer`] (a map of whole sequences, `R^{D×T} → R^{D×T}`) and
//! [`ColumnLayer`] (a map of one time step, `R^IN → R^OUT`, applied to every column), and the batch
//! entry points built on them.
//!
//! Every column layer that keeps the dimension (`IN = OUT = D`) is a sequence layer for every `T`,
//! through one blanket implementation, so the per-time-step layers (ResNet, volume-preserving,
//! gradient, the feed-forward networks) compose with the attention layers without glue. A column
//! layer that changes the dimension ([`crate::Dense`], GML's up and down projections) maps
//! sequences with [`ColumnLayer::apply_columns`].

use nalgebra::{Dim, Matrix, RawStorage, RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};

use crate::error::Error;
use crate::error::{FieldPath, INPUT, NonFinite};
use crate::scalar::Field;

/// A map `R^{D×T} → R^{D×T}` applied to one sequence (one column per time step) at a time.
///
/// Implementors write [`forward_into`](Self::forward_into); the one-sequence, batched and
/// flat-buffer forms are provided on top of it and allocate nothing. Each has a checked variant
/// (`forward_checked`, …) that returns [`Error::NonFinite`] naming the layer and the time step
/// where a NaN or an infinity first appears, so a real-time caller can reject bad input without
/// scanning outputs; the unchecked forms stay the fast path.
///
/// ```
/// use geomattn::{Error, SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::Matrix2x3};
/// let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
/// let mut z = Matrix2x3::new(1.0, 0.0, 2.0,
///                            0.0, 1.0, 1.0);
/// assert!(layer.forward_checked(&z).is_ok());
/// z[(1, 2)] = f64::NAN;
/// let Err(Error::NonFinite(found)) = layer.forward_checked(&z) else { panic!() };
/// assert_eq!((found.layer, found.step), ("input", 2));
/// assert_eq!(found.to_string(), "non-finite value at time step 2 in the input");
/// # Ok::<(), Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layer of {D}×{T} sequences of `{S}`",
    label = "not a `SequenceLayer<{S}, {D}, {T}>`",
    note = "every field of a `derive(Network)` struct is a layer of the network's sequences: the same scalar, dimension and length (see `geomattn::network`)"
)]
pub trait SequenceLayer<S: Field, const D: usize, const T: usize> {
    /// Writes the layer's output for the sequence `z` into `out`.
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, out: SMatrixViewMut<'_, S, D, T>);

    /// The layer's name in errors: its type's name without path and parameters.
    fn layer_name(&self) -> &'static str {
        short_type_name::<Self>()
    }

    /// [`forward_into`](Self::forward_into), checking the input and the output for NaN and
    /// infinities. Networks made of blocks check after every layer.
    ///
    /// # Errors
    /// [`Error::NonFinite`] for the first non-finite value, in the input or in the output.
    fn forward_checked_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        mut out: SMatrixViewMut<'_, S, D, T>,
    ) -> Result<(), Error>
    where
        S: RealField,
    {
        check_finite(&z, INPUT, None)?;
        self.forward_into(z, out.as_view_mut());
        check_finite(&out, self.layer_name(), None)
    }

    /// The output for one sequence, checked (see [`forward_checked_into`](Self::forward_checked_into)).
    ///
    /// # Errors
    /// [`Error::NonFinite`] for the first non-finite value.
    fn forward_checked(&self, z: &SMatrix<S, D, T>) -> Result<SMatrix<S, D, T>, Error>
    where
        S: RealField,
    {
        let mut out = SMatrix::<S, D, T>::zeros();
        self.forward_checked_into(z.as_view(), out.as_view_mut())?;
        Ok(out)
    }

    /// [`forward_batch`](Self::forward_batch), checked; the error names the sequence.
    ///
    /// # Errors
    /// [`Error::BatchShape`] as the unchecked form, [`Error::NonFinite`] for the first
    /// non-finite value (the sequences before it are written).
    fn forward_batch_checked(
        &self,
        inputs: &[SMatrix<S, D, T>],
        outputs: &mut [SMatrix<S, D, T>],
    ) -> Result<(), Error>
    where
        S: RealField,
    {
        check_batch_lengths(inputs, outputs)?;
        for (k, (z, out)) in inputs.iter().zip(outputs.iter_mut()).enumerate() {
            self.forward_checked_into(z.as_view(), out.as_view_mut())
                .map_err(|e| in_sequence(e, k))?;
        }
        Ok(())
    }

    /// [`forward_flat`](Self::forward_flat), checked; the error names the sequence.
    ///
    /// # Errors
    /// As [`forward_flat`](Self::forward_flat), and [`Error::NonFinite`] for the first
    /// non-finite value (the sequences before it are written).
    fn forward_flat_checked(&self, input: &[S], output: &mut [S]) -> Result<(), Error>
    where
        S: RealField,
    {
        for (k, (z, out)) in flat_sequences::<S, D, T>(input, output)?.enumerate() {
            self.forward_checked_into(z, out)
                .map_err(|e| in_sequence(e, k))?;
        }
        Ok(())
    }

    /// The output for one sequence.
    // Inlined, as every layer's `forward_into` is: a caller compiled for an instruction set (the
    // lane path's batch loops) must not call a copy compiled without it, whose vector intrinsics
    // are then calls (measured: the spec's lane path ran 3.9× slower than `Lanewise` for it).
    #[cfg_attr(not(debug_assertions), inline(always))]
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
        for (z, out) in flat_sequences::<S, D, T>(input, output)? {
            self.forward_into(z, out);
        }
        Ok(())
    }

    /// A trajectory, as GML's `iterate(nn, ics; n_points = out.len())` with its default
    /// prediction window, the whole window: the `T` states of `initial`, then the `T` states of
    /// each forward pass on the last `T`, until `out` is full (the last pass may be cut short; an
    /// `out` shorter than `T` holds only initial states). The sizes come from the types: a
    /// transformer has one window length `T`; a network of one time step (a [`ColumnLayer`],
    /// GML's feed-forward networks) is a layer for every `T`, and rolls out from one state,
    /// `initial` a `D×1` matrix (an `SVector`). Allocates nothing. Another prediction window:
    /// [`iterate`](crate::iterate).
    ///
    /// ```
    /// use geomattn::{SequenceLayer, SkewSymmetric, SkewVpa, nalgebra::{Matrix2x3, Vector2}};
    /// let layer = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.5])?);
    /// let initial = Matrix2x3::new(1.0, 0.0, 2.0,
    ///                              0.0, 1.0, 1.0);
    /// let mut states = [Vector2::zeros(); 8];
    /// layer.rollout(&initial, &mut states);
    /// let (next, after) = (layer.forward(&initial), layer.forward(&layer.forward(&initial)));
    /// for j in 0..3 {
    ///     assert_eq!(states[j], initial.column(j));
    ///     assert_eq!(states[3 + j], next.column(j));
    /// }
    /// assert_eq!(states[6..], [after.column(0), after.column(1)]);
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    fn rollout(&self, initial: &SMatrix<S, D, T>, out: &mut [SVector<S, D>]) {
        crate::architectures::iterate::<S, D, T, T, Self>(self, initial, out);
    }
}

/// The sequences of two flat `(D, T, B)` buffers, viewed in place, after checking that they have
/// the same length, a whole number of sequences.
fn flat_sequences<'a, S: Field, const D: usize, const T: usize>(
    input: &'a [S],
    output: &'a mut [S],
) -> Result<impl Iterator<Item = (SMatrixView<'a, S, D, T>, SMatrixViewMut<'a, S, D, T>)>, Error> {
    let count = flat_sequence_count(input, output, D * T)?;
    // A zero-sized sequence (D·T = 0) has nothing to compute: no items. `max(1)` only keeps the
    // chunk size valid; `take` then yields none.
    let chunk = (D * T).max(1);
    Ok(input
        .chunks_exact(chunk)
        .zip(output.chunks_exact_mut(chunk))
        .take(count)
        .map(|(z, out)| {
            (
                SMatrixView::<S, D, T>::from_slice(z),
                SMatrixViewMut::<S, D, T>::from_slice(out),
            )
        }))
}

/// The number of `per_item`-long sequences in two flat buffers, after checking that they have the
/// same length, a whole number of sequences (none if `per_item = 0`).
pub(crate) fn flat_sequence_count<S>(
    input: &[S],
    output: &[S],
    per_item: usize,
) -> Result<usize, Error> {
    let shape_error = |detail| Error::BatchShape {
        detail,
        input: input.len(),
        output: output.len(),
        per_item,
    };
    if input.len() != output.len() {
        return Err(shape_error("input and output buffers differ in length"));
    }
    if per_item != 0 && !input.len().is_multiple_of(per_item) {
        return Err(shape_error("buffer length is not a multiple of d·T"));
    }
    Ok(input.len().checked_div(per_item).unwrap_or(0))
}

/// `Err(NonFinite)` at the first time step of `m` with a NaN or an infinity.
pub(crate) fn check_finite<S: RealField, D: Dim, T: Dim, SM: RawStorage<S, D, T>>(
    m: &Matrix<S, D, T, SM>,
    layer: &'static str,
    block: Option<usize>,
) -> Result<(), Error> {
    match m
        .column_iter()
        .position(|c| c.iter().any(|x| !x.is_finite()))
    {
        None => Ok(()),
        Some(step) => Err(Error::NonFinite(NonFinite {
            sequence: None,
            block,
            field: FieldPath::default(),
            layer,
            step,
        })),
    }
}

/// The error of one sequence of a batch, with its index.
fn in_sequence(error: Error, sequence: usize) -> Error {
    match error {
        Error::NonFinite(found) => Error::NonFinite(NonFinite {
            sequence: Some(sequence),
            ..found
        }),
        other => other,
    }
}

/// `geomattn::vpa::VolumePreservingAttention<f64, …>` → `VolumePreservingAttention`.
fn short_type_name<T: ?Sized>() -> &'static str {
    let full = core::any::type_name::<T>();
    let path = full.split('<').next().unwrap_or(full);
    path.rsplit("::").next().unwrap_or(path)
}

/// A map `R^IN → R^OUT` of one time step, applied to every column of a sequence independently.
///
/// The scalar is an associated type (each layer is built for one scalar), which is what lets a
/// single blanket implementation make every `ColumnLayer<D>` (that is, `IN = OUT = D`) a
/// [`SequenceLayer<S, D, T>`] for every `T`.
///
/// ```
/// use geomattn::{ColumnLayer, SequenceLayer, StrictlyLower, VolumePreservingLowerLayer, Identity};
/// use geomattn::nalgebra::{Matrix2x3, Vector2};
/// let w = StrictlyLower::<f64, 2>::from_packed(&[1.0])?;
/// let layer = VolumePreservingLowerLayer::<f64, 2, Identity>::new(w, None);
/// assert_eq!(layer.apply(&Vector2::new(1.0, 1.0)), Vector2::new(1.0, 2.0));
/// let z = Matrix2x3::new(1.0, 0.0, 2.0,
///                        1.0, 5.0, 0.0);
/// // As a sequence layer (the blanket implementation), column by column.
/// assert_eq!(layer.forward(&z), Matrix2x3::new(1.0, 0.0, 2.0,
///                                              2.0, 5.0, 2.0));
/// assert_eq!(layer.apply_columns(&z), layer.forward(&z));
/// # Ok::<(), geomattn::Error>(())
/// ```
pub trait ColumnLayer<const IN: usize, const OUT: usize = IN> {
    /// The scalar the layer's weights and inputs are made of.
    type Scalar: Field;

    /// The layer's output for one vector.
    fn apply(&self, x: &SVector<Self::Scalar, IN>) -> SVector<Self::Scalar, OUT>;

    /// Writes the output for every column of `z` into the same column of `out`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn apply_columns_into<const T: usize>(
        &self,
        z: SMatrixView<'_, Self::Scalar, IN, T>,
        mut out: SMatrixViewMut<'_, Self::Scalar, OUT, T>,
    ) {
        for j in 0..T {
            let column = crate::product::matrix(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |i, _| z[(i, j)],
            );
            let y = self.apply(&column);
            for i in 0..OUT {
                out[(i, j)] = y[i];
            }
        }
    }

    /// The output for every column of one sequence.
    fn apply_columns<const T: usize>(
        &self,
        z: &SMatrix<Self::Scalar, IN, T>,
    ) -> SMatrix<Self::Scalar, OUT, T> {
        let mut out = SMatrix::<Self::Scalar, OUT, T>::zeros();
        self.apply_columns_into(z.as_view(), out.as_view_mut());
        out
    }

    /// [`apply_columns`](Self::apply_columns) for every sequence of a batch.
    ///
    /// # Errors
    /// [`Error::BatchShape`] if `inputs` and `outputs` differ in length.
    fn apply_columns_batch<const T: usize>(
        &self,
        inputs: &[SMatrix<Self::Scalar, IN, T>],
        outputs: &mut [SMatrix<Self::Scalar, OUT, T>],
    ) -> Result<(), Error> {
        check_batch_lengths(inputs, outputs)?;
        for (z, out) in inputs.iter().zip(outputs.iter_mut()) {
            self.apply_columns_into(z.as_view(), out.as_view_mut());
        }
        Ok(())
    }
}

/// Every column layer that keeps the dimension is a sequence layer, for every sequence length.
impl<S: Field, const D: usize, const T: usize, Layer> SequenceLayer<S, D, T> for Layer
where
    Layer: ColumnLayer<D, D, Scalar = S>,
{
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, out: SMatrixViewMut<'_, S, D, T>) {
        self.apply_columns_into(z, out);
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
