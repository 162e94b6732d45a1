//! The backward pass of multi-head attention with Euclidean heads.

use nalgebra::{SMatrix, SMatrixView, SMatrixViewMut};

use crate::backward::Backward;
use crate::backward::SoftmaxBackward;
use crate::mha::{Connection, Euclidean, Head, MultiHeadAttention};
use crate::product;
use crate::scalar::Real;
use crate::scalar::ratio;

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
        // The forward pass's scaling, by the square root of the full dimension D.
        let scale = S::one() / ratio::<S>(D as i64, 1).sqrt();
        if Conn::ADD {
            z_bar.copy_from(&out_bar);
        } else {
            z_bar.fill(S::zero());
        }
        let mut heads = *gradient.heads();
        for ((h, head), head_gradient) in self.heads().iter().enumerate().zip(&mut heads) {
            let q = product::tr_mul(&head.query, &z);
            let k = product::tr_mul(&head.key, &z);
            let v = product::tr_mul(&head.value, &z);
            let mut lambda: SMatrix<S, T, T> = product::matrix(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |i, j| product::column_dot(&q, i, &k, j) * scale,
            );
            Sm::apply_in_place(&mut lambda);
            let o_bar: SMatrix<S, DH, T> = product::matrix(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |i, j| out_bar[(h * DH + i, j)],
            );
            let v_bar = product::mul(&o_bar, &lambda.transpose());
            let c_bar = Sm::pullback(&lambda, &product::tr_mul(&v, &o_bar)) * scale;
            let q_bar = product::mul(&k, &c_bar.transpose());
            let k_bar = product::mul(&q, &c_bar);
            z_bar += product::mul(&head.query, &q_bar)
                + product::mul(&head.key, &k_bar)
                + product::mul(&head.value, &v_bar);
            head_gradient.query += product::mul(&z, &q_bar.transpose());
            head_gradient.key += product::mul(&z, &k_bar.transpose());
            head_gradient.value += product::mul(&z, &v_bar.transpose());
        }
        *gradient = Self::new(heads);
    }
}
