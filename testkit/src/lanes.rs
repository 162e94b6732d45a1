//! The check every lane twin is held to: [`Lanewise`] gives the same bits as
//! [`SequenceLayer::forward_flat`] on every instruction set this machine has.

use geomattn::{BatchScalar, Isa, LaneTwin, Lanewise, SequenceLayer};
use rand::RngExt;
use rand::rngs::SmallRng;

/// Batch lengths around every lane width (2, 4, 8, 16): empty, partial groups, whole groups,
/// remainders.
pub const COUNTS: [usize; 14] = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 53];

/// A flat batch of `count` sequences of `per_item` entries, uniform in `[-scale, scale]`.
pub fn batch<S: From<f32>>(
    rng: &mut SmallRng,
    count: usize,
    per_item: usize,
    scale: f32,
) -> Vec<S> {
    (0..count * per_item)
        .map(|_| S::from((rng.random::<f32>() * 2.0 - 1.0) * scale))
        .collect()
}

/// Bit patterns, so that −0 differs from +0, with every NaN as one pattern: which NaN an operation
/// returns (its sign and payload) depends on operand order, which IEEE 754 leaves open and the
/// optimiser may swap.
pub fn bits<S: Into<f64> + Copy>(values: &[S]) -> Vec<u64> {
    values
        .iter()
        .map(|&v| v.into())
        .map(|v| {
            if v.is_nan() {
                f64::NAN.to_bits()
            } else {
                v.to_bits()
            }
        })
        .collect()
}

/// The first index where two bit patterns differ, with both values.
pub fn first_difference(a: &[u64], b: &[u64]) -> Option<(usize, f64, f64)> {
    (a.len() != b.len())
        .then_some((a.len().min(b.len()), f64::NAN, f64::NAN))
        .or_else(|| {
            a.iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .map(|k| (k, f64::from_bits(a[k]), f64::from_bits(b[k])))
        })
}

/// The lane path of `layer` equals its scalar path on `input`, bit for bit, on every instruction
/// set this machine has.
///
/// # Panics
/// At the first entry that differs, naming the instruction set, the sizes and the batch length.
pub fn assert_lanes_equal_scalar<L, const D: usize, const T: usize>(layer: &L, input: &[L::Scalar])
where
    L: LaneTwin<D, T> + SequenceLayer<L::Scalar, D, T> + Clone,
    L::Scalar: BatchScalar + Into<f64>,
{
    let mut scalar = vec![nalgebra::zero::<L::Scalar>(); input.len()];
    layer.forward_flat(input, &mut scalar).unwrap();
    for isa in Isa::ALL {
        let Some(fast) = Lanewise::on(isa, layer.clone()) else {
            continue;
        };
        let mut lanes = vec![nalgebra::zero::<L::Scalar>(); input.len()];
        fast.forward_flat(input, &mut lanes).unwrap();
        assert_eq!(
            first_difference(&bits(&lanes), &bits(&scalar)),
            None,
            "(entry, lanes, scalar) for {} at d = {D}, T = {T}, {isa:?} ({} lanes of {}), {} sequences",
            core::any::type_name::<L>(),
            isa.lanes::<L::Scalar>(),
            core::any::type_name::<L::Scalar>(),
            input.len() / (D * T)
        );
    }
}

/// [`assert_lanes_equal_scalar`] for every batch length of [`COUNTS`], with entries uniform in
/// `[-scale, scale]`, in the layer's scalar.
pub fn assert_lanes_equal_scalar_over_counts<L, const D: usize, const T: usize>(
    layer: &L,
    rng: &mut SmallRng,
    scale: f32,
) where
    L: LaneTwin<D, T> + SequenceLayer<L::Scalar, D, T> + Clone,
    L::Scalar: BatchScalar + Into<f64> + From<f32>,
{
    for count in COUNTS {
        let input = batch::<L::Scalar>(rng, count, D * T, scale);
        assert_lanes_equal_scalar::<L, D, T>(layer, &input);
    }
}

/// The largest difference between the lane path with [`geomattn::VectorFunctions`] and the scalar
/// path of `layer` on `input`, over every instruction set this machine has, in units of
/// `ε · max(|scalar|, 1)` (ε of the layer's scalar); infinite where one is NaN and the other not.
pub fn vector_functions_error<L, const D: usize, const T: usize>(
    layer: &L,
    input: &[L::Scalar],
) -> f64
where
    L: LaneTwin<D, T> + SequenceLayer<L::Scalar, D, T> + Clone,
    L::Scalar: BatchScalar + Into<f64>,
{
    let epsilon = if size_of::<L::Scalar>() == 4 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    let mut scalar = vec![nalgebra::zero::<L::Scalar>(); input.len()];
    layer.forward_flat(input, &mut scalar).unwrap();
    let mut worst = 0.0_f64;
    for isa in Isa::ALL {
        let Some(fast) = Lanewise::on(isa, layer.clone()) else {
            continue;
        };
        let mut lanes = vec![nalgebra::zero::<L::Scalar>(); input.len()];
        fast.vector_functions()
            .forward_flat(input, &mut lanes)
            .unwrap();
        for (&got, &want) in lanes.iter().zip(&scalar) {
            let (got, want): (f64, f64) = (got.into(), want.into());
            let error = if got.is_nan() || want.is_nan() {
                if got.is_nan() && want.is_nan() {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                (got - want).abs() / (epsilon * want.abs().max(1.0))
            };
            worst = worst.max(error);
        }
    }
    worst
}
