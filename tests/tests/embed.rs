//! `embed_gml!`: each rigid-body fixture embedded at compile time, in `f32` and in `f64`, is the
//! network the loader reads at run time: the same weights bit for bit (through the schema's
//! sink), hence the same outputs.

use geomattn::gml::load_file;
use geomattn::nalgebra::{Matrix3, RealField, Vector3};
use geomattn::{
    AddConnection, ColumnLayer, Error, MultiHeadAttention, NoConnection, Param, Schema,
    SequenceLayer, Sink, StandardTransformerIntegrator, Stiefel, Tanh, VolumePreservingFeedForward,
    VolumePreservingTransformer,
};
use geomattn_testkit::fixture;
use hdf5_pure::{AttrValue, FileBuilder};

type Vpt<S> = VolumePreservingTransformer<S, 3, 3, 2, 1, 3, Tanh>;
type Vpff<S> = VolumePreservingFeedForward<S, 3, 6, 1, Tanh>;
type St<S, Conn> =
    StandardTransformerIntegrator<S, 3, MultiHeadAttention<S, 3, 1, 3, Conn>, 2, 3, Tanh>;

geomattn::embed_gml!(static VPT64: Vpt<f64> = "../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
geomattn::embed_gml!(static VPT32: Vpt<f32> = "../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
geomattn::embed_gml!(static VPFF64: Vpff<f64> = "../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
geomattn::embed_gml!(static VPFF32: Vpff<f32> = "../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
geomattn::embed_gml!(
    /// The standard transformer, as trained (`add_connection = false`).
    static ST64: St<f64, NoConnection> = "../fixtures/gml/transformer_rigid_body_nn_st.h5"
);
geomattn::embed_gml!(static ST32: St<f32, NoConnection> = "../fixtures/gml/transformer_rigid_body_nn_st.h5");
// The type, not the file, says `add_connection`: the same file embeds under the other option.
geomattn::embed_gml!(pub(crate) static ST_ADD: St<f64, AddConnection> = "../fixtures/gml/transformer_rigid_body_nn_st.h5");

/// `MultiHeadAttention(2, 1; Stiefel = true, add_connection = false)`, written by
/// [`stiefel_attention_file`].
type StiefelAttention = MultiHeadAttention<f32, 2, 1, 2, NoConnection, Stiefel>;
geomattn::embed_gml!(static STIEFEL: StiefelAttention = "fixtures/stiefel_attention.h5");

/// The bytes of `fixtures/stiefel_attention.h5`: one Stiefel head of width 2 whose projections
/// are rotations (orthonormal columns), in GML's layout (`StiefelManifold` groups holding `A`),
/// written with hdf5-pure (no GML fixture has Stiefel heads small enough to embed in a test).
fn stiefel_attention_file() -> Vec<u8> {
    let (c, s) = (0.6_f32, 0.8_f32);
    let rotations: [[f32; 4]; 3] = [[c, s, -s, c], [1.0, 0.0, 0.0, 1.0], [c, -s, s, c]];
    let mut file = FileBuilder::new();
    let mut layer = file.create_group("L1");
    for (name, values) in ["PQ", "PK", "PV"].iter().zip(rotations) {
        let mut projection = layer.create_group(name);
        let mut head = projection.create_group("head_1");
        head.set_attr("gml_type", AttrValue::AsciiString("StiefelManifold".into()));
        head.create_dataset("A")
            .with_f32_data(&values)
            .with_shape(&[2, 2]);
        projection.add_group(head.finish());
        layer.add_group(projection.finish());
    }
    file.add_group(layer.finish());
    file.finish().unwrap()
}

#[test]
fn embedded_stiefel_attention_is_the_loaded_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/stiefel_attention.h5");
    assert_eq!(std::fs::read(path).unwrap(), stiefel_attention_file());
    let loaded: StiefelAttention = load_file(path).unwrap();
    let (mut a, mut b) = (Collect::default(), Collect::default());
    STIEFEL.write(&mut a).unwrap();
    loaded.write(&mut b).unwrap();
    assert_eq!(a, b);
    assert!(STIEFEL.is_stiefel());
    let z = window().fixed_rows::<2>(0).into_owned().cast::<f32>();
    assert_eq!(STIEFEL.forward(&z), loaded.forward(&z));
    // PQ's head, Julia's [0.6 -0.8; 0.8 0.6] (column-major values 0.6, 0.8, -0.8, 0.6).
    assert_eq!(STIEFEL.heads()[0].query[(1, 0)], 0.8);
}

/// Every value a network hands out, as the bits of an `f64`, with its parameter.
#[derive(Default, PartialEq, Debug)]
struct Collect(Vec<(Param, u64)>);

impl<S: Copy + Into<f64>> Sink<S> for Collect {
    type Error = Error;
    fn begin_layer(&mut self) -> Result<(), Error> {
        Ok(())
    }
    fn param(&mut self, param: &Param, values: &[S]) -> Result<(), Error> {
        let bits = values.iter().map(|&x| (*param, x.into().to_bits()));
        self.0.extend(bits);
        Ok(())
    }
    fn invalid(&mut self, error: Error) -> Error {
        error
    }
}

/// The embedded network has the loaded one's weights, bit for bit.
fn same_weights<N: Schema<Scalar: Into<f64> + RealField>>(embedded: &N, file: &str) -> N {
    let loaded: N = load_file(fixture(file)).unwrap();
    let (mut a, mut b) = (Collect::default(), Collect::default());
    embedded.write(&mut a).unwrap();
    loaded.write(&mut b).unwrap();
    assert_eq!(a.0.len(), N::SCALARS);
    assert_eq!(a, b, "{file}");
    loaded
}

fn window() -> Matrix3<f64> {
    Matrix3::new(
        0.0, 0.0405, 0.0811, 0.8912, 0.8894, 0.8838, 0.4536, 0.4554, 0.4608,
    )
}

#[test]
fn embedded_transformers_are_the_loaded_ones() {
    let vpt = "transformer_rigid_body_nn_vpt.h5";
    let st = "transformer_rigid_body_nn_st.h5";
    let z = window();
    let loaded = same_weights(&VPT64, vpt);
    assert_eq!(VPT64.forward(&z), loaded.forward(&z));
    let loaded = same_weights(&VPT32, vpt);
    assert_eq!(VPT32.forward(&z.cast()), loaded.forward(&z.cast()));
    let loaded = same_weights(&ST64, st);
    assert_eq!(ST64.forward(&z), loaded.forward(&z));
    let loaded = same_weights(&ST32, st);
    assert_eq!(ST32.forward(&z.cast()), loaded.forward(&z.cast()));
    let loaded = same_weights(&ST_ADD, st);
    assert_eq!(ST_ADD.forward(&z), loaded.forward(&z));
    // The option changes the numbers (by 3.3 against the trajectory, see gml_fixtures).
    assert!((ST_ADD.forward(&z) - ST64.forward(&z)).amax() > 0.5);
}

#[test]
fn embedded_feedforward_networks_are_the_loaded_ones() {
    let file = "transformer_rigid_body_nn_vpff.h5";
    let x = Vector3::new(0.0, 0.8912, 0.4536);
    let loaded = same_weights(&VPFF64, file);
    assert_eq!(VPFF64.apply(&x), loaded.apply(&x));
    let loaded = same_weights(&VPFF32, file);
    assert_eq!(VPFF32.apply(&x.cast()), loaded.apply(&x.cast()));
}
