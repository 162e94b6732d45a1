//! GML's standard transformer integrator on the run-time engine (`geomattn::engine`'s `Dense`,
//! `MultiHeadAttention`, `ResNetLayer`): the compile-time network bit for bit where one is
//! written; at every size and option (`transformer_dim` with its `Dense` maps and their activation,
//! any `n_heads` dividing the dimension, `MatrixSoftmax`, `add_connection`, every activation, any
//! window length) CONVENTIONS.md's formulas computed independently
//! (`geomattn_testkit::gml_reference::standard_chain`) on files written by the test kit's writer;
//! and GML's own tutorial integrators (`fixtures/gml/integrator_parameters*.h5`).

use geomattn::gml::{GmlFile, ReadWeights};
use geomattn::nalgebra::DMatrix;
use geomattn::{AddConnection, MultiHeadAttention, NoConnection, ResNetStack, Tanh, Transformer};
use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::layout;
use geomattn_networks::{Arch, Error, Precision, check, open};
use geomattn_testkit::gml_reference::standard_chain;

use crate::twins::{assert_engine_is_compiled, network, relative, window};

/// The engine's network and the compile-time one of the same file (one head, `tanh`,
/// `transformer_dim = dim`: what the compile-time types have), with and without the connection,
/// one and two ResNet layers: the same bits in both precisions.
#[test]
fn the_engine_is_the_compile_time_network_bit_for_bit() {
    let mut networks = Vec::new();
    twin!(
        networks,
        "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=2, activation=tanh, add_connection=false)",
        3,
        3,
        Transformer<MultiHeadAttention<S, 3, 1, 3, NoConnection>, ResNetStack<S, 3, 2, Tanh>, 2>
    );
    twin!(
        networks,
        "st(dim=2, seq=4, n_heads=1, n_blocks=1, L=1, activation=tanh, add_connection=true)",
        2,
        4,
        Transformer<MultiHeadAttention<S, 2, 1, 2, AddConnection>, ResNetStack<S, 2, 1, Tanh>, 1>
    );
    twin!(
        networks,
        "st(dim=4, seq=2, n_heads=1, n_blocks=2, L=1, activation=tanh, add_connection=true)",
        4,
        2,
        Transformer<MultiHeadAttention<S, 4, 1, 4, AddConnection>, ResNetStack<S, 4, 2, Tanh>, 1>
    );
    twin!(
        networks,
        "st(dim=5, seq=5, n_heads=1, n_blocks=1, L=2, activation=tanh, add_connection=false)",
        5,
        5,
        Transformer<MultiHeadAttention<S, 5, 1, 5, NoConnection>, ResNetStack<S, 5, 1, Tanh>, 2>
    );
    assert_engine_is_compiled(networks, 4);
}

/// Standard transformers of every keyword GML's constructor takes.
const SIZES: [&str; 7] = [
    // GML's symplectic-autoencoder tutorial (the speed goal), at its window length.
    "st(dim=2, seq=4, n_heads=5, n_blocks=3, L=3, activation=tanh, add_connection=true, \
     transformer_dim=20, upscaling_activation=tanh)",
    // GML's softmax-comparison tutorial, both softmaxes.
    "st(dim=4, seq=4, n_heads=4, n_blocks=2, L=1, activation=tanh, add_connection=true, \
     transformer_dim=20, attention_activation=MatrixSoftmax)",
    "st(dim=4, seq=4, n_heads=4, n_blocks=2, L=1, activation=tanh, add_connection=true, \
     transformer_dim=20, attention_activation=VectorSoftmax)",
    "st(dim=6, seq=5, n_heads=3, n_blocks=1, L=2, activation=relu, add_connection=false)",
    "st(dim=5, seq=1, n_heads=5, n_blocks=2, L=1, activation=sigmoid, add_connection=true, \
     transformer_dim=10, upscaling_activation=softplus)",
    "st(dim=3, seq=17, n_heads=1, n_blocks=1, L=2, activation=softplus, add_connection=false)",
    "st(dim=8, seq=3, n_heads=2, n_blocks=1, L=1, activation=identity, add_connection=true, \
     transformer_dim=4, upscaling_activation=sigmoid)",
];

#[test]
fn at_every_size_the_engine_is_conventions_formulas() {
    for (k, spec) in SIZES.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let (file, values) = network(&arch, 40 + k as u64);
        let layers = layout::layers(&arch);
        let (dim, seq) = (arch.dim(), arch.seq());
        // Through the front door: `open` takes the engine for these.
        let wide = open(&file, &arch, Precision::F64).unwrap();
        let single = open(&file, &arch, Precision::F32).unwrap();
        for seed in 0..4 {
            let z = window(&arch, 200 + seed, 1.0);
            let expected =
                standard_chain(&layers, &values, &DMatrix::from_column_slice(dim, seq, &z));
            let found = DMatrix::from_column_slice(dim, seq, &wide.forward(&z).unwrap());
            let error = relative(&found, &expected);
            assert!(error < 1e-12, "{spec}: {error}");
            let found = DMatrix::from_column_slice(dim, seq, &single.forward(&z).unwrap());
            let error = relative(&found, &expected);
            assert!(error < 1e-4, "{spec} f32: {error}");
        }
        // A rollout applies the network to each whole window in turn.
        let z = window(&arch, 9, 0.5);
        let states = wide.rollout(&z, 4 * seq - 1, &mut |_| {}).unwrap();
        let mut x = DMatrix::from_column_slice(dim, seq, &z);
        for pass in 0..3 {
            x = standard_chain(&layers, &values, &x);
            let from = (pass + 1) * seq * dim;
            let found = DMatrix::from_column_slice(dim, seq, &states[from..from + dim * seq]);
            assert!(relative(&found, &x) < 1e-11, "{spec}: pass {pass}");
        }
        // It promises no structure: checked, the file loads and nothing is measured.
        assert_eq!(check(&file, &arch, 2, 1).unwrap(), Vec::new(), "{spec}");
    }
}

/// GML's own integrators (its symplectic-autoencoder tutorial), through the front door, against
/// the reference on the values the runtime's reader finds in them.
#[test]
fn gmls_tutorial_integrators_run_at_any_window_length() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/");
    for (name, dim) in [
        ("integrator_parameters.h5", 2),
        ("integrator_parameters_psd.h5", 8),
    ] {
        let file = GmlFile::open(format!("{dir}{name}")).unwrap();
        for seq in [1, 4, 9] {
            let spec = format!(
                "st(dim={dim}, seq={seq}, n_heads=5, n_blocks=3, L=3, activation=tanh, \
                 add_connection=true, transformer_dim=20, upscaling_activation=tanh)"
            );
            let arch: Arch = spec.parse().unwrap();
            let layers = layout::layers(&arch);
            let nodes = file.layers().unwrap();
            let values: Vec<Vec<Vec<f64>>> = layers
                .iter()
                .zip(&nodes)
                .map(|(layer, node)| {
                    let parameter = |p: &layout::Parameter| {
                        let (kind, rows, cols) = p.values.kind();
                        node.parameter::<f64>(&p.name, kind, rows, cols).unwrap()
                    };
                    layer.parameters.iter().map(parameter).collect()
                })
                .collect();
            let net = open(&file, &arch, Precision::F64).unwrap();
            let z = window(&arch, seq as u64, 1.0);
            let expected =
                standard_chain(&layers, &values, &DMatrix::from_column_slice(dim, seq, &z));
            let found = DMatrix::from_column_slice(dim, seq, &net.forward(&z).unwrap());
            assert!(relative(&found, &expected) < 1e-12, "{spec}");
        }
    }
}

#[test]
fn a_file_that_is_not_the_spec_names_the_first_difference() {
    let arch: Arch = SIZES[0].parse().unwrap();
    let (file, _) = network(&arch, 1);
    // Two heads where the file has five: the first attention's parameters differ.
    let other = SIZES[0].replace("n_heads=5", "n_heads=2");
    let error = open(&file, &other.parse().unwrap(), Precision::F64)
        .err()
        .unwrap();
    let text = error.to_string();
    assert!(matches!(error, Error::Mismatch { .. }), "{text}");
    assert!(text.contains("L2"), "{text}");
    // A wider map up: the first layer's weight has another shape.
    let wider = SIZES[0].replace("transformer_dim=20", "transformer_dim=30");
    let text = open(&file, &wider.parse().unwrap(), Precision::F64)
        .err()
        .unwrap()
        .to_string();
    assert!(
        text.contains("L1") && text.contains("20") && text.contains("30"),
        "{text}"
    );
}

#[test]
fn windows_of_the_wrong_size_or_not_finite_are_refused_naming_the_layer() {
    // No map up (whose tanh would bound any input).
    let arch: Arch = SIZES[3].parse().unwrap();
    let net = open(&network(&arch, 1).0, &arch, Precision::F64).unwrap();
    assert!(matches!(
        net.forward(&[0.0; 7]),
        Err(Error::Length { found: 7, .. })
    ));
    let mut z = window(&arch, 1, 1.0);
    z[3] = f64::INFINITY;
    assert!(matches!(
        net.forward(&z),
        Err(Error::NonFinite { index: 3, .. })
    ));
    // A checked batch names the window and the first layer that overflowed.
    let huge: Vec<f64> = window(&arch, 2, 1.0).iter().map(|x| x * 1e300).collect();
    let mut out = vec![0.0; huge.len()];
    let error = net.forward_f64(&huge, Layout::Columns, &mut out, true, Arithmetic::Exact);
    let Err(geomattn::Error::NonFinite(at)) = error else {
        panic!("{error:?}")
    };
    assert_eq!(at.sequence, Some(0), "{at}");
    assert!(
        ["Dense", "MultiHeadAttention", "ResNetStack"].contains(&at.layer),
        "{at}"
    );
}

#[test]
fn layers_built_by_hand_refuse_inconsistent_sizes() {
    use geomattn::activation::Function;
    use geomattn::engine::{Dense, MultiHeadAttention, ResNetLayer};
    use geomattn::softmax::Function as Softmax;
    let w = vec![0.0_f64; 20 * 4];
    let heads: Vec<&[f64]> = vec![&w; 5];
    let built = |dim, n_heads, query: &[&[f64]]| {
        MultiHeadAttention::new(dim, n_heads, query, &heads, &heads, Softmax::Vector, true)
    };
    assert!(built(20, 5, &heads).is_ok());
    // GML's rule: the heads split the dimension.
    let three: Vec<&[f64]> = vec![&w; 3];
    assert_eq!(
        built(20, 3, &three).unwrap_err(),
        geomattn::Error::Heads {
            dim: 20,
            n_heads: 3
        }
    );
    assert!(matches!(
        built(20, 0, &[]),
        Err(geomattn::Error::Heads { .. })
    ));
    // A projection list of another length, a projection of another size.
    assert!(matches!(
        built(20, 5, &three),
        Err(geomattn::Error::Heads { .. })
    ));
    let short = [0.0; 79];
    let mut query = heads.clone();
    query[4] = &short;
    assert_eq!(
        built(20, 5, &query).unwrap_err(),
        geomattn::Error::WeightLength {
            name: "PQ",
            expected: 80,
            found: 79
        }
    );
    let dense = Dense::new(2, 3, &[0.0; 6], Some(&[0.0; 2]), Function::Tanh);
    assert_eq!(
        dense.unwrap_err(),
        geomattn::Error::WeightLength {
            name: "b",
            expected: 3,
            found: 2
        }
    );
    let resnet = ResNetLayer::new(3, &[0.0; 8], None, Function::Relu);
    assert_eq!(
        resnet.unwrap_err(),
        geomattn::Error::WeightLength {
            name: "weight",
            expected: 9,
            found: 8
        }
    );
}
