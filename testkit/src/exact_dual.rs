//! Dual numbers over the exact rationals [`Q`]: `re + eps·ε` with `ε² = 0`, so a layer run on them
//! gives the directional derivative of its output exactly, with no rounding at all.
//!
//! `num-dual`'s types need a floating-point base; this one needs only [`Q`]'s `+ − × ÷`, which is
//! all a layer generic over [`geomattn::Field`] asks. It is the reference the backward passes are
//! held to in exact arithmetic (`tests/tests/backward.rs`).
//!
//! ```
//! use geomattn_testkit::{exact_dual::ExactDual, q};
//! // d/dx (x² / (1 + x)) at x = 1 is (2x(1 + x) − x²)/(1 + x)² = 3/4.
//! let x = ExactDual::variable(q(1, 1));
//! let y = x * x / (ExactDual::constant(q(1, 1)) + x);
//! assert_eq!((y.re, y.eps), (q(1, 2), q(3, 4)));
//! ```

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use num_traits::{One, Zero};

use crate::Q;

/// `re + eps·ε` with `ε² = 0`, over [`Q`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactDual {
    /// The value.
    pub re: Q,
    /// The derivative.
    pub eps: Q,
}

impl ExactDual {
    /// A constant: derivative 0.
    pub fn constant(re: Q) -> Self {
        Self { re, eps: Q::zero() }
    }

    /// The variable differentiated by: derivative 1.
    pub fn variable(re: Q) -> Self {
        Self { re, eps: Q::one() }
    }
}

impl Add for ExactDual {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            re: self.re + other.re,
            eps: self.eps + other.eps,
        }
    }
}

impl Sub for ExactDual {
    type Output = Self;
    fn sub(self, other: Self) -> Self {
        Self {
            re: self.re - other.re,
            eps: self.eps - other.eps,
        }
    }
}

impl Mul for ExactDual {
    type Output = Self;
    fn mul(self, other: Self) -> Self {
        Self {
            re: self.re * other.re,
            eps: self.re * other.eps + self.eps * other.re,
        }
    }
}

impl Div for ExactDual {
    type Output = Self;
    fn div(self, other: Self) -> Self {
        let re = self.re / other.re;
        Self {
            re,
            eps: (self.eps - re * other.eps) / other.re,
        }
    }
}

impl Neg for ExactDual {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            re: -self.re,
            eps: -self.eps,
        }
    }
}

macro_rules! assign_from_binary {
    ($($trait:ident $method:ident $op:tt),*) => {$(
        impl $trait for ExactDual {
            fn $method(&mut self, other: Self) {
                *self = *self $op other;
            }
        }
    )*};
}

assign_from_binary!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *,
                    DivAssign div_assign /);

impl Zero for ExactDual {
    fn zero() -> Self {
        Self::constant(Q::zero())
    }
    fn is_zero(&self) -> bool {
        self.re.is_zero() && self.eps.is_zero()
    }
}

impl One for ExactDual {
    fn one() -> Self {
        Self::constant(Q::one())
    }
}
