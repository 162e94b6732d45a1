//! The backward passes of a batch, several sequences at a time: [`Lanewise::backward_flat`].

use nalgebra::SMatrix;
use num_traits::Zero;

use super::{Functions, Lanewise, Padding, pack, pack_partial, unpack, unpack_partial, zeros};
use crate::backward::{Backward, LaneBackward};
use crate::error::Error;
#[cfg(target_arch = "x86_64")]
use crate::isa::Isa;
use crate::isa::{BatchScalar, LaneVector};
use crate::layer::flat_sequence_count;

impl<L, F: Functions> Lanewise<L, F> {
    /// The backward passes of every sequence of a flat `(D, T, B)` batch,
    /// [`Isa::lanes`](crate::Isa::lanes) sequences at a time: writes each sequence's input
    /// cotangent `∂L/∂Z` into `z_bar` and adds the parameter gradient summed over the batch to
    /// `gradient`, given the inputs `input` and the output cotangents `out_bar` (as
    /// [`Backward::backward_into`] does for one sequence).
    ///
    /// With [`ScalarFunctions`](super::ScalarFunctions) (the default), the input cotangents are
    /// **bit-identical** to [`Backward::backward_into`]'s: every lane runs the scalar operations
    /// in the scalar order. With [`VectorFunctions`](super::VectorFunctions)
    /// ([`Lanewise::vector_functions`], as for the forward pass) `exp`, `tanh` and the products'
    /// sums differ within the bounds stated there, propagated through the layer. The parameter
    /// gradient differs in the order of its sums only: each lane sums its own sequences'
    /// gradients (lane 0 starting from `gradient`), and the lanes are added once at the end of
    /// the call. The tests hold it to
    /// `1e-13` of the largest entry of the scalar sum in f64, for every layer with a backward
    /// pass. The lanes of the last, partial group past its sequences get zero cotangents, so they
    /// add exact zeros (for any input whose forward pass is finite).
    ///
    /// ```
    /// use geomattn::{Backward, Lanewise, SkewSymmetric, SkewVpa};
    /// let layer = SkewVpa::<f64, 3, 4>::skew_sym(SkewSymmetric::from_packed(&[0.5, -1.0, 0.25])?);
    /// let batch: Vec<f64> = (0..3 * 4 * 37).map(|i| (i as f64 * 0.37).sin()).collect();
    /// let out_bar: Vec<f64> = batch.iter().map(|x| 1.0 - x).collect();
    /// let mut lanes = (vec![0.0; batch.len()], layer.zero_gradient());
    /// Lanewise::new(layer).backward_flat(&batch, &out_bar, &mut lanes.0, &mut lanes.1)?;
    ///
    /// let mut scalar = (vec![0.0; batch.len()], layer.zero_gradient());
    /// for ((z, bar), z_bar) in batch.chunks(12).zip(out_bar.chunks(12)).zip(scalar.0.chunks_mut(12)) {
    ///     let (z, bar) = (nalgebra::SMatrix::from_column_slice(z), nalgebra::SMatrix::from_column_slice(bar));
    ///     z_bar.copy_from_slice(layer.backward(&z, &bar, &mut scalar.1).as_slice());
    /// }
    /// assert_eq!(lanes.0, scalar.0);
    /// let difference = lanes.1.weight().a().matrix() - scalar.1.weight().a().matrix();
    /// assert!(difference.amax() <= 1e-13 * scalar.1.weight().a().matrix().amax());
    /// # Ok::<(), geomattn::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::BatchShape`] if the three buffers differ in length or are not a whole number of
    /// `D·T` sequences; then nothing is written.
    pub fn backward_flat<S: BatchScalar, const D: usize, const T: usize>(
        &self,
        input: &[S],
        out_bar: &[S],
        z_bar: &mut [S],
        gradient: &mut L::Gradient,
    ) -> Result<(), Error>
    where
        L: LaneBackward<S, D, T>,
    {
        flat_sequence_count(input, z_bar, D * T)?;
        flat_sequence_count(out_bar, z_bar, D * T)?;
        if D * T == 0 || input.is_empty() {
            return Ok(());
        }
        let buffers = (input, out_bar, z_bar);
        match self.isa {
            // SAFETY: `self.isa` is available on this processor (checked when `self` was built).
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe {
                backward_avx512::<F, S, L, D, T>(&self.layer, buffers, gradient);
            },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { backward_avx2::<F, S, L, D, T>(&self.layer, buffers, gradient) },
            _ => backward_groups::<F::Vector<S::Portable>, L, D, T>(&self.layer, buffers, gradient),
        }
        Ok(())
    }
}

/// A batch's inputs, output cotangents and input cotangents (written), each flat `(D, T, B)`.
type Buffers<'a, S> = (&'a [S], &'a [S], &'a mut [S]);

/// [`backward_groups`] over AVX-512 vectors, compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,avx,fma")]
fn backward_avx512<F: Functions, S: BatchScalar, L, const D: usize, const T: usize>(
    layer: &L,
    buffers: Buffers<'_, S>,
    gradient: &mut L::Gradient,
) where
    L: LaneBackward<S, D, T>,
{
    backward_groups::<F::Vector<S::Avx512>, L, D, T>(layer, buffers, gradient);
}

/// [`backward_groups`] over AVX2 vectors, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx,fma")]
fn backward_avx2<F: Functions, S: BatchScalar, L, const D: usize, const T: usize>(
    layer: &L,
    buffers: Buffers<'_, S>,
    gradient: &mut L::Gradient,
) where
    L: LaneBackward<S, D, T>,
{
    backward_groups::<F::Vector<S::Avx2>, L, D, T>(layer, buffers, gradient);
}

/// The backward passes of the sequences of `buffers` (a whole, non-zero number of `D·T > 0`
/// sequences) through the backward twin of `layer` over `V`, `V::LANES` at a time; the twin's
/// gradient holds `gradient` in lane 0 and sums each lane's sequences, and its lanes are added
/// into `gradient` at the end.
#[cfg_attr(not(debug_assertions), inline(always))]
fn backward_groups<V, L, const D: usize, const T: usize>(
    layer: &L,
    (input, out_bar, z_bar): Buffers<'_, V::Scalar>,
    gradient: &mut L::Gradient,
) where
    V: LaneVector,
    V::Scalar: BatchScalar,
    L: LaneBackward<V::Scalar, D, T>,
{
    let twin = layer.backward_twin(V::splat);
    let mut lane_gradient = L::lift_gradient(
        gradient,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |g| V::from_fn(|k| if k == 0 { g } else { V::Scalar::zero() }),
    );
    let group = V::LANES * D * T;
    let (mut z, mut bar, mut result): (SMatrix<V, D, T>, SMatrix<V, D, T>, SMatrix<V, D, T>) =
        (zeros(), zeros(), zeros());
    let groups = input
        .chunks(group)
        .zip(out_bar.chunks(group))
        .zip(z_bar.chunks_mut(group));
    for ((sequences, cotangents), results) in groups {
        let count = sequences.len() / (D * T);
        let whole = count == V::LANES && V::SHUFFLES;
        if whole {
            pack(sequences, &mut z);
            pack(cotangents, &mut bar);
        } else {
            pack_partial(sequences, count, Padding::FirstSequence, &mut z);
            pack_partial(cotangents, count, Padding::Zeros, &mut bar);
        }
        twin.backward_into(
            z.as_view(),
            bar.as_view(),
            result.as_view_mut(),
            &mut lane_gradient,
        );
        if whole {
            unpack(&result, results);
        } else {
            unpack_partial(&result, results, count);
        }
    }
    *gradient = L::lower_gradient(
        &lane_gradient,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |lanes: V| {
            let mut sum = V::Scalar::zero();
            lanes.for_each_lane(|_, x| sum += x);
            sum
        },
    );
}
