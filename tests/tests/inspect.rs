//! `inspect` reads every architecture back from the file of its chain, at every size, and
//! `mismatch` names the first place a file differs from a spec. The files are written by the
//! test kit as GML's `save` writes them (`geomattn_testkit::gml_chain`), from the layout of each
//! architecture, with seeded values; GML's own files are in `fixtures/gml/`.

use geomattn::gml::GmlFile;
use geomattn_networks::inspect::{self, Mismatch, inspect};
use geomattn_networks::layout::{self, Packed};
use geomattn_networks::{Activation, Arch, AttentionActivation, Ct, Kick, LinSympt, St, Sympt};
use geomattn_networks::{Vpff, Vpt};
use geomattn_testkit::gml_chain::file_of;
use proptest::prelude::*;

/// `spec` with each `key=?` filled in with `arch`'s value.
fn filled(spec: &str, arch: &Arch) -> String {
    let options = arch.options();
    let mut text = spec.to_string();
    for (key, value) in options {
        text = text.replace(&format!("({key}=?"), &format!("({key}={value}"));
        text = text.replace(&format!(" {key}=?"), &format!(" {key}={value}"));
    }
    text
}

/// Every match of the file of `arch`'s chain; one of them, filled in with what the file cannot
/// say, is `arch`.
fn check_found(arch: &Arch, seed: u64) -> Result<(), TestCaseError> {
    let file = file_of(&layout::layers(arch), seed);
    let found = inspect(&file).unwrap();
    let specs: Vec<&str> = found.matches.iter().map(|m| m.spec.as_str()).collect();
    prop_assert!(
        found
            .matches
            .iter()
            .any(|m| filled(&m.spec, arch).parse::<Arch>().ok() == Some(*arch)),
        "{arch} not among {specs:?}"
    );
    for m in &found.matches {
        // Each `?` is named, in the short form and in GML's call (which leaves out geomattn's
        // own options).
        prop_assert_eq!(m.spec.matches('?').count(), m.unknown.len(), "{:?}", m);
        prop_assert!(m.gml.matches('?').count() <= m.unknown.len(), "{:?}", m);
        // The match's chain is the file's.
        prop_assert!(
            inspect::mismatch(&file, &m.arch).unwrap().is_none(),
            "{:?}",
            m
        );
    }
    prop_assert!(inspect::mismatch(&file, arch).unwrap().is_none());
    Ok(())
}

fn activation() -> impl Strategy<Value = Activation> {
    proptest::sample::select(Activation::ALL.to_vec())
}

fn softmax() -> impl Strategy<Value = AttentionActivation> {
    prop_oneof![
        Just(AttentionActivation::MatrixSoftmax),
        Just(AttentionActivation::VectorSoftmax)
    ]
}

/// Architectures of every kind, at sizes that keep the files small.
fn arch() -> impl Strategy<Value = Arch> {
    prop_oneof![
        (
            (
                1..=6_usize,
                1..=6_usize,
                1..=3_usize,
                1..=3_usize,
                1..=3_usize
            ),
            (activation(), any::<bool>(), any::<bool>())
        )
            .prop_map(
                |((dim, seq, n_blocks, n_linear, l), (activation, init_upper, skew_sym))| {
                    Arch::Vpt(Vpt {
                        dim,
                        seq,
                        n_blocks,
                        n_linear,
                        l,
                        activation,
                        init_upper,
                        skew_sym,
                    })
                }
            ),
        (
            1..=6_usize,
            1..=6_usize,
            1..=3_usize,
            activation(),
            any::<bool>()
        )
            .prop_map(
                |(dim, n_blocks, n_linear, activation, init_upper)| Arch::Vpff(Vpff {
                    dim,
                    n_blocks,
                    n_linear,
                    activation,
                    init_upper,
                })
            ),
        (
            (1..=5_usize, 1..=6_usize, 1..=4_usize, 1..=4_usize),
            (1..=3_usize, 1..=3_usize, any::<bool>()),
            (activation(), activation(), softmax(), any::<bool>())
        )
            .prop_map(
                |(
                    (dim, seq, per_head, n_heads),
                    (n_blocks, l, upscaled),
                    (activation, upscaling_activation, attention_activation, add_connection),
                )| {
                    let transformer_dim = per_head * n_heads;
                    Arch::St(St {
                        dim: if upscaled { dim } else { transformer_dim },
                        seq,
                        transformer_dim,
                        n_heads,
                        n_blocks,
                        l,
                        activation,
                        upscaling_activation: if upscaled && dim != transformer_dim {
                            upscaling_activation
                        } else {
                            Activation::Identity
                        },
                        attention_activation,
                        add_connection,
                    })
                }
            ),
        (
            (1..=4_usize, 1..=4_usize, 1..=6_usize),
            (1..=5_usize, 1..=3_usize, any::<bool>(), any::<bool>())
        )
            .prop_map(
                |((per_head, n_heads, seq), (classes, l, stiefel, add_connection))| {
                    Arch::Ct(Ct {
                        dim: per_head * n_heads,
                        seq,
                        classes,
                        n_heads,
                        l,
                        stiefel,
                        add_connection,
                    })
                }
            ),
        (
            (1..=4_usize, 1..=6_usize, 1..=4_usize, any::<bool>()),
            (1..=3_usize, 1..=8_usize, 1..=2_usize),
            (activation(), softmax(), any::<bool>(), 0..3_u8)
        )
            .prop_map(
                |(
                    (n, seq, transformer_n, upscaled),
                    (n_sympnet, hidden, l),
                    (sympnet_activation, attention_activation, init_upper, symmetric),
                )| {
                    Arch::Sympt(Sympt {
                        dim: 2 * n,
                        seq,
                        transformer_dim: if upscaled && transformer_n != n {
                            2 * transformer_n
                        } else {
                            2 * n
                        },
                        n_sympnet,
                        upscaling_dimension: 2 * hidden,
                        l,
                        sympnet_activation,
                        attention_activation,
                        init_upper,
                        symmetric: [None, Some(Kick::Gml), Some(Kick::Exact)]
                            [usize::from(symmetric)],
                    })
                }
            ),
        (
            (1..=4_usize, 1..=6_usize, 1..=3_usize),
            (1..=8_usize, 1..=2_usize, activation(), any::<bool>())
        )
            .prop_map(
                |((n, seq, n_sympnet), (hidden, l, activation, init_upper))| {
                    Arch::LinSympt(LinSympt {
                        dim: 2 * n,
                        seq,
                        n_sympnet,
                        upscaling_dimension: 2 * hidden,
                        l,
                        activation,
                        init_upper,
                    })
                }
            ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn inspect_finds_every_architecture_at_every_size(arch in arch(), seed in any::<u64>()) {
        check_found(&arch, seed)?;
    }

    /// A spec one size off names the first differing layer, or the count, never nothing.
    #[test]
    fn a_spec_one_size_off_is_a_named_mismatch(arch in arch(), seed in any::<u64>()) {
        let file = file_of(&layout::layers(&arch), seed);
        let mut off = arch;
        match &mut off {
            Arch::Vpt(v) => v.l += 1,
            Arch::Vpff(v) => v.n_blocks += 1,
            Arch::St(s) => s.n_blocks += 1,
            Arch::Ct(c) => c.classes += 1,
            Arch::Sympt(s) => s.upscaling_dimension += 2,
            Arch::LinSympt(s) => s.seq += 1,
        }
        let mismatch = inspect::mismatch(&file, &off).unwrap();
        prop_assert!(mismatch.is_some(), "{} loads as {}", arch, off);
        let text = mismatch.unwrap().to_string();
        prop_assert!(!text.contains('\n'), "{}", text);
    }
}

/// The options the file cannot say are named, in the short form and in GML's call.
#[test]
fn each_architecture_names_what_the_file_cannot_say() {
    let cases = [
        (
            "VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3, init_upper = true)",
            "vpt(dim=3, seq=?, n_blocks=2, n_linear=1, L=3, activation=?, skew_sym=false, \
             init_upper=true)",
            "VolumePreservingTransformer(3, ?; n_blocks = 2, n_linear = 1, L = 3, \
             activation = ?, init_upper = true, skew_sym = false)",
        ),
        (
            "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
             L = 3, upscaling_activation = tanh, seq = 4)",
            "st(dim=2, seq=?, n_heads=5, n_blocks=3, L=3, activation=?, add_connection=?, \
             transformer_dim=20, upscaling_activation=?, attention_activation=?)",
            "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
             L = 3, upscaling_activation = ?, resnet_activation = ?, attention_activation = ?, \
             add_connection = ?)",
        ),
        (
            "ClassificationTransformer(dl; dim = 49, seq = 16, classes = 10, L = 2)",
            "classification_transformer(dim=49, seq=?, classes=10, n_heads=7, L=2, \
             Stiefel=true, add_connection=?)",
            "ClassificationTransformer(dl; n_heads = 7, L = 2, activation = softmax, \
             Stiefel = true, add_connection = ?)",
        ),
        (
            "SymplecticTransformer(4; transformer_dim = 8, seq = 3, n_sympnet = 3)",
            "symplectic_transformer(dim=4, seq=?, n_sympnet=3, upscaling_dimension=8, L=1, \
             sympnet_activation=?, attention_activation=?, init_upper=?, symmetric=true, \
             kick=?, transformer_dim=8)",
            "SymplecticTransformer(4; transformer_dim = 8, n_sympnet = 3, \
             upscaling_dimension = 8, L = 1, sympnet_activation = ?, attention_activation = ?, \
             init_upper = ?, symmetric = true)",
        ),
    ];
    for (spec, short, gml) in cases {
        let arch: Arch = spec.parse().unwrap();
        let found = inspect(&file_of(&layout::layers(&arch), 7)).unwrap();
        assert_eq!(found.matches.len(), 1, "{spec}: {:?}", found.matches);
        assert_eq!(found.matches[0].spec, short);
        assert_eq!(found.matches[0].gml, gml);
    }
}

/// GML's own files: the rigid-body networks of its tutorial, the MNIST classifiers, and the two
/// standard transformers with `transformer_dim = 20` of its symplectic-autoencoder tutorial.
#[test]
fn gmls_own_files_read_as_the_calls_gmls_tutorials_make() {
    let fixture = |name: &str| {
        GmlFile::open(format!(
            "{}/../fixtures/gml/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    for (name, gml) in [
        (
            "transformer_rigid_body_nn_vpt.h5",
            "VolumePreservingTransformer(3, ?; n_blocks = 2, n_linear = 1, L = 3, \
             activation = ?, init_upper = false, skew_sym = false)",
        ),
        (
            "transformer_rigid_body_nn_vpff.h5",
            "VolumePreservingFeedForward(3, 6, 1, ?; init_upper = false)",
        ),
        (
            "transformer_rigid_body_nn_st.h5",
            "StandardTransformerIntegrator(3; transformer_dim = 3, n_heads = 1, n_blocks = 2, \
             L = 3, upscaling_activation = identity, resnet_activation = ?, \
             attention_activation = ?, add_connection = ?)",
        ),
        (
            "mnist_nn1.h5",
            "ClassificationTransformer(dl; n_heads = 7, L = 16, activation = softmax, \
             Stiefel = false, add_connection = ?)",
        ),
        (
            "mnist_nn2.h5",
            "ClassificationTransformer(dl; n_heads = 7, L = 16, activation = softmax, \
             Stiefel = true, add_connection = ?)",
        ),
        (
            "integrator_parameters.h5",
            "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
             L = 3, upscaling_activation = ?, resnet_activation = ?, attention_activation = ?, \
             add_connection = ?)",
        ),
        (
            "integrator_parameters_psd.h5",
            "StandardTransformerIntegrator(8; transformer_dim = 20, n_heads = 5, n_blocks = 3, \
             L = 3, upscaling_activation = ?, resnet_activation = ?, attention_activation = ?, \
             add_connection = ?)",
        ),
    ] {
        let found = inspect(&fixture(name)).unwrap();
        let calls: Vec<&str> = found.matches.iter().map(|m| m.gml.as_str()).collect();
        assert_eq!(calls, [gml], "{name}");
    }
}

/// Where the file and the spec differ, the message names the layer, the parameter and both
/// shapes, or the two counts and the first layer only one has.
#[test]
fn mismatches_name_the_layer_and_the_shapes() {
    let arch: Arch = "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, \
                      n_blocks = 3, L = 3, upscaling_activation = tanh, seq = 4)"
        .parse()
        .unwrap();
    let file = file_of(&layout::layers(&arch), 1);
    let text = |spec: &str| {
        inspect::mismatch(&file, &spec.parse().unwrap())
            .unwrap()
            .map(|m| m.to_string())
    };
    assert_eq!(
        text(
            "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 4, n_blocks = 3, \
             L = 3, seq = 4)"
        )
        .unwrap(),
        "`/L2/PQ/head_1` is 20×4 in the file, where the architecture's MultiHeadAttention(20, 4; \
         Stiefel = false, add_connection = true, activation = VectorSoftmax()) has 20×5"
    );
    assert_eq!(
        text("StandardTransformerIntegrator(2; n_heads = 2, n_blocks = 3, L = 3, seq = 4)")
            .unwrap(),
        "`/L1/PQ/head_1` is not in the file (its layer has W 20×2, b 20), where the \
         architecture's MultiHeadAttention(2, 2; Stiefel = false, add_connection = true, \
         activation = VectorSoftmax()) has 2×1"
    );
    // Another `transformer_dim`: the up-projection is the first to differ.
    assert_eq!(
        text(
            "StandardTransformerIntegrator(2; transformer_dim = 16, n_heads = 4, n_blocks = 3, \
             L = 3, seq = 4)"
        )
        .unwrap(),
        "`/L1/W` is 20×2 in the file, where the architecture's Dense(2, 16, identity) has 16×2"
    );
    let vpt = GmlFile::open(format!(
        "{}/../fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let four = "VolumePreservingTransformer(3, 3; n_blocks = 2, L = 4)"
        .parse()
        .unwrap();
    let mismatch = inspect::mismatch(&vpt, &four).unwrap().unwrap();
    assert!(matches!(
        mismatch,
        Mismatch::Count {
            file: 33,
            arch: 44,
            ..
        }
    ));
    assert_eq!(
        mismatch.to_string(),
        "the file has 33 layers, the architecture 44: every layer both have agrees, the next is \
         the architecture's VolumePreservingAttention(3, 3; skew_sym = false): A 3×3"
    );
    let skew = "VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3, skew_sym = true)"
        .parse()
        .unwrap();
    assert_eq!(
        inspect::mismatch(&vpt, &skew).unwrap().unwrap().to_string(),
        "`/L1/A` is 3×3 in the file, where the architecture's VolumePreservingAttention(3, 3; \
         skew_sym = true) has SkewSymMatrix 3×3"
    );
}

/// A packed matrix's size from its length, at every size a layer could have.
#[test]
fn packed_sizes_invert_packed_lengths() {
    for kind in Packed::ALL {
        for n in 1..2000 {
            assert_eq!(kind.size(kind.len(n)), Some(n), "{kind:?} {n}");
        }
    }
}

/// A file of 10 082 layers (a feed-forward network of 2 520 blocks) is read and recognised. Its
/// reader opened each layer's group by name, walking the root's links again each time: quadratic,
/// 50 s for this file (release build), where one walk takes 0.6 s.
#[test]
fn a_file_of_ten_thousand_layers_is_read_in_one_walk() {
    let arch = Arch::Vpff(Vpff {
        dim: 3,
        n_blocks: 2520,
        n_linear: 1,
        activation: Activation::Tanh,
        init_upper: true,
    });
    let found = inspect(&file_of(&layout::layers(&arch), 3)).unwrap();
    assert_eq!(found.layers.len(), 10_082);
    let specs: Vec<&str> = found.matches.iter().map(|m| m.spec.as_str()).collect();
    assert_eq!(
        specs,
        ["vpff(dim=3, n_blocks=2520, n_linear=1, activation=?, init_upper=true)"]
    );
}
