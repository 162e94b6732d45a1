//! The element-wise activations GML's layers use, as zero-sized marker types.
//!
//! A layer takes its activation as a type parameter `Act: Activation<S>`, so the choice is made at
//! compile time and costs nothing: `Identity` compiles away, `Tanh` is one call per entry.
//!
//! | type | GML | scalar |
//! |---|---|---|
//! | [`Identity`] | `identity` | any (exact rationals included) |
//! | [`Tanh`] | `tanh` | [`Real`] (lanes included) |
//! | [`Sigmoid`] | `sigmoid` (`σ`) | [`nalgebra::RealField`] |
//! | [`Relu`] | `relu` | [`nalgebra::RealField`] |
//! | [`Softplus`] | `softplus` | [`nalgebra::RealField`] |
//!
//! A network read from a file at run time names its activations there: [`Function`] is the
//! choice as a value, and [`Function::apply`] calls the marker type's `apply` (one definition
//! of each function). The formulas are NNlib's, which GML's users call (CONVENTIONS.md).
//!
//! ```
//! use geomattn::{Activation, Identity, Tanh};
//! assert_eq!(<Identity as Activation<f64>>::apply(-3.5), -3.5);
//! // Saturates instead of overflowing, and keeps tiny inputs exact.
//! assert_eq!(<Tanh as Activation<f64>>::apply(1e300), 1.0);
//! assert_eq!(<Tanh as Activation<f64>>::apply(-800.0), -1.0);
//! assert_eq!(<Tanh as Activation<f64>>::apply(1e-300), 1e-300);
//! ```

use nalgebra::{RealField, SMatrix};

use crate::backward::ActivationDerivative;
use crate::scalar::Real;

/// A scalar function applied entry by entry.
pub trait Activation<S> {
    /// GML's name of the function.
    const NAME: &'static str;

    /// The function at one scalar.
    fn apply(x: S) -> S;

    /// The function applied to every entry of a matrix (or vector).
    #[inline(always)]
    fn apply_matrix<const ROWS: usize, const COLS: usize>(
        m: SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>
    where
        S: nalgebra::Scalar,
    {
        let mut m = m;
        for x in m.iter_mut() {
            *x = Self::apply(x.clone());
        }
        m
    }
}

/// `x ↦ x`: GML's `identity`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Identity;

/// `x ↦ tanh x`: GML's `tanh`, through `RealField::tanh` (accurate, and saturating to ±1 rather
/// than overflowing for large `|x|`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tanh;

impl<S> Activation<S> for Identity {
    const NAME: &'static str = "identity";

    #[inline(always)]
    fn apply(x: S) -> S {
        x
    }

    #[inline(always)]
    fn apply_matrix<const ROWS: usize, const COLS: usize>(
        m: SMatrix<S, ROWS, COLS>,
    ) -> SMatrix<S, ROWS, COLS>
    where
        S: nalgebra::Scalar,
    {
        m
    }
}

impl<S: Real> Activation<S> for Tanh {
    const NAME: &'static str = "tanh";

    #[inline(always)]
    fn apply(x: S) -> S {
        x.tanh()
    }
}

/// NNlib's `σ(x) = 1/(1 + e^{−x})`, computed as NNlib does: `t = e^{−|x|}`, then `1/(1 + t)` for
/// `x ≥ 0` and `t/(1 + t)` below (no overflow of `e^{−x}` for large negative `x`).
///
/// ```
/// use geomattn::{Activation, Sigmoid};
/// assert_eq!(<Sigmoid as Activation<f64>>::apply(0.0), 0.5);
/// assert_eq!(<Sigmoid as Activation<f64>>::apply(-800.0), 0.0);
/// assert_eq!(<Sigmoid as Activation<f64>>::apply(800.0), 1.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sigmoid;

/// NNlib's `relu(x) = max(0, x)` (Julia's `max`: NaN stays NaN, `−0.0` becomes `0.0`).
///
/// ```
/// use geomattn::{Activation, Relu};
/// assert_eq!(<Relu as Activation<f32>>::apply(-2.0), 0.0);
/// assert_eq!(<Relu as Activation<f32>>::apply(2.5), 2.5);
/// assert!(<Relu as Activation<f32>>::apply(f32::NAN).is_nan());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Relu;

/// NNlib's `softplus(x) = log(1 + e^x)`, computed as NNlib does: `x + log1p(e^{−x})` for `x > 0`,
/// `log1p(e^x)` otherwise (no overflow, and accurate where `e^x` is tiny).
///
/// ```
/// use geomattn::{Activation, Softplus};
/// assert_eq!(<Softplus as Activation<f64>>::apply(0.0), 2.0_f64.ln());
/// assert_eq!(<Softplus as Activation<f64>>::apply(1000.0), 1000.0);
/// assert_eq!(<Softplus as Activation<f64>>::apply(-800.0), 0.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Softplus;

impl<S: RealField + Copy> Activation<S> for Sigmoid {
    const NAME: &'static str = "sigmoid";

    #[inline(always)]
    fn apply(x: S) -> S {
        let t = (-x.abs()).exp();
        if x >= S::zero() {
            S::one() / (S::one() + t)
        } else {
            t / (S::one() + t)
        }
    }
}

impl<S: RealField + Copy> Activation<S> for Relu {
    const NAME: &'static str = "relu";

    #[inline(always)]
    fn apply(x: S) -> S {
        #[allow(clippy::eq_op)] // `x != x`: NaN, which Julia's `max` keeps.
        if x > S::zero() || x != x {
            x
        } else {
            S::zero()
        }
    }
}

impl<S: RealField + Copy> Activation<S> for Softplus {
    const NAME: &'static str = "softplus";

    #[inline(always)]
    fn apply(x: S) -> S {
        if x > S::zero() {
            x + (-x).exp().ln_1p()
        } else {
            x.exp().ln_1p()
        }
    }
}

/// An activation chosen at run time: what a network read from a file uses, whose activations
/// its architecture names (GML's files do not record them).
///
/// ```
/// use geomattn::activation::Function;
/// assert_eq!(Function::Sigmoid.apply(0.0_f32), 0.5);
/// assert_eq!(Function::from_gml("softplus"), Some(Function::Softplus));
/// assert_eq!(Function::ALL.map(Function::name), ["identity", "tanh", "sigmoid", "relu", "softplus"]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Function {
    /// [`Identity`].
    Identity,
    /// [`Tanh`], GML's default.
    #[default]
    Tanh,
    /// [`Sigmoid`].
    Sigmoid,
    /// [`Relu`].
    Relu,
    /// [`Softplus`].
    Softplus,
}

impl Function {
    /// Every function.
    pub const ALL: [Self; 5] = [
        Self::Identity,
        Self::Tanh,
        Self::Sigmoid,
        Self::Relu,
        Self::Softplus,
    ];

    /// GML's (NNlib's) name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Identity => <Identity as Activation<f64>>::NAME,
            Self::Tanh => <Tanh as Activation<f64>>::NAME,
            Self::Sigmoid => <Sigmoid as Activation<f64>>::NAME,
            Self::Relu => <Relu as Activation<f64>>::NAME,
            Self::Softplus => <Softplus as Activation<f64>>::NAME,
        }
    }

    /// The function Julia code names `name`: GML's (NNlib's) name, or `σ`, NNlib's other name
    /// of `sigmoid`.
    pub fn from_gml(name: &str) -> Option<Self> {
        match name {
            "σ" => Some(Self::Sigmoid),
            _ => Self::ALL.into_iter().find(|f| f.name() == name),
        }
    }

    /// The function at `x`: the marker type's [`Activation::apply`].
    #[inline(always)]
    pub fn apply<S: RealField + Copy>(self, x: S) -> S {
        match self {
            Self::Identity => Identity::apply(x),
            Self::Tanh => <Tanh as Activation<S>>::apply(x),
            Self::Sigmoid => Sigmoid::apply(x),
            Self::Relu => Relu::apply(x),
            Self::Softplus => Softplus::apply(x),
        }
    }

    /// The derivative `σ'(x)` given the value `σ(x)`: the marker type's
    /// [`ActivationDerivative::derivative_from_value`].
    ///
    /// ```
    /// use geomattn::activation::Function;
    /// assert_eq!(Function::Tanh.derivative_from_value(0.5_f64), 0.75);
    /// assert_eq!(Function::Relu.derivative_from_value(0.0_f64), 0.0);
    /// ```
    #[inline(always)]
    pub fn derivative_from_value<S: RealField + Copy>(self, value: S) -> S {
        match self {
            Self::Identity => <Identity as ActivationDerivative<S>>::derivative_from_value(value),
            Self::Tanh => <Tanh as ActivationDerivative<S>>::derivative_from_value(value),
            Self::Sigmoid => Sigmoid::derivative_from_value(value),
            Self::Relu => Relu::derivative_from_value(value),
            Self::Softplus => Softplus::derivative_from_value(value),
        }
    }
}

impl core::fmt::Display for Function {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
