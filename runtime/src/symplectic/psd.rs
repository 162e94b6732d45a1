//! GML's `PSDLayer` at run-time sizes.

use nalgebra::DMatrix;

use crate::engine::backward::{column_major, dot_rows};
use crate::engine::transformer::Upscaling;
use crate::engine::{Backward, Element, Forward, Scratch, half, matrix, mul, tr_mul};
use crate::error::Error;
use crate::scalar::{Field, MapScalar};

/// GML's `PSDLayer(inputs, outputs)` (proper symplectic decomposition): on every time step
/// `(q, p) ↦ (Φ q, Φ p)` when `outputs > inputs`, `(Φᵀ q, Φᵀ p)` otherwise, with `Φ` of
/// `max/2 × min/2` (a point of the Stiefel manifold in GML: orthonormal columns, which
/// `geomattn check` measures). A symplectic transformer with `transformer_dim ≠ dim` maps up
/// with one and back down with another.
///
/// ```
/// use geomattn::engine::{Forward, PsdLayer};
/// use geomattn::nalgebra::DMatrix;
/// // R² up to R⁴ with Φ = (1, 0)ᵀ: (q, p) ↦ (q, 0, p, 0).
/// let up = PsdLayer::new(2, 4, &[1.0, 0.0])?;
/// let y = up.forward(&DMatrix::from_column_slice(2, 1, &[3.0, 5.0]))?;
/// assert_eq!(y.as_slice(), [3.0, 0.0, 5.0, 0.0]);
/// # Ok::<(), geomattn::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PsdLayer<S> {
    /// `Φ`, `max(inputs, outputs)/2 × min(inputs, outputs)/2`.
    phi: DMatrix<S>,
    /// `outputs > inputs`: `Φ` maps up; else `Φᵀ` maps down.
    up: bool,
}

impl<S: Field> PsdLayer<S> {
    /// GML's `PSDLayer(inputs, outputs)` from its weight `Φ` (column-major, as Julia stores it).
    ///
    /// # Errors
    /// [`Error::PhaseSpace`] for an odd dimension; [`Error::WeightLength`] for a `Φ` of another
    /// length.
    pub fn new(inputs: usize, outputs: usize, phi: &[S]) -> Result<Self, Error> {
        let (n_in, n_out) = (half("PSDLayer", inputs)?, half("PSDLayer", outputs)?);
        let (rows, cols) = (n_in.max(n_out), n_in.min(n_out));
        Ok(Self {
            phi: matrix("weight", rows, cols, phi)?,
            up: outputs > inputs,
        })
    }

    /// `Φ`.
    pub fn weight(&self) -> &DMatrix<S> {
        &self.phi
    }
}

impl<S: Element> Forward<S> for PsdLayer<S> {
    fn name(&self) -> &'static str {
        "PSDLayer"
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        let half = if self.up {
            self.phi.ncols()
        } else {
            self.phi.nrows()
        };
        (2 * half, None)
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        let n = z.nrows() / 2;
        let rows = if self.up {
            self.phi.nrows()
        } else {
            self.phi.ncols()
        };
        let mut out = scratch.zeros(2 * rows, z.ncols());
        // `Φ x` or `Φᵀ x` of each half `x` of `z`, into its half of the output.
        for half in 0..2 {
            let x = z.rows(half * n, n);
            let mapped = if self.up {
                mul(&self.phi, x, scratch)
            } else {
                tr_mul(&self.phi, x, scratch)
            };
            out.rows_mut(half * rows, rows).copy_from(&mapped);
            scratch.recycle(mapped);
        }
        scratch.replace(z, out);
    }
}

/// Each half `x` of the input maps to `o = Φ x` (up) or `Φᵀ x` (down): `x̄ = Φᵀ ō` or `Φ ō`,
/// and `∂L/∂Φ = Σ ō xᵀ` or `Σ x ōᵀ` over both halves (column-major). The Euclidean gradient:
/// GML keeps `Φ` on the Stiefel manifold with its manifold optimisers.
impl<S: Element> Backward<S> for PsdLayer<S> {
    fn parameter_count(&self) -> usize {
        self.phi.len()
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        let (n_in, n_out) = (z.nrows() / 2, bar.nrows() / 2);
        let mut z_bar = scratch.zeros(z.nrows(), z.ncols());
        for half in 0..2 {
            let (x, o_bar) = (z.rows(half * n_in, n_in), bar.rows(half * n_out, n_out));
            let (rows, cols) = self.phi.shape();
            for ((i, j), g) in column_major(rows, cols).zip(gradient.iter_mut()) {
                *g += if self.up {
                    dot_rows(o_bar, i, x, j)
                } else {
                    dot_rows(x, i, o_bar, j)
                };
            }
            let x_bar = if self.up {
                tr_mul(&self.phi, o_bar, scratch)
            } else {
                mul(&self.phi, o_bar, scratch)
            };
            z_bar.rows_mut(half * n_in, n_in).copy_from(&x_bar);
            scratch.recycle(x_bar);
        }
        scratch.replace(bar, z_bar);
    }
}

impl<S: Element> Upscaling<S> for PsdLayer<S> {
    fn outputs(&self) -> usize {
        2 * if self.up {
            self.phi.nrows()
        } else {
            self.phi.ncols()
        }
    }
}

impl<S: Field> MapScalar for PsdLayer<S> {
    type Scalar = S;
    type Over<X: Field> = PsdLayer<X>;

    fn map_scalar<X: Field>(&self, f: impl FnMut(S) -> X) -> PsdLayer<X> {
        PsdLayer {
            phi: self.phi.map(f),
            up: self.up,
        }
    }
}
