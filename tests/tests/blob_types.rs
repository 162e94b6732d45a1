//! A blob names its whole type. Written from one type and read into a type that differs in one
//! field only (an activation, `add_connection`, a size, the orthogonal map, the weighting, the
//! kick, a side, `Stiefel`, the softmax), it is refused with an error naming that field; read into
//! its own type, or one whose orthogonal map computes the same function, it gives the same weights
//! bit for bit. Hostile descriptions (cut, not UTF-8, overlong lengths, unknown tags) are errors,
//! never panics.

use geomattn::gml::load_file;
use geomattn::nalgebra::{Matrix3, SMatrix};
use geomattn::{
    Activation, AddConnection, ArbitraryVpa, BLOB_HEADER_LEN, BlobError, ClassificationTransformer,
    DenseA, Difference, Elimination, Error, Euclidean, Exp, Field, Generated, GmlCompatible,
    GradientExact, GradientLayerP, GradientLayerQ, GramSchmidt, Identity, LayerType,
    LinearSymplecticAttentionQ, LinearSymplecticTransformer, LuSolve, MatrixSoftmax,
    MultiHeadAttention, NalgebraInverse, NoConnection, OrthogonalMap, Param, ResNetLayer,
    ResNetStack, ScalingSquaring, Schema, SequenceLayer, ShortText, Sink, SkewVpa, Source,
    StandardTransformerIntegrator, Stiefel, SymmetricA, SympNetStack, SymplecticAttentionP,
    SymplecticAttentionQ, SymplecticTransformer, Tanh, TypeMismatch, UpdateP, UpdateQ,
    VectorSoftmax, Visit, VolumePreservingFeedForward, VolumePreservingTransformer, read_blob,
    to_blob,
};
use geomattn_testkit::fixture;
use proptest::prelude::*;

/// Fills every parameter with fixed values: dense and Stiefel matrices the first columns of the
/// identity (orthonormal), every other entry of a fixed sequence in `[-0.5, 1]`.
struct Fill(usize);

impl Source<f64> for Fill {
    type Error = Error;
    fn begin_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }
    fn end_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }
    fn param(&mut self, param: &Param, out: &mut [f64]) -> Result<(), Error> {
        for (index, value) in out.iter_mut().enumerate() {
            self.0 += 1;
            *value = match param.kind {
                geomattn::Kind::Stiefel => f64::from(u8::from(index % (param.rows + 1) == 0)),
                _ => 0.25 * (self.0 % 7) as f64 - 0.5,
            };
        }
        Ok(())
    }
    fn invalid(&mut self, error: Error) -> Error {
        error
    }
}

/// A network of type `N` with [`Fill`]'s weights.
fn build<N: Schema<Scalar = f64>>() -> N {
    N::read(&mut Fill(0)).unwrap()
}

/// The blob of `Written`'s network, and what reading it as `Read` reports.
fn read_as<Written, Read>() -> (Vec<u8>, Result<(), BlobError>)
where
    Written: Schema<Scalar = f64>,
    Read: Schema<Scalar = f64>,
{
    let blob = to_blob(&build::<Written>()).unwrap();
    let read = read_blob::<Read>(&blob).map(drop);
    (blob, read)
}

/// Checks that a blob of `Written` reads back into `Written` bit for bit, and that read as `Read`
/// it is refused with `message` (after "the blob was written for another type: ").
fn refused<Written, Read>(message: &str) -> TypeMismatch
where
    Written: Schema<Scalar = f64>,
    Read: Schema<Scalar = f64>,
{
    let (blob, read) = read_as::<Written, Read>();
    let back: Written = read_blob(&blob).unwrap();
    assert_eq!(to_blob(&back).unwrap(), blob, "{message}");
    match read {
        Err(BlobError::Type(mismatch)) => {
            let error = BlobError::Type(mismatch);
            assert_eq!(
                error.to_string(),
                format!("the blob was written for another type: {message}")
            );
            mismatch
        }
        other => panic!("{message}: {other:?}"),
    }
}

/// What a `Difference::Setting` names: the layer and the key.
fn setting(mismatch: TypeMismatch) -> (usize, &'static str, &'static str) {
    match mismatch.difference {
        Difference::Setting { layer, key } => (mismatch.layer, layer, key),
        other => panic!("{other:?}"),
    }
}

type Mha<Conn, Proj = Euclidean, Sm = VectorSoftmax> =
    MultiHeadAttention<f64, 3, 1, 3, Conn, Proj, Sm>;
type Vpff<const NB: usize, const NL: usize, Act> = VolumePreservingFeedForward<f64, 3, NB, NL, Act>;
type Vpt<const T: usize, const L: usize, Map = Generated> =
    VolumePreservingTransformer<f64, 3, T, 2, 1, L, Tanh, geomattn::ArbitraryWeight<f64, 3>, Map>;
type St<Conn, Act> = StandardTransformerIntegrator<f64, 3, Mha<Conn>, 2, 3, Act>;
type Sympt<Weight, First> =
    SymplecticTransformer<f64, 1, 2, 1, 2, Tanh, MatrixSoftmax, Weight, First>;
type Classifier<Proj> = ClassificationTransformer<f64, 4, 2, 2, 2, 3, NoConnection, Proj, Tanh>;

#[test]
fn another_activation_is_named() {
    let m = refused::<ResNetLayer<f64, 3, Tanh>, ResNetLayer<f64, 3, Identity>>(
        "layer 1 (ResNetLayer): activation tanh in the blob, identity in the type",
    );
    assert_eq!(setting(m), (1, "ResNetLayer", "activation"));
    // In a feed-forward network, the first nonlinear layer is the third.
    refused::<Vpff<2, 1, Tanh>, Vpff<2, 1, Identity>>(
        "layer 3 (VolumePreservingLowerLayer): activation tanh in the blob, identity in the type",
    );
    refused::<St<NoConnection, Identity>, St<NoConnection, Tanh>>(
        "layer 2 (ResNetLayer): activation identity in the blob, tanh in the type",
    );
    refused::<GradientLayerQ<f64, 1, 2, Tanh>, GradientLayerQ<f64, 1, 2, Identity>>(
        "layer 1 (GradientLayerQ): activation tanh in the blob, identity in the type",
    );
}

#[test]
fn add_connection_stiefel_and_the_softmax_of_attention_are_named() {
    let m = refused::<Mha<NoConnection>, Mha<AddConnection>>(
        "layer 1 (MultiHeadAttention): add_connection false in the blob, true in the type",
    );
    assert_eq!(setting(m), (1, "MultiHeadAttention", "add_connection"));
    refused::<St<AddConnection, Tanh>, St<NoConnection, Tanh>>(
        "layer 1 (MultiHeadAttention): add_connection true in the blob, false in the type",
    );
    refused::<Mha<NoConnection, Stiefel>, Mha<NoConnection, Euclidean>>(
        "layer 1 (MultiHeadAttention): Stiefel true in the blob, false in the type",
    );
    refused::<Classifier<Euclidean>, Classifier<Stiefel>>(
        "layer 1 (MultiHeadAttention): Stiefel false in the blob, true in the type",
    );
    refused::<
        Mha<NoConnection, Euclidean, VectorSoftmax>,
        Mha<NoConnection, Euclidean, MatrixSoftmax>,
    >(
        "layer 1 (MultiHeadAttention): softmax VectorSoftmax in the blob, MatrixSoftmax in the type"
    );
}

/// The case the old format let through: GML's trained standard transformer (no connection) read
/// as one with `add_connection = true` changes the output by 3.4; now it is refused.
#[test]
fn the_trained_standard_transformer_is_refused_with_another_connection() {
    let net: St<NoConnection, Tanh> =
        load_file(fixture("transformer_rigid_body_nn_st.h5")).unwrap();
    let blob = to_blob(&net).unwrap();
    let error = read_blob::<St<AddConnection, Tanh>>(&blob)
        .map(drop)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the blob was written for another type: layer 1 (MultiHeadAttention): \
         add_connection false in the blob, true in the type"
    );
    let back: St<NoConnection, Tanh> = read_blob(&blob).unwrap();
    let z = Matrix3::from_fn(|i, j| 0.1 * i as f64 - 0.2 * j as f64 + 0.3);
    assert_eq!(back.forward(&z), net.forward(&z));
}

#[test]
fn every_size_is_named() {
    refused::<ResNetLayer<f64, 3, Tanh>, ResNetLayer<f64, 4, Tanh>>(
        "layer 1 (ResNetLayer): dim 3 in the blob, 4 in the type",
    );
    // The sequence length, which changes no parameter of volume-preserving attention.
    let m = refused::<SkewVpa<f64, 3, 3>, SkewVpa<f64, 3, 4>>(
        "layer 1 (VolumePreservingAttention): seq_length 3 in the blob, 4 in the type",
    );
    assert_eq!(setting(m).2, "seq_length");
    refused::<Vpt<3, 3>, Vpt<4, 3>>(
        "layer 1 (VolumePreservingAttention): seq_length 3 in the blob, 4 in the type",
    );
    refused::<LinearSymplecticAttentionQ<f64, 1, 2>, LinearSymplecticAttentionQ<f64, 1, 3>>(
        "layer 1 (LinearSymplecticAttentionQ): seq_length 2 in the blob, 3 in the type",
    );
    refused::<
        MultiHeadAttention<f64, 4, 2, 2, NoConnection>,
        MultiHeadAttention<f64, 4, 1, 4, NoConnection>,
    >("layer 1 (MultiHeadAttention): n_heads 2 in the blob, 1 in the type");
    refused::<GradientLayerQ<f64, 1, 2, Tanh>, GradientLayerQ<f64, 1, 3, Tanh>>(
        "layer 1 (GradientLayerQ): upscaling_dimension 4 in the blob, 6 in the type",
    );
    refused::<
        Classifier<Euclidean>,
        ClassificationTransformer<f64, 4, 2, 2, 2, 4, NoConnection, Euclidean, Tanh>,
    >("layer 5 (ClassificationLayer): output_dim 3 in the blob, 4 in the type");
    // n_linear: the second layer has a bias with one linear pair, none with two.
    refused::<Vpff<2, 1, Tanh>, Vpff<2, 2, Tanh>>(
        "layer 2 (VolumePreservingUpperLayer): use_bias true in the blob, false in the type",
    );
    // n_blocks (a feed-forward network of two blocks is a prefix of one of three) and L.
    refused::<Vpff<2, 1, Tanh>, Vpff<3, 1, Tanh>>(
        "layer 11: no layer in the blob, VolumePreservingLowerLayer in the type",
    );
    refused::<Vpt<3, 3>, Vpt<3, 2>>(
        "layer 23: VolumePreservingAttention in the blob, no layer in the type",
    );
    refused::<Vpt<3, 2>, Vpt<3, 3>>(
        "layer 23: no layer in the blob, VolumePreservingAttention in the type",
    );
    refused::<ResNetStack<f64, 3, 2, Tanh>, ResNetStack<f64, 3, 1, Tanh>>(
        "layer 2 (ResNetLayer): activation tanh in the blob, identity in the type",
    );
}

#[test]
fn the_orthogonal_map_is_named_by_its_function() {
    let m = refused::<SkewVpa<f64, 3, 3, Generated>, SkewVpa<f64, 3, 3, Exp>>(
        "layer 1 (VolumePreservingAttention): orthogonal_map cayley in the blob, exp in the type",
    );
    assert_eq!(setting(m).2, "orthogonal_map");
    refused::<ArbitraryVpa<f64, 3, 3, ScalingSquaring>, ArbitraryVpa<f64, 3, 3, GramSchmidt>>(
        "layer 1 (VolumePreservingAttention): orthogonal_map exp in the blob, cayley in the type",
    );
    refused::<Vpt<3, 3, Exp>, Vpt<3, 3>>(
        "layer 1 (VolumePreservingAttention): orthogonal_map exp in the blob, cayley in the type",
    );
}

/// A blob written with one kernel of a function reads into the network with another: the same
/// weights bit for bit, the same outputs to rounding.
#[test]
fn kernels_of_the_same_function_are_interchangeable() {
    fn same_network<Written, Read>()
    where
        Written: Schema<Scalar = f64> + SequenceLayer<f64, 3, 4>,
        Read: Schema<Scalar = f64> + SequenceLayer<f64, 3, 4>,
    {
        let written = build::<Written>();
        let blob = to_blob(&written).unwrap();
        let read: Read = read_blob(&blob).unwrap();
        assert_eq!(to_blob(&read).unwrap(), blob);
        let z = SMatrix::<f64, 3, 4>::from_fn(|i, j| 0.3 * i as f64 - 0.2 * j as f64 + 0.1);
        let (a, b) = (written.forward(&z), read.forward(&z));
        assert!((a - b).amax() < 1e-13, "{a} {b}");
    }
    same_network::<SkewVpa<f64, 3, 4, Generated>, SkewVpa<f64, 3, 4, GramSchmidt>>();
    same_network::<SkewVpa<f64, 3, 4, Generated>, SkewVpa<f64, 3, 4, Elimination>>();
    same_network::<ArbitraryVpa<f64, 3, 4, GramSchmidt>, ArbitraryVpa<f64, 3, 4, LuSolve>>();
    same_network::<ArbitraryVpa<f64, 3, 4, NalgebraInverse>, ArbitraryVpa<f64, 3, 4, Generated>>();
    same_network::<SkewVpa<f64, 3, 4, Exp>, SkewVpa<f64, 3, 4, ScalingSquaring>>();
}

/// A map of one's own that does not say which function it computes is its own function.
#[test]
fn a_map_that_names_no_function_is_its_own() {
    struct Mine;
    impl<S: Field, const T: usize> OrthogonalMap<S, T> for Mine {
        const NAME: &'static str = "mine";
        fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
            <Generated as OrthogonalMap<S, T>>::map(c)
        }
    }
    refused::<SkewVpa<f64, 3, 3, Mine>, SkewVpa<f64, 3, 3>>(
        "layer 1 (VolumePreservingAttention): orthogonal_map mine in the blob, cayley in the type",
    );
}

#[test]
fn the_weighting_the_kick_and_the_sides_are_named() {
    refused::<SkewVpa<f64, 3, 3>, ArbitraryVpa<f64, 3, 3>>(
        "layer 1 (VolumePreservingAttention): skew_sym true in the blob, false in the type",
    );
    type Dense = DenseA<f64, 1>;
    type Gml = SymmetricA<f64, 1, GmlCompatible>;
    type Exact = SymmetricA<f64, 1, GradientExact>;
    refused::<
        SymplecticAttentionQ<f64, 1, MatrixSoftmax, Dense>,
        SymplecticAttentionQ<f64, 1, MatrixSoftmax, Gml>,
    >("layer 1 (SymplecticAttentionQ): symmetric false in the blob, true in the type");
    let m = refused::<
        SymplecticAttentionQ<f64, 1, MatrixSoftmax, Gml>,
        SymplecticAttentionQ<f64, 1, MatrixSoftmax, Exact>,
    >("layer 1 (SymplecticAttentionQ): kick gml in the blob, exact in the type");
    assert_eq!(setting(m).2, "kick");
    refused::<
        SymplecticAttentionQ<f64, 1, VectorSoftmax>,
        SymplecticAttentionQ<f64, 1, MatrixSoftmax>,
    >(
        "layer 1 (SymplecticAttentionQ): activation VectorSoftmax in the blob, MatrixSoftmax in the type",
    );
    refused::<SymplecticAttentionQ<f64, 1>, SymplecticAttentionP<f64, 1>>(
        "layer 1: SymplecticAttentionQ in the blob, SymplecticAttentionP in the type",
    );
    refused::<GradientLayerQ<f64, 1, 2>, GradientLayerP<f64, 1, 2>>(
        "layer 1: GradientLayerQ in the blob, GradientLayerP in the type",
    );
    // GML's `init_upper`: the side of the first gradient layer of each stack.
    refused::<SympNetStack<f64, 1, 2, 3, Tanh, UpdateQ>, SympNetStack<f64, 1, 2, 3, Tanh, UpdateP>>(
        "layer 1: GradientLayerQ in the blob, GradientLayerP in the type",
    );
    refused::<Sympt<Gml, UpdateQ>, Sympt<Gml, UpdateP>>(
        "layer 2: GradientLayerQ in the blob, GradientLayerP in the type",
    );
    refused::<Sympt<Gml, UpdateQ>, Sympt<Exact, UpdateQ>>(
        "layer 1 (SymplecticAttentionQ): kick gml in the blob, exact in the type",
    );
    type Lst<First> = LinearSymplecticTransformer<f64, 1, 2, 2, 1, 2, Tanh, First>;
    refused::<Lst<UpdateP>, Lst<UpdateQ>>(
        "layer 2: GradientLayerP in the blob, GradientLayerQ in the type",
    );
}

/// A stack of gradient layers alternates its sides from `First`, and its description says so.
#[test]
fn a_sympnet_stack_describes_its_alternating_sides() {
    struct Names(Vec<&'static str>);
    impl Visit for Names {
        fn layer(&mut self, layer: &LayerType) {
            self.0.push(layer.name);
        }
    }
    let mut names = Names(Vec::new());
    SympNetStack::<f64, 1, 2, 3, Tanh, UpdateP>::describe(&mut names);
    assert_eq!(
        names.0,
        ["GradientLayerP", "GradientLayerQ", "GradientLayerP"]
    );
}

/// An activation of one's own with a long name: the error holds the start of it, marked as cut.
#[test]
fn a_long_value_is_cut_in_the_error() {
    struct Long;
    impl Activation<f64> for Long {
        const NAME: &'static str =
            "an activation whose name is much longer than what an error holds inline";
        fn apply(x: f64) -> f64 {
            x
        }
    }
    let (_, read) = read_as::<ResNetLayer<f64, 2, Long>, ResNetLayer<f64, 2, Tanh>>();
    let Err(BlobError::Type(mismatch)) = read else {
        panic!("{read:?}")
    };
    let name = <Long as Activation<f64>>::NAME;
    assert!(mismatch.in_blob.is_cut());
    assert_eq!(mismatch.in_blob.as_str(), &name[..ShortText::CAPACITY]);
    let shown = format!("activation {}… in the blob", &name[..ShortText::CAPACITY]);
    assert!(mismatch.to_string().contains(&shown), "{mismatch}");
}

/// A schema whose declared description length is not what it describes cannot write a blob.
#[test]
fn an_inconsistent_schema_cannot_write() {
    struct Wrong(ResNetLayer<f64, 2, Tanh>);
    impl Schema for Wrong {
        type Scalar = f64;
        const SCALARS: usize = ResNetLayer::<f64, 2, Tanh>::SCALARS;
        const LAYERS: usize = 1;
        const DESCRIPTION_LEN: usize = ResNetLayer::<f64, 2, Tanh>::DESCRIPTION_LEN + 1;
        fn describe<V: Visit + ?Sized>(visitor: &mut V) {
            ResNetLayer::<f64, 2, Tanh>::describe(visitor);
        }
        fn read<Src: Source<f64> + ?Sized>(source: &mut Src) -> Result<Self, Src::Error> {
            Ok(Self(ResNetLayer::read(source)?))
        }
        fn write<K: Sink<f64> + ?Sized>(&self, sink: &mut K) -> Result<(), K::Error> {
            self.0.write(sink)
        }
    }
    let declared = Wrong::DESCRIPTION_LEN;
    assert_eq!(
        to_blob(&Wrong(build())).map(drop),
        Err(BlobError::DescriptionLength {
            declared,
            described: declared - 1
        })
    );
}

/// The layer type `ResNetLayer<f64, 2, Tanh>`'s blob, to be made hostile.
type Small = ResNetLayer<f64, 2, Tanh>;

fn small_blob() -> Vec<u8> {
    to_blob(&build::<Small>()).unwrap()
}

/// CRC-32 (ISO-HDLC), as the format's.
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

/// `blob` with its description replaced by `description` (header length and checksum made to
/// fit): only the description can be wrong.
fn with_description(blob: &[u8], description: &[u8]) -> Vec<u8> {
    let old = u64::from_le_bytes(blob[16..24].try_into().unwrap()) as usize;
    let mut out = blob[..BLOB_HEADER_LEN].to_vec();
    out.extend(description);
    out.extend(&blob[BLOB_HEADER_LEN + old..]);
    out[16..24].copy_from_slice(&(description.len() as u64).to_le_bytes());
    let crc = crc_of(&out[BLOB_HEADER_LEN..]);
    out[12..16].copy_from_slice(&crc.to_le_bytes());
    out
}

fn description(blob: &[u8]) -> &[u8] {
    &blob[BLOB_HEADER_LEN..BLOB_HEADER_LEN + Small::DESCRIPTION_LEN]
}

fn malformed(at: usize, reason: &'static str) -> Result<(), BlobError> {
    Err(BlobError::Malformed { at, reason })
}

#[test]
fn hostile_descriptions_are_errors() {
    let blob = small_blob();
    let read =
        |description: &[u8]| read_blob::<Small>(&with_description(&blob, description)).map(drop);
    let good = description(&blob).to_vec();
    assert_eq!(read(&good), Ok(()));
    // The layer's name: `L` at 32, its length at 33..35, "ResNetLayer" at 35..46.
    assert_eq!(good[..3], [b'L', 11, 0]);
    let mut tag = good.clone();
    tag[0] = b'X';
    assert_eq!(read(&tag), malformed(32, "a token has an unknown tag"));
    let mut utf8 = good.clone();
    utf8[8] = 0xFF;
    assert_eq!(read(&utf8), malformed(35, "a name is not UTF-8"));
    let mut overlong = good.clone();
    overlong[1..3].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(
        read(&overlong),
        malformed(35, "the description ends inside a token")
    );
    // Then `S`, the key `dim` (2 + 3 bytes), the value's tag and the number: 46 + 6 = 52.
    assert_eq!(good[14..20], [b'S', 3, 0, b'd', b'i', b'm']);
    let mut value = good.clone();
    value[20] = b'?';
    assert_eq!(
        read(&value),
        malformed(52, "an option's value has an unknown tag")
    );
    // `use_bias` is the third option: its flag byte is its token's last.
    let flag = good.windows(8).position(|w| w == b"use_bias").unwrap() + 8 + 1;
    assert_eq!(good[flag - 1..=flag], [b'b', 1]);
    let mut two = good.clone();
    two[flag] = 2;
    assert_eq!(
        read(&two),
        malformed(32 + flag - 1, "a flag is neither 0 nor 1")
    );
    // The first parameter's kind code: after `P`, the empty parent, the stem `weight`, the number.
    let param = good.iter().position(|&b| b == b'P').unwrap();
    let kind = param + 1 + 2 + 2 + 6 + 8;
    assert_eq!(good[kind], 1, "Dense");
    let mut unknown = good.clone();
    unknown[kind] = 99;
    assert_eq!(
        read(&unknown),
        malformed(32 + kind, "a parameter has an unknown kind")
    );
    // Cut anywhere: an error, never the network.
    for len in 0..good.len() {
        assert!(read(&good[..len]).is_err(), "cut at {len}");
    }
    assert_eq!(
        read(&good[..1]),
        malformed(33, "the description ends inside a token")
    );
    // One token more than the type has.
    let mut more = good.clone();
    more.extend_from_slice(&good[14..29]);
    assert_eq!(
        read(&more).unwrap_err().to_string(),
        "the blob was written for another type: layer 1 (ResNetLayer): dim = 2 in the blob, \
         nothing more in the type"
    );
}

#[test]
fn hostile_lengths_in_the_header_are_errors() {
    let blob = small_blob();
    let read = |bytes: &[u8]| read_blob::<Small>(bytes).map(drop);
    let needed = |found| {
        Err(BlobError::Truncated {
            needed: usize::MAX,
            found,
        })
    };
    for (at, value) in [(16, u64::MAX), (24, u64::MAX), (24, u64::MAX / 8 + 1)] {
        let mut hostile = blob.clone();
        hostile[at..at + 8].copy_from_slice(&value.to_le_bytes());
        assert_eq!(read(&hostile), needed(blob.len()), "{at}: {value}");
    }
    // A description announced longer than the blob.
    let mut longer = blob.clone();
    let len = Small::DESCRIPTION_LEN as u64 + 1;
    longer[16..24].copy_from_slice(&len.to_le_bytes());
    assert_eq!(
        read(&longer),
        Err(BlobError::Truncated {
            needed: blob.len() + 1,
            found: blob.len()
        })
    );
}

proptest! {
    /// Any change of the description (resealed) is an error: the encoding is canonical, so a
    /// changed byte is a changed token.
    #[test]
    fn a_changed_description_is_never_read(
        changes in prop::collection::vec((any::<prop::sample::Index>(), 1..=255_u8), 1..4),
    ) {
        let blob = small_blob();
        let mut changed = description(&blob).to_vec();
        for (at, flip) in &changes {
            let at = at.index(changed.len());
            changed[at] ^= flip;
        }
        prop_assume!(changed != description(&blob));
        let result = read_blob::<Small>(&with_description(&blob, &changed)).map(drop);
        prop_assert!(
            matches!(result, Err(BlobError::Type(_) | BlobError::Malformed { .. })),
            "{result:?}"
        );
    }

    /// Any bytes after a valid header prefix: an error, never a panic.
    #[test]
    fn arbitrary_descriptions_are_errors(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let blob = small_blob();
        let result = read_blob::<Small>(&with_description(&blob, &bytes)).map(drop);
        prop_assert!(result.is_err());
    }
}
