//! A layer's softmax ([`Function`], data at run time) as the closures the attention kernels
//! written over `Dim` take: `σ` on the scores by value, and its pullback.

use nalgebra::DMatrix;

use super::Element;
use crate::softmax::Function;

/// `σ(s)`, the scores taken and returned by value (exponentials of whole vectors, as
/// [`Element::exp_all`] computes them).
pub(crate) fn applied<S: Element>(softmax: Function) -> impl FnOnce(DMatrix<S>) -> DMatrix<S> {
    move |mut s| {
        let rows = s.nrows();
        softmax.apply_in_place_with(s.as_mut_slice(), rows, S::exp_all);
        s
    }
}

/// `c̄ = ∂L/∂C` from `s = σ(C)` and `s̄`, written into `c̄`.
pub(crate) fn pulled_back<S: Element>(
    softmax: Function,
) -> impl FnOnce(&DMatrix<S>, &DMatrix<S>, &mut DMatrix<S>) {
    move |s, s_bar, c_bar| {
        softmax.pullback(
            s.as_slice(),
            s_bar.as_slice(),
            s.nrows(),
            c_bar.as_mut_slice(),
        );
    }
}
