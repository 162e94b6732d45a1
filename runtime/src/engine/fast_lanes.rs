//! [`FastLanes`]: lanes whose `exp`, `tanh` and sigmoid are polynomials on the processor's own
//! vectors, for the engine's `Fast` batches.

use std::sync::OnceLock;

use nalgebra::{DMatrix, DMatrixView, DVector, RealField, SMatrix};

use super::{Element, LanesOf};
use crate::activation::Function;
use crate::isa::BatchScalar;
use crate::isa::{Isa, LaneMatrix};
use crate::lanes::{LaneScalar, Lanes};
use crate::product;
use crate::scalar::Real;

/// The engine's lanes for throughput ([`Batched::FastLanes`](super::Batched)), whose
/// `exp`, `tanh` and sigmoid run as polynomials on the processor's own vectors.
///
/// Every arithmetic operation is that of [`Lanes`] (IEEE's, lane by lane), but the products of
/// matrices ([`Element::mul_to`], [`Element::tr_mul_to`]): on AVX2 and AVX-512, fused
/// multiply-adds on the processor's vectors ([`Isa::lane_products`]), the same sums in the same
/// order, each term rounded once instead of twice. `exp` and `tanh` are
/// the polynomials of [`crate::VectorFunctions`] (within 1.25 and 7 ulp), run on the best
/// instruction set this processor has ([`Isa::best`], asked once): a default build's lanes are
/// SSE2 vectors, on which the polynomials' primitives (rounding, `2ⁿ`, selects) run lane by lane,
/// measured slower than the scalar functions, while a function compiled for AVX2 or AVX-512 runs
/// them whole. On an x86-64 processor without AVX2 they are therefore the scalar functions, lane
/// by lane, bit for bit [`Lanes`] (as the compiled networks' `Fast` is their scalar path there).
/// A layer hands such a function its whole buffer at once
/// ([`Element::activate_all`], [`Element::exp_all`] for the softmaxes: one call per layer, not
/// one per vector). The sigmoid is the scalar
/// sigmoid's formula (`e^{−|x|}`, which never overflows) with that `exp`; relu and softplus are
/// the scalar functions, value by value.
///
/// ```
/// use geomattn::activation::Function;
/// use geomattn::engine::{Element, FastLanes};
/// let x = [-30.0_f32, -1.0, -0.25, 0.0, 0.5, 2.0, 9.0, f32::NAN];
/// let fast = FastLanes::new(x).activate(Function::Tanh).to_array();
/// for (y, x) in fast.iter().zip(x) {
///     let exact = f64::from(x).tanh();
///     assert!((f64::from(*y) - exact).abs() <= 4.0 * f64::from(f32::EPSILON) * exact.abs() || x.is_nan());
/// }
/// assert!(fast[7].is_nan());
/// ```
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(transparent)]
pub struct FastLanes<S: LaneScalar<N>, const N: usize>(Lanes<S, N>);

impl<S: LaneScalar<N>, const N: usize> FastLanes<S, N> {
    /// The lanes `values`.
    #[inline(always)]
    pub fn new(values: [S; N]) -> Self {
        Self(Lanes::new(values))
    }

    /// `value` in every lane.
    #[inline(always)]
    pub fn splat(value: S) -> Self {
        Self(Lanes::splat(value))
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [S; N] {
        self.0.to_array()
    }

    /// The same lanes with the scalar's own functions.
    #[inline(always)]
    pub fn exact(self) -> Lanes<S, N> {
        self.0
    }
}

/// The instruction set of the polynomials, asked of the processor once: its best, where that
/// computes the polynomials on whole vectors ([`Isa::is_compact`]: AVX2 and AVX-512 on x86-64,
/// the portable vectors elsewhere); `None` on an x86-64 processor without AVX2, where the
/// scalar functions are faster.
fn isa() -> Option<Isa> {
    static BEST: OnceLock<Option<Isa>> = OnceLock::new();
    *BEST.get_or_init(|| Some(Isa::best()).filter(|isa| isa.is_compact()))
}

crate::lanes::wrapped_arithmetic!([S: LaneScalar<N>, const N: usize] FastLanes<S, N>);

impl<S: LaneScalar<N> + BatchScalar, const N: usize> Real for FastLanes<S, N> {
    #[inline(always)]
    fn exp(mut self) -> Self {
        match isa() {
            Some(isa) => isa.exp_in_place(flat(core::slice::from_mut(&mut self))),
            None => self.0 = self.0.exp(),
        }
        self
    }

    #[inline(always)]
    fn tanh(mut self) -> Self {
        match isa() {
            Some(isa) => isa.tanh_in_place(flat(core::slice::from_mut(&mut self))),
            None => self.0 = self.0.tanh(),
        }
        self
    }

    #[inline(always)]
    fn sqrt(self) -> Self {
        Self(self.0.sqrt())
    }

    #[inline(always)]
    fn greater_of(self, other: Self) -> Self {
        Self(self.0.greater_of(other.0))
    }
}

impl<S, const N: usize> Element for FastLanes<S, N>
where
    S: LaneScalar<N> + BatchScalar + RealField + Element,
{
    #[inline(always)]
    fn activate(mut self, f: Function) -> Self {
        Self::activate_all(core::slice::from_mut(&mut self), f);
        self
    }

    #[inline(always)]
    fn derivative_from_value(self, f: Function) -> Self {
        Self(self.0.derivative_from_value(f))
    }

    /// The whole buffer in one call of the polynomial for `tanh` and the sigmoid; relu and
    /// softplus value by value, the scalar functions.
    fn activate_all(values: &mut [Self], f: Function) {
        let values = flat(values);
        match (f, isa()) {
            (Function::Identity, _) => {}
            (Function::Tanh, Some(isa)) => isa.tanh_in_place(values),
            (Function::Sigmoid, Some(isa)) => sigmoid_in_place(isa, values),
            _ => S::activate_all(values, f),
        }
    }

    /// The polynomial on the whole buffer in one call.
    fn exp_all(values: &mut [Self]) {
        match isa() {
            Some(isa) => isa.exp_in_place(flat(values)),
            None => values.iter_mut().for_each(|x| x.0 = x.0.exp()),
        }
    }

    /// On AVX2 or AVX-512 ([`Isa::lane_products`] on vectors of `N` lanes): the same sums in
    /// the same order, each term a fused multiply-add.
    fn mul_to(a: &DMatrixView<'_, Self>, b: &DMatrixView<'_, Self>, out: &mut DMatrix<Self>) {
        match fused::<S, N>() {
            Some(isa) => lane_products(isa, (a, lane_matrix(a, false)), b, out),
            None => product::mul_to(a, b, out),
        }
    }

    /// `aᵀ·b` as [`mul_to`](Self::mul_to), `aᵀ` read from `a` where it lies.
    fn tr_mul_to(a: &DMatrixView<'_, Self>, b: &DMatrixView<'_, Self>, out: &mut DMatrix<Self>) {
        match fused::<S, N>() {
            Some(isa) => lane_products(isa, (a, lane_matrix(a, true)), b, out),
            None => product::tr_mul_to(a, b, out),
        }
    }

    /// On AVX2 or AVX-512 ([`Isa::residual_in_place`] on vectors of `N` lanes), for dimensions
    /// up to 8 and the identity, `tanh` and the sigmoid.
    fn residual_in_place(
        w: &DMatrix<Self>,
        b: Option<&DVector<Self>>,
        activation: Function,
        z: &mut DMatrix<Self>,
    ) -> bool {
        let Some(isa) = fused::<S, N>() else {
            return false;
        };
        let b = b.map(|b| lane_values(b.as_slice()));
        let w = lane_values(w.as_slice());
        isa.residual_in_place(N, z.nrows(), w, b, activation, flat(z.as_mut_slice()))
    }

    /// On AVX2 or AVX-512 ([`Isa::residual_chain_in_place`] on vectors of `N` lanes,
    /// 16 layers a pass), if every layer has a kernel ([`Isa::has_residual_kernel`]).
    fn residual_chain_in_place<'a>(
        layers: impl Iterator<Item = (&'a DMatrix<Self>, Option<&'a DVector<Self>>, Function)> + Clone,
        z: &mut DMatrix<Self>,
    ) -> bool
    where
        Self: 'a,
    {
        let Some(isa) = fused::<S, N>() else {
            return false;
        };
        let dim = z.nrows();
        if !layers
            .clone()
            .all(|(_, _, activation)| isa.has_residual_kernel(dim, activation))
        {
            return false;
        }
        let mut steps = [(&[][..], None, Function::Identity); CHAIN];
        let mut layers = layers.peekable();
        while layers.peek().is_some() {
            let mut count = 0;
            for (step, (w, b, activation)) in steps.iter_mut().zip(layers.by_ref()) {
                let b = b.map(|b| lane_values(b.as_slice()));
                *step = (lane_values(w.as_slice()), b, activation);
                count += 1;
            }
            let x = flat(z.as_mut_slice());
            assert!(isa.residual_chain_in_place(N, dim, &steps[..count], x));
        }
        true
    }

    /// On AVX2 or AVX-512 ([`Isa::residual_backward_in_place`] on vectors of `N` lanes), for
    /// dimensions up to 8 and the identity, `tanh` and the sigmoid.
    fn residual_backward_in_place(
        (w, bias, activation): (&DMatrix<Self>, bool, Function),
        positions: &[(usize, usize)],
        (x, activated): (&DMatrix<Self>, &DMatrix<Self>),
        bar: &mut DMatrix<Self>,
        gradient: &mut [Self],
    ) -> bool {
        let Some(isa) = fused::<S, N>() else {
            return false;
        };
        let layer = (
            x.nrows(),
            lane_values(w.as_slice()),
            positions,
            bias,
            activation,
        );
        let entries = positions.len() + if bias { x.nrows() } else { 0 };
        let Some(gradient) = gradient.get_mut(..entries) else {
            return false;
        };
        isa.residual_backward_in_place(
            N,
            layer,
            (lane_values(x.as_slice()), lane_values(activated.as_slice())),
            flat(bar.as_mut_slice()),
            flat(gradient),
        )
    }

    /// On AVX2 or AVX-512 ([`Isa::cayley_product_in_place`] on vectors of `N` lanes), for
    /// sequences up to 4, and up to 16 while every lane's `‖C‖_F` is below
    /// [`crate::cayley::NARROW_BELOW`] (the `f32` kernel's elimination, over whole vectors).
    fn cayley_product_in_place(z: &mut DMatrix<Self>, c: &DMatrix<Self>) -> bool {
        let Some(isa) = fused::<S, N>() else {
            return false;
        };
        let c = lane_values(c.as_slice());
        isa.cayley_product_in_place(N, z.ncols(), c, flat(z.as_mut_slice()))
    }

    /// Lane by lane, the scalar's kernel (as [`Lanes`]).
    fn cayley_long<const T: usize>(c: &SMatrix<Self, T, T>) -> SMatrix<Self, T, T> {
        Lanes::cayley_long::<T>(&c.map(Self::exact)).map(Self)
    }

    fn cayley_by_lu(z: &DMatrix<Self>, c: &DMatrix<Self>) -> DMatrix<Self> {
        Lanes::cayley_by_lu(&z.map(Self::exact), &c.map(Self::exact)).map(Self)
    }
}

/// The most layers of a [`FastLanes::residual_chain_in_place`] pass.
const CHAIN: usize = 16;

/// The instruction set of the fused products of `N` lanes of `S`: the polynomials' ([`isa`])
/// if it is AVX2 or AVX-512 and `N` lanes are whole vectors of it, else AVX2 if they are whole
/// AVX2 vectors (an AVX-512 processor has AVX2); `None` otherwise.
fn fused<S: BatchScalar, const N: usize>() -> Option<Isa> {
    let candidates: &[Isa] = match isa()? {
        Isa::Avx512 => &[Isa::Avx512, Isa::Avx2],
        Isa::Avx2 => &[Isa::Avx2],
        Isa::Portable => &[],
    };
    candidates
        .iter()
        .copied()
        .find(|isa| N.is_multiple_of(isa.lanes::<S>()))
}

/// Where the entries of the view `m` (or of `mᵀ`, `transposed`) lie in its lanes, one after the
/// other ([`flat`]).
fn lane_matrix<S: LaneScalar<N>, const N: usize>(
    m: &DMatrixView<'_, FastLanes<S, N>>,
    transposed: bool,
) -> LaneMatrix {
    let (rows, columns) = m.shape();
    let (row, column) = m.strides();
    if transposed {
        LaneMatrix {
            rows: columns,
            columns: rows,
            row: N * column,
            column: N * row,
        }
    } else {
        LaneMatrix {
            rows,
            columns,
            row: N * row,
            column: N * column,
        }
    }
}

/// `out = A·b` for the matrix `A` that `at` finds in `a`'s lanes (`a` itself or `aᵀ`), with
/// [`Isa::lane_products`].
fn lane_products<S: LaneScalar<N> + BatchScalar, const N: usize>(
    isa: Isa,
    (a, at): (&DMatrixView<'_, FastLanes<S, N>>, LaneMatrix),
    b: &DMatrixView<'_, FastLanes<S, N>>,
    out: &mut DMatrix<FastLanes<S, N>>,
) {
    let c = LaneMatrix {
        rows: out.nrows(),
        columns: out.ncols(),
        row: N,
        column: N * out.nrows(),
    };
    isa.lane_products(
        N,
        (view_values(a), at),
        (view_values(b), lane_matrix(b, false)),
        (flat(out.as_mut_slice()), c),
        false,
    );
}

/// The lanes of [`Lanes`]: only the functions differ.
impl<S: LaneScalar<N> + Element, const N: usize> LanesOf<S> for FastLanes<S, N>
where
    Self: Element + Send + Sync,
    Lanes<S, N>: LanesOf<S>,
{
    const WIDTH: usize = N;

    #[inline(always)]
    fn broadcast(value: S) -> Self {
        Self(Lanes::broadcast(value))
    }

    #[inline(always)]
    fn gather(f: impl FnMut(usize) -> S) -> Self {
        Self(Lanes::gather(f))
    }

    #[inline(always)]
    fn scatter(self, f: impl FnMut(usize, S)) {
        self.0.scatter(f);
    }
}

/// The lanes of `values` one after the other: `N` scalars per vector, lane `k` of vector `i` at
/// `N·i + k`.
fn flat<S: LaneScalar<N>, const N: usize>(values: &mut [FastLanes<S, N>]) -> &mut [S] {
    const {
        assert!(size_of::<FastLanes<S, N>>() == N * size_of::<S>());
        assert!(align_of::<FastLanes<S, N>>() >= align_of::<S>());
    }
    // SAFETY: `FastLanes` is transparent over `Lanes`, which is transparent over `wide`'s vector
    // of `N` values of `S`: its lanes in order (`wide`'s `to_array` is a reinterpretation), with
    // no padding (the size asserted above) and aligned for `S` (asserted above). The slice
    // borrows `values` mutably for its whole life, and every bit pattern is a valid `S`.
    unsafe { core::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<S>(), values.len() * N) }
}

/// The lanes of `values` one after the other, shared ([`flat`]).
fn lane_values<S: LaneScalar<N>, const N: usize>(values: &[FastLanes<S, N>]) -> &[S] {
    // SAFETY: as in `flat`, borrowed shared as `values` is.
    unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<S>(), values.len() * N) }
}

/// The lanes of the entries of the view `m`, one after the other from its first ([`flat`]):
/// every entry's, and those between them in the matrix it views.
fn view_values<'a, S: LaneScalar<N>, const N: usize>(
    m: &DMatrixView<'a, FastLanes<S, N>>,
) -> &'a [S] {
    let (rows, columns) = m.shape();
    let (row, column) = m.strides();
    let len = if rows == 0 || columns == 0 {
        0
    } else {
        (rows - 1) * row + (columns - 1) * column + 1
    };
    // SAFETY: as in `flat`, a vector is its `N` lanes in order with no padding; the view's
    // entries from its first to its last lie in one buffer (the matrix it views), `len` vectors,
    // borrowed shared for `'a` as the view borrows them.
    unsafe { core::slice::from_raw_parts(m.as_ptr().cast::<S>(), len * N) }
}

/// The sigmoid at every value, as the scalar sigmoid computes it (`t = e^{−|x|}`, which never
/// overflows; `1/(1 + t)` for `x ≥ 0`, `t/(1 + t)` otherwise), `e^{−|x|}` with the polynomial
/// on runs of values.
fn sigmoid_in_place<S: BatchScalar + RealField>(isa: Isa, values: &mut [S]) {
    const RUN: usize = 64;
    let mut t = [S::zero(); RUN];
    for run in values.chunks_mut(RUN) {
        let t = &mut t[..run.len()];
        for (t, &x) in t.iter_mut().zip(run.iter()) {
            *t = if x < S::zero() { x } else { -x };
        }
        isa.exp_in_place(t);
        for (x, &t) in run.iter_mut().zip(t.iter()) {
            // One quotient, its numerator chosen: the same bits as a quotient in each branch.
            let one = S::one();
            let numerator = if *x >= S::zero() { one } else { t };
            *x = numerator / (one + t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|found − exact|` in units of `ε·|exact|` (`ε` of `f32`).
    fn relative(found: f32, exact: f64) -> f64 {
        (f64::from(found) - exact).abs() / (f64::from(f32::EPSILON) * exact.abs())
    }

    #[test]
    fn the_functions_are_within_the_polynomials_bounds_and_keep_nan_and_infinities() {
        let inputs = [-80.0_f32, -9.5, -1.0, -1e-3, 0.0, 1e-30, 0.75, 3.0];
        let x = FastLanes::<f32, 8>::new(inputs);
        let (e, t, s) = (
            x.exp().to_array(),
            x.tanh().to_array(),
            x.activate(Function::Sigmoid).to_array(),
        );
        for (k, &x) in inputs.iter().enumerate() {
            let x = f64::from(x);
            assert!(relative(e[k], x.exp()) <= 1.25, "exp({x}) = {}", e[k]);
            if x != 0.0 {
                assert!(relative(t[k], x.tanh()) <= 3.5, "tanh({x}) = {}", t[k]);
            }
            let sigmoid = 1.0 / (1.0 + (-x).exp());
            // The sigmoid rounds twice more (a sum and a quotient) after its `exp`.
            assert!(relative(s[k], sigmoid) <= 3.25, "σ({x}) = {}", s[k]);
        }
        let special = FastLanes::<f32, 8>::new([
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            200.0,
            -200.0,
            1.0,
        ]);
        let t = special.tanh().to_array();
        assert!(t[0].is_nan());
        assert_eq!(&t[1..5], [1.0, -1.0, 0.0, 0.0]);
        assert_eq!(&t[5..7], [1.0, -1.0]);
        let e = special.exp().to_array();
        assert!(e[0].is_nan());
        assert_eq!(&e[1..4], [f32::INFINITY, 0.0, 1.0]);
        let s = special.activate(Function::Sigmoid).to_array();
        assert!(s[0].is_nan());
        assert_eq!(&s[1..3], [1.0, 0.0]);
    }

    #[test]
    fn a_buffer_is_its_vectors_lanes_in_order_and_activates_as_its_vectors_do() {
        let vectors: [FastLanes<f32, 8>; 3] = core::array::from_fn(|i| {
            FastLanes::new(core::array::from_fn(|k| (8 * i + k) as f32 / 4.0 - 3.0))
        });
        let mut buffer = vectors;
        let values: std::vec::Vec<f32> = flat(&mut buffer).to_vec();
        let lanes: std::vec::Vec<f32> = vectors.iter().flat_map(|v| v.to_array()).collect();
        assert_eq!(values, lanes);
        for f in [Function::Tanh, Function::Sigmoid, Function::Softplus] {
            let mut buffer = vectors;
            FastLanes::activate_all(&mut buffer, f);
            for (whole, one) in buffer.iter().zip(vectors) {
                assert_eq!(whole.to_array(), one.activate(f).to_array(), "{f:?}");
            }
        }
    }

    #[test]
    fn products_of_views_and_transposes_are_the_exact_lanes_sums_within_rounding() {
        type Fast = FastLanes<f32, 8>;
        let matrix = |rows, cols, seed: usize| {
            DMatrix::from_fn(rows, cols, |i, j| {
                Fast::new(core::array::from_fn(|k| {
                    ((7 * i + 3 * j + 11 * k + seed) as f32 * 0.37).sin()
                }))
            })
        };
        let (whole, b) = (matrix(7, 5, 1), matrix(5, 4, 2));
        // Rows 2…4 of `whole`: a view whose columns lie 7 vectors apart.
        let a = whole.rows(2, 3);
        let exact = |m: &DMatrix<Fast>| m.map(Fast::exact);
        let mut found = DMatrix::from_element(3, 4, Fast::splat(0.0));
        Fast::mul_to(&a, &b.as_view(), &mut found);
        let expected = exact(&a.into_owned()) * exact(&b);
        let mut transposed = DMatrix::from_element(5, 5, Fast::splat(0.0));
        Fast::tr_mul_to(&a, &a, &mut transposed);
        let a = exact(&a.into_owned());
        let expected_transposed = a.transpose() * &a;
        for (found, expected) in [(found, expected), (transposed, expected_transposed)] {
            assert_eq!(found.shape(), expected.shape());
            for (f, e) in found.iter().zip(expected.iter()) {
                for (f, e) in f.to_array().into_iter().zip(e.to_array()) {
                    // Five terms of size at most one: within five roundings of their sum.
                    assert!((f - e).abs() <= 5.0 * f32::EPSILON * 5.0, "{f} against {e}");
                }
            }
        }
    }

    #[test]
    fn relu_softplus_and_arithmetic_are_the_scalar_lanes() {
        let x = [-2.0_f32, -0.5, 0.0, 0.25, 1.0, 3.0, 20.0, -20.0];
        let (fast, exact) = (FastLanes::<f32, 8>::new(x), Lanes::<f32, 8>::new(x));
        for f in [Function::Relu, Function::Softplus, Function::Identity] {
            assert_eq!(fast.activate(f).exact(), exact.activate(f));
        }
        let y = FastLanes::splat(0.3);
        assert_eq!(
            (fast * y + fast / y - y).exact(),
            exact * Lanes::splat(0.3) + exact / Lanes::splat(0.3) - Lanes::splat(0.3)
        );
    }
}
