//! The backward passes of GML's `StandardTransformerIntegrator`: multi-head attention with
//! Euclidean heads ([`attention`]) through any [`SoftmaxBackward`](super::SoftmaxBackward), and the ResNet
//! stack of its feed-forward part ([`resnet`]). The integrator itself is a
//! [`Transformer`](crate::Transformer) of the two, whose backward pass composes theirs.
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

mod attention;
mod resnet;

#[cfg(feature = "std")]
pub(crate) use attention::head_pullback;
