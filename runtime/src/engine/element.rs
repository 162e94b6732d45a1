//! The scalars the engine's forward passes run over: plain scalars (`f32`, `f64`, dual numbers),
//! and [`Lanes`] of `f32` and `f64`, which run a batch's windows one per SIMD lane.

use nalgebra::{DMatrix, DMatrixView, DVector, RealField, SMatrix};

use crate::activation::Function;
use crate::cayley::Generated;
use crate::lanes::{LaneScalar, Lanes};
use crate::orthogonal::OrthogonalMap;
use crate::product;
use crate::scalar::Real;
use crate::workspace::{Fresh, Workspace};

/// A scalar of the engine's forward passes: every [`nalgebra::RealField`] (`f32`, `f64`, dual
/// numbers), and [`Lanes`] of them, each lane computing exactly what its scalar computes, so that a
/// network run over lanes gives every window the bits of its scalar run.
///
/// ```
/// use geomattn::Lanes;
/// use geomattn::activation::Function;
/// use geomattn::engine::Element;
/// let x = Lanes::<f64, 4>::new([-2.0, 0.0, 0.5, 800.0]);
/// let y = x.activate(Function::Softplus);
/// for k in 0..4 {
///     assert_eq!(y.lane(k), x.lane(k).activate(Function::Softplus));
/// }
/// ```
pub trait Element: Real {
    /// The activation `f` at `self`.
    fn activate(self, f: Function) -> Self;

    /// The derivative of the activation `f` where it has the value `self`
    /// ([`Function::derivative_from_value`]).
    fn derivative_from_value(self, f: Function) -> Self;

    /// The activation `f` at every entry of `values`, in place: [`activate`](Self::activate)
    /// entry by entry, unless the scalar has a faster way for a whole buffer.
    fn activate_all(values: &mut [Self], f: Function) {
        // One loop per function: the `match` is taken once per buffer, not once per entry.
        macro_rules! by {
            ($($f:ident)*) => {
                match f {
                    Function::Identity => {}
                    $(Function::$f => values.iter_mut().for_each(|x| *x = x.activate(Function::$f)),)*
                }
            };
        }
        by!(Tanh Sigmoid Relu Softplus)
    }

    /// Every value replaced by its exponential (the softmaxes' exponentials, one call per
    /// matrix).
    #[inline(always)]
    fn exp_all(values: &mut [Self]) {
        for x in values.iter_mut() {
            *x = x.exp();
        }
    }

    /// `out = a·b`: the compile-time kernels' sums in their order, unless the scalar has
    /// faster products ([`FastLanes`](super::FastLanes)).
    #[inline(always)]
    fn mul_to(a: &DMatrixView<'_, Self>, b: &DMatrixView<'_, Self>, out: &mut DMatrix<Self>) {
        product::mul_to(a, b, out);
    }

    /// `out = aᵀ·b`: the compile-time `tr_mul`'s sums (column by column dots), unless the
    /// scalar has faster products.
    #[inline(always)]
    fn tr_mul_to(a: &DMatrixView<'_, Self>, b: &DMatrixView<'_, Self>, out: &mut DMatrix<Self>) {
        product::tr_mul_to(a, b, out);
    }

    /// `x ← x + σ(W x + b)` for every column `x` of `z`, in one pass, if the scalar has a kernel
    /// for it ([`FastLanes`](super::FastLanes)): whether it did (`z` untouched if not). Each
    /// value is that of the steps one after the other (the product [`mul_to`](Self::mul_to),
    /// `+ b`, [`activate_all`](Self::activate_all), `+ x`).
    #[inline(always)]
    fn residual_in_place(
        w: &DMatrix<Self>,
        b: Option<&DVector<Self>>,
        activation: Function,
        z: &mut DMatrix<Self>,
    ) -> bool {
        let _ = (w, b, activation, z);
        false
    }

    /// [`residual_in_place`](Self::residual_in_place) of each of `layers` in turn, in one pass,
    /// if the scalar has a kernel for every one of them: whether it did (`z` untouched if not).
    /// Each value is that of the layers one after the other.
    #[inline(always)]
    fn residual_chain_in_place<'a>(
        layers: impl Iterator<Item = (&'a DMatrix<Self>, Option<&'a DVector<Self>>, Function)> + Clone,
        z: &mut DMatrix<Self>,
    ) -> bool
    where
        Self: 'a,
    {
        let _ = (layers, z);
        false
    }

    /// The backward pass of `y = x + σ(W x + b)` in one pass, if the scalar has a kernel for it
    /// ([`FastLanes`](super::FastLanes)): whether it did (nothing written if not). From the
    /// input `x` and `activated = σ(W x + b)`: `x̄ = ȳ + Wᵀ δ` over `bar` (holding `ȳ`),
    /// `δ = ȳ ⊙ σ'`, and the sums `Σ_t δ_{i,t} x_{j,t}` at `positions`, then those of `δ`'s rows
    /// for a bias, added to `gradient`. Each value is that of the engine's steps one after the
    /// other ([`tr_mul_to`](Self::tr_mul_to) for `Wᵀ δ`).
    #[inline(always)]
    fn residual_backward_in_place(
        (w, bias, activation): (&DMatrix<Self>, bool, Function),
        positions: &[(usize, usize)],
        (x, activated): (&DMatrix<Self>, &DMatrix<Self>),
        bar: &mut DMatrix<Self>,
        gradient: &mut [Self],
    ) -> bool {
        let _ = (w, bias, activation, positions, x, activated, bar, gradient);
        false
    }

    /// `z ← z·Cay(C)` for a skew `C` (its strict upper triangle) in one pass, if the scalar has a
    /// kernel for it ([`FastLanes`](super::FastLanes)): whether it did (`z` untouched if not).
    /// Each value is that of the engine's Cayley steps (the compile-time kernel of `C`'s length,
    /// then [`mul_to`](Self::mul_to)).
    #[inline(always)]
    fn cayley_product_in_place(z: &mut DMatrix<Self>, c: &DMatrix<Self>) -> bool {
        let _ = (z, c);
        false
    }

    /// `Cay(C)` of a skew `C` (its strict upper triangle) of length `T` from 5 to
    /// [`super::MAX_SPECIALISED_SEQ`]: the compile-time kernel ([`Generated`]) over `Self`. Lanes
    /// run their scalar's kernel lane by lane instead: the same values (each lane's operations
    /// are the scalar's), and the long kernels (Gram–Schmidt or elimination, unrolled at each
    /// length) compiled for the scalars only, not again for every lane type (they were most of
    /// `geomattn-networks`'s build).
    fn cayley_long<const T: usize>(c: &SMatrix<Self, T, T>) -> SMatrix<Self, T, T> {
        <Generated as OrthogonalMap<Self, T>>::map(c)
    }

    /// `Z·Cay(C)` for a skew `C` (its strict upper triangle) by LU with partial pivoting: the
    /// Cayley transform of sequences longer than [`super::MAX_SPECIALISED_SEQ`].
    fn cayley_by_lu(z: &DMatrix<Self>, c: &DMatrix<Self>) -> DMatrix<Self>;
}

impl<S: RealField + Copy> Element for S {
    #[inline(always)]
    fn activate(self, f: Function) -> Self {
        f.apply(self)
    }

    #[inline(always)]
    fn derivative_from_value(self, f: Function) -> Self {
        f.derivative_from_value(self)
    }

    /// nalgebra's LU (NaN if `I + C` is singular to working precision, which it never is in
    /// exact arithmetic).
    fn cayley_by_lu(z: &DMatrix<S>, c: &DMatrix<S>) -> DMatrix<S> {
        let t = c.nrows();
        let skew = DMatrix::from_fn(t, t, |i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => c[(i, j)],
            core::cmp::Ordering::Greater => -c[(j, i)],
            core::cmp::Ordering::Equal => S::zero(),
        });
        let identity = DMatrix::<S>::identity(t, t);
        let q = (&identity + &skew)
            .lu()
            .solve(&(&identity - &skew))
            .unwrap_or_else(|| DMatrix::from_element(t, t, S::zero() / S::zero()));
        Fresh.mul(z, &q)
    }
}

/// Lane by lane: the scalar's functions, and its LU on each lane's matrices (pivoting depends on
/// the values, which differ between lanes).
impl<S: LaneScalar<N> + Element, const N: usize> Element for Lanes<S, N> {
    #[inline(always)]
    fn activate(self, f: Function) -> Self {
        match f {
            Function::Identity => self,
            _ => self.map(|x| x.activate(f)),
        }
    }

    #[inline(always)]
    fn derivative_from_value(self, f: Function) -> Self {
        self.map(|x| x.derivative_from_value(f))
    }

    /// Lane by lane, the scalar's kernel.
    fn cayley_long<const T: usize>(c: &SMatrix<Self, T, T>) -> SMatrix<Self, T, T> {
        let lanes: [SMatrix<S, T, T>; N] =
            core::array::from_fn(|k| S::cayley_long::<T>(&c.map(|x| x.lane(k))));
        SMatrix::from_fn(|i, j| Lanes::new(core::array::from_fn(|k| lanes[k][(i, j)])))
    }

    fn cayley_by_lu(z: &DMatrix<Self>, c: &DMatrix<Self>) -> DMatrix<Self> {
        let lanes: [DMatrix<S>; N] =
            core::array::from_fn(|k| S::cayley_by_lu(&z.map(|x| x.lane(k)), &c.map(|x| x.lane(k))));
        DMatrix::from_fn(z.nrows(), z.ncols(), |i, j| {
            Lanes::new(core::array::from_fn(|k| lanes[k][(i, j)]))
        })
    }
}
