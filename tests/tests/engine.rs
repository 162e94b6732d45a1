//! The run-time engine (`geomattn_networks::engine`, on `geomattn::engine`): at sizes a
//! compile-time type is written for, it is that network bit for bit (forward passes, rollouts,
//! batches, in `f32` and `f64`); at every size and option (any dimension, sequence length,
//! `n_linear`, activation, `init_upper`, both weightings, the Cayley transform's closed forms,
//! its kernels and nalgebra's LU beyond 16) it is CONVENTIONS.md's formulas computed
//! independently (`geomattn_testkit::gml_reference`), on
//! files written by an independent writer (`geomattn_testkit::gml_layout`).

use geomattn::gml::GmlFile;
use geomattn::nalgebra::DMatrix;
use geomattn::{
    ArbitraryWeight, Sigmoid, SkewWeight, Tanh, Transformer, VolumePreservingAttention,
    VolumePreservingFeedForward,
};
use geomattn_networks::batch::{Arithmetic, Layout};
use geomattn_networks::layout::{self, Op};
use geomattn_networks::{Activation, Arch, Error, Network, Precision, engine, open};
use geomattn_testkit::gml_chain::Values64;
use geomattn_testkit::gml_layout::{Layer, to_bytes};
use geomattn_testkit::gml_reference::{activation, volume_preserving_chain};

use crate::twins::{assert_engine_is_compiled, relative, window};

/// `arch`'s chain with seeded values (Float32, as GML stores them), each layer with its
/// activation.
fn chain(arch: &Arch, seed: u64) -> Vec<(Layer<f32>, Activation)> {
    let mut rng = Values64(seed);
    layout::layers(arch)
        .iter()
        .map(|layer| match layer.op {
            Op::VolumePreserving {
                dim,
                upper,
                activation,
                bias,
            } => {
                let weight = rng.take(dim * dim.saturating_sub(1) / 2);
                let bias = bias.then(|| rng.take(dim));
                let n = dim;
                (
                    Layer::Triangular {
                        upper,
                        weight,
                        n,
                        bias,
                    },
                    activation,
                )
            }
            Op::VolumePreservingAttention { dim, skew_sym, .. } => {
                let a = if skew_sym {
                    Layer::SkewSym(rng.take(dim * dim.saturating_sub(1) / 2), dim)
                } else {
                    Layer::Dense(rng.take(dim * dim), dim)
                };
                (a, Activation::Identity)
            }
            other => unreachable!("{other}"),
        })
        .collect()
}

fn file(chain: &[(Layer<f32>, Activation)]) -> GmlFile {
    let layers: Vec<Layer<f32>> = chain.iter().map(|(l, _)| l.clone()).collect();
    GmlFile::from_bytes(to_bytes(&layers)).unwrap()
}

/// The chain's values widened to `f64` (exactly).
fn widened(chain: &[(Layer<f32>, Activation)]) -> Vec<(Layer<f64>, Activation)> {
    let wide = |v: &Vec<f32>| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    chain
        .iter()
        .map(|(layer, f)| {
            let layer = match layer {
                Layer::Triangular {
                    upper,
                    weight,
                    n,
                    bias,
                } => Layer::Triangular {
                    upper: *upper,
                    weight: wide(weight),
                    n: *n,
                    bias: bias.as_ref().map(wide),
                },
                Layer::SkewSym(a, n) => Layer::SkewSym(wide(a), *n),
                Layer::Dense(a, n) => Layer::Dense(wide(a), *n),
                other => unreachable!("{other:?}"),
            };
            (layer, *f)
        })
        .collect()
}

/// The reference's output on the flat window `z`, and the output of `net`.
fn compared(
    arch: &Arch,
    reference: &[(Layer<f64>, Activation)],
    net: &dyn Network,
    z: &[f64],
) -> (DMatrix<f64>, DMatrix<f64>) {
    let (dim, seq) = (arch.dim(), arch.seq());
    let expected =
        volume_preserving_chain_of(arch, reference, &DMatrix::from_column_slice(dim, seq, z));
    let found = DMatrix::from_column_slice(dim, seq, &net.forward(z).unwrap());
    (expected, found)
}

/// The whole network: the transformer's `L` blocks are the chain in order, as is the
/// feed-forward network.
fn volume_preserving_chain_of(
    _arch: &Arch,
    reference: &[(Layer<f64>, Activation)],
    z: &DMatrix<f64>,
) -> DMatrix<f64> {
    volume_preserving_chain(reference, z)
}

/// The engine's network and the compile-time one of the same file, at sizes and options of both
/// volume-preserving networks (both weightings, one and several blocks, units and linear layers,
/// three activations): the same bits in both precisions.
#[test]
fn the_engine_is_the_compile_time_network_bit_for_bit() {
    let mut networks = Vec::new();
    twin!(networks, "vpff(dim=2, n_blocks=1, n_linear=1, activation=tanh)", 2, 1,
        VolumePreservingFeedForward<S, 2, 1, 1, Tanh>);
    twin!(networks, "vpff(dim=4, n_blocks=6, n_linear=1, activation=tanh)", 4, 1,
        VolumePreservingFeedForward<S, 4, 6, 1, Tanh>);
    twin!(networks, "vpff(dim=3, n_blocks=2, n_linear=2, activation=sigmoid)", 3, 1,
        VolumePreservingFeedForward<S, 3, 2, 2, Sigmoid>);
    twin!(
        networks,
        "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=2, activation=tanh, skew_sym=false)",
        3,
        3,
        Transformer<
            VolumePreservingAttention<S, 3, 3, ArbitraryWeight<S, 3>>,
            VolumePreservingFeedForward<S, 3, 2, 1, Tanh>,
            2,
        >
    );
    twin!(
        networks,
        "vpt(dim=2, seq=4, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=true)",
        2,
        4,
        Transformer<
            VolumePreservingAttention<S, 2, 4, SkewWeight<S, 2>>,
            VolumePreservingFeedForward<S, 2, 1, 1, Tanh>,
            1,
        >
    );
    twin!(
        networks,
        "vpt(dim=4, seq=2, n_blocks=2, n_linear=1, L=1, activation=tanh, skew_sym=true)",
        4,
        2,
        Transformer<
            VolumePreservingAttention<S, 4, 2, SkewWeight<S, 4>>,
            VolumePreservingFeedForward<S, 4, 2, 1, Tanh>,
            1,
        >
    );
    twin!(
        networks,
        "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)",
        5,
        6,
        Transformer<
            VolumePreservingAttention<S, 5, 6, ArbitraryWeight<S, 5>>,
            VolumePreservingFeedForward<S, 5, 1, 2, Sigmoid>,
            1,
        >
    );
    assert_engine_is_compiled(networks, 5);
}

/// Networks of every size and option: beyond GML's tutorials' sizes and the Cayley kernels.
const SIZES: [&str; 8] = [
    // The speed goal: dim 5, seq 6, n_linear 2, sigmoid.
    "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)",
    "vpt(dim=3, seq=4, n_blocks=3, n_linear=2, L=2, activation=relu, skew_sym=true, init_upper=true)",
    "vpt(dim=6, seq=12, n_blocks=2, n_linear=1, L=1, activation=identity, skew_sym=false)",
    // Past the compiled Cayley kernels: nalgebra's LU.
    "vpt(dim=4, seq=17, n_blocks=1, n_linear=1, L=1, activation=softplus, skew_sym=true)",
    "vpt(dim=2, seq=1, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=false)",
    "vpt(dim=1, seq=3, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=true)",
    "vpff(dim=6, n_blocks=3, n_linear=2, activation=softplus, init_upper=true)",
    "vpff(dim=9, n_blocks=7, n_linear=3, activation=sigmoid)",
];

#[test]
fn at_every_size_the_engine_is_conventions_formulas() {
    for (k, spec) in SIZES.iter().enumerate() {
        let arch: Arch = spec.parse().unwrap();
        let chain = chain(&arch, 50 + k as u64);
        let file = file(&chain);
        let reference = widened(&chain);
        // Through the front door (`open`).
        let (wide, single) = (
            open(&file, &arch, Precision::F64).unwrap(),
            open(&file, &arch, Precision::F32).unwrap(),
        );
        for seed in 0..4 {
            let z = window(&arch, 200 + seed, 1.0);
            let (expected, found) = compared(&arch, &reference, wide.as_ref(), &z);
            assert!(
                relative(&found, &expected) < 1e-12,
                "{spec}: {}",
                relative(&found, &expected)
            );
            let (expected, found) = compared(&arch, &reference, single.as_ref(), &z);
            assert!(
                relative(&found, &expected) < 1e-4,
                "{spec} f32: {}",
                relative(&found, &expected)
            );
        }
        // A rollout is the forward pass applied to each whole window in turn.
        let (dim, seq) = (arch.dim(), arch.seq());
        let z = window(&arch, 9, 0.5);
        let states = wide.rollout(&z, 4 * seq - 1, &mut |_| {}).unwrap();
        let mut x = DMatrix::from_column_slice(dim, seq, &z);
        for pass in 0..3 {
            x = volume_preserving_chain_of(&arch, &reference, &x);
            let from = (pass + 1) * seq * dim;
            let found = DMatrix::from_column_slice(dim, seq, &states[from..from + dim * seq]);
            assert!(
                relative(&found, &x) < 1e-11,
                "{spec}: pass {pass}: {} {x}",
                relative(&found, &x)
            );
        }
    }
}

#[test]
fn a_file_that_is_not_the_spec_names_the_first_difference() {
    let arch: Arch = SIZES[0].parse().unwrap();
    let file = file(&chain(&arch, 1));
    let other =
        "vpt(dim=5, seq=6, n_blocks=1, n_linear=1, L=1, activation=sigmoid, skew_sym=false)";
    let error = engine::open(&file, &other.parse().unwrap(), Precision::F64)
        .err()
        .unwrap();
    assert!(matches!(error, Error::Mismatch { .. }), "{error}");
    let wider =
        "vpt(dim=6, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)";
    let error = engine::open(&file, &wider.parse().unwrap(), Precision::F64)
        .err()
        .unwrap();
    let text = error.to_string();
    assert!(
        text.contains("L1") && text.contains("6×6") && text.contains("5×5"),
        "{text}"
    );
}

#[test]
fn windows_of_the_wrong_size_or_not_finite_are_refused() {
    let arch: Arch = SIZES[0].parse().unwrap();
    let net = engine::open(&file(&chain(&arch, 1)), &arch, Precision::F64).unwrap();
    assert!(matches!(
        net.forward(&[0.0; 29]),
        Err(Error::Length { found: 29, .. })
    ));
    let mut z = window(&arch, 1, 1.0);
    z[7] = f64::NAN;
    assert!(matches!(
        net.forward(&z),
        Err(Error::NonFinite { index: 7, .. })
    ));
    // A checked batch names the window and the part of the network that overflowed.
    let huge: Vec<f64> = window(&arch, 2, 1.0).iter().map(|x| x * 1e200).collect();
    let mut out = vec![0.0; huge.len()];
    let error = net.forward_f64(&huge, Layout::Columns, &mut out, true, Arithmetic::Exact);
    let Err(geomattn::Error::NonFinite(at)) = error else {
        panic!("{error:?}")
    };
    assert_eq!((at.sequence, at.block), (Some(0), Some(0)), "{at}");
}

#[test]
fn activations_are_nnlibs() {
    let points = [
        -800.0, -40.0, -3.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.25, 1.0, 3.5, 40.0, 800.0,
    ];
    for f in Activation::ALL {
        for x in points {
            let (found, expected) = (f.apply(x), activation(f, x));
            let close = found == expected
                || (found - expected).abs() <= 4.0 * f64::EPSILON * expected.abs();
            assert!(close, "{f}({x}) = {found}, expected {expected}");
            let single = f.apply(x as f32);
            assert!(
                (f64::from(single) - expected).abs()
                    <= 4.0
                        * f64::from(f32::EPSILON)
                        * expected.abs().max(f64::from(f32::MIN_POSITIVE)),
                "{f}({x}) in f32 = {single}"
            );
        }
        assert!(f.apply(f64::NAN).is_nan(), "{f}(NaN)");
    }
    assert_eq!(
        Activation::Relu.apply(-0.0_f64).to_bits(),
        0.0_f64.to_bits()
    );
    assert_eq!(Activation::Sigmoid.apply(f64::INFINITY), 1.0);
    assert_eq!(Activation::Softplus.apply(f64::NEG_INFINITY), 0.0);
}

/// `fixtures/synthetic/`: networks geomattn writes itself (not GML's) for the tests that cannot
/// write one, Python's: regenerated here and compared byte for byte (`GEOMATTN_BLESS=1` writes
/// them).
#[test]
fn the_synthetic_networks_are_regenerated_byte_for_byte() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/synthetic");
    let symplectic = "symplectic_transformer(dim=4, seq=5, n_sympnet=2, upscaling_dimension=8, \
                      L=2, sympnet_activation=sigmoid, attention_activation=VectorSoftmax, \
                      init_upper=true, symmetric=false, transformer_dim=8)";
    for (name, spec, seed) in [
        ("vpt_dim5_seq6_sigmoid.h5", SIZES[0], 3),
        ("sympt_dim4_psd8_seq5.h5", symplectic, 4),
    ] {
        let arch: Arch = spec.parse().unwrap();
        let bytes = geomattn_testkit::gml_chain::bytes_of(&layout::layers(&arch), seed);
        let path = dir.join(name);
        if std::env::var_os("GEOMATTN_BLESS").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        assert!(
            std::fs::read(&path).unwrap() == bytes,
            "{} is stale: re-bless",
            path.display()
        );
        assert_eq!(
            bytes,
            geomattn_testkit::gml_chain::bytes_of(&layout::layers(&arch), seed)
        );
    }
}

#[test]
fn the_structure_check_measures_every_promise_kept() {
    // Every promise kept, to rounding (the whole map of `skew_sym = false` measured, not
    // promised: |det J − 1| ≈ 1 here), at the sizes of GML's tutorials and beyond.
    let (deep, measurable) = SIZES.split_last().unwrap();
    let tutorials = [
        "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=2, activation=tanh, skew_sym=true)",
        "vpt(dim=2, seq=4, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=false)",
        "vpff(dim=4, n_blocks=3, n_linear=1, activation=tanh)",
    ];
    for spec in tutorials.iter().chain(measurable) {
        let arch: Arch = spec.parse().unwrap();
        let measured = geomattn_networks::check(&file(&chain(&arch, 21)), &arch, 3, 2).unwrap();
        assert!(!measured.is_empty(), "{spec}");
        for m in &measured {
            assert!(m.passes(), "{spec}: {m:?}");
        }
    }
    // The edge of the measurement, not of the network: 58 random layers `x + σ(W x + b)` with
    // entries of `W` up to 1 amplify a state by many orders of magnitude, and `det J`, computed
    // in f64 from such a Jacobian, is 1 only to that many digits less (3.7·10⁴ off here). The
    // check reports what it measured: a failed promise, never a silent pass.
    let arch: Arch = deep.parse().unwrap();
    let measured = geomattn_networks::check(&file(&chain(&arch, 21)), &arch, 3, 2).unwrap();
    assert!(
        !measured[0].passes() && measured[0].worst > 1.0,
        "{measured:?}"
    );
}
