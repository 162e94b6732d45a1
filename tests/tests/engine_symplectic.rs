//! GML's symplectic transformers on the run-time engine (`geomattn::engine`'s
//! `SymplecticAttention`, `LinearSymplecticAttention`, `GradientLayer`, `PsdLayer`): the
//! compile-time network bit for bit where one is written; at every size and option (`transformer_dim
//! ≠ dim` with its `PSDLayer`s, any `n_sympnet`, `upscaling_dimension`, `L` and window length,
//! every activation, both softmaxes, dense and symmetric weights with either kick, `init_upper`
//! either) CONVENTIONS.md's formulas computed independently
//! (`geomattn_testkit::gml_reference::symplectic_chain`) on files written by the test kit's
//! writer; and `check` measuring the symplecticity they promise.

use geomattn::nalgebra::DMatrix;
use geomattn::{
    DenseA, GmlCompatible, GradientExact, LinearSymplecticAttentionP, LinearSymplecticAttentionQ,
    MatrixSoftmax, STIEFEL_TOLERANCE, SymmetricA, SympNetStack, SymplecticAttentionP,
    SymplecticAttentionQ, Tanh, Transformer, UpdateP, UpdateQ, VectorSoftmax,
};
use geomattn_networks::layout;
use geomattn_networks::structure::SYMPLECTICITY_TOLERANCE;
use geomattn_networks::{Arch, AttentionActivation, Error, Kick, Precision, check, open};
use geomattn_testkit::gml_reference::symplectic_chain;

use crate::twins::{assert_engine_is_compiled, network, relative, window};

/// The kick the reference computes for `arch`'s symmetric weights.
fn kick(arch: &Arch) -> Kick {
    match arch {
        Arch::Sympt(s) => s.symmetric.unwrap_or(Kick::Gml),
        _ => Kick::Gml,
    }
}

/// The engine's network and the compile-time one of the same file, every weight, kick,
/// softmax and side once at least: the same bits in both precisions.
#[test]
fn the_engine_is_the_compile_time_network_bit_for_bit() {
    let mut networks = Vec::new();
    // The halves of a unit: attention then a SympNet stack updating `q`, then `p`.
    twin!(
        networks,
        "symplectic_transformer(dim=2, seq=3, n_sympnet=1, upscaling_dimension=4, L=2, \
           sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
           symmetric=true, kick=gml)",
        2,
        3,
        Transformer<
            Transformer<
                SymplecticAttentionQ<S, 1, MatrixSoftmax, SymmetricA<S, 1, GmlCompatible>>,
                SympNetStack<S, 1, 2, 1, Tanh, UpdateQ>,
                1,
            >,
            Transformer<
                SymplecticAttentionP<S, 1, MatrixSoftmax, SymmetricA<S, 1, GmlCompatible>>,
                SympNetStack<S, 1, 2, 1, Tanh, UpdateQ>,
                1,
            >,
            2,
        >
    );
    twin!(
        networks,
        "symplectic_transformer(dim=4, seq=2, n_sympnet=2, upscaling_dimension=8, L=1, \
           sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=false, \
           symmetric=false)",
        4,
        2,
        Transformer<
            Transformer<
                SymplecticAttentionQ<S, 2, VectorSoftmax, DenseA<S, 2>>,
                SympNetStack<S, 2, 4, 2, Tanh, UpdateP>,
                1,
            >,
            Transformer<
                SymplecticAttentionP<S, 2, VectorSoftmax, DenseA<S, 2>>,
                SympNetStack<S, 2, 4, 2, Tanh, UpdateP>,
                1,
            >,
            1,
        >
    );
    twin!(
        networks,
        "symplectic_transformer(dim=2, seq=2, n_sympnet=2, upscaling_dimension=4, L=1, \
           sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=false, \
           symmetric=true, kick=exact)",
        2,
        2,
        Transformer<
            Transformer<
                SymplecticAttentionQ<S, 1, VectorSoftmax, SymmetricA<S, 1, GradientExact>>,
                SympNetStack<S, 1, 2, 2, Tanh, UpdateP>,
                1,
            >,
            Transformer<
                SymplecticAttentionP<S, 1, VectorSoftmax, SymmetricA<S, 1, GradientExact>>,
                SympNetStack<S, 1, 2, 2, Tanh, UpdateP>,
                1,
            >,
            1,
        >
    );
    twin!(
        networks,
        "linear_symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=2, \
           activation=tanh, init_upper=false)",
        4,
        3,
        Transformer<
            Transformer<
                LinearSymplecticAttentionQ<S, 2, 3>,
                SympNetStack<S, 2, 4, 2, Tanh, UpdateP>,
                1,
            >,
            Transformer<
                LinearSymplecticAttentionP<S, 2, 3>,
                SympNetStack<S, 2, 4, 2, Tanh, UpdateP>,
                1,
            >,
            2,
        >
    );
    twin!(
        networks,
        "linear_symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=1, \
           activation=tanh, init_upper=true)",
        2,
        2,
        Transformer<
            Transformer<
                LinearSymplecticAttentionQ<S, 1, 2>,
                SympNetStack<S, 1, 2, 1, Tanh, UpdateQ>,
                1,
            >,
            Transformer<
                LinearSymplecticAttentionP<S, 1, 2>,
                SympNetStack<S, 1, 2, 1, Tanh, UpdateQ>,
                1,
            >,
            1,
        >
    );
    assert_engine_is_compiled(networks, 4);
}

/// Symplectic transformers of every keyword GML's constructors take.
const SIZES: [&str; 8] = [
    // GML's defaults at the sizes of its linear-symplectic-attention tutorial: n_sympnet 6, seq 10.
    "SymplecticTransformer(4; seq = 10, n_sympnet = 6, L = 1)",
    // transformer_dim ≠ dim: a PSDLayer up and one down.
    "SymplecticTransformer(4; seq = 5, transformer_dim = 8, n_sympnet = 2, L = 2, \
     sympnet_activation = sigmoid, attention_activation = VectorSoftmax(), symmetric = false)",
    "SymplecticTransformer(6; seq = 4, n_sympnet = 3, upscaling_dimension = 20, \
     sympnet_activation = relu, attention_activation = VectorSoftmax(), init_upper = false, \
     kick = exact)",
    "SymplecticTransformer(2; seq = 1, transformer_dim = 6, n_sympnet = 1, L = 2, \
     sympnet_activation = softplus, kick = exact)",
    "SymplecticTransformer(8; seq = 3, n_sympnet = 1, upscaling_dimension = 6, \
     sympnet_activation = identity, symmetric = false)",
    // GML's linear-symplectic-attention tutorial.
    "LinearSymplecticTransformer(4, 4; n_sympnet = 2, upscaling_dimension = 20, L = 1)",
    "LinearSymplecticTransformer(2, 10; n_sympnet = 3, L = 2, activation = identity)",
    "LinearSymplecticTransformer(6, 5; n_sympnet = 1, upscaling_dimension = 10, L = 2, \
     activation = sigmoid, init_upper = false)",
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
        let reference = |z: &DMatrix<f64>| symplectic_chain(&layers, &values, z, kick(&arch));
        for seed in 0..4 {
            let z = window(&arch, 200 + seed, 1.0);
            let expected = reference(&DMatrix::from_column_slice(dim, seq, &z));
            let found = DMatrix::from_column_slice(dim, seq, &wide.forward(&z).unwrap());
            let error = relative(&found, &expected);
            assert!(error < 1e-12, "{spec}: {error}");
            let found = DMatrix::from_column_slice(dim, seq, &single.forward(&z).unwrap());
            let error = relative(&found, &expected);
            assert!(error < 1e-4, "{spec} f32: {error}");
        }
        // A rollout applies the network to each whole window in turn.
        let z = window(&arch, 9, 0.25);
        let states = wide.rollout(&z, 4 * seq - 1, &mut |_| {}).unwrap();
        let mut x = DMatrix::from_column_slice(dim, seq, &z);
        for pass in 0..3 {
            x = reference(&x);
            let from = (pass + 1) * seq * dim;
            let found = DMatrix::from_column_slice(dim, seq, &states[from..from + dim * seq]);
            assert!(relative(&found, &x) < 1e-11, "{spec}: pass {pass}");
        }
    }
}

/// Whether `arch` promises a symplectic map: all but GML's `symmetric = true` kick with
/// `VectorSoftmax`.
fn keeps_its_promise(arch: &Arch) -> bool {
    !matches!(arch, Arch::Sympt(s)
        if s.symmetric == Some(Kick::Gml)
            && s.attention_activation == AttentionActivation::VectorSoftmax)
}

#[test]
fn check_measures_the_symplecticity_each_promises() {
    let specs = SIZES
        .iter()
        .map(|s| s.to_string())
        .chain([SIZES[0].replace("L = 1", "L = 1, attention_activation = VectorSoftmax()")]);
    for spec in specs {
        let arch: Arch = spec.parse().unwrap();
        let (file, _) = network(&arch, 7);
        let measurements = check(&file, &arch, 3, 11).unwrap();
        let upscaled = matches!(arch, Arch::Sympt(s) if s.transformer_dim != s.dim);
        if upscaled {
            // Φ orthonormal, the blocks symplectic (both promised); the whole map measured only.
            assert_eq!(measurements.len(), 3, "{spec}: {measurements:?}");
            assert!(measurements[0].property.contains("ΦᵀΦ"), "{spec}");
            assert_eq!(measurements[0].tolerance, STIEFEL_TOLERANCE);
            assert!(
                measurements[1].property.contains("the blocks' map"),
                "{spec}"
            );
            assert!(!measurements[2].promised, "{spec}");
            // The writer's Φ are the first columns of the identity: the whole map is the blocks'
            // map restricted to the embedded subspace, not symplectic on it in general.
            assert!(
                measurements[..2].iter().all(|m| m.passes()),
                "{spec}: {measurements:?}"
            );
        } else {
            assert_eq!(measurements.len(), 1, "{spec}: {measurements:?}");
            let m = &measurements[0];
            assert!(m.promised && m.property.contains("Jᵀ𝕁J"), "{spec}: {m:?}");
            assert_eq!(m.tolerance, SYMPLECTICITY_TOLERANCE);
            if keeps_its_promise(&arch) {
                assert!(m.passes(), "{spec}: {m:?}");
            } else {
                // Fails by orders of magnitude, not by rounding.
                assert!(m.worst > 1e-4, "{spec}: {m:?}");
            }
        }
    }
}

#[test]
fn a_file_that_is_not_the_spec_names_the_first_difference() {
    let arch: Arch = SIZES[1].parse().unwrap();
    let (file, _) = network(&arch, 1);
    // A symmetric A where the file's is dense: the first attention layer (after the PSDLayer).
    let symmetric = SIZES[1].replace("symmetric = false", "symmetric = true");
    let text = open(&file, &symmetric.parse().unwrap(), Precision::F64)
        .err()
        .unwrap()
        .to_string();
    assert!(text.contains("L2"), "{text}");
    // A wider transformer_dim: the PSDLayer's weight has another shape.
    let wider = SIZES[1].replace("transformer_dim = 8", "transformer_dim = 12");
    let error = open(&file, &wider.parse().unwrap(), Precision::F64)
        .err()
        .unwrap();
    let text = error.to_string();
    assert!(matches!(error, Error::Mismatch { .. }), "{text}");
    assert!(text.contains("L1"), "{text}");
    // Another window length of a linear symplectic transformer: its A is seq×seq.
    let linear: Arch = SIZES[5].parse().unwrap();
    let (file, _) = network(&linear, 2);
    let other = SIZES[5].replace("(4, 4;", "(4, 5;");
    let text = open(&file, &other.parse().unwrap(), Precision::F64)
        .err()
        .unwrap()
        .to_string();
    assert!(text.contains("L1") && text.contains('A'), "{text}");
}

#[test]
fn non_finite_windows_are_refused_naming_the_layer() {
    let arch: Arch = SIZES[4].parse().unwrap();
    let net = open(&network(&arch, 1).0, &arch, Precision::F64).unwrap();
    let mut z = window(&arch, 1, 1.0);
    z[5] = f64::NAN;
    assert!(matches!(
        net.forward(&z),
        Err(Error::NonFinite { index: 5, .. })
    ));
    // A checked batch names the window and the first part that overflowed.
    let huge: Vec<f64> = window(&arch, 2, 1.0).iter().map(|x| x * 1e200).collect();
    let mut out = vec![0.0; huge.len()];
    let error = net.forward_f64(
        &huge,
        geomattn_networks::batch::Layout::Columns,
        &mut out,
        true,
        geomattn_networks::batch::Arithmetic::Exact,
    );
    let Err(geomattn::Error::NonFinite(at)) = error else {
        panic!("{error:?}")
    };
    assert_eq!((at.sequence, at.block), (Some(0), Some(0)), "{at}");
    assert!(
        ["SymplecticAttentionQ", "SympNetStack"].contains(&at.layer),
        "{at}"
    );
}

#[test]
fn layers_built_by_hand_refuse_odd_phase_spaces_and_wrong_lengths() {
    use geomattn::activation::Function;
    use geomattn::engine::{
        GradientLayer, LinearSymplecticAttention, PsdLayer, SymplecticAttention,
    };
    use geomattn::softmax::Function as Softmax;
    use geomattn::symplectic::Side;
    let odd = |layer: &'static str, dim| geomattn::Error::PhaseSpace { layer, dim };
    assert_eq!(
        GradientLayer::new(
            Side::P,
            5,
            4,
            &[0.0; 4],
            &[0.0; 2],
            &[0.0; 2],
            Function::Tanh
        )
        .unwrap_err(),
        odd("GradientLayerP", 5)
    );
    assert_eq!(
        SymplecticAttention::arbitrary(Side::Q, 3, &[0.0_f64], Softmax::Matrix).unwrap_err(),
        odd("SymplecticAttentionQ", 3)
    );
    assert_eq!(
        LinearSymplecticAttention::new(Side::P, 7, 2, &[0.0_f64; 3]).unwrap_err(),
        odd("LinearSymplecticAttentionP", 7)
    );
    assert_eq!(
        PsdLayer::new(4, 9, &[0.0_f64; 8]).unwrap_err(),
        odd("PSDLayer", 9)
    );
    assert_eq!(
        GradientLayer::new(
            Side::Q,
            4,
            6,
            &[0.0_f64; 6],
            &[0.0; 3],
            &[0.0; 2],
            Function::Tanh
        )
        .unwrap_err(),
        geomattn::Error::WeightLength {
            name: "scale",
            expected: 3,
            found: 2
        }
    );
    assert!(matches!(
        SymplecticAttention::symmetric(Side::Q, 4, &[0.0_f64; 4], Softmax::Vector),
        Err(geomattn::Error::PackedLength { expected: 3, .. })
    ));
    assert_eq!(
        PsdLayer::new(8, 4, &[0.0_f64; 7]).unwrap_err(),
        geomattn::Error::WeightLength {
            name: "weight",
            expected: 8,
            found: 7
        }
    );
}
