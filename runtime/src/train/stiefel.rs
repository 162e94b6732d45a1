//! GML 0.4.8's optimisers on a network some of whose weights lie on the Stiefel manifold (the
//! `PSDLayer`s of a symplectic transformer with `transformer_dim ≠ dim`, multi-head attention with
//! `Stiefel = true`): [`ManifoldOptimizer`].
//!
//! GML trains a Stiefel weight `Y` (`N×n`, orthonormal columns) in its *global tangent space*
//! (`optimizers/manifold_related/global_sections.jl`, `retractions.jl`), and this follows its
//! code step by step:
//!
//! 1. Once, at the start of training, a *global section* `Q = [Y Y⊥]`, an `N×N` orthogonal
//!    matrix: `Y⊥` from the QR decomposition of a random `N×(N−n)` matrix with `Y`'s columns
//!    projected out (GML's `GlobalSection`, `randn` then `qr!`).
//! 2. Each step, the Euclidean gradient `G` becomes the Riemannian one, `Δ = G − Y GᵀY`
//!    (`rgrad`), and that its coordinates in the horizontal Lie algebra (`global_rep`):
//!    `A = ½(YᵀΔ − ΔᵀY)`, skew-symmetric `n×n`, kept as its `n(n−1)/2` entries below the
//!    diagonal, and `B = Y⊥ᵀΔ`, `(N−n)×n`.
//! 3. The optimiser (GML's `update!`) works on those coordinates entry by entry, as on any
//!    weight, and turns them into a velocity `(A, B)`.
//! 4. The velocity's matrix `B̄ = [A −Bᵀ; B 0]` is retracted with the Cayley transform
//!    `(I − ½B̄)⁻¹(I + ½B̄)` (GML's default `cayley`, which evaluates the same matrix through a
//!    `2n×2n` inverse) and the section moves, `Q ← Q (I − ½B̄)⁻¹(I + ½B̄)`; the weight is `Q`'s
//!    first `n` columns (`update_section!`).
//!
//! Every other weight steps as [`FlatOptimizer`] steps it, bit for bit: the optimiser runs once
//! over every parameter's coordinates, the Euclidean ones being the parameters themselves.
//!
//! The step is `Y ↦ Cayley(−η Ω) Y` for the gradient optimiser, `Ω = Q B̄ Qᵀ` GML's `Ω(Y, Δ)`,
//! whatever `Y⊥` was drawn; Adam's entry-by-entry moments are taken in `Y⊥`'s basis, so they
//! depend on the draw, as GML's do on its `randn`.
//!
//! ```
//! use geomattn::Kind;
//! use geomattn::train::{FlatOptimizer, ManifoldOptimizer};
//! use rand::SeedableRng;
//! // A 3×1 Stiefel weight (a unit vector) and a bias of 2.
//! let layout = [(Kind::Stiefel, 3, 1), (Kind::Vector, 2, 1)];
//! let mut theta: Vec<f64> = vec![1.0, 0.0, 0.0, 0.5, -0.5];
//! let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
//! let mut adam = ManifoldOptimizer::new(&layout, &theta, &mut rng, |len| FlatOptimizer::adam(len, None))?;
//! for _ in 0..100 {
//!     adam.step(&mut theta, &[0.3, -1.0, 2.0, 1.0, -1.0])?;
//! }
//! let norm = (theta[0] * theta[0] + theta[1] * theta[1] + theta[2] * theta[2]).sqrt();
//! assert!((norm - 1.0).abs() < 1e-14);
//! assert!(theta[0] < 1.0 && theta[3] < 0.5 && theta[4] > -0.5);
//! # Ok::<(), geomattn::Error>(())
//! ```

use core::ops::Range;
use std::vec::Vec;

use nalgebra::{DMatrix, RealField};
use rand::Rng;

use super::FlatOptimizer;
use super::optimizer::check_lengths;
use crate::error::Error;
use crate::init::standard_normal;
use crate::schema::Kind;

/// One of GML's optimisers over a network's parameters as one flat array in GML's order, the
/// Stiefel weights among them kept on their manifold as GML keeps them (see the
/// [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct ManifoldOptimizer<S: RealField + Copy> {
    optimizer: FlatOptimizer<S>,
    /// The parameters' runs, in order.
    runs: Vec<Run<S>>,
    /// The parameters' length.
    len: usize,
    /// The optimiser's array: the Euclidean parameters, then (where a Stiefel weight is) its
    /// velocity's coordinates.
    coordinates: Vec<S>,
    /// The gradient in those coordinates.
    coordinate_gradient: Vec<S>,
}

/// A run of parameters: Euclidean ones (`section: None`), or one Stiefel weight.
#[derive(Debug, Clone, PartialEq)]
struct Run<S: RealField + Copy> {
    /// Its parameters in the parameters.
    values: Range<usize>,
    /// Its coordinates in the optimiser's array.
    coordinates: Range<usize>,
    section: Option<Section<S>>,
}

/// A Stiefel weight's global section `Q = [Y Y⊥]`.
#[derive(Debug, Clone, PartialEq)]
struct Section<S: RealField + Copy> {
    /// `Y`'s columns.
    cols: usize,
    q: DMatrix<S>,
}

impl<S: RealField + Copy> Section<S> {
    /// `N×n`.
    fn shape(&self) -> (usize, usize) {
        (self.q.nrows(), self.cols)
    }

    /// The coordinates' length: `n(n−1)/2 + (N−n)n`.
    fn coordinates(rows: usize, cols: usize) -> usize {
        below_diagonal(cols).count() + (rows - cols) * cols
    }

    /// GML's `GlobalSection(Y)`: `Y`, and an orthonormal basis of its complement from `rng`.
    fn new<R: Rng + ?Sized>(y: DMatrix<S>, rng: &mut R) -> Self {
        let (rows, cols) = y.shape();
        let mut q = DMatrix::zeros(rows, rows);
        q.columns_mut(0, cols).copy_from(&y);
        if rows > cols {
            let mut random =
                DMatrix::from_fn(rows, rows - cols, |_, _| standard_normal::<S, R>(rng));
            random -= &y * (y.transpose() * &random);
            q.columns_mut(cols, rows - cols).copy_from(&random.qr().q());
        }
        Self { cols, q }
    }

    /// The Euclidean gradient `g` of `Y` (column-major) in the section's coordinates: the
    /// entries below the diagonal of `A`, row by row (GML's `SkewSymMatrix` order), then `B`.
    fn coordinates_of(&self, g: &[S], out: &mut [S]) {
        let (rows, cols) = self.shape();
        let y = self.q.columns(0, cols);
        let g = DMatrix::from_column_slice(rows, cols, g);
        let delta = &g - y * (g.transpose() * y);
        let a = y.transpose() * &delta;
        let b = self.q.columns(cols, rows - cols).transpose() * &delta;
        let half = nalgebra::convert::<f64, S>(0.5);
        let skew = below_diagonal(cols).map(|(i, j)| half * (a[(i, j)] - a[(j, i)]));
        for (out, value) in out.iter_mut().zip(skew.chain(b.iter().copied())) {
            *out = value;
        }
    }

    /// Moves the section by the velocity `v` (its coordinates) and writes `Y` into `y`
    /// (column-major). A velocity that is not finite leaves the section not finite.
    fn retract(&mut self, v: &[S], y: &mut [S]) {
        let (rows, cols) = self.shape();
        let mut b_bar = DMatrix::zeros(rows, rows);
        let (skew, b) = v.split_at(below_diagonal(cols).count());
        for ((i, j), &value) in below_diagonal(cols).zip(skew) {
            b_bar[(i, j)] = value;
            b_bar[(j, i)] = -value;
        }
        for (k, &value) in b.iter().enumerate() {
            let (i, j) = (cols + k % (rows - cols), k / (rows - cols));
            b_bar[(i, j)] = value;
            b_bar[(j, i)] = -value;
        }
        b_bar *= nalgebra::convert::<f64, S>(0.5);
        let identity = DMatrix::<S>::identity(rows, rows);
        let cayley = (&identity - &b_bar)
            .lu()
            .solve(&(&identity + &b_bar))
            .unwrap_or_else(|| DMatrix::from_element(rows, rows, S::zero() / S::zero()));
        self.q = &self.q * cayley;
        // (The first `n` columns, column-major.)
        y.copy_from_slice(&self.q.as_slice()[..rows * cols]);
    }
}

/// The places `(i, j)` below the diagonal of an `n×n` matrix, row by row: the order of GML's
/// packed `SkewSymMatrix`.
fn below_diagonal(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..n).flat_map(|i| (0..i).map(move |j| (i, j)))
}

impl<S: RealField + Copy> ManifoldOptimizer<S> {
    /// The optimiser `optimizer` makes for a given number of coordinates (e.g.
    /// `|len| FlatOptimizer::adam(len, None)`), over parameters laid out as `layout` (each
    /// parameter's kind and shape, in order, as [`crate::init::glorot_parameter`] takes them),
    /// with values `parameters`, from which each Stiefel weight's section is drawn with `rng`.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `parameters` is not as long as `layout` says; a Stiefel
    /// weight with more columns than rows ([`Error::WeightShape`]).
    pub fn new<R: Rng + ?Sized>(
        layout: &[(Kind, usize, usize)],
        parameters: &[S],
        rng: &mut R,
        optimizer: impl FnOnce(usize) -> FlatOptimizer<S>,
    ) -> Result<Self, Error> {
        let (mut runs, mut at, mut coordinates_at) = (Vec::new(), 0, 0);
        for &(kind, rows, cols) in layout {
            let len = kind.len(rows, cols);
            let values = parameters.get(at..at + len).ok_or(Error::WeightLength {
                name: "parameters",
                expected: at + len,
                found: parameters.len(),
            })?;
            let section = if kind == Kind::Stiefel {
                if cols > rows {
                    return Err(Error::WeightShape {
                        name: "Stiefel weight",
                        expected_rows: cols,
                        expected_cols: cols,
                        found_rows: rows,
                        found_cols: cols,
                    });
                }
                let y = DMatrix::from_column_slice(rows, cols, values);
                Some(Section::new(y, rng))
            } else {
                None
            };
            let coordinates = section
                .as_ref()
                .map_or(len, |_| Section::<S>::coordinates(rows, cols));
            match (runs.last_mut(), &section) {
                // Euclidean parameters one after the other make one run.
                (
                    Some(Run {
                        section: None,
                        values,
                        coordinates: c,
                    }),
                    None,
                ) => {
                    values.end += len;
                    c.end += coordinates;
                }
                _ => runs.push(Run {
                    values: at..at + len,
                    coordinates: coordinates_at..coordinates_at + coordinates,
                    section,
                }),
            }
            at += len;
            coordinates_at += coordinates;
        }
        if at != parameters.len() {
            return Err(Error::WeightLength {
                name: "parameters",
                expected: at,
                found: parameters.len(),
            });
        }
        Ok(Self {
            optimizer: optimizer(coordinates_at),
            runs,
            len: at,
            coordinates: std::vec![S::zero(); coordinates_at],
            coordinate_gradient: std::vec![S::zero(); coordinates_at],
        })
    }

    /// One minibatch's step: the optimiser's on the Euclidean parameters, GML's manifold step on
    /// the Stiefel weights.
    ///
    /// # Errors
    /// [`Error::WeightLength`] if `parameters` or `gradient` is not as long as the layout (then
    /// nothing changes).
    pub fn step(&mut self, parameters: &mut [S], gradient: &[S]) -> Result<(), Error> {
        check_lengths(self.len, parameters, gradient)?;
        for run in &self.runs {
            let (c, g) = (run.coordinates.clone(), &gradient[run.values.clone()]);
            match &run.section {
                None => {
                    self.coordinates[c.clone()].copy_from_slice(&parameters[run.values.clone()]);
                    self.coordinate_gradient[c].copy_from_slice(g);
                }
                Some(section) => {
                    section.coordinates_of(g, &mut self.coordinate_gradient[c.clone()]);
                    // The velocity, once the optimiser has added it.
                    self.coordinates[c].fill(S::zero());
                }
            }
        }
        self.optimizer
            .step(&mut self.coordinates, &self.coordinate_gradient)?;
        for run in &mut self.runs {
            let (values, c) = (&mut parameters[run.values.clone()], run.coordinates.clone());
            match &mut run.section {
                None => values.copy_from_slice(&self.coordinates[c]),
                Some(section) => section.retract(&self.coordinates[c], values),
            }
        }
        Ok(())
    }

    /// The steps taken so far.
    pub fn steps(&self) -> u64 {
        self.optimizer.steps()
    }
}

#[cfg(test)]
mod tests {
    use crate::init::uniform;
    use nalgebra::DMatrix;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    use super::*;

    /// A random `rows×cols` matrix with orthonormal columns, and a generator.
    fn stiefel(rows: usize, cols: usize, seed: u64) -> (DMatrix<f64>, SmallRng) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let a = DMatrix::from_fn(rows, cols, |_, _| standard_normal::<f64, _>(&mut rng));
        (a.qr().q(), rng)
    }

    fn random(rows: usize, cols: usize, rng: &mut SmallRng) -> DMatrix<f64> {
        DMatrix::from_fn(rows, cols, |_, _| uniform(rng, 1.0))
    }

    /// `‖YᵀY − I‖` (largest entry).
    fn off_manifold(y: &DMatrix<f64>) -> f64 {
        (y.transpose() * y - DMatrix::identity(y.ncols(), y.ncols())).amax()
    }

    /// The gradient optimiser's step, in the ambient space and without a section: GML's
    /// `Ω(Y, Δ) = (I − ½YYᵀ)ΔYᵀ − YΔᵀ(I − ½YYᵀ)` of the Riemannian gradient `Δ`, then
    /// `Y ← (I + ½ηΩ)⁻¹(I − ½ηΩ) Y`.
    fn cayley_descent(y: &DMatrix<f64>, g: &DMatrix<f64>, eta: f64) -> DMatrix<f64> {
        let n = y.nrows();
        let delta = g - y * (g.transpose() * y);
        let p = DMatrix::identity(n, n) - 0.5 * y * y.transpose();
        let omega = &p * &delta * y.transpose() - y * delta.transpose() * &p;
        let step = 0.5 * eta * omega;
        let identity = DMatrix::identity(n, n);
        (&identity + &step)
            .lu()
            .solve(&((&identity - &step) * y))
            .unwrap()
    }

    #[test]
    fn gradient_descent_is_the_cayley_step_of_the_riemannian_gradient() {
        for (rows, cols) in [(2, 1), (3, 3), (5, 2), (8, 3), (20, 10)] {
            let (y, mut rng) = stiefel(rows, cols, 7);
            let layout = [(Kind::Stiefel, rows, cols)];
            let eta = 0.1;
            let mut optimizer = ManifoldOptimizer::new(&layout, y.as_slice(), &mut rng, |len| {
                FlatOptimizer::gradient(len, Some(eta))
            })
            .unwrap();
            let (mut theta, mut expected) = (y.as_slice().to_vec(), y);
            for _ in 0..5 {
                let g = random(rows, cols, &mut rng);
                optimizer.step(&mut theta, g.as_slice()).unwrap();
                expected = cayley_descent(&expected, &g, eta);
                let got = DMatrix::from_column_slice(rows, cols, &theta);
                assert!(
                    (&got - &expected).amax() < 1e-13,
                    "{rows}×{cols}: {got} {expected}"
                );
            }
            assert_eq!(optimizer.steps(), 5);
        }
    }

    #[test]
    fn adam_keeps_stiefel_weights_orthonormal_and_the_others_as_the_flat_optimiser() {
        let (y, mut rng) = stiefel(6, 2, 3);
        let (w, b) = (random(2, 3, &mut rng), random(3, 1, &mut rng));
        let layout = [
            (Kind::Dense, 2, 3),
            (Kind::Stiefel, 6, 2),
            (Kind::Vector, 3, 1),
        ];
        let mut theta: Vec<f64> = [w.as_slice(), y.as_slice(), b.as_slice()].concat();
        let mut euclidean: Vec<f64> = [w.as_slice(), b.as_slice()].concat();
        let mut optimizer = ManifoldOptimizer::new(&layout, &theta, &mut rng, |len| {
            FlatOptimizer::adam(len, Some(0.05))
        })
        .unwrap();
        let mut flat = FlatOptimizer::adam(euclidean.len(), Some(0.05));
        for _ in 0..300 {
            let g = random(6 + 12 + 3, 1, &mut rng);
            optimizer.step(&mut theta, g.as_slice()).unwrap();
            let g_euclidean = [&g.as_slice()[..6], &g.as_slice()[18..]].concat();
            flat.step(&mut euclidean, &g_euclidean).unwrap();
        }
        assert_eq!([&theta[..6], &theta[18..]].concat(), euclidean);
        let y_now = DMatrix::from_column_slice(6, 2, &theta[6..18]);
        assert!(off_manifold(&y_now) < 1e-13, "{}", off_manifold(&y_now));
        assert!((&y_now - &y).amax() > 0.1, "the weight moved");
    }

    #[test]
    fn without_stiefel_weights_it_is_the_flat_optimiser() {
        let mut rng = SmallRng::seed_from_u64(5);
        let layout = [
            (Kind::Dense, 2, 2),
            (Kind::Skew, 3, 3),
            (Kind::Vector, 2, 1),
        ];
        let mut theta = random(9, 1, &mut rng).as_slice().to_vec();
        let mut reference = theta.clone();
        let mut optimizer = ManifoldOptimizer::new(&layout, &theta, &mut rng, |len| {
            FlatOptimizer::momentum(len, None)
        })
        .unwrap();
        let mut flat = FlatOptimizer::momentum(9, None);
        for _ in 0..10 {
            let g = random(9, 1, &mut rng);
            optimizer.step(&mut theta, g.as_slice()).unwrap();
            flat.step(&mut reference, g.as_slice()).unwrap();
        }
        assert_eq!(theta, reference);
    }

    #[test]
    fn a_stiefel_weight_stays_on_its_manifold_in_f32() {
        let (y, mut rng) = stiefel(10, 4, 11);
        let y32 = y.map(|x| x as f32);
        let mut theta = y32.as_slice().to_vec();
        let layout = [(Kind::Stiefel, 10, 4)];
        let mut optimizer = ManifoldOptimizer::<f32>::new(&layout, &theta, &mut rng, |len| {
            FlatOptimizer::adam(len, Some(0.1))
        })
        .unwrap();
        for _ in 0..1000 {
            let g = random(40, 1, &mut rng).map(|x| x as f32);
            optimizer.step(&mut theta, g.as_slice()).unwrap();
        }
        // The section is a product of a thousand rounded rotations, as GML's is: measured
        // 3.9e-5 off (GML's files are read to 1e-2).
        let y_now = DMatrix::from_column_slice(10, 4, &theta).map(f64::from);
        assert!(off_manifold(&y_now) < 1e-4, "{}", off_manifold(&y_now));
    }

    #[test]
    fn shapes_it_cannot_train_are_errors() {
        let mut rng = SmallRng::seed_from_u64(1);
        let adam = |len| FlatOptimizer::adam(len, None);
        let wide = ManifoldOptimizer::new(&[(Kind::Stiefel, 2, 3)], &[0.0; 6], &mut rng, adam);
        assert!(matches!(wide, Err(Error::WeightShape { .. })), "{wide:?}");
        let short = ManifoldOptimizer::new(&[(Kind::Stiefel, 3, 1)], &[1.0, 0.0], &mut rng, adam);
        assert!(
            matches!(short, Err(Error::WeightLength { .. })),
            "{short:?}"
        );
        let long = ManifoldOptimizer::new(&[(Kind::Vector, 1, 1)], &[1.0, 0.0], &mut rng, adam);
        assert!(matches!(long, Err(Error::WeightLength { .. })), "{long:?}");
        let layout = [(Kind::Stiefel, 3, 1)];
        let mut optimizer =
            ManifoldOptimizer::new(&layout, &[1.0, 0.0, 0.0], &mut rng, adam).unwrap();
        let mut theta = [1.0, 0.0, 0.0];
        let wrong = optimizer.step(&mut theta, &[1.0, 2.0]);
        assert!(
            matches!(wrong, Err(Error::WeightLength { .. })),
            "{wrong:?}"
        );
        assert_eq!((theta, optimizer.steps()), ([1.0, 0.0, 0.0], 0));
    }
}
