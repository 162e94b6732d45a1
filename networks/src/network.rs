//! The object-safe face of a loaded network: sizes, forward pass and rollout on `f64` slices,
//! computed in the network's own scalar.

use core::marker::PhantomData;

use geomattn::engine::Batched as EngineLanes;
use geomattn::nalgebra::{RealField, SMatrix, SMatrixView, SMatrixViewMut, SVector};
use geomattn::{BatchScalar, Field, LaneTwin, MapScalar, Real, SequenceLayer, iterate};

#[cfg(feature = "batch")]
use crate::batch::Batch as Batched;
use crate::{Arch, Error};

/// Without the feature `batch`, [`Network`]'s supertrait is this empty trait, which every type
/// has: no batched passes are compiled.
#[cfg(not(feature = "batch"))]
mod unbatched {
    pub trait Batched {}
    impl<T: ?Sized> Batched for T {}
}
#[cfg(not(feature = "batch"))]
use unbatched::Batched;

/// The scalar a network computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `f32`, as the weights were trained.
    F32,
    /// `f64` (the weights are converted exactly).
    F64,
}

/// A network loaded for one [`Arch`]: the sizes and the two things one does with an integrator.
/// Sequences are flattened column-major (state after state), as in Julia and nalgebra. With the
/// feature `batch`, also the batched passes of `batch::Batch`.
pub trait Network: Batched + Send + Sync {
    /// The architecture it was loaded as.
    fn arch(&self) -> &Arch;

    /// The scalar it computes in.
    fn precision(&self) -> Precision;

    /// One forward pass on a window of [`Arch::seq`] states of [`Arch::dim`] values each.
    ///
    /// # Errors
    /// [`Error::Length`] for a window of the wrong size, [`Error::NonFinite`] for NaN or ∞ in it.
    fn forward(&self, window: &[f64]) -> Result<Vec<f64>, Error>;

    /// GML's `iterate` with its default `prediction_window = seq_length`, as a stream computed
    /// state by state as it is read: the initial window's `seq` states, then the `seq` states of
    /// each forward pass on the last window, without end (take as many as wanted: GML's
    /// `n_points`). Each state is `dim` values, widened exactly to `f64` from the network's
    /// scalar. Memory stays bounded however far it is read. A state that stops being finite is
    /// handed out as computed: the reader decides where the trajectory ends.
    ///
    /// ```
    /// use geomattn_networks::{Arch, Precision, open_file};
    /// let arch: Arch = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)".parse()?;
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
    /// let net = open_file(path, &arch, Precision::F64)?;
    /// let z0 = [0.0, 0.89, 0.45];
    /// let states: Vec<Vec<f64>> = net.states(&z0)?.take(1_000).collect();
    /// assert_eq!(states[0], z0);
    /// assert_eq!(states.len(), 1_000);
    /// # Ok::<(), geomattn_networks::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`forward`](Self::forward), for the initial window.
    fn states<'a>(
        &'a self,
        initial: &[f64],
    ) -> Result<Box<dyn Iterator<Item = Vec<f64>> + 'a>, Error>;

    /// The first `steps + 1` states of [`states`](Self::states) (`z₀ … z_steps`, the initial
    /// window's first; fewer than `seq` cut the window short), flattened. `progress` is called
    /// with the number of states computed so far, after each state.
    ///
    /// # Errors
    /// As [`forward`](Self::forward), and [`Error::Diverged`] at the first state that is not
    /// finite (nothing is computed after it).
    fn rollout(
        &self,
        initial: &[f64],
        steps: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Vec<f64>, Error> {
        first_states(self.states(initial)?, steps, progress)
    }
}

/// [`Network::rollout`] on a stream of states, the same code for every network type (a provided
/// method's body is compiled once per implementing type).
fn first_states(
    states: Box<dyn Iterator<Item = Vec<f64>> + '_>,
    steps: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<f64>, Error> {
    let mut out = Vec::new();
    for (state, z) in states.take(steps.saturating_add(1)).enumerate() {
        if z.iter().any(|x| !x.is_finite()) {
            return Err(Error::Diverged { state });
        }
        out.extend(z);
        progress(state + 1);
    }
    Ok(out)
}

/// The scalars a network computes in and a batch buffer holds: `f32` and `f64`, converted
/// through `f64` (exactly, and not at all when the two agree); the scalars of the lane path.
pub trait Scalar: RealField + Field + Copy + BatchScalar + EngineLanes {
    /// Its [`Precision`].
    const PRECISION: Precision;
    /// `net` on every window of a flat column-major `(D, T, B)` buffer on the lane path with the
    /// vectorised functions ([`crate::batch::Arithmetic::Fast`]), where this scalar has it: `f32`
    /// with the feature `lanes`, on a processor with AVX2 or AVX-512
    /// ([`geomattn::Isa::is_compact`]). `None` (the scalar path) elsewhere, and always for `f64`:
    /// compiling the lane path (the whole network inlined) for every network type of the grid in
    /// both scalars more than doubled the build's time and memory.
    ///
    /// # Errors
    /// As [`geomattn::Lanewise::forward_flat`].
    #[doc(hidden)]
    fn vector_lanes<Net, const D: usize, const T: usize>(
        _net: &Net,
        _input: &[Self],
        _output: &mut [Self],
    ) -> Option<Result<(), geomattn::Error>>
    where
        Net: LaneTwin<D, T, Scalar = Self>,
    {
        None
    }
    /// `x`, rounded to the nearest value of `Self`.
    fn from_double(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn to_double(self) -> f64;
}

impl Scalar for f32 {
    const PRECISION: Precision = Precision::F32;
    #[cfg(feature = "lanes")]
    fn vector_lanes<Net, const D: usize, const T: usize>(
        net: &Net,
        input: &[f32],
        output: &mut [f32],
    ) -> Option<Result<(), geomattn::Error>>
    where
        Net: LaneTwin<D, T, Scalar = f32>,
    {
        crate::batch::vector_lanes::<Net, D, T>(net, input, output)
    }
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
    // Inlined into the lane path's batch loop (feature `lanes`), compiled for each instruction
    // set.
    #[cfg_attr(feature = "lanes", inline(always))]
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

/// The same units over another scalar, weight by weight.
impl<Att, Ff> MapScalar for Units<Att, Ff>
where
    Att: MapScalar,
    Ff: MapScalar<Scalar = Att::Scalar>,
{
    type Scalar = Att::Scalar;
    type Over<S2: Field> = Units<Att::Over<S2>, Ff::Over<S2>>;

    fn map_scalar<S2: Field>(&self, mut f: impl FnMut(Self::Scalar) -> S2) -> Self::Over<S2> {
        Units(
            self.0
                .iter()
                .map(|(attention, feedforward)| {
                    (attention.map_scalar(&mut f), feedforward.map_scalar(&mut f))
                })
                .collect(),
        )
    }
}

/// The lane twin of every unit (what [`crate::batch`] runs on the lane path): built once per
/// batch call, on the heap, as the units are.
impl<Att, Ff, const D: usize, const T: usize> LaneTwin<D, T> for Units<Att, Ff>
where
    Att: LaneTwin<D, T>,
    Ff: LaneTwin<D, T, Scalar = Att::Scalar>,
{
    type Twin<X: Real> = Units<Att::Twin<X>, Ff::Twin<X>>;

    fn twin<X: Real>(&self, mut f: impl FnMut(Self::Scalar) -> X) -> Self::Twin<X> {
        Units(
            self.0
                .iter()
                .map(|(attention, feedforward)| (attention.twin(&mut f), feedforward.twin(&mut f)))
                .collect(),
        )
    }
}

/// A network of type `Net` on windows of `T` states in `R^D`, computing in `S`.
pub(crate) struct Loaded<S, Net, const D: usize, const T: usize> {
    pub(crate) arch: Arch,
    pub(crate) net: Net,
    pub(crate) scalar: PhantomData<S>,
}

/// Checks an input's length and values.
pub(crate) fn checked(
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

/// The stream of [`Network::states`]: the window the next forward pass starts from, in the first
/// `T` slots of `buffer`, and the states to hand out, in its last `T` (the initial window's
/// at first, then each prediction).
struct States<'a, S, Net, const D: usize, const T: usize> {
    net: &'a Net,
    buffer: Vec<SVector<S, D>>,
    next: usize,
}

impl<S, Net, const D: usize, const T: usize> Iterator for States<'_, S, Net, D, T>
where
    S: Scalar,
    Net: SequenceLayer<S, D, T>,
{
    type Item = Vec<f64>;

    fn next(&mut self) -> Option<Vec<f64>> {
        if self.next == 2 * T {
            // The last `T` states become the window; GML's `iterate` over `2T` slots copies it
            // into the first `T` and appends one prediction (the whole output window).
            let window = SMatrix::<S, D, T>::from_columns(&self.buffer[T..]);
            iterate::<S, D, T, T, Net>(self.net, &window, &mut self.buffer);
            self.next = T;
        }
        let state = &self.buffer[self.next];
        self.next += 1;
        Some(state.iter().map(|x| x.to_double()).collect())
    }
}

impl<S, Net, const D: usize, const T: usize> Network for Loaded<S, Net, D, T>
where
    S: Scalar,
    Net: SequenceLayer<S, D, T> + LaneTwin<D, T, Scalar = S> + Send + Sync,
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

    fn states<'a>(
        &'a self,
        initial: &[f64],
    ) -> Result<Box<dyn Iterator<Item = Vec<f64>> + 'a>, Error> {
        checked("the initial window", initial, &self.arch, &[D * T])?;
        let mut buffer = vec![SVector::<S, D>::zeros(); 2 * T];
        for (slot, state) in buffer[T..].iter_mut().zip(initial.chunks_exact(D)) {
            *slot = SVector::from_iterator(state.iter().map(|&x| S::from_double(x)));
        }
        Ok(Box::new(States::<S, Net, D, T> {
            net: &self.net,
            buffer,
            next: T,
        }))
    }
}
