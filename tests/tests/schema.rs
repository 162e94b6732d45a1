//! The parameter schema and the blob built on it: each schema's description agrees with its
//! counts, a trained network goes HDF5 → blob → network with bit-identical weights (compared
//! through the schema's own sink), and every way a blob can be wrong gives its typed error
//! (`blob_types.rs`: a blob read as another type, and hostile descriptions).

use geomattn::gml::load_file;
use geomattn::nalgebra::{Matrix3, RealField, SMatrix};
use geomattn::{
    AddConnection, BLOB_HEADER_LEN, BLOB_MAGIC, BlobError, Difference, Error, Head, LayerType,
    MultiHeadAttention, Name, NoConnection, OwnedLayerType, Param, Schema, SequenceLayer,
    ShortText, Sink, SkewSymmetric, SkewVpa, StandardTransformerIntegrator, Stiefel, StrictlyUpper,
    Tanh, TypeMismatch, Visit, VolumePreservingFeedForward, VolumePreservingTransformer,
    VolumePreservingUpperLayer, blob_len, read_blob, read_blob_into, to_blob, write_blob,
};
use geomattn_testkit::fixture;
use rand::SeedableRng;
use rand::rngs::SmallRng;

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, NoConnection>, 2, 3, Tanh>;

/// Counts what a schema describes.
#[derive(Default)]
struct Count {
    layers: Vec<OwnedLayerType>,
    scalars: usize,
    params: Vec<Param>,
}

impl Visit for Count {
    fn layer(&mut self, layer: &LayerType) {
        self.layers.push(OwnedLayerType::new(
            layer.name,
            layer.settings,
            layer.params,
        ));
        self.scalars += layer.params.iter().map(Param::len).sum::<usize>();
        self.params.extend(layer.params);
    }
}

fn described<N: Schema>() -> Count {
    let mut count = Count::default();
    N::describe(&mut count);
    count
}

/// Every value a network hands out, as the bits of an `f64` (exact for `f32` too), with the
/// parameter it belongs to.
#[derive(Default)]
struct Collect {
    layers: usize,
    values: Vec<(Param, u64)>,
}

impl<S: Copy + Into<f64>> Sink<S> for Collect {
    type Error = Error;
    fn begin_layer(&mut self) -> Result<(), Error> {
        self.layers += 1;
        Ok(())
    }
    fn param(&mut self, param: &Param, values: &[S]) -> Result<(), Error> {
        assert_eq!(values.len(), param.len());
        let bits = values.iter().map(|&x| (*param, x.into().to_bits()));
        self.values.extend(bits);
        Ok(())
    }
    fn invalid(&mut self, error: Error) -> Error {
        error
    }
}

fn collect<N: Schema<Scalar: Into<f64>>>(network: &N) -> Collect {
    let mut sink = Collect::default();
    network.write(&mut sink).unwrap();
    sink
}

#[test]
fn descriptions_agree_with_the_counts_and_the_sinks() {
    fn check<N: Schema<Scalar: Into<f64> + RealField>>(file: &str, layers: usize) {
        let count = described::<N>();
        assert_eq!((count.layers.len(), count.scalars), (N::LAYERS, N::SCALARS));
        assert_eq!(N::LAYERS, layers, "{file}");
        // What the network writes is what its schema describes, parameter by parameter.
        let network: N = load_file(fixture(file)).unwrap();
        let written = collect(&network);
        assert_eq!(written.layers, N::LAYERS);
        let params: Vec<Param> = written.values.iter().map(|(p, _)| *p).collect();
        let expected: Vec<Param> = count
            .params
            .iter()
            .flat_map(|p| std::iter::repeat_n(*p, p.len()))
            .collect();
        assert_eq!(params, expected, "{file}");
    }
    // The layer counts GML's README gives for the three files.
    check::<Vpt<f64>>("transformer_rigid_body_nn_vpt.h5", 33);
    check::<Vpff<f64>>("transformer_rigid_body_nn_vpff.h5", 26);
    check::<St<f64>>("transformer_rigid_body_nn_st.h5", 12);
    check::<Vpff<f32>>("transformer_rigid_body_nn_vpff.h5", 26);
}

#[test]
fn parameter_counts_by_hand() {
    // VPFF(3, 6, 1): per block a linear pair (3 + 3 packed, a bias on the upper one) and a
    // nonlinear pair (3 + 3 packed, two biases), then a linear pair with one bias:
    // 6 · (6 + 3 + 6 + 6) + 6 + 3 = 135.
    assert_eq!(Vpff::<f64>::SCALARS, 135);
    // VPA: a dense 3×3 `A`; VPT = 3 · (9 + VPFF(3, 2, 1)) = 3 · (9 + 2 · 21 + 9) = 180.
    assert_eq!(Vpt::<f64>::SCALARS, 180);
    // ST: per block one head (3 projections of 3×3) and three ResNet layers (9 + 3).
    assert_eq!(St::<f64>::SCALARS, 3 * (27 + 3 * 12));
    let names: Vec<String> = described::<MultiHeadAttention<f64, 4, 2, 2, NoConnection>>()
        .params
        .iter()
        .map(|p| format!("{}", p.name))
        .collect();
    assert_eq!(
        names,
        [
            "PQ/head_1",
            "PQ/head_2",
            "PK/head_1",
            "PK/head_2",
            "PV/head_1",
            "PV/head_2"
        ]
    );
}

#[test]
fn descriptions_tell_architectures_apart_and_ignore_the_scalar() {
    let types = [
        described::<Vpt<f64>>().layers,
        described::<Vpff<f64>>().layers,
        described::<St<f64>>().layers,
        described::<VolumePreservingFeedForward<f64, 3, 5, 1, Tanh>>().layers,
        described::<VolumePreservingFeedForward<f64, 4, 6, 1, Tanh>>().layers,
        // Same shapes, another kind (Stiefel), another option or another order of the same layers.
        described::<MultiHeadAttention<f64, 3, 1, 3, NoConnection, Stiefel>>().layers,
        described::<MultiHeadAttention<f64, 3, 1, 3, NoConnection>>().layers,
        described::<MultiHeadAttention<f64, 3, 1, 3, AddConnection>>().layers,
        described::<(SkewVpa<f64, 3, 3>, VolumePreservingUpperLayer<f64, 3>)>().layers,
        described::<(VolumePreservingUpperLayer<f64, 3>, SkewVpa<f64, 3, 3>)>().layers,
    ];
    for (i, a) in types.iter().enumerate() {
        for b in &types[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert_eq!(described::<Vpt<f32>>().layers, types[0]);
    assert_eq!(Vpt::<f32>::DESCRIPTION_LEN, Vpt::<f64>::DESCRIPTION_LEN);
}

/// HDF5 → network → blob → network: the same bits, parameter by parameter, and the same outputs.
fn round_trip<N>(file: &str, input: &impl Fn() -> N::Input)
where
    N: Schema<Scalar: Into<f64> + RealField + geomattn::BlobScalar> + Forward,
{
    let loaded: N = load_file(fixture(file)).unwrap();
    let blob = to_blob(&loaded).unwrap();
    assert_eq!(blob.len(), blob_len::<N>());
    let back: N = read_blob(&blob).unwrap();
    assert_eq!(collect(&back).values, collect(&loaded).values, "{file}");
    let z = input();
    assert!(N::same(&loaded.run(&z), &back.run(&z)));
    // In place, into a slot.
    let mut slot = core::mem::MaybeUninit::<N>::uninit();
    let placed = read_blob_into(&mut slot, &blob).unwrap();
    assert_eq!(collect(&*placed).values, collect(&loaded).values);
}

/// What `round_trip` runs: a window of 3 states, or one state.
trait Forward {
    type Input;
    type Output;
    fn run(&self, z: &Self::Input) -> Self::Output;
    fn same(a: &Self::Output, b: &Self::Output) -> bool;
}

macro_rules! window_forward {
    ($($net:ty),*) => {$(
        impl Forward for $net {
            type Input = SMatrix<<Self as Schema>::Scalar, 3, 3>;
            type Output = Self::Input;
            fn run(&self, z: &Self::Input) -> Self::Output {
                self.forward(z)
            }
            fn same(a: &Self::Output, b: &Self::Output) -> bool {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
        }
    )*};
}
window_forward!(Vpt<f64>, Vpt<f32>, St<f64>, St<f32>, Vpff<f64>, Vpff<f32>);

#[test]
fn fixtures_round_trip_through_blobs_bit_for_bit() {
    let window = || Matrix3::from_fn(|i, j| 0.1 * (i as f64) + 0.3 * (j as f64) - 0.2);
    let window32 = || window().map(|x| x as f32);
    round_trip::<Vpt<f64>>("transformer_rigid_body_nn_vpt.h5", &window);
    round_trip::<Vpt<f32>>("transformer_rigid_body_nn_vpt.h5", &window32);
    round_trip::<St<f64>>("transformer_rigid_body_nn_st.h5", &window);
    round_trip::<St<f32>>("transformer_rigid_body_nn_st.h5", &window32);
    round_trip::<Vpff<f64>>("transformer_rigid_body_nn_vpff.h5", &window);
    round_trip::<Vpff<f32>>("transformer_rigid_body_nn_vpff.h5", &window32);
}

/// A blob of the VPFF fixture in `f64`, and its network.
fn vpff_blob() -> (Vpff<f64>, Vec<u8>) {
    let net: Vpff<f64> = load_file(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    let blob = to_blob(&net).unwrap();
    (net, blob)
}

/// Rewrites the checksum after a change of the description or the payload.
fn reseal(blob: &mut [u8]) {
    let crc = crc_of(&blob[BLOB_HEADER_LEN..]);
    blob[12..16].copy_from_slice(&crc.to_le_bytes());
}

/// CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF), bit by
/// bit, independently of the crate's implementation.
fn crc_of(bytes: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn the_header_is_as_documented() {
    assert_eq!(
        crc_of(b"123456789"),
        0xCBF4_3926,
        "the standard check value"
    );
    let (_, blob) = vpff_blob();
    let description = Vpff::<f64>::DESCRIPTION_LEN;
    assert_eq!(blob[..8], BLOB_MAGIC);
    assert_eq!(u16::from_le_bytes([blob[8], blob[9]]), 2);
    assert_eq!(u16::from_le_bytes([blob[10], blob[11]]), 8);
    assert_eq!(blob[12..16], crc_of(&blob[32..]).to_le_bytes());
    assert_eq!(blob[16..24], (description as u64).to_le_bytes());
    assert_eq!(blob[24..32], 135_u64.to_le_bytes());
    assert_eq!(blob.len(), 32 + description + 135 * 8);
    // The description starts with the first layer's token: `L`, the name's length, the name.
    let name = b"VolumePreservingLowerLayer";
    assert_eq!(blob[32], b'L');
    assert_eq!(blob[33..35], (name.len() as u16).to_le_bytes());
    assert_eq!(blob[35..35 + name.len()], name[..]);
    // The first scalar is the first packed entry of `/L1/weight`.
    let at = 32 + description;
    let first = f64::from_le_bytes(blob[at..at + 8].try_into().unwrap());
    let net: Vpff<f64> = load_file(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    let lower = &net.blocks()[0].linear[0].0;
    assert_eq!(first, lower.weight().matrix()[(1, 0)]);
}

#[test]
fn every_wrong_blob_is_a_typed_error() {
    let (_, blob) = vpff_blob();
    let read = |bytes: &[u8]| read_blob::<Vpff<f64>>(bytes).map(drop);
    assert_eq!(read(&blob), Ok(()));

    assert_eq!(
        read(&blob[..20]),
        Err(BlobError::Truncated {
            needed: 32,
            found: 20
        })
    );
    let mut magic = blob.clone();
    magic[0] = b'X';
    assert!(matches!(read(&magic), Err(BlobError::Magic { found }) if found[0] == b'X'));
    let mut version = blob.clone();
    version[8] = 3;
    assert_eq!(read(&version), Err(BlobError::Version { found: 3 }));
    // An f32 blob read as the f64 network.
    let net32: Vpff<f32> = load_file(fixture("transformer_rigid_body_nn_vpff.h5")).unwrap();
    assert_eq!(
        read(&to_blob(&net32).unwrap()),
        Err(BlobError::Width {
            expected: 8,
            found: 4
        })
    );
    // The blob read as another architecture: the first layer differs.
    assert_eq!(
        read_blob::<Vpt<f64>>(&blob).map(drop),
        Err(BlobError::Type(TypeMismatch {
            layer: 1,
            difference: Difference::Layer,
            in_blob: ShortText::from("VolumePreservingLowerLayer"),
            in_type: ShortText::from("VolumePreservingAttention"),
        }))
    );
    // A count that disagrees with the type, the length and checksum made to fit it.
    let mut count = blob[..blob.len() - 8].to_vec();
    count[24] = 134;
    reseal(&mut count);
    assert_eq!(
        read(&count),
        Err(BlobError::Count {
            expected: 135,
            found: 134
        })
    );
    assert_eq!(
        read(&blob[..blob.len() - 1]),
        Err(BlobError::Truncated {
            needed: blob.len(),
            found: blob.len() - 1
        })
    );
    let mut trailing = blob.clone();
    trailing.push(0);
    assert_eq!(
        read(&trailing),
        Err(BlobError::TrailingBytes {
            expected: blob.len(),
            found: blob.len() + 1
        })
    );
    // A flipped bit in the payload, and one in the description: both caught by the checksum.
    for at in [blob.len() - 100, BLOB_HEADER_LEN + 100] {
        let mut flipped = blob.clone();
        flipped[at] ^= 1;
        assert!(matches!(read(&flipped), Err(BlobError::Checksum { .. })));
    }
    // A NaN in `/L2/bias` (after L1's 3 packed entries and L2's 3: scalar 6 + 1), resealed.
    let mut nan = blob.clone();
    let at = BLOB_HEADER_LEN + Vpff::<f64>::DESCRIPTION_LEN + 7 * 8;
    nan[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    reseal(&mut nan);
    assert_eq!(
        read(&nan),
        Err(BlobError::NonFinite {
            layer: 2,
            name: Name::new("bias"),
            index: 1
        })
    );
    let mut infinite = blob.clone();
    infinite[at..at + 8].copy_from_slice(&f64::INFINITY.to_le_bytes());
    reseal(&mut infinite);
    assert!(matches!(read(&infinite), Err(BlobError::NonFinite { .. })));
}

/// A blob of format version 1 (its 28-byte header: magic, version, width, fingerprint, count,
/// CRC-32; then the payload) is refused by its version, with the way out.
#[test]
fn a_version_1_blob_is_refused_naming_its_version() {
    let (net, _) = vpff_blob();
    let mut payload = Vec::new();
    for (_, bits) in collect(&net).values {
        payload.extend(bits.to_le_bytes());
    }
    let mut v1 = BLOB_MAGIC.to_vec();
    v1.extend(1_u16.to_le_bytes());
    v1.extend(8_u16.to_le_bytes());
    v1.extend(0x1234_5678_u32.to_le_bytes());
    v1.extend(135_u64.to_le_bytes());
    v1.extend(crc_of(&payload).to_le_bytes());
    v1.extend(payload);
    let error = read_blob::<Vpff<f64>>(&v1).map(drop).unwrap_err();
    assert_eq!(error, BlobError::Version { found: 1 });
    assert_eq!(
        error.to_string(),
        "blob format version 1, this crate reads only version 2: write the blob again with this crate"
    );
}

#[test]
fn stiefel_weights_off_the_manifold_are_rejected_from_a_blob() {
    type Layer = MultiHeadAttention<f64, 2, 1, 2, NoConnection, Stiefel>;
    let identity = SMatrix::<f64, 2, 2>::identity();
    let layer = Layer::stiefel([Head::new(identity, identity, identity)]).unwrap();
    let mut blob = to_blob(&layer).unwrap();
    assert!(read_blob::<Layer>(&blob).is_ok());
    // PK's first entry 1 → 1.5: off the manifold by far more than the tolerance.
    let at = BLOB_HEADER_LEN + Layer::DESCRIPTION_LEN + 4 * 8;
    blob[at..at + 8].copy_from_slice(&1.5_f64.to_le_bytes());
    reseal(&mut blob);
    assert_eq!(
        read_blob::<Layer>(&blob).map(drop),
        Err(BlobError::Invalid {
            layer: 1,
            source: Error::NotOrthonormal {
                name: "PK",
                head: 0
            }
        })
    );
}

#[test]
fn writing_needs_room_and_a_network_that_fits_its_schema() {
    let (net, blob) = vpff_blob();
    let mut short = vec![0; blob.len() - 1];
    assert_eq!(
        write_blob(&net, &mut short),
        Err(BlobError::BufferTooSmall {
            needed: blob.len(),
            found: blob.len() - 1
        })
    );
    // A longer buffer: the blob is its first bytes, the rest untouched.
    let mut long = vec![7; blob.len() + 3];
    assert_eq!(write_blob(&net, &mut long), Ok(blob.len()));
    assert_eq!(long[..blob.len()], blob[..]);
    assert_eq!(long[blob.len()..], [7, 7, 7]);

    // GML's VPFF has no bias on the lower layer of a linear pair: one built with one has no blob.
    let mut rng = SmallRng::seed_from_u64(2);
    let upper = VolumePreservingUpperLayer::<f64, 3, geomattn::Identity>::glorot(&mut rng, true);
    let with_bias = geomattn::VolumePreservingLowerLayer::glorot(&mut rng, true);
    let net = VolumePreservingFeedForward::<f64, 3, 0, 1, Tanh>::new([], (with_bias, upper));
    assert!(matches!(
        to_blob(&net),
        Err(BlobError::Invalid {
            layer: 1,
            source: Error::NotInSchema { .. }
        })
    ));
    // And its upper layer needs one.
    let without =
        VolumePreservingUpperLayer::new(StrictlyUpper::from_packed(&[1.0; 3]).unwrap(), None);
    let lower = geomattn::VolumePreservingLowerLayer::glorot(&mut rng, false);
    let net = VolumePreservingFeedForward::<f64, 3, 0, 1, Tanh>::new([], (lower, without));
    assert!(matches!(
        to_blob(&net),
        Err(BlobError::Invalid {
            layer: 2,
            source: Error::NotInSchema { .. }
        })
    ));
}

#[test]
fn blobs_of_random_networks_round_trip() {
    let mut rng = SmallRng::seed_from_u64(5);
    for _ in 0..20 {
        let a = SkewSymmetric::<f32, 4>::glorot(&mut rng);
        let attention = SkewVpa::<f32, 4, 3>::skew_sym(a);
        let mha = MultiHeadAttention::<f32, 4, 2, 2, AddConnection>::glorot(&mut rng);
        let net = (attention, mha);
        let back: (
            SkewVpa<f32, 4, 3>,
            MultiHeadAttention<f32, 4, 2, 2, AddConnection>,
        ) = read_blob(&to_blob(&net).unwrap()).unwrap();
        assert_eq!(collect(&back).values, collect(&net).values);
        assert_eq!(back.1, net.1);
    }
}
