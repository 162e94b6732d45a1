//! The grid the dispatch compiles is the grid `geomattn_networks::grid` declares: every declared
//! point reaches a network type (the bundled file then loads or is refused as not matching), and
//! every point beside it is refused as off the grid.

use geomattn::gml::GmlFile;
use geomattn_networks::grid::{self, Grid};
use geomattn_networks::{
    Activation, Arch, AttentionActivation, Error, Kick, LinSympt, Precision, St, Sympt, Vpff, Vpt,
    open,
};

fn file() -> GmlFile {
    GmlFile::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5"
    ))
    .unwrap()
}

/// Every declared combination of `grid`, built by `make(dim, seq, n_blocks, n_linear, n_heads)`,
/// and one beyond each list.
fn points(
    grid: &Grid,
    make: impl Fn(usize, usize, usize, usize, usize) -> Arch,
) -> (Vec<Arch>, Vec<Arch>) {
    let or_one = |values: &'static [usize]| if values.is_empty() { &[1][..] } else { values };
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    for &d in grid.dims {
        for &t in or_one(grid.seqs) {
            for &nb in grid.n_blocks {
                for &nl in or_one(grid.n_linear) {
                    for &h in or_one(grid.n_heads) {
                        inside.push(make(d, t, nb, nl, h));
                    }
                }
            }
        }
    }
    let beyond = |values: &[usize]| values.iter().max().map_or(1, |m| m + 1);
    let (d, t, nb, nl, h) = (
        grid.dims[0],
        or_one(grid.seqs)[0],
        grid.n_blocks[0],
        or_one(grid.n_linear)[0],
        or_one(grid.n_heads)[0],
    );
    outside.push(make(beyond(grid.dims), t, nb, nl, h));
    outside.push(make(d, t, beyond(grid.n_blocks), nl, h));
    if !grid.seqs.is_empty() {
        outside.push(make(d, beyond(grid.seqs), nb, nl, h));
    }
    if !grid.n_linear.is_empty() {
        outside.push(make(d, t, nb, beyond(grid.n_linear), h));
    }
    if !grid.n_heads.is_empty() {
        outside.push(make(d, t, nb, nl, beyond(grid.n_heads)));
    }
    (inside, outside)
}

fn all_points() -> (Vec<Arch>, Vec<Arch>) {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    for skew_sym in [false, true] {
        let (i, o) = points(&grid::VPT, |dim, seq, n_blocks, n_linear, _| {
            Arch::Vpt(Vpt {
                dim,
                seq,
                n_blocks,
                n_linear,
                l: 3,
                activation: Activation::Tanh,
                init_upper: false,
                skew_sym,
            })
        });
        inside.extend(i);
        outside.extend(o);
    }
    let (i, o) = points(&grid::VPFF, |dim, _, n_blocks, n_linear, _| {
        Arch::Vpff(Vpff {
            dim,
            n_blocks,
            n_linear,
            activation: Activation::Tanh,
            init_upper: false,
        })
    });
    inside.extend(i);
    outside.extend(o);
    let (i, o) = points(&grid::ST, |dim, seq, n_blocks, _, n_heads| {
        Arch::St(St {
            dim,
            seq,
            transformer_dim: dim,
            n_heads,
            n_blocks,
            l: 3,
            activation: Activation::Tanh,
            upscaling_activation: Activation::Identity,
            attention_activation: AttentionActivation::VectorSoftmax,
            add_connection: false,
        })
    });
    inside.extend(i);
    outside.extend(o);
    let (i, o) = symplectic_points();
    inside.extend(i);
    outside.extend(o);
    (inside, outside)
}

/// Every declared symplectic transformer (each softmax, weight and `init_upper`) and linear one,
/// and one beyond each list (and an upscaling other than `2·dim`).
fn symplectic_points() -> (Vec<Arch>, Vec<Arch>) {
    let sympt = |dim, seq, n_sympnet, attention_activation, init_upper, symmetric| {
        Arch::Sympt(Sympt {
            dim,
            seq,
            transformer_dim: dim,
            n_sympnet,
            upscaling_dimension: 2 * dim,
            l: 3,
            sympnet_activation: Activation::Tanh,
            attention_activation,
            init_upper,
            symmetric,
        })
    };
    let linear = |dim, seq, n_sympnet, init_upper| {
        Arch::LinSympt(LinSympt {
            dim,
            seq,
            n_sympnet,
            upscaling_dimension: 2 * dim,
            l: 3,
            activation: Activation::Tanh,
            init_upper,
        })
    };
    let (g, lg) = (grid::SYMPT, grid::LINSYMPT);
    assert_eq!(
        (g.dims, g.seqs, g.n_sympnet),
        (lg.dims, lg.seqs, lg.n_sympnet)
    );
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    let softmaxes = [
        AttentionActivation::MatrixSoftmax,
        AttentionActivation::VectorSoftmax,
    ];
    for &d in g.dims {
        for &t in g.seqs {
            for &ns in g.n_sympnet {
                for init_upper in [true, false] {
                    inside.push(linear(d, t, ns, init_upper));
                    for sm in softmaxes {
                        for weight in [None, Some(Kick::Gml), Some(Kick::Exact)] {
                            inside.push(sympt(d, t, ns, sm, init_upper, weight));
                        }
                    }
                }
            }
        }
    }
    let beyond = |values: &[usize]| values.iter().max().unwrap() + 1;
    let sm = AttentionActivation::MatrixSoftmax;
    outside.extend([
        sympt(beyond(g.dims) * 2, 2, 1, sm, true, None),
        sympt(2, beyond(g.seqs), 1, sm, true, None),
        sympt(2, 2, beyond(g.n_sympnet), sm, true, None),
        linear(3, 2, 1, true),
        linear(2, beyond(g.seqs), 1, true),
        linear(2, 2, beyond(g.n_sympnet), true),
    ]);
    for arch in [sympt(2, 2, 1, sm, true, None), linear(2, 2, 1, true)] {
        let (mut upscaled, mut identity) = (arch, arch);
        match (&mut upscaled, &mut identity) {
            (Arch::Sympt(u), Arch::Sympt(i)) => {
                u.upscaling_dimension = 6;
                i.sympnet_activation = Activation::Identity;
            }
            (Arch::LinSympt(u), Arch::LinSympt(i)) => {
                u.upscaling_dimension = 6;
                i.activation = Activation::Identity;
            }
            _ => unreachable!(),
        }
        outside.extend([upscaled, identity]);
    }
    (inside, outside)
}

/// GML's options the grid's types fix at GML's default, each at another value.
fn added_options() -> Vec<Arch> {
    let parse = |spec: &str| spec.parse::<Arch>().unwrap();
    vec![
        parse("VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3, init_upper = true)"),
        parse("VolumePreservingFeedForward(3, 6, 1, tanh; init_upper = true)"),
        parse(
            "StandardTransformerIntegrator(3; transformer_dim = 6, n_heads = 1, n_blocks = 2, \
             L = 3, seq = 3)",
        ),
        parse(
            "StandardTransformerIntegrator(3; n_heads = 1, n_blocks = 2, L = 3, seq = 3, \
             attention_activation = MatrixSoftmax())",
        ),
        parse("SymplecticTransformer(2; transformer_dim = 4, n_sympnet = 1, L = 1, seq = 2)"),
    ]
}

#[test]
fn every_declared_size_is_compiled_and_no_other() {
    let file = file();
    let (inside, outside) = all_points();
    assert_eq!(inside.len(), 36 + 18 + 18 + 96 + 16);
    // The file's network, at any `seq` (the sequence length adds no parameters).
    let matches =
        |arch: &Arch| matches!(arch, Arch::Vpt(v) if v.dim == 3 && v.n_blocks == 2 && !v.skew_sym);
    for arch in &inside {
        match open(&file, arch, Precision::F64) {
            Ok(_) => assert!(matches(arch), "{arch}"),
            Err(Error::Load { .. } | Error::Mismatch { .. }) => {
                assert!(!matches(arch), "{arch}")
            }
            Err(other) => panic!("{arch}: {other}"),
        }
    }
    // Off the grid, every architecture but the classifier runs on the run-time engine, which
    // reads the file as its chain (it is not: a named mismatch); the classifier is refused.
    for arch in added_options().iter().chain(&outside) {
        let error = open(&file, arch, Precision::F64).err().unwrap();
        if geomattn_networks::engine::runs(arch) {
            assert!(matches!(error, Error::Mismatch { .. }), "{arch}: {error}");
        } else {
            assert!(matches!(error, Error::OffGrid { .. }), "{arch}: {error}");
        }
    }
    let identity = "vpff(dim=3, n_blocks=6, n_linear=1, activation=identity)"
        .parse()
        .unwrap();
    // An activation the grid does not have: on the run-time engine, which reads the file as that
    // feed-forward network (it is the transformer's).
    assert!(matches!(
        open(&file, &identity, Precision::F32),
        Err(Error::Mismatch { .. })
    ));
}

#[test]
fn the_short_form_prints_back_to_itself_and_equals_gmls_constructor() {
    for (gml, short) in [
        (
            "VolumePreservingFeedForward(3, 6, 1, tanh)",
            "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)",
        ),
        (
            "StandardTransformerIntegrator(3; seq = 3, n_heads = 1, n_blocks = 2, L = 3, resnet_activation = tanh, add_connection = false)",
            "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)",
        ),
        (
            "SymplecticTransformer(4; seq = 3, n_sympnet = 2, upscaling_dimension = 8, L = 1, \
             activation = tanh, attention_activation = VectorSoftmax, init_upper = true, \
             symmetric = true, kick = gml)",
            "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
             sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=true, \
             symmetric=true, kick=gml)",
        ),
        (
            "SymplecticTransformer(2; seq = 2, n_sympnet = 1, upscaling_dimension = 4, L = 2, \
             activation = tanh, attention_activation = MatrixSoftmax, init_upper = false, \
             symmetric = false)",
            "symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=2, \
             sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=false, \
             symmetric=false)",
        ),
        (
            "LinearSymplecticTransformer(4, 3; n_sympnet = 2, upscaling_dimension = 8, L = 1, \
             activation = tanh, init_upper = false)",
            "linear_symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
             activation=tanh, init_upper=false)",
        ),
    ] {
        let a: Arch = gml.parse().unwrap();
        let b: Arch = short.parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(b.to_string(), short);
    }
    for bad in [
        "vpff",
        "vpff(3, 6, 1, tanh, 2)",
        "vpff(dim=3, dim=3, n_blocks=1, n_linear=1, activation=tanh)",
        "vpff(dim=0, n_blocks=1, n_linear=1, activation=tanh)",
        "vpff(dim=3, n_blocks=1, n_linear=1, activation=swish)",
        "vpff(dim=3, n_blocks=1, n_linear=1, activation=tanh, skew_sym=true)",
        // `symmetric = true` needs the kick, `symmetric = false` refuses one.
        "symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=1, \
         sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
         symmetric=true)",
        "symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=1, \
         sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
         symmetric=false, kick=exact)",
        "symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=1, \
         sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
         symmetric=true, kick=fast)",
        "symplectic_transformer(dim=2, seq=2, n_sympnet=1, upscaling_dimension=4, L=1, \
         sympnet_activation=tanh, attention_activation=Softmax, init_upper=true, \
         symmetric=false)",
        // GML's rule: the symplectic layers split a state into halves.
        "SymplecticTransformer(2; seq = 2, n_sympnet = 1, upscaling_dimension = 4, L = 1, \
         activation = tanh, attention_activation = MatrixSoftmax, init_upper = true, \
         symmetric = false, transformer_dim = 5)",
    ] {
        assert!(
            matches!(
                bad.parse::<Arch>().map_err(Error::from),
                Err(Error::Spec { .. })
            ),
            "{bad}"
        );
    }
}

/// A check of no random input measured nothing, and passed; more than the bound is a typo.
/// Both are refused, naming the bound (Python's `check(samples=0)` passed).
#[test]
fn a_check_measures_from_one_to_a_million_inputs() {
    let arch: Arch = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, \
                      skew_sym=false)"
        .parse()
        .unwrap();
    for samples in [0, geomattn_networks::structure::MAX_SAMPLES + 1] {
        let error = geomattn_networks::check(&file(), &arch, samples, 0).unwrap_err();
        assert!(matches!(error, Error::Samples { .. }), "{samples}: {error}");
        assert!(error.to_string().contains("from 1 to 1000000"), "{error}");
    }
    let measured = geomattn_networks::check(&file(), &arch, 1, 0).unwrap();
    assert!(measured.iter().all(geomattn_networks::Measurement::passes));
}
