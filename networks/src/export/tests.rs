//! [`rust_type`] names the compile-time type of a network, and the blob export writes its layer
//! types: checked against the types themselves at sizes and options of every integrator (both
//! weights, both connections, every kick, both softmaxes, both update sides, one and several
//! blocks), in both precisions. The text is `std::any::type_name` of the network's
//! `Transformer` (module paths dropped: the runtime re-exports every item at its root;
//! `type_name` leaves out generic arguments equal to their defaults, as the text does); the
//! layer types are what the type describes ([`Schema::describe`]). The symplectic transformers'
//! text names the runtime's aliases, which `type_name` expands: `tests/export.rs` reads their
//! blobs into those.

use core::any::type_name;

use geomattn::{
    AddConnection, ArbitraryWeight, DenseA, GmlCompatible, GradientExact, LayerType,
    LinearSymplecticAttentionP, LinearSymplecticAttentionQ, MatrixSoftmax, MultiHeadAttention,
    NoConnection, ResNetStack, Schema, SkewWeight, SymmetricA, SympNetStack, SymplecticAttentionP,
    SymplecticAttentionQ, Tanh, Transformer, UpdateP, UpdateQ, VectorSoftmax, Visit,
    VolumePreservingAttention, VolumePreservingFeedForward,
};

use super::*;

/// A spec with `L = 1`, the `type_name` of its compile-time network in `f32` and in `f64`, and
/// the layer types that network describes in each.
type Point = (&'static str, [&'static str; 2], [Vec<String>; 2]);

/// [`Point`] of `spec` and its network type, written once with the scalar `S`.
macro_rules! point {
    ($spec:expr, $($ty:tt)+) => {{
        let single = {
            type S = f32;
            (type_name::<$($ty)+>(), described::<$($ty)+>())
        };
        let double = {
            type S = f64;
            (type_name::<$($ty)+>(), described::<$($ty)+>())
        };
        ($spec, [single.0, double.0], [single.1, double.1])
    }};
}

/// The units of one attention `Att` and one feed-forward part `Ff`, as the blob holds them.
type Units<Att, Ff> = Transformer<Att, Ff, 1>;

/// Networks of every integrator with their compile-time types.
fn points() -> Vec<Point> {
    vec![
        point!(
            "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=1, activation=tanh, skew_sym=false)",
            Units<
                VolumePreservingAttention<S, 3, 3, ArbitraryWeight<S, 3>>,
                VolumePreservingFeedForward<S, 3, 2, 1, Tanh>,
            >
        ),
        point!(
            "vpt(dim=2, seq=4, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=true)",
            Units<
                VolumePreservingAttention<S, 2, 4, SkewWeight<S, 2>>,
                VolumePreservingFeedForward<S, 2, 1, 1, Tanh>,
            >
        ),
        point!("vpff(dim=4, n_blocks=6, n_linear=1, activation=tanh)",
            VolumePreservingFeedForward<S, 4, 6, 1, Tanh>),
        point!(
            "st(dim=3, seq=2, n_heads=1, n_blocks=2, L=1, activation=tanh, add_connection=false)",
            Units<MultiHeadAttention<S, 3, 1, 3, NoConnection>, ResNetStack<S, 3, 2, Tanh>>
        ),
        point!(
            "st(dim=4, seq=3, n_heads=1, n_blocks=1, L=1, activation=tanh, add_connection=true)",
            Units<MultiHeadAttention<S, 4, 1, 4, AddConnection>, ResNetStack<S, 4, 1, Tanh>>
        ),
        point!(
            "symplectic_transformer(dim=2, seq=3, n_sympnet=1, upscaling_dimension=4, L=1, \
             sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
             symmetric=true, kick=gml)",
            Units<
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
            >
        ),
        point!(
            "symplectic_transformer(dim=4, seq=2, n_sympnet=2, upscaling_dimension=8, L=1, \
             sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=false, \
             symmetric=false)",
            Units<
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
            >
        ),
        point!(
            "symplectic_transformer(dim=2, seq=2, n_sympnet=2, upscaling_dimension=4, L=1, \
             sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=false, \
             symmetric=true, kick=exact)",
            Units<
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
            >
        ),
        point!(
            "linear_symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, \
             L=1, activation=tanh, init_upper=false)",
            Units<
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
            >
        ),
    ]
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

#[test]
fn the_rust_type_is_the_networks_type() {
    for (spec, names, _) in points() {
        let arch: Arch = spec.parse().unwrap();
        if matches!(arch, Arch::Sympt(_) | Arch::LinSympt(_)) {
            // The text names the runtime's aliases, which `type_name` expands.
            continue;
        }
        for (precision, name) in [Precision::F32, Precision::F64].into_iter().zip(names) {
            let text = rust_type(&arch, precision).unwrap();
            assert_eq!(without_paths(&text), without_paths(name), "{arch}");
        }
    }
}

#[test]
fn the_rust_type_names_items_at_the_crate_root() {
    for (spec, _, _) in points() {
        let text = rust_type(&spec.parse().unwrap(), Precision::F64).unwrap();
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

/// The layer types `N` describes, as text with their parameters.
fn described<N: Schema>() -> Vec<String> {
    let mut described = Described(Vec::new());
    N::describe(&mut described);
    described.0
}

/// The run-time layer types the blob export writes are the types the compile-time network
/// describes: the same layers, options and parameters in the same order.
#[test]
fn the_exported_layer_types_are_the_compile_time_types() {
    for (spec, _, described) in points() {
        let arch: Arch = spec.parse().unwrap();
        let at_run_time: Vec<String> = layer_types(&arch)
            .unwrap()
            .iter()
            .map(|layer| format!("{} {:?}", layer.as_type(), layer.params))
            .collect();
        for compiled in described {
            assert_eq!(at_run_time, compiled, "{arch}");
        }
    }
}
