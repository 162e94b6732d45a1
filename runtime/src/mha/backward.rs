//! The backward pass of multi-head attention with Euclidean heads, through any
//! [`SoftmaxBackward`]: a head at a time ([`head_pullback`]), its projections' gradients in GML's
//! order.
//!
//! ```
//! use geomattn::{AddConnection, Backward, Head, MultiHeadAttention, SequenceLayer};
//! use geomattn::nalgebra::{SMatrix, Matrix2x3};
//! // One head of width 2 on R²; L = ⟨Ō, out⟩ with Ō = 0 except for one entry.
//! let p = SMatrix::<f64, 2, 2>::new(0.5, -0.3, 0.2, 0.8);
//! let layer = MultiHeadAttention::<f64, 2, 1, 2, AddConnection>::new([Head::new(p, p, p)]);
//! let z = Matrix2x3::new(1.0, 0.0, -1.0,
//!                        0.5, 2.0, 0.0);
//! let mut out_bar = Matrix2x3::zeros();
//! out_bar[(1, 2)] = 1.0;
//! // The layer runs on any sequence length: the call names the one it differentiates.
//! let mut gradient = Backward::<f64, 2, 3>::zero_gradient(&layer);
//! let z_bar = layer.backward(&z, &out_bar, &mut gradient);
//! // ∂out[1,2]/∂z[0,0] by a central difference.
//! let h = 1e-6;
//! let mut shifted = z;
//! shifted[(0, 0)] += h;
//! let up = layer.forward(&shifted)[(1, 2)];
//! shifted[(0, 0)] -= 2.0 * h;
//! let down = layer.forward(&shifted)[(1, 2)];
//! assert!((z_bar[(0, 0)] - (up - down) / (2.0 * h)).abs() < 1e-8);
//! ```

use nalgebra::allocator::Allocator;
use nalgebra::{
    DefaultAllocator, Dim, Matrix, OMatrix, RawStorageMut, SMatrix, SMatrixView, SMatrixViewMut,
};

use super::{Connection, Euclidean, Head, HeadScores, MultiHeadAttention, head_scores, scale};
use crate::backward::Backward;
use crate::backward::SoftmaxBackward;
use crate::backward::softmax::pulled_back;
use crate::product;
use crate::scalar::{Field, Real};
use crate::softmax::applied;
use crate::workspace::{Fresh, Workspace};

/// Per head `h`, with `Q = PQᵀZ`, `K = PKᵀZ`, `V = PVᵀZ`, `Λ = σ(s QᵀK)`, `s = 1/√D` and `Ō_h` the
/// head's rows of `Ō`:
///
/// ```text
/// V̄ = Ō_h Λᵀ,  C̄ = s · σ-pullback(Λ, Vᵀ Ō_h),  Q̄ = K C̄ᵀ,  K̄ = Q C̄,
/// Z̄ += PQ Q̄ + PK K̄ + PV V̄,  P̄Q += Z Q̄ᵀ,  P̄K += Z K̄ᵀ,  P̄V += Z V̄ᵀ,
/// ```
///
/// and `Z̄` starts from `Ō` with `add_connection`, from zero without. The gradient is the layer's
/// own type, each head holding its projections' gradients.
impl<S, const D: usize, const H: usize, const DH: usize, const T: usize, Conn, Sm> Backward<S, D, T>
    for MultiHeadAttention<S, D, H, DH, Conn, Euclidean, Sm>
where
    S: Real,
    Conn: Connection,
    Sm: SoftmaxBackward,
{
    type Gradient = Self;

    fn zero_gradient(&self) -> Self {
        let zero = SMatrix::zeros();
        Self::new([Head::new(zero, zero, zero); H])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn backward_into(
        &self,
        z: SMatrixView<'_, S, D, T>,
        out_bar: SMatrixView<'_, S, D, T>,
        mut z_bar: SMatrixViewMut<'_, S, D, T>,
        gradient: &mut Self,
    ) {
        let z: SMatrix<S, D, T> = product::matrix(|i, j| z[(i, j)]);
        product::update(
            &mut z_bar,
            #[inline(always)]
            |_, i, j| {
                if Conn::ADD {
                    out_bar[(i, j)]
                } else {
                    S::zero()
                }
            },
        );
        let mut heads = *gradient.heads();
        for ((h, head), head_gradient) in self.heads().iter().enumerate().zip(&mut heads) {
            let o_bar: SMatrix<S, DH, T> = product::matrix(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |i, j| out_bar[(h * DH + i, j)],
            );
            head_pullback(
                [&head.query, &head.key, &head.value],
                (&z, &o_bar),
                (
                    scale::<S>(D),
                    applied::<Sm, S, T>(),
                    pulled_back::<Sm, S, T>(),
                ),
                &mut z_bar,
                [
                    &mut head_gradient.query,
                    &mut head_gradient.key,
                    &mut head_gradient.value,
                ],
                &mut Fresh,
            );
        }
        *gradient = Self::new(heads);
    }
}

/// The pullback of one head ([`crate::mha::head_update`]) given `Ō_h`, its rows of `Ō`, with
/// the caller's `s`, `σ` and `σ`'s pullback (`(s, s̄, c̄)`), on matrices of `workspace`: adds
/// `PQ Q̄ + PK K̄ + PV V̄` to `z_bar` and `Z Q̄ᵀ`, `Z K̄ᵀ`, `Z V̄ᵀ` to the projections' gradients
/// (the formulas above). The one place it is written, for every size (nalgebra's [`Dim`]): the
/// compile-time layer and the engine's run it.
#[inline(always)]
pub(crate) fn head_pullback<S, D: Dim, DH: Dim, T: Dim, SZ, SP, W: Workspace<S>>(
    [query, key, value]: [&OMatrix<S, D, DH>; 3],
    (z, o_bar): (&OMatrix<S, D, T>, &OMatrix<S, DH, T>),
    (scale, softmax, pullback): (
        S,
        impl FnOnce(OMatrix<S, T, T>) -> OMatrix<S, T, T>,
        impl FnOnce(&OMatrix<S, T, T>, &OMatrix<S, T, T>, &mut OMatrix<S, T, T>),
    ),
    z_bar: &mut Matrix<S, D, T, SZ>,
    projections_bar: [&mut Matrix<S, D, DH, SP>; 3],
    workspace: &mut W,
) where
    S: Field,
    SZ: RawStorageMut<S, D, T>,
    SP: RawStorageMut<S, D, DH>,
    DefaultAllocator: Allocator<D, DH> + Allocator<D, T> + Allocator<DH, T> + Allocator<T, T>,
{
    let mut project =
        |workspace: &mut W, projection: &OMatrix<S, D, DH>| workspace.tr_mul(projection, z);
    let HeadScores {
        mut q,
        mut k,
        scores,
    } = head_scores([query, key], &mut project, scale, workspace);
    let mut lambda = softmax(scores);
    let (t, _) = lambda.shape_generic();
    let mut v = project(workspace, value);
    // V̄ = Ō_h Λᵀ; C̄ = s · σ-pullback(Λ, Vᵀ Ō_h).
    let mut lambda_t = workspace.transpose(&lambda);
    let mut v_bar = workspace.mul(o_bar, &lambda_t);
    let mut s_bar = workspace.tr_mul(&v, o_bar);
    let mut c_bar = workspace.build(t, t, |_, _| S::zero());
    pullback(&lambda, &s_bar, &mut c_bar);
    product::update(
        &mut c_bar,
        #[inline(always)]
        |entry, _, _| entry * scale,
    );
    // Q̄ = K C̄ᵀ, K̄ = Q C̄.
    let mut c_bar_t = workspace.transpose(&c_bar);
    let mut q_bar = workspace.mul(&k, &c_bar_t);
    let mut k_bar = workspace.mul(&q, &c_bar);
    for (projection, cotangent) in [(query, &q_bar), (key, &k_bar), (value, &v_bar)] {
        let mut share = workspace.mul(projection, cotangent);
        product::update(
            z_bar,
            #[inline(always)]
            |entry, i, j| entry + share[(i, j)],
        );
        workspace.recycle(&mut share);
    }
    // P̄ += Z X̄ᵀ.
    for (gradient, cotangent) in projections_bar.into_iter().zip([&q_bar, &k_bar, &v_bar]) {
        let mut from = workspace.mul_tr(z, cotangent);
        product::update(
            gradient,
            #[inline(always)]
            |entry, i, j| entry + from[(i, j)],
        );
        workspace.recycle(&mut from);
    }
    workspace.recycle_all([&mut q, &mut k, &mut v, &mut v_bar, &mut q_bar, &mut k_bar]);
    workspace.recycle_all([
        &mut lambda,
        &mut lambda_t,
        &mut s_bar,
        &mut c_bar,
        &mut c_bar_t,
    ]);
}
