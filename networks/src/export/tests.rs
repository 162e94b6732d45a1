//! [`rust_type`] names the types the blob export dispatches to: at every grid point of the
//! volume-preserving networks and the standard transformer, in both precisions, the text is
//! `std::any::type_name` of the dispatched units' `Transformer` (module paths dropped: the
//! runtime re-exports every item at its root; `type_name` leaves out generic arguments equal to
//! their defaults, as the text does). The symplectic transformers' text names the runtime's
//! aliases, which `type_name` expands: `tests/export.rs` reads their blobs into those.

use core::any::type_name;

use geomattn::{
    AddConnection, ArbitraryWeight, LayerType, MultiHeadAttention, NoConnection, ResNetStack,
    Schema, SkewWeight, Tanh, Visit, VolumePreservingAttention, VolumePreservingFeedForward,
};

use super::*;
use crate::dispatch::{off_grid, on_grid};
use crate::{Activation, AttentionActivation, LinSympt, St, Sympt, Vpff, Vpt, grid};

macro_rules! name_of {
    (vpff $a:ident, $S:ty, $d:literal, $net:ty, $ctx:expr) => {
        Ok::<&str, Error>(type_name::<$net>())
    };
    // Units of one `L` (the points have `L = 1`).
    ($kind:ident $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {
        Ok(type_name::<geomattn::Transformer<$att, $ff, 1>>())
    };
}

/// `type_name` of the type [`blob`] loads `arch` as, with `L = 1`.
fn dispatched(arch: &Arch, precision: Precision) -> Result<&'static str, Error> {
    match precision {
        Precision::F32 => on_grid!(arch, f32, name_of, ()),
        Precision::F64 => on_grid!(arch, f64, name_of, ()),
    }
}

/// The type without module paths and spaces: `a::b::C<d::E, 3>` → `C<E,3>`.
fn without_paths(name: &str) -> String {
    let (mut out, mut word) = (String::new(), String::new());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else {
            out.push_str(&word);
            word.clear();
            if !c.is_whitespace() {
                out.push(c);
            }
        }
    }
    out + &word
}

/// Every grid point of the volume-preserving networks and the standard transformer, with `L = 1`.
fn points() -> Vec<Arch> {
    let mut out = Vec::new();
    let (l, activation) = (1, Activation::Tanh);
    for &dim in grid::VPT.dims {
        for &seq in grid::VPT.seqs {
            for &n_blocks in grid::VPT.n_blocks {
                let n_linear = grid::VPT.n_linear[0];
                for skew_sym in [false, true] {
                    out.push(Arch::Vpt(Vpt {
                        dim,
                        seq,
                        n_blocks,
                        n_linear,
                        l,
                        activation,
                        init_upper: false,
                        skew_sym,
                    }));
                }
                let n_heads = grid::ST.n_heads[0];
                for add_connection in [false, true] {
                    out.push(Arch::St(St {
                        dim,
                        seq,
                        transformer_dim: dim,
                        n_heads,
                        n_blocks,
                        l,
                        activation,
                        upscaling_activation: Activation::Identity,
                        attention_activation: AttentionActivation::VectorSoftmax,
                        add_connection,
                    }));
                }
            }
        }
        for &n_blocks in grid::VPFF.n_blocks {
            let n_linear = grid::VPFF.n_linear[0];
            out.push(Arch::Vpff(Vpff {
                dim,
                n_blocks,
                n_linear,
                activation,
                init_upper: false,
            }));
        }
    }
    out
}

#[test]
fn the_rust_type_is_the_dispatched_type_at_every_grid_point() {
    // The grids of vpt and st have the same dims, seqs and n_blocks, which `points` relies on.
    assert_eq!(grid::VPT.dims, grid::ST.dims);
    assert_eq!(grid::VPT.seqs, grid::ST.seqs);
    assert_eq!(grid::VPT.n_blocks, grid::ST.n_blocks);
    assert_eq!((grid::VPT.n_linear, grid::ST.n_heads), (&[1][..], &[1][..]));
    let points = points();
    assert_eq!(points.len(), 2 * 36 + 18);
    for arch in &points {
        for precision in [Precision::F32, Precision::F64] {
            let text = rust_type(arch, precision).unwrap();
            let name = dispatched(arch, precision).unwrap();
            assert_eq!(without_paths(&text), without_paths(name), "{arch}");
        }
    }
}

#[test]
fn the_rust_type_names_items_at_the_crate_root() {
    for arch in points() {
        let text = rust_type(&arch, Precision::F64).unwrap();
        let paths = text.matches("::").count();
        assert_eq!(text.matches("geomattn::").count(), paths, "{text}");
        assert!(!text.contains("geomattn::geomattn"), "{text}");
    }
}

#[test]
fn without_paths_drops_module_paths_and_spaces_only() {
    assert_eq!(
        without_paths("a::b::C<d::E<f32, 3>, geomattn::F, 12>"),
        "C<E<f32,3>,F,12>"
    );
}

/// The classifier's text (its export is refused, as `Unsupported`, but the text is public) is
/// the runtime's `ClassificationTransformer` alias, for both kinds of projections and connections.
#[test]
fn the_rust_type_of_the_classifier_is_the_runtimes_alias() {
    use geomattn::{
        AddConnection, ClassificationTransformer, Euclidean, NoConnection, Stiefel, Tanh,
    };
    let spec = |stiefel: bool, add: bool| -> Arch {
        format!(
            "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
             Stiefel={stiefel}, add_connection={add})"
        )
        .parse()
        .unwrap()
    };
    let cases = [
        (
            spec(true, false),
            type_name::<
                ClassificationTransformer<f32, 49, 7, 7, 16, 10, NoConnection, Stiefel, Tanh>,
            >(),
        ),
        (
            spec(false, true),
            type_name::<
                ClassificationTransformer<f32, 49, 7, 7, 16, 10, AddConnection, Euclidean, Tanh>,
            >(),
        ),
    ];
    for (arch, name) in cases {
        assert_eq!(
            without_paths(&rust_type(&arch, Precision::F32).unwrap()),
            without_paths(name)
        );
    }
}

/// GML's options geomattn's compile-time types do not have: no type to name.
#[test]
fn there_is_no_rust_type_where_the_compile_time_types_have_no_such_network() {
    for spec in [
        "VolumePreservingTransformer(3, 3; init_upper = true)",
        "VolumePreservingFeedForward(3; init_upper = true)",
        "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, seq = 4)",
        "StandardTransformerIntegrator(2; seq = 4, attention_activation = MatrixSoftmax())",
        "SymplecticTransformer(2; transformer_dim = 4, seq = 3)",
    ] {
        let arch: Arch = spec.parse().unwrap();
        assert_eq!(rust_type(&arch, Precision::F32), None, "{spec}");
    }
}

/// Every layer type a network describes, as text with its parameters.
struct Described(Vec<String>);

impl Visit for Described {
    fn layer(&mut self, layer: &LayerType) {
        self.0.push(format!("{layer} {:?}", layer.params));
    }
}

macro_rules! described_of {
    (vpff $a:ident, $S:ty, $d:literal, $net:ty, $ctx:expr) => {{
        let mut described = Described(Vec::new());
        <$net>::describe(&mut described);
        Ok::<Vec<String>, Error>(described.0)
    }};
    ($kind:ident $a:ident, $S:ty, $d:literal, $t:literal, $att:ty, $ff:ty, $ctx:expr) => {{
        let mut described = Described(Vec::new());
        <geomattn::Transformer<$att, $ff, 1>>::describe(&mut described);
        Ok(described.0)
    }};
}

/// The symplectic transformers' grid points with `L = 1`: every dim, seq, `n_sympnet`,
/// `init_upper`, softmax and weight.
fn symplectic_points() -> Vec<Arch> {
    let mut out = Vec::new();
    for &dim in grid::SYMPT.dims {
        for &seq in grid::SYMPT.seqs {
            for &n_sympnet in grid::SYMPT.n_sympnet {
                for init_upper in [false, true] {
                    for attention_activation in [
                        AttentionActivation::VectorSoftmax,
                        AttentionActivation::MatrixSoftmax,
                    ] {
                        for symmetric in [None, Some(Kick::Gml), Some(Kick::Exact)] {
                            out.push(Arch::Sympt(Sympt {
                                dim,
                                seq,
                                transformer_dim: dim,
                                n_sympnet,
                                upscaling_dimension: 2 * dim,
                                l: 1,
                                sympnet_activation: Activation::Tanh,
                                attention_activation,
                                init_upper,
                                symmetric,
                            }));
                        }
                    }
                    out.push(Arch::LinSympt(LinSympt {
                        dim,
                        seq,
                        n_sympnet,
                        upscaling_dimension: 2 * dim,
                        l: 1,
                        activation: Activation::Tanh,
                        init_upper,
                    }));
                }
            }
        }
    }
    out
}

/// The run-time layer types the blob export writes are, at every grid point of every
/// integrator, the types the compile-time network describes: the same layers, options and
/// parameters in the same order.
#[test]
fn the_exported_layer_types_are_the_compile_time_types_at_every_grid_point() {
    let points: Vec<Arch> = points().into_iter().chain(symplectic_points()).collect();
    assert_eq!(points.len(), 2 * 36 + 18 + 2 * 2 * 2 * 2 * (2 * 3 + 1));
    for arch in &points {
        for precision in [Precision::F32, Precision::F64] {
            let compiled = match precision {
                Precision::F32 => on_grid!(arch, f32, described_of, ()),
                Precision::F64 => on_grid!(arch, f64, described_of, ()),
            }
            .unwrap();
            let at_run_time: Vec<String> = layer_types(arch)
                .unwrap()
                .iter()
                .map(|layer| format!("{} {:?}", layer.as_type(), layer.params))
                .collect();
            assert_eq!(at_run_time, compiled, "{arch}");
        }
    }
}
