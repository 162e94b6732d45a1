//! GML's `SymplecticTransformer` and `LinearSymplecticTransformer`: files written in GML's layout
//! (hdf5-pure's writer) load, round-trip through a blob, compute the explicit composition of their
//! layers, and are symplectic (`‖Jᵀ𝕁J − 𝕁‖_max`, exact Jacobians by dual numbers) in every
//! variant but GML's own `symmetric = true` kick with `VectorSoftmax`, which is measurably not.

use geomattn::gml::{GmlFile, LoadError, Storage, load};
use geomattn::nalgebra::SMatrix;
use geomattn::{
    DenseA, GmlCompatible, GradientExact, GradientLayerP, GradientLayerQ,
    LinearSymplecticAttentionP, LinearSymplecticAttentionQ, LinearSymplecticTransformer,
    MatrixSoftmax, Schema, SequenceLayer, Symmetric, SymmetricA, SymplecticAttentionP,
    SymplecticAttentionQ, SymplecticTransformer, Tanh, UpdateP, VectorSoftmax, read_blob, to_blob,
};
use geomattn_testkit::gml_layout::{self, Layer, to_bytes, uniform};
use geomattn_testkit::symplectic::symplecticity_error;
use geomattn_testkit::{jacobian, random_matrix};
use hdf5_pure::{AttrValue, FileBuilder};
use num_dual::Dual64;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Phase space R⁴ (n = 2), windows of 3, GML's default upscaling 2·dim = 8 (4 hidden units),
/// n_sympnet = 2, L = 2.
const N: usize = 2;
const T: usize = 3;
const HIDDEN: usize = 4;
const TOLERANCE: f64 = 1e-9;

type St<S, Sm, W> = SymplecticTransformer<S, N, HIDDEN, 2, 2, Tanh, Sm, W>;
type Lst<S> = LinearSymplecticTransformer<S, N, T, HIDDEN, 2, 2, Tanh>;

/// The layers of GML's chain: `L × [attention, NS gradient, attention, NS gradient]`.
fn chain(rng: &mut SmallRng, attention: impl Fn(&mut SmallRng) -> Layer) -> Vec<Layer> {
    gml_layout::chain(rng, (2, 2, N, HIDDEN), attention)
}

fn dense(rng: &mut SmallRng) -> Layer {
    Layer::Dense(uniform(rng, N * N), N)
}

fn symmetric(rng: &mut SmallRng) -> Layer {
    Layer::Symmetric(uniform(rng, N * (N + 1) / 2), N)
}

fn linear(rng: &mut SmallRng) -> Layer {
    Layer::Symmetric(uniform(rng, T * (T + 1) / 2), T)
}

fn write(layers: &[Layer]) -> GmlFile {
    GmlFile::from_bytes(to_bytes(layers)).unwrap()
}

fn wide(values: &[f32]) -> Vec<f64> {
    values.iter().map(|&x| f64::from(x)).collect()
}

/// The chain applied layer by layer, each layer built by hand from the written values: gradient
/// layer `i` of a stack is `Q` for even `i` (GML's `init_upper = true`).
fn by_hand(
    layers: &[Layer],
    z: &SMatrix<f64, 4, T>,
    attention: impl Fn(&Layer, bool, &SMatrix<f64, 4, T>) -> SMatrix<f64, 4, T>,
) -> SMatrix<f64, 4, T> {
    let mut z = *z;
    let mut in_stack = 0;
    let mut next_attention_is_q = true;
    for layer in layers {
        z = match layer {
            Layer::Gradient(w, b, a) => {
                let (w, b, a) = (wide(w), wide(b), wide(a));
                let q_layer = in_stack % 2 == 0;
                in_stack += 1;
                if q_layer {
                    GradientLayerQ::<f64, N, HIDDEN, Tanh>::from_slices(&w, &b, &a)
                        .unwrap()
                        .forward(&z)
                } else {
                    GradientLayerP::<f64, N, HIDDEN, Tanh>::from_slices(&w, &b, &a)
                        .unwrap()
                        .forward(&z)
                }
            }
            attention_layer => {
                in_stack = 0;
                let out = attention(attention_layer, next_attention_is_q, &z);
                next_attention_is_q = !next_attention_is_q;
                out
            }
        };
    }
    z
}

fn input(rng: &mut SmallRng) -> SMatrix<f64, 4, T> {
    random_matrix::<4, T>(rng)
}

#[test]
fn symplectic_transformer_is_the_composition_of_its_layers() {
    let mut rng = SmallRng::seed_from_u64(1);
    let layers = chain(&mut rng, symmetric);
    let file = write(&layers);
    let gml: St<f64, MatrixSoftmax, SymmetricA<f64, N, GmlCompatible>> = load(&file).unwrap();
    assert_eq!(
        St::<f64, MatrixSoftmax, SymmetricA<f64, N, GmlCompatible>>::LAYERS,
        12
    );
    let z = input(&mut rng);
    let expected = by_hand(&layers, &z, |layer, q, z| {
        let Layer::Symmetric(packed, _) = layer else {
            unreachable!()
        };
        let a = Symmetric::<f64, N>::from_packed(&wide(packed)).unwrap();
        if q {
            SymplecticAttentionQ::<f64, N>::symmetric_gml(a).forward(z)
        } else {
            SymplecticAttentionP::<f64, N>::symmetric_gml(a).forward(z)
        }
    });
    assert!((gml.forward(&z) - expected).amax() < 1e-14);
    // Round trip: the network written to a blob and read back is the same network.
    let blob = to_blob(&gml).unwrap();
    assert_eq!(
        read_blob::<St<f64, MatrixSoftmax, SymmetricA<f64, N, GmlCompatible>>>(&blob).unwrap(),
        gml
    );
}

#[test]
fn dense_symplectic_transformer_is_the_composition_of_its_layers() {
    let mut rng = SmallRng::seed_from_u64(2);
    let layers = chain(&mut rng, dense);
    let net: St<f64, VectorSoftmax, DenseA<f64, N>> = load(&write(&layers)).unwrap();
    let z = input(&mut rng);
    let expected = by_hand(&layers, &z, |layer, q, z| {
        let Layer::Dense(a, _) = layer else {
            unreachable!()
        };
        let a = SMatrix::<f64, N, N>::from_column_slice(&wide(a));
        if q {
            SymplecticAttentionQ::<f64, N, VectorSoftmax>::arbitrary(a).forward(z)
        } else {
            SymplecticAttentionP::<f64, N, VectorSoftmax>::arbitrary(a).forward(z)
        }
    });
    assert!((net.forward(&z) - expected).amax() < 1e-14);
    // The same file is not a symmetric one.
    assert!(load::<St<f64, VectorSoftmax, SymmetricA<f64, N>>>(&write(&layers)).is_err());
}

#[test]
fn linear_symplectic_transformer_is_the_composition_of_its_layers() {
    let mut rng = SmallRng::seed_from_u64(3);
    let layers = chain(&mut rng, linear);
    let net: Lst<f64> = load(&write(&layers)).unwrap();
    let z = input(&mut rng);
    let expected = by_hand(&layers, &z, |layer, q, z| {
        let Layer::Symmetric(packed, _) = layer else {
            unreachable!()
        };
        let packed = wide(packed);
        if q {
            LinearSymplecticAttentionQ::<f64, N, T>::from_packed(&packed)
                .unwrap()
                .forward(z)
        } else {
            LinearSymplecticAttentionP::<f64, N, T>::from_packed(&packed)
                .unwrap()
                .forward(z)
        }
    });
    assert!((net.forward(&z) - expected).amax() < 1e-14);
    let blob = to_blob(&net).unwrap();
    assert_eq!(read_blob::<Lst<f64>>(&blob).unwrap(), net);
}

/// The worst `‖Jᵀ𝕁J − 𝕁‖_max` of `Net` (loaded in dual numbers from `layers`) over 20 inputs,
/// the inputs scaled by 2 so that the softmaxes are far from uniform.
fn worst<Net>(layers: &[Layer], rng: &mut SmallRng) -> f64
where
    Net: Schema<Scalar = Dual64> + SequenceLayer<Dual64, 4, T>,
{
    let net: Net = load(&write(layers)).unwrap();
    (0..20)
        .map(|_| {
            let z = input(rng) * 2.0;
            symplecticity_error(&jacobian(|x| net.forward(x), &z), N, T)
        })
        .fold(0.0, f64::max)
}

#[test]
fn every_variant_is_symplectic_but_gmls_symmetric_kick_with_vector_softmax() {
    let mut rng = SmallRng::seed_from_u64(4);
    let sym = chain(&mut rng, symmetric);
    let dense_layers = chain(&mut rng, dense);
    let linear_layers = chain(&mut rng, linear);
    type D = Dual64;
    let symplectic = [
        (
            "symmetric, GML's kick, MatrixSoftmax (GML's default)",
            worst::<St<D, MatrixSoftmax, SymmetricA<D, N, GmlCompatible>>>(&sym, &mut rng),
        ),
        (
            "symmetric, exact kick, MatrixSoftmax",
            worst::<St<D, MatrixSoftmax, SymmetricA<D, N, GradientExact>>>(&sym, &mut rng),
        ),
        (
            "symmetric, exact kick, VectorSoftmax",
            worst::<St<D, VectorSoftmax, SymmetricA<D, N, GradientExact>>>(&sym, &mut rng),
        ),
        (
            "dense, MatrixSoftmax",
            worst::<St<D, MatrixSoftmax, DenseA<D, N>>>(&dense_layers, &mut rng),
        ),
        (
            "dense, VectorSoftmax",
            worst::<St<D, VectorSoftmax, DenseA<D, N>>>(&dense_layers, &mut rng),
        ),
        (
            "init_upper = false",
            worst::<
                SymplecticTransformer<
                    D,
                    N,
                    HIDDEN,
                    2,
                    2,
                    Tanh,
                    MatrixSoftmax,
                    DenseA<D, N>,
                    UpdateP,
                >,
            >(&dense_layers, &mut rng),
        ),
        (
            "linear symplectic transformer",
            worst::<Lst<D>>(&linear_layers, &mut rng),
        ),
    ];
    for (variant, error) in symplectic {
        println!("{variant}: ‖Jᵀ𝕁J − 𝕁‖_max = {error:.1e}");
        assert!(error < TOLERANCE, "{variant}: {error}");
    }
    let broken = worst::<St<D, VectorSoftmax, SymmetricA<D, N, GmlCompatible>>>(&sym, &mut rng);
    println!("symmetric, GML's kick, VectorSoftmax: ‖Jᵀ𝕁J − 𝕁‖_max = {broken:.1e}");
    assert!(broken > 1e-2, "{broken}");
}

/// GML's `GradientLayer` file layout is `weight` `HIDDEN×N` (dims reversed on disk): a file with
/// the weight the other way round is refused.
#[test]
fn a_transposed_gradient_weight_is_refused() {
    let mut rng = SmallRng::seed_from_u64(5);
    let layers = chain(&mut rng, linear);
    let mut file = FileBuilder::new();
    let mut group = file.create_group("L1");
    let Layer::Symmetric(packed, _) = &layers[0] else {
        unreachable!()
    };
    let mut a = group.create_group("A");
    a.set_attr("gml_type", AttrValue::AsciiString("SymmetricMatrix".into()));
    a.create_dataset("S").with_f32_data(packed);
    a.create_dataset("n")
        .with_i64_data(&[T as i64])
        .with_shape(&[]);
    group.add_group(a.finish());
    file.add_group(group.finish());
    let mut group = file.create_group("L2");
    // A Julia N×HIDDEN matrix: HDF5.jl writes the dimensions reversed.
    group
        .create_dataset("weight")
        .with_f32_data(&[0.0; HIDDEN * N])
        .with_shape(&[HIDDEN as u64, N as u64]);
    group.create_dataset("bias").with_f32_data(&[0.0; HIDDEN]);
    group.create_dataset("scale").with_f32_data(&[0.0; HIDDEN]);
    file.add_group(group.finish());
    let file = GmlFile::from_bytes(file.finish().unwrap()).unwrap();
    type Pair = (
        LinearSymplecticAttentionQ<f64, N, T>,
        GradientLayerQ<f64, N, HIDDEN, Tanh>,
    );
    assert!(load::<Pair>(&file).is_err());
}

/// Issue 39, item 7. GML's file of a `SymplecticTransformer(4; symmetric = true)` is, name for
/// name and shape for shape, the file of a `LinearSymplecticTransformer(4, 2)`: GML's files do not
/// say which, and read as either. A file geomattn writes records each layer's type, and reads only
/// as what it was written from (before, `/L1`'s symmetric `A` of size 2 read as linear attention
/// over windows of 2).
#[test]
fn a_written_symplectic_transformer_is_not_read_as_a_linear_one() {
    type Symmetric2 = St<f64, MatrixSoftmax, SymmetricA<f64, N, GmlCompatible>>;
    type Linear2 = LinearSymplecticTransformer<f64, N, N, HIDDEN, 2, 2, Tanh>;
    let mut rng = SmallRng::seed_from_u64(7);
    let gml = write(&chain(&mut rng, symmetric));
    let net: Symmetric2 = load(&gml).unwrap();
    assert!(load::<Linear2>(&gml).is_ok(), "GML's file reads as either");

    let written =
        GmlFile::from_bytes(geomattn::gml::to_bytes(&net, Storage::Float64).unwrap()).unwrap();
    assert_eq!(load::<Symmetric2>(&written).unwrap(), net);
    let error = load::<Linear2>(&written).unwrap_err();
    assert!(matches!(&error, LoadError::LayerType { path, .. } if path == "/L1"));
    assert_eq!(
        error.to_string(),
        "`/L1` was written as SymplecticAttentionQ(dim = 4, symmetric = true, \
         activation = MatrixSoftmax, kick = gml), but is read as \
         LinearSymplecticAttentionQ(dim = 4, seq_length = 2)"
    );
    // And the other way round.
    let linear: Linear2 = load(&gml).unwrap();
    let written =
        GmlFile::from_bytes(geomattn::gml::to_bytes(&linear, Storage::Float64).unwrap()).unwrap();
    assert!(matches!(
        load::<Symmetric2>(&written),
        Err(LoadError::LayerType { .. })
    ));
    // The sympnet layers' activation is recorded as well: GML's file has no trace of it.
    type Identity2 = LinearSymplecticTransformer<f64, N, N, HIDDEN, 2, 2, geomattn::Identity>;
    let error = load::<Identity2>(&written).unwrap_err();
    assert!(matches!(&error, LoadError::LayerType { path, .. } if path == "/L2"));
}
