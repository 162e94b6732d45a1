//! GML's symplectic transformers computed from `CONVENTIONS.md`'s formulas on `DMatrix<f64>`,
//! straight from the layers as [`crate::gml_layout`] writes them: nothing of the runtime's layers
//! is used, so a network loaded from the same file can be checked against it.
//!
//! A window `Z ∈ R^{2n×T}` has `q` in rows `0..n` and `p` in rows `n..2n`; its columns are time
//! steps. The chain is GML's `L × [attention Q, n_sympnet gradient layers, attention P, n_sympnet
//! gradient layers]`, with `init_upper = true` (the odd-numbered gradient layers of a group
//! update `q`). Attention layers are GML's symmetric ones with GML's kick (`SymmetricMatrix` `A`
//! of size `n`: `q ← q + 2 A p σ(pᵀ A p)`) or linear symplectic ones (`A` of size `T`: `q ← q +
//! p A`).
//!
//! ```
//! use geomattn::nalgebra::DMatrix;
//! use geomattn_testkit::gml_layout::Layer;
//! use geomattn_testkit::gml_reference::{Softmax, chain};
//! // CONVENTIONS.md's linear symplectic attention (n = 1, T = 3): q ← q + p·A.
//! let layers = [Layer::Symmetric((1..=6).map(f64::from).collect(), 3)];
//! let z = DMatrix::from_row_slice(2, 3, &[1.0, 2.0, 3.0, 0.0, 1.0, -1.0]);
//! let out = chain(&layers, &z, Softmax::Matrix);
//! assert_eq!(out.row(0).iter().copied().collect::<Vec<_>>(), [-1.0, 0.0, 2.0]);
//! ```

use geomattn::nalgebra::DMatrix;
use geomattn_networks::layout::{self, Op, Side};
use geomattn_networks::{Activation, AttentionActivation, Kick};

use crate::gml_layout::Layer;

/// The attention's softmax (GML's `attention_activation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Softmax {
    /// `MatrixSoftmax`: over the whole `T×T` matrix.
    Matrix,
    /// `VectorSoftmax`: column by column.
    Vector,
}

impl Softmax {
    fn apply(self, c: &DMatrix<f64>) -> DMatrix<f64> {
        match self {
            Self::Matrix => {
                let e = c.map(|x| (x - c.max()).exp());
                &e / e.sum()
            }
            Self::Vector => {
                let mut s = c.clone();
                for mut column in s.column_iter_mut() {
                    let top = column.max();
                    column.apply(|x| *x = (*x - top).exp());
                    let total = column.sum();
                    column /= total;
                }
                s
            }
        }
    }
}

/// GML's `SymmetricMatrix(S, n)`: the lower triangle with the diagonal, row by row, mirrored.
pub fn symmetric(packed: &[f64], n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| {
        let (i, j) = (i.max(j), i.min(j));
        packed[i * (i + 1) / 2 + j]
    })
}

/// One layer on the window `z`, updating `q` (`update_q`) or `p`.
///
/// # Panics
/// For a layer that is not in a symplectic transformer (dense attention, ResNet, classifier).
pub fn layer(
    layer: &Layer<f64>,
    z: &DMatrix<f64>,
    update_q: bool,
    softmax: Softmax,
) -> DMatrix<f64> {
    let n = z.nrows() / 2;
    let (updated_rows, read_rows) = if update_q { (0, n) } else { (n, 0) };
    let x = z.rows(updated_rows, n).into_owned();
    let y = z.rows(read_rows, n).into_owned();
    let updated = match layer {
        // Symplectic attention, symmetric A, GML's kick: x ← x + 2 A y σ(yᵀ A y).
        Layer::Symmetric(packed, size) if *size == n => {
            let a = symmetric(packed, n);
            let s = softmax.apply(&(y.transpose() * &a * &y));
            &x + (&a * &y * s) * 2.0
        }
        // Linear symplectic attention, A (T×T) along time: x ← x + y A.
        Layer::Symmetric(packed, size) => &x + &y * symmetric(packed, *size),
        // Gradient layer: x ← x + Kᵀ (a ⊙ tanh(K y + b)), column by column; K is hidden×n,
        // column-major in the file.
        Layer::Gradient(k, b, a) => {
            let hidden = b.len();
            let k = DMatrix::from_column_slice(hidden, n, k);
            let mut inner = &k * &y;
            for mut column in inner.column_iter_mut() {
                for h in 0..hidden {
                    column[h] = a[h] * (column[h] + b[h]).tanh();
                }
            }
            &x + k.transpose() * inner
        }
        other => panic!("not a layer of a symplectic transformer: {other:?}"),
    };
    let mut out = z.clone();
    out.rows_mut(updated_rows, n).copy_from(&updated);
    out
}

/// The whole chain `layers` on the window `z`.
pub fn chain(layers: &[Layer<f64>], z: &DMatrix<f64>, softmax: Softmax) -> DMatrix<f64> {
    let mut z = z.clone();
    let (mut next_attention_updates_q, mut in_group) = (true, 0);
    for each in layers {
        let update_q = if let Layer::Gradient(..) = each {
            in_group += 1;
            in_group % 2 == 1
        } else {
            in_group = 0;
            next_attention_updates_q = !next_attention_updates_q;
            !next_attention_updates_q
        };
        z = layer(each, &z, update_q, softmax);
    }
    z
}

/// GML's `iterate` with the prediction window the whole window: the states `z₀, z₁, …` of the
/// initial window followed by those of `applications` applications of the chain, each to the
/// window before.
pub fn rollout(
    layers: &[Layer<f64>],
    window: &DMatrix<f64>,
    applications: usize,
    softmax: Softmax,
) -> Vec<Vec<f64>> {
    let mut states: Vec<Vec<f64>> = window
        .column_iter()
        .map(|c| c.iter().copied().collect())
        .collect();
    let mut z = window.clone();
    for _ in 0..applications {
        z = chain(layers, &z, softmax);
        states.extend(z.column_iter().map(|c| c.iter().copied().collect()));
    }
    states
}

/// An activation from CONVENTIONS.md's formulas, written here (not the runtime's).
pub fn activation(f: Activation, x: f64) -> f64 {
    match f {
        Activation::Identity => x,
        Activation::Tanh => x.tanh(),
        Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        Activation::Relu => x.max(0.0),
        // log(1 + eˣ), as NNlib writes it to stay finite where eˣ overflows.
        Activation::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
    }
}

/// GML's strictly lower (or, with `upper`, strictly upper) triangular `n×n` matrix of its packed
/// vector: the lower one row by row, the upper one column by column (CONVENTIONS.md).
pub fn triangular(packed: &[f64], n: usize, upper: bool) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| {
        let (row, col) = if upper { (j, i) } else { (i, j) };
        if row > col {
            packed[row * (row - 1) / 2 + col]
        } else {
            0.0
        }
    })
}

/// `Cay(C) = (I − C)(I + C)⁻¹` by nalgebra's LU.
fn cayley(c: &DMatrix<f64>) -> DMatrix<f64> {
    let identity = DMatrix::<f64>::identity(c.nrows(), c.ncols());
    let inverse = (&identity + c)
        .lu()
        .try_inverse()
        .expect("I + C is invertible");
    (&identity - c) * inverse
}

/// One layer of GML's volume-preserving chains on the window `z` (CONVENTIONS.md): attention
/// `Z·Cay(C)` (`SkewSym` A: `C = Zᵀ A Z`; `Dense` A: `C = L − Lᵀ` with `L` the strict lower part
/// of `Zᵀ A Z / √dim`), or a feed-forward layer `z + σ(W z + b)` on each column.
///
/// # Panics
/// For a layer of another architecture.
pub fn volume_preserving(layer: &Layer<f64>, f: Activation, z: &DMatrix<f64>) -> DMatrix<f64> {
    let dim = z.nrows();
    match layer {
        Layer::SkewSym(packed, n) => {
            let lower = triangular(packed, *n, false);
            let a = &lower - lower.transpose();
            z * cayley(&(z.transpose() * a * z))
        }
        Layer::Dense(a, n) => {
            let a = DMatrix::from_column_slice(*n, *n, a);
            let full = z.transpose() * a * z / (dim as f64).sqrt();
            let l = DMatrix::from_fn(full.nrows(), full.ncols(), |i, j| {
                if i > j { full[(i, j)] } else { 0.0 }
            });
            z * cayley(&(&l - l.transpose()))
        }
        Layer::Triangular {
            upper,
            weight,
            n,
            bias,
        } => {
            let w = triangular(weight, *n, *upper);
            let mut inner = w * z;
            if let Some(b) = bias {
                for mut column in inner.column_iter_mut() {
                    for (x, b) in column.iter_mut().zip(b) {
                        *x += b;
                    }
                }
            }
            z + inner.map(|x| activation(f, x))
        }
        other => panic!("not a layer of a volume-preserving network: {other:?}"),
    }
}

/// A volume-preserving chain (each layer with its activation) on the window `z`.
pub fn volume_preserving_chain(
    layers: &[(Layer<f64>, Activation)],
    z: &DMatrix<f64>,
) -> DMatrix<f64> {
    layers
        .iter()
        .fold(z.clone(), |z, (layer, f)| volume_preserving(layer, *f, &z))
}

/// `σ(W z + b)` on each column of `z`, `W` the `rows×z.nrows()` column-major `w`.
fn affine(w: &[f64], b: &[f64], z: &DMatrix<f64>, f: Activation) -> DMatrix<f64> {
    let w = DMatrix::from_column_slice(b.len(), z.nrows(), w);
    let mut inner = w * z;
    for mut column in inner.column_iter_mut() {
        for (x, b) in column.iter_mut().zip(b) {
            *x = activation(f, *x + b);
        }
    }
    inner
}

/// One layer of GML's standard transformer integrator on the window `z` (CONVENTIONS.md), from
/// its parameters' values in the chain's order: `Dense` `σ(W z + b)`, `ResNetLayer`
/// `z + σ(W z + b)`, `MultiHeadAttention` (per head `O = PVᵀZ · σ(ZᵀPQ PKᵀZ / √dim)`, the heads
/// stacked, plus `Z` with `add_connection`); and the classifier's `ClassificationLayer`, the
/// probabilities `softmax(W z_T)` of the last column as one column.
///
/// # Panics
/// For a layer of another architecture.
pub fn standard(layer: &layout::Layer, values: &[Vec<f64>], z: &DMatrix<f64>) -> DMatrix<f64> {
    match layer.op {
        Op::Dense { activation: f, .. } => affine(&values[0], &values[1], z, f),
        Op::ResNet { activation: f, .. } => z + affine(&values[0], &values[1], z, f),
        Op::MultiHeadAttention {
            dim,
            heads,
            add_connection,
            softmax,
            ..
        } => {
            let width = dim / heads;
            let softmax = match softmax {
                Some(AttentionActivation::MatrixSoftmax) => Softmax::Matrix,
                _ => Softmax::Vector,
            };
            let projection = |k: usize| DMatrix::from_column_slice(dim, width, &values[k]);
            let mut out = if add_connection {
                z.clone()
            } else {
                DMatrix::zeros(z.nrows(), z.ncols())
            };
            for h in 0..heads {
                let (pq, pk, pv) = (
                    projection(h),
                    projection(heads + h),
                    projection(2 * heads + h),
                );
                let c =
                    (pq.transpose() * z).transpose() * (pk.transpose() * z) / (dim as f64).sqrt();
                let o = pv.transpose() * z * softmax.apply(&c);
                let mut rows = out.rows_mut(h * width, width);
                rows += o;
            }
            out
        }
        // GML's `ClassificationLayer(dim, classes, softmax)`: softmax(W z_T), one column.
        Op::Classification { dim, classes } => {
            let w = DMatrix::from_column_slice(classes, dim, &values[0]);
            Softmax::Vector.apply(&(w * z.columns(z.ncols() - 1, 1)))
        }
        ref other => panic!("not a layer of a standard transformer: {other}"),
    }
}

/// GML's standard transformer integrator's chain on the window `z`: [`standard`] layer by layer.
pub fn standard_chain(
    layers: &[layout::Layer],
    values: &[Vec<Vec<f64>>],
    z: &DMatrix<f64>,
) -> DMatrix<f64> {
    layers
        .iter()
        .zip(values)
        .fold(z.clone(), |z, (layer, values)| standard(layer, values, &z))
}

/// One layer of GML's symplectic transformers on the window `z` (CONVENTIONS.md), from its
/// parameters' values in the chain's order, `kick` the weight's formula for `symmetric = true`
/// (`Kick::Gml`: GML's `2 A y S`; `Kick::Exact`: `A y (S + Sᵀ)`): `GradientLayer`
/// `x ← x + Kᵀ(a ⊙ σ(K y + b))`, `SymplecticAttention` `x ← x + kick` with `S = σ(yᵀ A y)` (dense
/// `A`: `A y Sᵀ + Aᵀ y S`), `LinearSymplecticAttention` `x ← x + y A`, `PSDLayer` `(Φq, Φp)` up
/// or `(Φᵀq, Φᵀp)` down; `x` the half a layer updates, `y` the other.
///
/// # Panics
/// For a layer of another architecture.
pub fn symplectic(
    layer: &layout::Layer,
    values: &[Vec<f64>],
    z: &DMatrix<f64>,
    kick: Kick,
) -> DMatrix<f64> {
    let n = z.nrows() / 2;
    let halves = |side: Side| {
        let (x, y) = if side == Side::Q { (0, n) } else { (n, 0) };
        (x, z.rows(y, n).into_owned())
    };
    let updated = |x: usize, update: DMatrix<f64>| {
        let mut out = z.clone();
        let mut rows = out.rows_mut(x, n);
        rows += update;
        out
    };
    match layer.op {
        Op::Gradient {
            activation: f,
            side,
            ..
        } => {
            let (x, y) = halves(side);
            let (w, b, a) = (&values[0], &values[1], &values[2]);
            let k = DMatrix::from_column_slice(b.len(), n, w);
            let mut inner = &k * &y;
            for mut column in inner.column_iter_mut() {
                for h in 0..b.len() {
                    column[h] = a[h] * activation(f, column[h] + b[h]);
                }
            }
            updated(x, k.transpose() * inner)
        }
        Op::SymplecticAttention {
            side,
            symmetric: is_symmetric,
            softmax,
            ..
        } => {
            let (x, y) = halves(side);
            let a = if is_symmetric {
                symmetric(&values[0], n)
            } else {
                DMatrix::from_column_slice(n, n, &values[0])
            };
            let softmax = match softmax {
                AttentionActivation::MatrixSoftmax => Softmax::Matrix,
                AttentionActivation::VectorSoftmax => Softmax::Vector,
            };
            let s = softmax.apply(&(y.transpose() * &a * &y));
            let update = match (is_symmetric, kick) {
                (false, _) => &a * &y * s.transpose() + a.transpose() * &y * &s,
                (true, Kick::Gml) => &a * &y * s * 2.0,
                (true, Kick::Exact) => &a * &y * (&s + s.transpose()),
            };
            updated(x, update)
        }
        Op::LinearSymplecticAttention { side, seq, .. } => {
            let (x, y) = halves(side);
            updated(x, y * symmetric(&values[0], seq))
        }
        Op::Psd { inputs, outputs } => {
            let phi = DMatrix::from_column_slice(
                inputs.max(outputs) / 2,
                inputs.min(outputs) / 2,
                &values[0],
            );
            let map = if outputs > inputs {
                phi
            } else {
                phi.transpose()
            };
            let (q, p) = (&map * z.rows(0, n), &map * z.rows(n, n));
            let mut out = DMatrix::zeros(outputs, z.ncols());
            out.rows_mut(0, outputs / 2).copy_from(&q);
            out.rows_mut(outputs / 2, outputs / 2).copy_from(&p);
            out
        }
        ref other => panic!("not a layer of a symplectic transformer: {other}"),
    }
}

/// A symplectic transformer's chain on the window `z`: [`symplectic`] layer by layer.
pub fn symplectic_chain(
    layers: &[layout::Layer],
    values: &[Vec<Vec<f64>>],
    z: &DMatrix<f64>,
    kick: Kick,
) -> DMatrix<f64> {
    layers
        .iter()
        .zip(values)
        .fold(z.clone(), |z, (layer, values)| {
            symplectic(layer, values, &z, kick)
        })
}
