//! The object-safe face of a loaded network: sizes, forward pass and rollout on `f64` slices,
//! computed in the network's own scalar.

use geomattn::engine::Batched as EngineLanes;
use geomattn::nalgebra::RealField;
use geomattn::{BatchScalar, Field, LaneTwin};

use crate::batch::Batch;
use crate::error::Error;
use geomattn_arch::Arch;

/// The scalar a network computes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `f32`, as the weights were trained.
    F32,
    /// `f64` (the weights are converted exactly).
    F64,
}

/// A network loaded for one [`Arch`]: the sizes and the two things one does with an integrator.
/// Sequences are flattened column-major (state after state), as in Julia and nalgebra. Its
/// supertrait [`Batch`] has the batched passes.
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
    /// A compile-time network `net` on every window of a flat column-major `(D, T, B)` buffer on
    /// the lane path with the vectorised functions ([`crate::batch::Arithmetic::Fast`]), where
    /// this scalar has it: `f32` on a processor with AVX2 or AVX-512
    /// ([`geomattn::Isa::is_compact`]). `None` (the scalar path) elsewhere, and always for `f64`,
    /// whose batches of compile-time networks stay on the scalar path (the run-time engine has
    /// lanes in both).
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
