//! `const` constructors: a network can be a `static` (weights in read-only memory, built at
//! compile time), and equals the one built at run time from the same numbers.

use geomattn::nalgebra::{ArrayStorage, SMatrix, SVector};
use geomattn::{
    Head, Identity, MultiHeadAttention, NoConnection, Packed, PackedLayout, ResNetLayer,
    ResNetStack, SequenceLayer, Skew, SkewSymmetric, SkewVpa, StrictlyLower, Sym, Tanh,
    Transformer, VolumePreservingLayer, VolumePreservingLowerLayer,
};
use geomattn::{Lower, Upper};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Unwraps in a `const` context (where `Result::unwrap` is not `const`).
macro_rules! ok {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(_) => panic!("a wrong length in a static"),
        }
    };
}

const fn matrix<const R: usize, const C: usize>(columns: [[f64; R]; C]) -> SMatrix<f64, R, C> {
    SMatrix::from_array_storage(ArrayStorage(columns))
}

const A: SkewSymmetric<f64, 2> = ok!(SkewSymmetric::<f64, 2>::from_packed_const(&[0.7]));
static ATTENTION: SkewVpa<f64, 2, 3> = SkewVpa::skew_sym(A);
static HEADS: MultiHeadAttention<f64, 2, 1, 2, NoConnection> =
    MultiHeadAttention::new([Head::new(
        matrix([[1.0, 0.5], [-0.5, 2.0]]),
        matrix([[0.3, 0.0], [0.1, 1.0]]),
        matrix([[1.0, 0.0], [0.0, 1.0]]),
    )]);
const RESNET: ResNetLayer<f64, 2, Tanh> = ResNetLayer::new(
    matrix([[0.2, -0.4], [0.6, 0.1]]),
    Some(SVector::from_array_storage(ArrayStorage([[0.05, -0.1]]))),
);
static NET: Transformer<
    MultiHeadAttention<f64, 2, 1, 2, NoConnection>,
    ResNetStack<f64, 2, 2, Tanh>,
    1,
> = Transformer::new([(
    HEADS,
    ResNetStack::new(
        [RESNET, RESNET],
        ResNetLayer::new(matrix([[1.0, 0.0], [0.0, 1.0]]), None),
    ),
)]);
static LOWER: VolumePreservingLowerLayer<f64, 2, Identity> = VolumePreservingLayer::new(
    ok!(StrictlyLower::<f64, 2>::from_packed_const(&[0.5])),
    None,
);

#[test]
fn static_networks_equal_the_ones_built_at_run_time() {
    let z = SMatrix::<f64, 2, 3>::from_fn(|i, j| 0.3 * i as f64 - 0.2 * j as f64 + 0.1);
    let attention = SkewVpa::<f64, 2, 3>::skew_sym(SkewSymmetric::from_packed(&[0.7]).unwrap());
    assert_eq!(ATTENTION.forward(&z), attention.forward(&z));
    let resnet =
        ResNetLayer::<f64, 2, Tanh>::from_slices(&[0.2, -0.4, 0.6, 0.1], Some(&[0.05, -0.1]))
            .unwrap();
    let heads = MultiHeadAttention::<f64, 2, 1, 2, NoConnection>::new([Head::from_column_major(
        &[1.0, 0.5, -0.5, 2.0],
        &[0.3, 0.0, 0.1, 1.0],
        &[1.0, 0.0, 0.0, 1.0],
    )
    .unwrap()]);
    let identity = ResNetLayer::from_slices(&[1.0, 0.0, 0.0, 1.0], None).unwrap();
    let net = Transformer::new([(heads, ResNetStack::new([resnet, resnet], identity))]);
    assert_eq!(NET.forward(&z), net.forward(&z));
    let lower = VolumePreservingLowerLayer::<f64, 2, Identity>::from_slices(&[0.5], None).unwrap();
    assert_eq!(LOWER, lower);
}

fn agree<S, const SIZE: usize, Layout>(rng: &mut SmallRng)
where
    S: geomattn::Field + std::fmt::Debug,
    Layout: PackedLayout + std::fmt::Debug + PartialEq,
    Packed<S, SIZE, Layout>: ConstPacked<S>,
    rand::distr::StandardUniform: rand::distr::Distribution<S>,
{
    let values: Vec<S> = (0..Packed::<S, SIZE, Layout>::packed_len())
        .map(|_| rng.random())
        .collect();
    assert_eq!(
        Packed::<S, SIZE, Layout>::from_const(&values),
        Packed::<S, SIZE, Layout>::from_packed(&values)
    );
    // One entry too many or too few: the same error as at run time.
    let mut longer = values.clone();
    longer.push(values.first().copied().unwrap_or_else(S::zero));
    assert_eq!(
        Packed::<S, SIZE, Layout>::from_const(&longer),
        Packed::<S, SIZE, Layout>::from_packed(&longer)
    );
}

/// The `const` constructor, for `f32` and `f64`.
trait ConstPacked<S>: Sized {
    fn from_const(values: &[S]) -> Result<Self, geomattn::Error>;
}

impl<const SIZE: usize, Layout: PackedLayout> ConstPacked<f64> for Packed<f64, SIZE, Layout> {
    fn from_const(values: &[f64]) -> Result<Self, geomattn::Error> {
        Self::from_packed_const(values)
    }
}

impl<const SIZE: usize, Layout: PackedLayout> ConstPacked<f32> for Packed<f32, SIZE, Layout> {
    fn from_const(values: &[f32]) -> Result<Self, geomattn::Error> {
        Self::from_packed_const(values)
    }
}

macro_rules! every_layout {
    ($rng:expr, $scalar:ty, $($size:literal),*) => {$(
        agree::<$scalar, $size, Skew>($rng);
        agree::<$scalar, $size, Sym>($rng);
        agree::<$scalar, $size, Lower>($rng);
        agree::<$scalar, $size, Upper>($rng);
    )*};
}

#[test]
fn const_packed_matrices_equal_the_run_time_ones() {
    let mut rng = SmallRng::seed_from_u64(8);
    every_layout!(&mut rng, f64, 0, 1, 2, 3, 4, 7);
    every_layout!(&mut rng, f32, 1, 2, 5);
}
