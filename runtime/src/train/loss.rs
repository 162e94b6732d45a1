//! GML's `TransformerLoss`: the relative error of a whole minibatch, and its gradient.
//!
//! For input windows `Xᵢ` and target windows `Yᵢ` (each `D×T`), with `Oᵢ = NN(Xᵢ)`,
//!
//! `L = ‖O − Y‖_F / ‖Y‖_F`,
//!
//! one Frobenius norm over all windows of the minibatch together (GML takes the norm of the whole
//! `D×T×batch` tensor, not a mean of per-window ratios). Its gradient with respect to each output
//! window is `∂L/∂Oᵢ = (Oᵢ − Yᵢ) / (‖O − Y‖ ‖Y‖)`; where the network fits the minibatch exactly
//! (`O = Y`) the norm is not differentiable and the gradient is taken as zero, as ChainRules'
//! pullback of `norm` gives.
//!
//! The prediction window is the whole window (`T` states), GML's default (`Batch(b, seq)` and the
//! rigid-body tutorial's `Batch(16384, 3, 3)`). The norms are summed in order, unscaled: equal to
//! Julia's `norm` up to rounding, not bit for bit.
//!
//! ```
//! use geomattn::nalgebra::Matrix2;
//! use geomattn::train::{loss_gradient, transformer_loss};
//! let outputs = [Matrix2::new(1.0, 0.0, 0.0, 1.0), Matrix2::new(0.0, 0.0, 0.0, 0.0)];
//! let targets = [Matrix2::new(1.0, 0.0, 0.0, 1.0), Matrix2::new(3.0, 0.0, 0.0, 0.0)];
//! // ‖O − Y‖ = 3 and ‖Y‖ = √(1 + 1 + 9): one norm over both windows.
//! let loss = transformer_loss(&outputs, &targets)?;
//! assert!((loss - 3.0 / 11.0_f64.sqrt()).abs() < 1e-15);
//! let mut out_bar = [Matrix2::zeros(); 2];
//! loss_gradient(&outputs, &targets, &mut out_bar)?;
//! assert_eq!(out_bar[0], Matrix2::zeros());
//! assert!((out_bar[1][(0, 0)] + 1.0 / 11.0_f64.sqrt()).abs() < 1e-15);
//! # Ok::<(), geomattn::Error>(())
//! ```

use nalgebra::{RealField, SMatrix};

use crate::backward::Backward;
use crate::error::Error;

/// `(‖O − Y‖², ‖Y‖²)` summed over every window, after checking the minibatch.
fn squared_norms<'a, S: RealField + Copy, const D: usize, const T: usize>(
    pairs: impl Iterator<Item = (SMatrix<S, D, T>, &'a SMatrix<S, D, T>)>,
) -> Result<(S, S), Error> {
    let mut norms = SquaredNorms::new();
    for (output, y) in pairs {
        norms.add((output - y).norm_squared(), y.norm_squared());
    }
    norms.checked()
}

/// The two sums of the transformer loss, `‖O − Y‖²` and `‖Y‖²`, window by window: what a
/// minibatch of windows of any shape (the run-time engine's) adds up before
/// [`loss_and_factor`](Self::loss_and_factor).
///
/// ```
/// use geomattn::train::SquaredNorms;
/// let mut norms = SquaredNorms::new();
/// norms.add(9.0, 4.0); // ‖O₁ − Y₁‖², ‖Y₁‖²
/// norms.add(0.0, 5.0);
/// let (loss, factor) = norms.loss_and_factor()?;
/// assert_eq!((loss, factor), (1.0, 1.0 / 9.0)); // 3/3, and 1/(‖O − Y‖ ‖Y‖)
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SquaredNorms<S> {
    residual: S,
    target: S,
    windows: usize,
}

impl<S: RealField + Copy> Default for SquaredNorms<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: RealField + Copy> SquaredNorms<S> {
    /// No window yet.
    pub fn new() -> Self {
        Self {
            residual: S::zero(),
            target: S::zero(),
            windows: 0,
        }
    }

    /// One window's `‖Oᵢ − Yᵢ‖²` and `‖Yᵢ‖²`.
    pub fn add(&mut self, residual: S, target: S) {
        self.residual += residual;
        self.target += target;
        self.windows += 1;
    }

    /// The loss `‖O − Y‖ / ‖Y‖` and the factor `1/(‖O − Y‖ ‖Y‖)` of its gradient
    /// `∂L/∂Oᵢ = (Oᵢ − Yᵢ)·factor` (zero where `O = Y`).
    ///
    /// # Errors
    /// [`Error::UndefinedLoss`] if no window was added, the targets are all zero, or a norm is
    /// not finite.
    pub fn loss_and_factor(self) -> Result<(S, S), Error> {
        let (factor, loss) = factor_and_loss(self.checked()?);
        Ok((loss, factor))
    }

    fn checked(self) -> Result<(S, S), Error> {
        let (residual, target) = (self.residual, self.target);
        if self.windows == 0 {
            return Err(Error::UndefinedLoss("the minibatch has no windows"));
        }
        if !(residual.is_finite() && target.is_finite()) {
            return Err(Error::UndefinedLoss(
                "a norm is not finite (NaN or ∞ in the windows or the outputs, or too large to \
                 square)",
            ));
        }
        if target.is_zero() {
            return Err(Error::UndefinedLoss("the targets have norm zero"));
        }
        Ok((residual, target))
    }
}

/// Checks that `inputs` and `targets` (and cotangents, if any) hold the same number of windows.
fn check_lengths(inputs: usize, targets: usize) -> Result<(), Error> {
    if inputs == targets {
        Ok(())
    } else {
        Err(Error::BatchShape {
            detail: "a minibatch needs one target window per input window",
            input: inputs,
            output: targets,
            per_item: 1,
        })
    }
}

/// The factor `1/(‖O − Y‖ ‖Y‖)` of the loss's gradient (zero when `O = Y`), and the loss.
fn factor_and_loss<S: RealField + Copy>((residual, target): (S, S)) -> (S, S) {
    let (residual, target) = (residual.sqrt(), target.sqrt());
    let factor = if residual.is_zero() {
        S::zero()
    } else {
        S::one() / (residual * target)
    };
    (factor, residual / target)
}

/// GML's transformer loss of the network's `outputs` against the `targets`.
///
/// # Errors
/// [`Error::BatchShape`] if the two slices differ in length; [`Error::UndefinedLoss`] if they are
/// empty, the targets are all zero, or a norm is not finite (so a NaN never reaches the
/// gradient, nor the weights).
pub fn transformer_loss<S: RealField + Copy, const D: usize, const T: usize>(
    outputs: &[SMatrix<S, D, T>],
    targets: &[SMatrix<S, D, T>],
) -> Result<S, Error> {
    check_lengths(outputs.len(), targets.len())?;
    let norms = squared_norms(outputs.iter().copied().zip(targets))?;
    Ok(factor_and_loss(norms).1)
}

/// Writes `∂L/∂Oᵢ` of [`transformer_loss`] into `out_bar[i]` and returns the loss.
///
/// # Errors
/// As [`transformer_loss`], and [`Error::BatchShape`] if `out_bar` does not hold one window per
/// output.
pub fn loss_gradient<S: RealField + Copy, const D: usize, const T: usize>(
    outputs: &[SMatrix<S, D, T>],
    targets: &[SMatrix<S, D, T>],
    out_bar: &mut [SMatrix<S, D, T>],
) -> Result<S, Error> {
    check_lengths(outputs.len(), targets.len())?;
    check_lengths(outputs.len(), out_bar.len())?;
    let (factor, loss) = factor_and_loss(squared_norms(outputs.iter().copied().zip(targets))?);
    for ((bar, output), y) in out_bar.iter_mut().zip(outputs).zip(targets) {
        *bar = (output - y) * factor;
    }
    Ok(loss)
}

/// The transformer loss of `net` on one minibatch, its parameter gradient added to `gradient`.
///
/// Two passes and no allocation: the first runs the network over every window for the norms,
/// the second runs each window's backward pass with its cotangent `∂L/∂Oᵢ` (recomputing the
/// forward, as the backward passes do). `gradient` accumulates, so start from
/// [`Backward::zero_gradient`] for one minibatch's gradient.
///
/// # Errors
/// As [`transformer_loss`]; then `gradient` is unchanged.
pub fn loss_and_gradient<S, N, const D: usize, const T: usize>(
    net: &N,
    inputs: &[SMatrix<S, D, T>],
    targets: &[SMatrix<S, D, T>],
    gradient: &mut N::Gradient,
) -> Result<S, Error>
where
    S: RealField + Copy,
    N: Backward<S, D, T>,
{
    check_lengths(inputs.len(), targets.len())?;
    let outputs = inputs.iter().map(|x| net.forward(x));
    let (factor, loss) = factor_and_loss(squared_norms(outputs.zip(targets))?);
    let mut z_bar = SMatrix::<S, D, T>::zeros();
    for (x, y) in inputs.iter().zip(targets) {
        let out_bar = (net.forward(x) - y) * factor;
        net.backward_into(
            x.as_view(),
            out_bar.as_view(),
            z_bar.as_view_mut(),
            gradient,
        );
    }
    Ok(loss)
}
