//! The object-safe face of a loaded network: sizes, forward pass and rollout on `f64` slices,
//! computed in the network's own scalar.

use core::marker::PhantomData;

use geomattn::nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use geomattn::{Field, SequenceLayer, iterate};

use crate::batch::Batch;
use crate::{Arch, Error};

/// The scalar a network computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `f32`, as the weights were trained.
    F32,
    /// `f64` (the weights are converted exactly).
    F64,
}

/// A network loaded for one [`Arch`]: the sizes and the two things one does with an integrator.
/// Sequences are flattened column-major (state after state), as in Julia and nalgebra.
pub trait Network: Batch + Send + Sync {
    /// The architecture it was loaded as.
    fn arch(&self) -> &Arch;

    /// The scalar it computes in.
    fn precision(&self) -> Precision;

    /// One forward pass on a window of [`Arch::seq`] states of [`Arch::dim`] values each.
    ///
    /// # Errors
    /// [`Error::Length`] for a window of the wrong size, [`Error::NonFinite`] for NaN or ∞ in it.
    fn forward(&self, window: &[f64]) -> Result<Vec<f64>, Error>;

    /// GML's `iterate` with its default `prediction_window = seq_length`: starting from the
    /// initial window (`seq` states), each prediction appends the network's whole output window
    /// (the last one may be cut short). Returns the states `z₀ … z_steps` (`steps + 1` of them,
    /// the initial window's first), flattened. `progress` is called with the number of states
    /// written so far.
    ///
    /// # Errors
    /// As [`forward`](Self::forward), and [`Error::Diverged`] if a state stops being finite.
    fn rollout(
        &self,
        initial: &[f64],
        steps: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Vec<f64>, Error>;
}

/// The scalars a network computes in and a batch buffer holds: `f32` and `f64`, converted
/// through `f64` (exactly, and not at all when the two agree).
pub trait Scalar: RealField + Field + Copy {
    /// Its [`Precision`].
    const PRECISION: Precision;
    /// `x`, rounded to the nearest value of `Self`.
    fn from_double(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_double(self) -> f64;
}

impl Scalar for f32 {
    const PRECISION: Precision = Precision::F32;
    #[allow(clippy::cast_possible_truncation)]
    fn from_double(x: f64) -> Self {
        x as f32
    }
    fn to_double(self) -> f64 {
        f64::from(self)
    }
}

impl Scalar for f64 {
    const PRECISION: Precision = Precision::F64;
    fn from_double(x: f64) -> Self {
        x
    }
    fn to_double(self) -> f64 {
        self
    }
}

/// `L` transformer units read one by one: the same forward pass as [`geomattn::Transformer`]
/// (attention, then the feed-forward part, unit after unit) with `L` known at run time.
pub(crate) struct Units<Att, Ff>(pub(crate) Vec<(Att, Ff)>);

impl<S: Field, const D: usize, const T: usize, Att, Ff> SequenceLayer<S, D, T> for Units<Att, Ff>
where
    Att: SequenceLayer<S, D, T>,
    Ff: SequenceLayer<S, D, T>,
{
    fn forward_into(&self, z: SMatrixView<'_, S, D, T>, mut out: SMatrixViewMut<'_, S, D, T>) {
        let mut x = z.into_owned();
        for (attention, feedforward) in &self.0 {
            feedforward.forward_into(attention.forward(&x).as_view(), x.as_view_mut());
        }
        out.copy_from(&x);
    }

    /// As [`geomattn::Transformer`]'s: the error names the layer and its block.
    fn forward_checked_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out: SMatrixViewMut<'_, S, D, T>,
    ) -> Result<(), geomattn::Error>
    where
        S: RealField,
    {
        geomattn::forward_blocks_checked(&self.0, z, out)
    }
}

/// A network of type `Net` on windows of `T` states in `R^D`, computing in `S`.
pub(crate) struct Loaded<S, Net, const D: usize, const T: usize> {
    pub(crate) arch: Arch,
    pub(crate) net: Net,
    pub(crate) scalar: PhantomData<S>,
}

/// Checks an input's length and values.
fn checked(
    what: &'static str,
    values: &[f64],
    arch: &Arch,
    expected: &[usize],
) -> Result<(), Error> {
    if !expected.contains(&values.len()) {
        let expected: Vec<String> = expected.iter().map(ToString::to_string).collect();
        return Err(Error::Length {
            what,
            arch: arch.to_string(),
            expected: expected.join(" or "),
            found: values.len(),
        });
    }
    match values.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// States per call of `iterate` between two progress reports: a multiple of `T`, so the
/// predictions fall exactly as in one call.
const CHUNK_WINDOWS: usize = 64;

impl<S, Net, const D: usize, const T: usize> Network for Loaded<S, Net, D, T>
where
    S: Scalar,
    Net: SequenceLayer<S, D, T> + Send + Sync,
{
    fn arch(&self) -> &Arch {
        &self.arch
    }

    fn precision(&self) -> Precision {
        S::PRECISION
    }

    fn forward(&self, window: &[f64]) -> Result<Vec<f64>, Error> {
        checked("the window", window, &self.arch, &[D * T])?;
        let z = SMatrix::<S, D, T>::from_iterator(window.iter().map(|&x| S::from_double(x)));
        Ok(self.net.forward(&z).iter().map(|x| x.to_double()).collect())
    }

    fn rollout(
        &self,
        initial: &[f64],
        steps: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Vec<f64>, Error> {
        checked("the initial window", initial, &self.arch, &[D * T])?;
        let states = steps + 1;
        let mut out = vec![SVector::<S, D>::zeros(); states.max(T)];
        let mut window =
            SMatrix::<S, D, T>::from_iterator(initial.iter().map(|&x| S::from_double(x)));
        let mut filled = T;
        for (slot, column) in out.iter_mut().zip(window.column_iter()) {
            *slot = column.into_owned();
        }
        while filled < states {
            let end = states.min(filled + CHUNK_WINDOWS * T);
            // `iterate` rewrites the window it starts from in the first T slots of the chunk.
            let chunk = &mut out[filled - T..end];
            iterate::<S, D, T, T, Net>(&self.net, &window, chunk);
            window = SMatrix::from_columns(&out[end - T..end]);
            filled = end;
            progress(filled);
        }
        out.truncate(states);
        if let Some(state) = out.iter().position(|z| z.iter().any(|x| !x.is_finite())) {
            return Err(Error::Diverged { state });
        }
        Ok(out
            .iter()
            .flat_map(|z| z.iter().map(|x| x.to_double()))
            .collect())
    }
}
