//! The blob export of every bundled network (in `f32` and `f64`) and of every architecture at sizes
//! beyond GML's tutorials is the blob of the network the
//! loader reads as the built-in type (the same weights bit for bit), reads back into it, and into
//! no other type: the refusal names the difference.

use geomattn::gml::load_file;
use geomattn::{
    AddConnection, ArbitraryWeight, BlobScalar, Identity, MultiHeadAttention, NoConnection, Schema,
    SkewWeight, StandardTransformerIntegrator, Tanh, VolumePreservingFeedForward,
    VolumePreservingTransformer, read_blob, to_blob,
};
use geomattn_networks::{Arch, Error, Precision, export};

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S, Conn> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, Conn>, 2, 3, Tanh>;

fn path(name: &str) -> String {
    format!("{}/../fixtures/gml/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Exports `name` as `spec` in `precision` and checks the blob against the loaded `Net`.
fn exports_as<Net>(name: &str, spec: &str, precision: Precision)
where
    Net: Schema<Scalar: BlobScalar + geomattn::nalgebra::RealField>,
{
    let arch: Arch = spec.parse().unwrap();
    let bytes = export::blob_file(path(name), &arch, precision).unwrap();
    let loaded: Net = load_file(path(name)).unwrap();
    assert!(to_blob(&loaded).unwrap() == bytes, "{spec}");
    let back: Net = read_blob(&bytes).unwrap();
    assert!(to_blob(&back).unwrap() == bytes, "{spec}");
}

const VPT: &str = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)";
const VPFF: &str = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)";
const ST: &str =
    "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)";
const VPT_FILE: &str = "transformer_rigid_body_nn_vpt.h5";
const VPFF_FILE: &str = "transformer_rigid_body_nn_vpff.h5";
const ST_FILE: &str = "transformer_rigid_body_nn_st.h5";

#[test]
fn every_bundled_network_exports_as_the_blob_of_its_type() {
    exports_as::<Vpt<f32>>(VPT_FILE, VPT, Precision::F32);
    exports_as::<Vpt<f64>>(VPT_FILE, VPT, Precision::F64);
    exports_as::<Vpff<f32>>(VPFF_FILE, VPFF, Precision::F32);
    exports_as::<Vpff<f64>>(VPFF_FILE, VPFF, Precision::F64);
    exports_as::<St<f32, NoConnection>>(ST_FILE, ST, Precision::F32);
    exports_as::<St<f64, NoConnection>>(ST_FILE, ST, Precision::F64);
    let add = ST.replace("add_connection=false", "add_connection=true");
    exports_as::<St<f64, AddConnection>>(ST_FILE, &add, Precision::F64);
}

/// The error of reading `bytes` as `Net`, as text.
fn refusal<Net>(bytes: &[u8]) -> String
where
    Net: Schema<Scalar: BlobScalar>,
{
    read_blob::<Net>(bytes).map(drop).unwrap_err().to_string()
}

#[test]
fn the_blob_names_its_type_so_another_type_refuses_it_naming_the_difference() {
    let arch: Arch = VPT.parse().unwrap();
    let bytes = export::blob_file(path(VPT_FILE), &arch, Precision::F64).unwrap();
    let another = "the blob was written for another type: ";
    type Vpt64<const T: usize, const L: usize, Act, Corr = ArbitraryWeight<f64, 3>> =
        VolumePreservingTransformer<f64, 3, T, 2, 1, L, Act, Corr>;
    assert_eq!(
        refusal::<Vpt64<3, 3, Identity>>(&bytes),
        format!(
            "{another}layer 4 (VolumePreservingLowerLayer): activation tanh in the blob, \
             identity in the type"
        )
    );
    assert_eq!(
        refusal::<Vpt64<4, 3, Tanh>>(&bytes),
        format!(
            "{another}layer 1 (VolumePreservingAttention): seq_length 3 in the blob, 4 in the type"
        )
    );
    assert_eq!(
        refusal::<Vpt64<3, 3, Tanh, SkewWeight<f64, 3>>>(&bytes),
        format!(
            "{another}layer 1 (VolumePreservingAttention): skew_sym false in the blob, true in the \
             type"
        )
    );
    assert_eq!(
        refusal::<Vpt64<3, 2, Tanh>>(&bytes),
        format!("{another}layer 23: VolumePreservingAttention in the blob, no layer in the type")
    );
    assert_eq!(
        refusal::<Vpt<f32>>(&bytes),
        "the blob holds 8-byte scalars, the network 4-byte ones"
    );
    // The standard transformer's connection, which GML's file does not record.
    let arch: Arch = ST.parse().unwrap();
    let bytes = export::blob_file(path(ST_FILE), &arch, Precision::F64).unwrap();
    assert_eq!(
        refusal::<St<f64, AddConnection>>(&bytes),
        format!(
            "{another}layer 1 (MultiHeadAttention): add_connection false in the blob, true in the \
             type"
        )
    );
}

#[test]
fn every_length_exports_and_a_length_the_file_does_not_hold_is_refused_by_the_loader() {
    // The file holds L = 3 units (33 layer groups): every other L reaches the loader, which
    // refuses it.
    for l in 1..=6 {
        let arch: Arch = VPT.replace("L=3", &format!("L={l}")).parse().unwrap();
        match (l, export::blob_file(path(VPT_FILE), &arch, Precision::F32)) {
            (3, Ok(_)) | (1 | 2 | 4..=6, Err(Error::Load { .. } | Error::Mismatch { .. })) => {}
            (_, other) => panic!("L = {l}: {other:?}"),
        }
    }
}

/// Glorot weights for `Net` (seeded), written in GML's layout and exported as `spec`: the blob
/// is that of `Net`, reads back into it, and `rust_type` names it as `rust_type`.
fn exports_from_glorot_weights_as<Net>(spec: &str, rust_type: &str)
where
    Net: Schema<Scalar = f64>,
{
    use geomattn::gml::{GmlFile, GmlWriter, Storage};
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let net: Net = geomattn::glorot_network(&mut rng).unwrap();
    let mut writer = GmlWriter::new(Storage::Float64);
    writer.write(&net).unwrap();
    let file = GmlFile::from_bytes(writer.finish().unwrap()).unwrap();
    let arch: Arch = spec.parse().unwrap();
    let bytes = export::blob(&file, &arch, Precision::F64).unwrap();
    assert!(bytes == to_blob(&net).unwrap(), "{spec}");
    let back: Net = read_blob(&bytes).unwrap();
    assert!(to_blob(&back).unwrap() == bytes, "{spec}");
    assert_eq!(
        export::rust_type(&arch, Precision::F64).as_deref(),
        Some(rust_type)
    );
}

/// The symplectic transformers (no GML file of one is bundled) export as the blobs of the
/// runtime's aliases, with their `L` as a const parameter.
#[test]
fn the_symplectic_transformers_export_as_the_blobs_of_the_runtimes_aliases() {
    use geomattn::{
        GmlCompatible, LinearSymplecticTransformer, SymmetricA, SymplecticTransformer, UpdateP,
        VectorSoftmax,
    };
    type Kick = SymmetricA<f64, 2, GmlCompatible>;
    exports_from_glorot_weights_as::<
        SymplecticTransformer<f64, 2, 4, 2, 3, Tanh, VectorSoftmax, Kick, UpdateP>,
    >(
        "symplectic_transformer(dim=4, seq=2, n_sympnet=2, upscaling_dimension=8, L=3, \
         sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=false, \
         symmetric=true, kick=gml)",
        "geomattn::SymplecticTransformer<f64, 2, 4, 2, 3, geomattn::Tanh, geomattn::VectorSoftmax, \
         geomattn::SymmetricA<f64, 2, geomattn::GmlCompatible>, geomattn::UpdateP>",
    );
    exports_from_glorot_weights_as::<LinearSymplecticTransformer<f64, 1, 2, 2, 1, 2, Tanh>>(
        "linear_symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=2, \
         activation=tanh, init_upper=true)",
        "geomattn::LinearSymplecticTransformer<f64, 1, 2, 2, 1, 2, geomattn::Tanh, \
         geomattn::UpdateQ>",
    );
}

/// Sizes and options beyond the bundled networks' (dims 4 to 6, sequences up to 6, several heads,
/// blocks, linear layers and gradient layers, the classifier at a small size) export as the blobs
/// of their compile-time types, built from GML files with seeded weights.
#[test]
fn every_architecture_exports_at_other_sizes() {
    use geomattn::{
        ClassificationTransformer, DenseA, GradientExact, LinearSymplecticTransformer,
        MatrixSoftmax, SymmetricA, SymplecticTransformer, UpdateQ,
    };
    exports_from_glorot_weights_as::<VolumePreservingTransformer<f64, 5, 6, 3, 2, 2, Tanh>>(
        "vpt(dim=5, seq=6, n_blocks=3, n_linear=2, L=2, activation=tanh, skew_sym=false)",
        "geomattn::Transformer<geomattn::VolumePreservingAttention<f64, 5, 6, \
         geomattn::ArbitraryWeight<f64, 5>>, \
         geomattn::VolumePreservingFeedForward<f64, 5, 3, 2, geomattn::Tanh>, 2>",
    );
    exports_from_glorot_weights_as::<
        geomattn::Transformer<
            geomattn::VolumePreservingAttention<f64, 4, 7, SkewWeight<f64, 4>>,
            VolumePreservingFeedForward<f64, 4, 1, 2, Tanh>,
            3,
        >,
    >(
        "vpt(dim=4, seq=7, n_blocks=1, n_linear=2, L=3, activation=tanh, skew_sym=true)",
        "geomattn::Transformer<geomattn::VolumePreservingAttention<f64, 4, 7, \
         geomattn::SkewWeight<f64, 4>>, \
         geomattn::VolumePreservingFeedForward<f64, 4, 1, 2, geomattn::Tanh>, 3>",
    );
    exports_from_glorot_weights_as::<VolumePreservingFeedForward<f64, 6, 2, 3, Identity>>(
        "vpff(dim=6, n_blocks=2, n_linear=3, activation=identity)",
        "geomattn::VolumePreservingFeedForward<f64, 6, 2, 3, geomattn::Identity>",
    );
    exports_from_glorot_weights_as::<
        StandardTransformerIntegrator<
            f64,
            4,
            MultiHeadAttention<f64, 4, 2, 2, AddConnection>,
            3,
            2,
            Tanh,
        >,
    >(
        "st(dim=4, seq=5, n_heads=2, n_blocks=3, L=2, activation=tanh, add_connection=true)",
        "geomattn::Transformer<geomattn::MultiHeadAttention<f64, 4, 2, 2, \
         geomattn::AddConnection>, geomattn::ResNetStack<f64, 4, 3, geomattn::Tanh>, 2>",
    );
    exports_from_glorot_weights_as::<
        SymplecticTransformer<f64, 3, 5, 3, 2, Tanh, MatrixSoftmax, DenseA<f64, 3>, UpdateQ>,
    >(
        "symplectic_transformer(dim=6, seq=4, n_sympnet=3, upscaling_dimension=10, L=2, \
         sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
         symmetric=false)",
        "geomattn::SymplecticTransformer<f64, 3, 5, 3, 2, geomattn::Tanh, \
         geomattn::MatrixSoftmax, geomattn::DenseA<f64, 3>, geomattn::UpdateQ>",
    );
    exports_from_glorot_weights_as::<
        SymplecticTransformer<
            f64,
            2,
            3,
            1,
            1,
            Identity,
            geomattn::VectorSoftmax,
            SymmetricA<f64, 2, GradientExact>,
            geomattn::UpdateP,
        >,
    >(
        "symplectic_transformer(dim=4, seq=6, n_sympnet=1, upscaling_dimension=6, L=1, \
         sympnet_activation=identity, attention_activation=VectorSoftmax, init_upper=false, \
         symmetric=true, kick=exact)",
        "geomattn::SymplecticTransformer<f64, 2, 3, 1, 1, geomattn::Identity, \
         geomattn::VectorSoftmax, geomattn::SymmetricA<f64, 2, geomattn::GradientExact>, \
         geomattn::UpdateP>",
    );
    exports_from_glorot_weights_as::<LinearSymplecticTransformer<f64, 3, 5, 4, 3, 2, Tanh, UpdateQ>>(
        "linear_symplectic_transformer(dim=6, seq=5, n_sympnet=3, upscaling_dimension=8, L=2, \
         activation=tanh, init_upper=true)",
        "geomattn::LinearSymplecticTransformer<f64, 3, 5, 4, 3, 2, geomattn::Tanh, \
         geomattn::UpdateQ>",
    );
    exports_from_glorot_weights_as::<
        ClassificationTransformer<f64, 6, 3, 2, 2, 4, NoConnection, geomattn::Euclidean, Tanh>,
    >(
        "classification_transformer(dim=6, seq=5, classes=4, n_heads=3, L=2, Stiefel=false, \
         add_connection=false)",
        "geomattn::Classifier<geomattn::Transformer<geomattn::MultiHeadAttention<f64, 6, 3, 2, \
         geomattn::NoConnection>, geomattn::ResNetLayer<f64, 6, geomattn::Tanh>, 2>, \
         geomattn::ClassificationLayer<f64, 6, 4>>",
    );
}

/// Every activation has its compile-time type: the issue's `vpt(dim=5, seq=6, n_linear=2,
/// sigmoid)` (`fixtures/synthetic`) exports as the blob of
/// `VolumePreservingTransformer<…, Sigmoid>` (the network the loader reads), and seeded networks
/// with relu and softplus as theirs.
#[test]
fn every_activation_exports_as_its_type() {
    use geomattn::{LinearSymplecticTransformer, Relu, Sigmoid, Softplus, UpdateP};
    let spec = "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)";
    exports_as::<VolumePreservingTransformer<f32, 5, 6, 1, 2, 1, Sigmoid>>(
        "../synthetic/vpt_dim5_seq6_sigmoid.h5",
        spec,
        Precision::F32,
    );
    let arch: Arch = spec.parse().unwrap();
    assert_eq!(
        export::rust_type(&arch, Precision::F32).as_deref(),
        Some(
            "geomattn::Transformer<geomattn::VolumePreservingAttention<f32, 5, 6, \
             geomattn::ArbitraryWeight<f32, 5>>, \
             geomattn::VolumePreservingFeedForward<f32, 5, 1, 2, geomattn::Sigmoid>, 1>"
        )
    );
    exports_from_glorot_weights_as::<
        StandardTransformerIntegrator<
            f64,
            4,
            MultiHeadAttention<f64, 4, 4, 1, NoConnection>,
            1,
            2,
            Relu,
        >,
    >(
        "st(dim=4, seq=3, n_heads=4, n_blocks=1, L=2, activation=relu, add_connection=false)",
        "geomattn::Transformer<geomattn::MultiHeadAttention<f64, 4, 4, 1, \
         geomattn::NoConnection>, geomattn::ResNetStack<f64, 4, 1, geomattn::Relu>, 2>",
    );
    exports_from_glorot_weights_as::<
        LinearSymplecticTransformer<f64, 2, 3, 3, 2, 1, Softplus, UpdateP>,
    >(
        "linear_symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=6, L=1, \
         activation=softplus, init_upper=false)",
        "geomattn::LinearSymplecticTransformer<f64, 2, 3, 3, 2, 1, geomattn::Softplus, \
         geomattn::UpdateP>",
    );
}
