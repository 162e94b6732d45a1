//! GML's epochs over trajectories: its windows, its minibatches, its loop.
//!
//! The data are trajectories of `D`-dimensional states, all of the same length `n` (GML's
//! `(dim, n_time_steps, n_params)` array). A window starts at a state `s` of a trajectory: its
//! input is the `T` states `s … s+T−1`, its target the `T` states after them, `s+T … s+2T−1` (GML's
//! `Batch(batch_size, T)`, prediction window `T`). So `n − 2T + 1` starts per trajectory.
//!
//! An epoch (GML's `optimize_for_one_epoch!`) draws every `(start, trajectory)` pair once, in
//! GML's order: the starts shuffled, the trajectories shuffled, then all pairs with the start
//! varying fastest, cut into minibatches of `batch_size` (the last holds the rest). For each
//! minibatch it takes the [transformer loss](super::loss) and its gradient and makes one
//! optimiser step; the epoch's loss is the mean of the minibatch losses, each taken before its
//! step. The shuffles come from the caller's generator, so a seed reproduces a run; Julia's
//! random stream is not reproduced, so the order differs from GML's for the same seed.
//!
//! A training loop: a small skew-weighted volume-preserving transformer learns a rotation of R³
//! from eight trajectories, with GML's Adam.
//!
//! ```
//! use geomattn::nalgebra::{Rotation3, SVector, Vector3};
//! use geomattn::train::{AdamOptimizer, Optimizer, Trajectories, train_epoch};
//! use geomattn::{Schema, SkewWeight, Tanh, VolumePreservingTransformer, from_flat};
//! use rand::{Rng, SeedableRng};
//!
//! // dim 3, windows of 3 states, one block of one linear layer, tanh, skew-symmetric weighting.
//! type Net = VolumePreservingTransformer<f64, 3, 3, 1, 1, 3, Tanh, SkewWeight<f64, 3>>;
//! const P: usize = <Net as Schema>::SCALARS;
//!
//! let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
//! let mut draw = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64 - 0.5;
//! let rotation = Rotation3::from_euler_angles(0.2, 0.1, 0.3);
//! let trajectories: Vec<Vec<SVector<f64, 3>>> = (0..8)
//!     .map(|_| {
//!         let start = Vector3::new(draw(), draw(), draw());
//!         (0..10).scan(start, |x, _| { let now = *x; *x = rotation * now; Some(now) }).collect()
//!     })
//!     .collect();
//! let data = Trajectories::new(&trajectories)?;
//! assert_eq!(data.starts(3), 5); // 10 − 2·3 + 1 windows per trajectory
//!
//! let params: Vec<f64> = (0..P).map(|_| 0.5 * draw()).collect();
//! let mut net: Net = from_flat(&params)?;
//! let mut adam = AdamOptimizer::<f64, P>::new(1e-2, 0.9, 0.99, 3e-7);
//! let mut shuffle = rand::rngs::SmallRng::seed_from_u64(2);
//! let first = train_epoch(&mut net, &mut adam, &data, 16, &mut shuffle)?;
//! let mut last = first;
//! for _ in 0..30 {
//!     last = train_epoch(&mut net, &mut adam, &data, 16, &mut shuffle)?;
//! }
//! // 40 windows in minibatches of 16: 3 steps per epoch.
//! assert_eq!(adam.steps(), 93);
//! assert!(last < 0.5 * first, "loss {first} → {last}");
//! # Ok::<(), geomattn::Error>(())
//! ```

use std::vec::Vec;

use nalgebra::{RealField, SMatrix, SVector};
use rand::Rng;
use rand::seq::SliceRandom;

use super::{Optimizer, train_step};
use crate::backward::Backward;
use crate::error::Error;
use crate::schema::Schema;

/// A minibatch's windows, each `D×T` (its inputs, or its targets).
pub type MinibatchWindows<S, const D: usize, const T: usize> = Vec<SMatrix<S, D, T>>;

/// Trajectories of equal length, the data of GML's time-series loader.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectories<S, const D: usize> {
    states: Vec<SVector<S, D>>,
    length: usize,
}

impl<S: RealField + Copy, const D: usize> Trajectories<S, D> {
    /// The trajectories, each a list of states in time order.
    ///
    /// # Errors
    /// [`Error::BatchShape`] if there are none, or they differ in length.
    pub fn new(trajectories: &[Vec<SVector<S, D>>]) -> Result<Self, Error> {
        let length = trajectories.first().map_or(0, Vec::len);
        if let Some(other) = trajectories.iter().find(|t| t.len() != length) {
            return Err(Error::BatchShape {
                detail: "every trajectory needs as many states as the first",
                input: length,
                output: other.len(),
                per_item: D,
            });
        }
        if trajectories.is_empty() {
            return Err(Error::BatchShape {
                detail: "no trajectories",
                input: 0,
                output: 0,
                per_item: D,
            });
        }
        Ok(Self {
            states: trajectories.concat(),
            length,
        })
    }

    /// The number of trajectories.
    pub fn count(&self) -> usize {
        self.states.len() / self.length.max(1)
    }

    /// The windows of `seq_length` states (and as many targets) per trajectory: `n − 2·seq + 1`,
    /// or zero when a trajectory is shorter than `2·seq`.
    pub fn starts(&self, seq_length: usize) -> usize {
        (self.length + 1).saturating_sub(2 * seq_length)
    }

    /// The input windows of `T` states at the `(start, trajectory)` pairs `at`, and their
    /// target windows (the `T` states after each): one minibatch of [`window_order`].
    ///
    /// # Errors
    /// [`Error::BatchShape`] if a pair is out of range: a trajectory past [`count`](Self::count)
    /// or a start past [`starts(T)`](Self::starts).
    pub fn windows<const T: usize>(
        &self,
        at: &[(usize, usize)],
    ) -> Result<(MinibatchWindows<S, D, T>, MinibatchWindows<S, D, T>), Error> {
        let (starts, count) = (self.starts(T), self.count());
        if let Some(&(start, trajectory)) = at.iter().find(|&&(s, t)| s >= starts || t >= count) {
            return Err(Error::BatchShape {
                detail: "a window (start, trajectory) lies outside the trajectories",
                input: start,
                output: trajectory,
                per_item: T,
            });
        }
        Ok(at
            .iter()
            .map(|&(start, trajectory)| {
                let first = trajectory * self.length + start;
                let column = |k: usize| self.states[first + k];
                (
                    SMatrix::from_fn(|i, j| column(j)[i]),
                    SMatrix::from_fn(|i, j| column(T + j)[i]),
                )
            })
            .unzip())
    }
}

/// Every `(start, trajectory)` pair once, in GML's order for one epoch: starts and trajectories
/// each shuffled by `rng`, the start varying fastest.
pub fn window_order<R: Rng + ?Sized>(
    starts: usize,
    trajectories: usize,
    rng: &mut R,
) -> Vec<(usize, usize)> {
    let mut start_order: Vec<usize> = (0..starts).collect();
    let mut trajectory_order: Vec<usize> = (0..trajectories).collect();
    start_order.shuffle(rng);
    trajectory_order.shuffle(rng);
    trajectory_order
        .iter()
        .flat_map(|&trajectory| start_order.iter().map(move |&start| (start, trajectory)))
        .collect()
}

/// One epoch of GML's training (see the [module docs](self)): every window once, in minibatches
/// of `batch_size`, one `optimizer` step per minibatch. Returns the mean minibatch loss.
///
/// # Errors
/// [`Error::BatchShape`] if `batch_size` is zero or the trajectories are shorter than `2T`
/// states (no window); [`Error::UndefinedLoss`] if a minibatch's targets are all zero; what
/// [`Optimizer::step_network`] reports (an optimiser sized for another network). An error leaves
/// the steps taken before it in place.
pub fn train_epoch<S, N, O, R, const D: usize, const T: usize, const P: usize>(
    net: &mut N,
    optimizer: &mut O,
    data: &Trajectories<S, D>,
    batch_size: usize,
    rng: &mut R,
) -> Result<S, Error>
where
    S: RealField + Copy,
    N: Backward<S, D, T> + Schema<Scalar = S>,
    N::Gradient: Schema<Scalar = S>,
    O: Optimizer<S, P>,
    R: Rng + ?Sized,
{
    let starts = data.starts(T);
    if batch_size == 0 || starts == 0 {
        return Err(Error::BatchShape {
            detail: "an epoch needs a batch size above zero and trajectories of at least 2T states",
            input: batch_size,
            output: data.length,
            per_item: T,
        });
    }
    let order = window_order(starts, data.count(), rng);
    let mut total = S::zero();
    for minibatch in order.chunks(batch_size) {
        let (inputs, targets) = data.windows::<T>(minibatch)?;
        total += train_step(net, optimizer, &inputs, &targets)?;
    }
    let minibatches = order.len().div_ceil(batch_size);
    Ok(total / nalgebra::convert::<f64, S>(minibatches as f64))
}
