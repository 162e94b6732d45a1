//! The grid the dispatch compiles is the grid `geomattn_spec::grid` declares: every declared
//! point reaches a network type (the bundled file then loads or is refused as not matching), and
//! every point beside it is refused as off the grid.

use geomattn::gml::GmlFile;
use geomattn_spec::grid::{self, Grid};
use geomattn_spec::{Activation, Arch, Error, Precision, St, Vpff, Vpt, open};

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
        })
    });
    inside.extend(i);
    outside.extend(o);
    let (i, o) = points(&grid::ST, |dim, seq, n_blocks, _, n_heads| {
        Arch::St(St {
            dim,
            seq,
            n_heads,
            n_blocks,
            l: 3,
            activation: Activation::Tanh,
            add_connection: false,
        })
    });
    inside.extend(i);
    outside.extend(o);
    (inside, outside)
}

#[test]
fn every_declared_size_is_compiled_and_no_other() {
    let file = file();
    let (inside, outside) = all_points();
    assert_eq!(inside.len(), 36 + 18 + 18);
    // The file's network, at any `seq` (the sequence length adds no parameters).
    let matches =
        |arch: &Arch| matches!(arch, Arch::Vpt(v) if v.dim == 3 && v.n_blocks == 2 && !v.skew_sym);
    for arch in &inside {
        match open(&file, arch, Precision::F64) {
            Ok(_) => assert!(matches(arch), "{arch}"),
            Err(Error::Load { .. }) => assert!(!matches(arch), "{arch}"),
            Err(other) => panic!("{arch}: {other}"),
        }
    }
    for arch in &outside {
        let error = open(&file, arch, Precision::F64).err().unwrap();
        assert!(matches!(error, Error::OffGrid { .. }), "{arch}: {error}");
    }
    let identity = "vpff(dim=3, n_blocks=6, n_linear=1, activation=identity)"
        .parse()
        .unwrap();
    assert!(matches!(
        open(&file, &identity, Precision::F32),
        Err(Error::OffGrid { .. })
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
        "vpff(dim=3, n_blocks=1, n_linear=1, activation=relu)",
        "vpff(dim=3, n_blocks=1, n_linear=1, activation=tanh, skew_sym=true)",
    ] {
        assert!(
            matches!(bad.parse::<Arch>(), Err(Error::Spec { .. })),
            "{bad}"
        );
    }
}
