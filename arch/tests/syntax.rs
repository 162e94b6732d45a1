//! GML's constructor calls, as pasted from Julia, parse to the architecture GML 0.4.8 builds: its
//! documentation's calls, each of its defaults, the softmaxes, geomattn's `kick`, and the one-line
//! refusals. The defaults here are written from GML 0.4.8's source, independently of the parser's
//! tables (`src/architectures/*.jl`, see `geomattn_arch::spec`'s module docs).

use geomattn_arch::Activation::{Identity, Tanh};
use geomattn_arch::AttentionActivation::{MatrixSoftmax, VectorSoftmax};
use geomattn_arch::{Arch, Ct, Error, Kick, LinSympt, St, Sympt, Vpff, Vpt};

fn parse(spec: &str) -> Arch {
    spec.parse()
        .unwrap_or_else(|error| panic!("{spec:?}: {error}"))
}

/// The message of the refusal of `spec`, checked to be a spec error of one line.
fn refusal(spec: &str) -> String {
    match spec.parse::<Arch>() {
        Err(error @ Error::Spec { .. }) => {
            let message = error.to_string();
            assert!(!message.contains('\n'), "{message}");
            message
        }
        other => panic!("{spec:?} gave {other:?}"),
    }
}

#[test]
fn gmls_documented_calls_parse_verbatim() {
    // docs/src/tutorials/volume_preserving_transformer_rigid_body.md, with its constants
    // (sys_dim = 3, seq_length = 3, n_blocks = 2, n_linear = 1, L = 3, tanh, skew_sym = false,
    // n_heads = 1) put in and geomattn's `seq` added to the standard transformer.
    let vpff = "VolumePreservingFeedForward(3, 2 * 3, 1, tanh)";
    let vpt = "VolumePreservingTransformer(3, 3; \n\
               \x20                                           n_blocks = 2, \n\
               \x20                                           n_linear = 1, \n\
               \x20                                           L = 3, \n\
               \x20                                           activation = tanh, \n\
               \x20                                           skew_sym = false)";
    let st = "StandardTransformerIntegrator(3;    n_heads = 1, \n\
              \x20                                                   transformer_dim = 3, \n\
              \x20                                                   n_blocks = 2, \n\
              \x20                                                   L = 3, \n\
              \x20                                                   resnet_activation = tanh, \n\
              \x20                                                   add_connection = false, \n\
              \x20                                                   seq = 3)";
    // docs/src/tutorials/mnist/mnist_tutorial.md (n_heads = 7, L = 16, add_connection = false),
    // with geomattn's dim, seq and classes of MNIST's 7×7 patches.
    let mnist = "ClassificationTransformer(dl; \n\
                 \x20                                   n_heads = 7, \n\
                 \x20                                   L = 16, \n\
                 \x20                                   add_connection = false, \n\
                 \x20                                   Stiefel = false, dim = 49, seq = 16, classes = 10)";
    // docs/src/tutorials/symplectic_transformer.md and linear_symplectic_transformer.md
    // (dl.input_dim = 4, seq_length = 4): GML's `,;` kept as written.
    let sympt = "SymplecticTransformer(  4,; \n\
                 \x20                                               n_sympnet = 2,\n\
                 \x20                                               L = 4, \n\
                 \x20                                               upscaling_dimension = 2 * 4, seq = 4)";
    let linear = "LinearSymplecticTransformer(  4, \n\
                  \x20                                               4; n_sympnet = 2,\n\
                  \x20                                               L = 1, \n\
                  \x20                                               upscaling_dimension = 2 * 4)";
    // test/standard_transformer_integrator.jl: every default.
    let st_defaults = "StandardTransformerIntegrator(3; seq = 3)";
    for (spec, arch) in [
        (
            vpff,
            Arch::Vpff(Vpff {
                dim: 3,
                n_blocks: 6,
                n_linear: 1,
                activation: Tanh,
                init_upper: false,
            }),
        ),
        (
            vpt,
            Arch::Vpt(Vpt {
                dim: 3,
                seq: 3,
                n_blocks: 2,
                n_linear: 1,
                l: 3,
                activation: Tanh,
                init_upper: false,
                skew_sym: false,
            }),
        ),
        (
            st,
            Arch::St(St {
                dim: 3,
                seq: 3,
                transformer_dim: 3,
                n_heads: 1,
                n_blocks: 2,
                l: 3,
                activation: Tanh,
                upscaling_activation: Identity,
                attention_activation: VectorSoftmax,
                add_connection: false,
            }),
        ),
        (
            mnist,
            Arch::Ct(Ct {
                dim: 49,
                seq: 16,
                classes: 10,
                n_heads: 7,
                l: 16,
                stiefel: false,
                add_connection: false,
            }),
        ),
        (
            sympt,
            Arch::Sympt(Sympt {
                dim: 4,
                seq: 4,
                transformer_dim: 4,
                n_sympnet: 2,
                upscaling_dimension: 8,
                l: 4,
                sympnet_activation: Tanh,
                attention_activation: MatrixSoftmax,
                init_upper: true,
                symmetric: Some(Kick::Gml),
            }),
        ),
        (
            linear,
            Arch::LinSympt(LinSympt {
                dim: 4,
                seq: 4,
                n_sympnet: 2,
                upscaling_dimension: 8,
                l: 1,
                activation: Tanh,
                init_upper: true,
            }),
        ),
        (
            st_defaults,
            Arch::St(St {
                dim: 3,
                seq: 3,
                transformer_dim: 3,
                n_heads: 3,
                n_blocks: 1,
                l: 2,
                activation: Tanh,
                upscaling_activation: Identity,
                attention_activation: VectorSoftmax,
                add_connection: true,
            }),
        ),
    ] {
        assert_eq!(parse(spec), arch, "{spec}");
        // Printed back in the short form, which reads back the same.
        assert_eq!(parse(&arch.to_string()), arch);
    }
}

/// What a keyword's other value does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Other {
    /// It builds another network.
    Changes,
    /// geomattn builds GML's default only: refused.
    Refused,
    /// It does not change the network geomattn builds.
    Same,
}

/// One architecture's GML call with GML's defaults: the call up to its positional arguments,
/// geomattn's own keywords, each GML keyword with GML's default and another value, and the
/// network GML's defaults make.
struct Defaults {
    head: &'static str,
    own: &'static str,
    keywords: &'static [(&'static str, &'static str, &'static str, Other)],
    arch: Arch,
}

fn defaults() -> [Defaults; 5] {
    use Other::{Changes, Refused, Same};
    [
        // src/architectures/volume_preserving_transformer.jl, lines 1–6.
        Defaults {
            head: "VolumePreservingTransformer(3, 3",
            own: "",
            keywords: &[
                ("n_blocks", "1", "2", Changes),
                ("n_linear", "1", "2", Changes),
                ("L", "1", "3", Changes),
                ("activation", "tanh", "identity", Changes),
                ("init_upper", "false", "true", Changes),
                ("skew_sym", "false", "true", Changes),
            ],
            arch: Arch::Vpt(Vpt {
                dim: 3,
                seq: 3,
                n_blocks: 1,
                n_linear: 1,
                l: 1,
                activation: Tanh,
                init_upper: false,
                skew_sym: false,
            }),
        },
        // src/architectures/volume_preserving_feedforward.jl, line 4 (the positional defaults
        // are in `vpffs_positional_arguments_have_gmls_defaults`).
        Defaults {
            head: "VolumePreservingFeedForward(3",
            own: "",
            keywords: &[("init_upper", "false", "true", Changes)],
            arch: Arch::Vpff(Vpff {
                dim: 3,
                n_blocks: 1,
                n_linear: 1,
                activation: Tanh,
                init_upper: false,
            }),
        },
        // src/architectures/standard_transformer_integrator.jl, lines 1–6 and 45–52.
        Defaults {
            head: "StandardTransformerIntegrator(3",
            own: "seq = 4",
            keywords: &[
                ("transformer_dim", "3", "6", Changes),
                ("n_heads", "3", "1", Changes),
                ("n_blocks", "1", "2", Changes),
                ("L", "2", "3", Changes),
                ("upscaling_activation", "identity", "tanh", Same),
                ("resnet_activation", "tanh", "identity", Changes),
                (
                    "attention_activation",
                    "VectorSoftmax()",
                    "MatrixSoftmax()",
                    Changes,
                ),
                ("add_connection", "true", "false", Changes),
            ],
            arch: Arch::St(St {
                dim: 3,
                seq: 4,
                transformer_dim: 3,
                n_heads: 3,
                n_blocks: 1,
                l: 2,
                activation: Tanh,
                upscaling_activation: Identity,
                attention_activation: VectorSoftmax,
                add_connection: true,
            }),
        },
        // src/architectures/transformer_neural_network.jl, line 28.
        Defaults {
            head: "ClassificationTransformer(dl",
            own: "dim = 49, seq = 16, classes = 10",
            keywords: &[
                ("n_heads", "7", "1", Changes),
                ("L", "16", "2", Changes),
                ("activation", "softmax", "identity", Refused),
                ("Stiefel", "true", "false", Changes),
                ("add_connection", "true", "false", Changes),
            ],
            arch: Arch::Ct(Ct {
                dim: 49,
                seq: 16,
                classes: 10,
                n_heads: 7,
                l: 16,
                stiefel: true,
                add_connection: true,
            }),
        },
        // src/architectures/symplectic_transformer.jl, lines 1–6 and 43–50.
        Defaults {
            head: "SymplecticTransformer(4",
            own: "seq = 3",
            keywords: &[
                ("transformer_dim", "4", "8", Changes),
                ("n_sympnet", "2", "1", Changes),
                ("upscaling_dimension", "2 * 4", "4", Changes),
                ("L", "1", "2", Changes),
                ("sympnet_activation", "tanh", "identity", Changes),
                (
                    "attention_activation",
                    "MatrixSoftmax()",
                    "VectorSoftmax()",
                    Changes,
                ),
                ("init_upper", "true", "false", Changes),
                ("symmetric", "true", "false", Changes),
            ],
            arch: Arch::Sympt(Sympt {
                dim: 4,
                seq: 3,
                transformer_dim: 4,
                n_sympnet: 2,
                upscaling_dimension: 8,
                l: 1,
                sympnet_activation: Tanh,
                attention_activation: MatrixSoftmax,
                init_upper: true,
                symmetric: Some(Kick::Gml),
            }),
        },
    ]
}

/// src/architectures/linear_symplectic_transformer.jl, lines 1–4 and 31–35.
fn linear_defaults() -> Defaults {
    use Other::Changes;
    Defaults {
        head: "LinearSymplecticTransformer(4, 3",
        own: "",
        keywords: &[
            ("n_sympnet", "2", "1", Changes),
            ("upscaling_dimension", "2 * 4", "4", Changes),
            ("L", "1", "2", Changes),
            ("activation", "tanh", "identity", Changes),
            ("init_upper", "true", "false", Changes),
        ],
        arch: Arch::LinSympt(LinSympt {
            dim: 4,
            seq: 3,
            n_sympnet: 2,
            upscaling_dimension: 8,
            l: 1,
            activation: Tanh,
            init_upper: true,
        }),
    }
}

impl Defaults {
    /// The call with geomattn's own keywords and `keywords`.
    fn call(&self, keywords: &[String]) -> String {
        let all: Vec<&str> = [self.own]
            .into_iter()
            .filter(|own| !own.is_empty())
            .chain(keywords.iter().map(String::as_str))
            .collect();
        format!("{}; {})", self.head, all.join(", "))
    }

    /// Every GML keyword, `other` in place of the `changed`-th one's default.
    fn spelled(&self, changed: Option<usize>) -> Vec<String> {
        self.keywords
            .iter()
            .enumerate()
            .map(|(i, (key, default, other, _))| {
                let value = if changed == Some(i) { other } else { default };
                format!("{key} = {value}")
            })
            .collect()
    }
}

#[test]
fn each_keyword_left_out_takes_gmls_default() {
    for table in defaults().into_iter().chain([linear_defaults()]) {
        let spelled = table.spelled(None);
        let all = table.call(&spelled);
        assert_eq!(parse(&all), table.arch, "{all}");
        assert_eq!(parse(&table.call(&[])), table.arch, "{}", table.head);
        for (i, (key, _, other, effect)) in table.keywords.iter().enumerate() {
            // Left out: the same as spelled as GML's default.
            let mut without = spelled.clone();
            without.remove(i);
            assert_eq!(parse(&table.call(&without)), table.arch, "without {key}");
            // Another value: another network, or the same, or a refusal naming it.
            let changed = table.call(&table.spelled(Some(i)));
            match effect {
                Other::Changes => assert_ne!(parse(&changed), table.arch, "{changed}"),
                Other::Same => assert_eq!(parse(&changed), table.arch, "{changed}"),
                Other::Refused => {
                    let message = refusal(&changed);
                    assert!(
                        message.contains(&format!("`{key} = {other}`: geomattn supports only")),
                        "{message}"
                    );
                }
            }
        }
    }
}

#[test]
fn defaults_that_follow_dim_follow_it() {
    // n_heads = sys_dim, upscaling_dimension = 2 * dim, transformer_dim = sys_dim.
    for dim in [2, 6] {
        let Arch::St(st) = parse(&format!(
            "StandardTransformerIntegrator({dim}; seq = 3, transformer_dim = {dim})"
        )) else {
            panic!("not st")
        };
        assert_eq!(st.n_heads, dim);
        let Arch::Sympt(sympt) = parse(&format!("SymplecticTransformer({dim}; seq = 3)")) else {
            panic!("not sympt")
        };
        assert_eq!(sympt.upscaling_dimension, 2 * dim);
        let Arch::LinSympt(linear) = parse(&format!("LinearSymplecticTransformer({dim}, 3)"))
        else {
            panic!("not linsympt")
        };
        assert_eq!(linear.upscaling_dimension, 2 * dim);
    }
    assert!(
        refusal("SymplecticTransformer(9223372036854775808; seq = 3)")
            .contains("GML's default `upscaling_dimension = 2 * dim` overflows")
    );
}

#[test]
fn vpffs_positional_arguments_have_gmls_defaults() {
    let vpff = |n_blocks, n_linear, activation| {
        Arch::Vpff(Vpff {
            dim: 3,
            n_blocks,
            n_linear,
            activation,
            init_upper: false,
        })
    };
    for (spec, arch) in [
        ("VolumePreservingFeedForward(3)", vpff(1, 1, Tanh)),
        ("VolumePreservingFeedForward(3, 1)", vpff(1, 1, Tanh)),
        ("VolumePreservingFeedForward(3, 1, 1)", vpff(1, 1, Tanh)),
        (
            "VolumePreservingFeedForward(3, 1, 1, tanh)",
            vpff(1, 1, Tanh),
        ),
        ("VolumePreservingFeedForward(3, 4)", vpff(4, 1, Tanh)),
        ("VolumePreservingFeedForward(3, 1, 2)", vpff(1, 2, Tanh)),
        (
            "VolumePreservingFeedForward(3, 1, 1, identity)",
            vpff(1, 1, Identity),
        ),
        (
            "VolumePreservingFeedForward(3; init_upper = false)",
            vpff(1, 1, Tanh),
        ),
    ] {
        assert_eq!(parse(spec), arch, "{spec}");
    }
}

#[test]
fn softmaxes_read_with_and_without_parentheses() {
    let attention = |value: &str| {
        let spec = format!("SymplecticTransformer(4; seq = 3, attention_activation = {value})");
        let short = format!(
            "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
             sympnet_activation=tanh, attention_activation={value}, init_upper=true, \
             symmetric=false)"
        );
        match (parse(&spec), parse(&short)) {
            (Arch::Sympt(gml), Arch::Sympt(short)) => {
                assert_eq!(gml.attention_activation, short.attention_activation);
                gml.attention_activation
            }
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(attention("MatrixSoftmax()"), MatrixSoftmax);
    assert_eq!(attention("MatrixSoftmax"), MatrixSoftmax);
    assert_eq!(attention("VectorSoftmax()"), VectorSoftmax);
    assert_eq!(attention("VectorSoftmax"), VectorSoftmax);
    // The standard transformer's attention too.
    let st = |value: &str| match parse(&format!(
        "StandardTransformerIntegrator(3; seq = 3, attention_activation = {value})"
    )) {
        Arch::St(st) => st.attention_activation,
        other => panic!("{other:?}"),
    };
    assert_eq!(st("VectorSoftmax"), VectorSoftmax);
    assert_eq!(st("MatrixSoftmax()"), MatrixSoftmax);
}

#[test]
fn kick_is_gml_by_default_in_gmls_syntax_only() {
    let kick = |options: &str| match parse(&format!("SymplecticTransformer(4; seq = 3{options})")) {
        Arch::Sympt(s) => s.symmetric,
        other => panic!("{other:?}"),
    };
    assert_eq!(kick(""), Some(Kick::Gml));
    assert_eq!(kick(", symmetric = true"), Some(Kick::Gml));
    assert_eq!(kick(", kick = gml"), Some(Kick::Gml));
    assert_eq!(kick(", kick = exact"), Some(Kick::Exact));
    assert_eq!(kick(", symmetric = true, kick = exact"), Some(Kick::Exact));
    assert_eq!(kick(", symmetric = false"), None);
    for refused in [", symmetric = false, kick = gml", ", kick = fast"] {
        refusal(&format!("SymplecticTransformer(4; seq = 3{refused})"));
    }
    // The short form says which.
    let short = "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, \
                 sympnet_activation=tanh, attention_activation=MatrixSoftmax, init_upper=true, \
                 symmetric=true";
    assert!(refusal(&format!("{short})")).contains("missing kick"));
    assert!(matches!(
        parse(&format!("{short}, kick=exact)")),
        Arch::Sympt(Sympt {
            symmetric: Some(Kick::Exact),
            ..
        })
    ));
}

#[test]
fn bad_calls_are_refused_in_one_line_naming_the_problem() {
    for (spec, expected) in [
        (
            "VolumePreservingTransformer(3, 3; n_block = 2)",
            "`VolumePreservingTransformer` has no option `n_block` (its options: sys_dim, \
             seq_length, n_blocks,",
        ),
        (
            "SymplecticTransformer(4; seq = 3, attention_activation = MatrixSoftmax(3))",
            "`attention_activation = MatrixSoftmax(3)` is not `MatrixSoftmax()` or \
             `VectorSoftmax()` (they take no arguments)",
        ),
        (
            "VolumePreservingTransformer(3, 3; L = 2",
            "expected a closing `)`",
        ),
        (
            "SymplecticTransformer(4; seq = 3, attention_activation = MatrixSoftmax()",
            "expected a closing `)`",
        ),
        (
            "SymplecticTransformer(4; seq = 3, attention_activation = MatrixSoftmax))",
            "unbalanced parentheses: `)` after the call's closing `)`",
        ),
        (
            "VolumePreservingTransformer(3, 3; L = 2, L = 3)",
            "`L` is given twice",
        ),
        (
            "VolumePreservingTransformer(3, 3; sys_dim = 3)",
            "`sys_dim` is given twice",
        ),
        (
            "VolumePreservingTransformer(3, 3, 2)",
            "unexpected positional argument `2` (`VolumePreservingTransformer` takes 2: sys_dim, \
             seq_length)",
        ),
        (
            "VolumePreservingFeedForward(3, 1, 1, tanh, 2)",
            "unexpected positional argument `2`",
        ),
        (
            "VolumePreservingTransformer(3; L = 2)",
            "missing seq_length",
        ),
        (
            "StandardTransformerIntegrator(3; n_heads = 1)",
            "missing seq",
        ),
        (
            "ClassificationTransformer(dl; n_heads = 7)",
            "missing dim, seq, classes",
        ),
        (
            "VolumePreservingTransformer(3, 3; activation = swish)",
            "`activation = swish` is not an activation geomattn supports (`identity`, `tanh`, \
             `sigmoid`, `relu` or `softplus`)",
        ),
        (
            "StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 3, seq = 4)",
            "`n_heads = 3` does not divide `transformer_dim = 20` (GML's MultiHeadAttention",
        ),
        (
            "StandardTransformerIntegrator(4; seq = 4, n_heads = 3)",
            "`n_heads = 3` does not divide `transformer_dim = 4`",
        ),
        (
            "ClassificationTransformer(dl; dim = 49, seq = 16, classes = 10, n_heads = 6)",
            "`n_heads = 6` does not divide `dim = 49`",
        ),
        (
            "SymplecticTransformer(5; seq = 3)",
            "`dim = 5` is odd (GML's symplectic layers split a state into its halves q and p",
        ),
        (
            "SymplecticTransformer(4; seq = 3, transformer_dim = 7)",
            "`transformer_dim = 7` is odd",
        ),
        ("LinearSymplecticTransformer(3, 4)", "`dim = 3` is odd"),
        (
            "VolumePreservingTransformer(3, 3; L = 0)",
            "`L = 0` is not a positive integer",
        ),
        (
            "VolumePreservingTransformer(3, 3; n_blocks = 99999999999999999999)",
            "`n_blocks = 99999999999999999999` is not a positive integer",
        ),
        (
            "VolumePreservingTransformer(3, 3; skew_sym = 1)",
            "`skew_sym = 1` is not `true` or `false`",
        ),
        (
            "VolumePreservingTransformer(3, 3; 2)",
            "`2` after `;` is not `key = value`",
        ),
        ("VolumePreservingTransformer(3,, 3)", "an empty argument"),
        (
            "VolumePreservingTransformer(3, 3; L = 2; n_blocks = 1)",
            "a second `;`",
        ),
        (
            "ClassificationTransformer(49; dim = 49, seq = 16, classes = 10)",
            "`dl = 49` is not a Julia name",
        ),
        (
            "ClassificationTransformer(dl; dim = 49, seq = 16, classes = 10, \
             activation = identity)",
            "`activation = identity`: geomattn supports only GML's default, \
             `activation = softmax`",
        ),
        // The short form has no GML option geomattn fixes.
        (
            "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, \
             Stiefel=true, add_connection=true, activation=softmax)",
            "`classification_transformer` has no option `activation`",
        ),
        // The short form's added options are optional, but not unknown.
        (
            "vpt(dim=3, seq=3, n_blocks=1, n_linear=1, L=1, activation=tanh, skew_sym=false, \
             init_upper=maybe)",
            "`init_upper = maybe` is not `true` or `false`",
        ),
        (
            "VolumePreservingTransformers(3, 3)",
            "unknown architecture `VolumePreservingTransformers`",
        ),
        // A call pasted over several lines is quoted on one.
        (
            "VolumePreservingTransformer(3, 3;\n    L = 0)",
            "malformed architecture `VolumePreservingTransformer(3, 3; L = 0)`",
        ),
    ] {
        let message = refusal(spec);
        assert!(message.contains(expected), "{spec}\n{message}");
    }
}

mod round_trip {
    use geomattn_arch::{Activation, Arch, AttentionActivation, Ct, Kick, LinSympt, St, Sympt};
    use geomattn_arch::{Vpff, Vpt};
    use proptest::prelude::*;

    fn activation() -> impl Strategy<Value = Activation> {
        proptest::sample::select(Activation::ALL.to_vec())
    }

    fn size() -> impl Strategy<Value = usize> {
        // Small, so GML's defaults (1, 2, 7, 16, dim, 2·dim) come up often.
        prop_oneof![1..=8_usize, Just(16), 1..=100_000_usize]
    }

    /// A dimension and a number of heads dividing it (GML's rule).
    fn heads() -> impl Strategy<Value = (usize, usize)> {
        (size(), 1..=8_usize).prop_map(|(per_head, heads)| (per_head * heads, heads))
    }

    /// An even dimension (GML's rule for the symplectic layers).
    fn even() -> impl Strategy<Value = usize> {
        size().prop_map(|n| 2 * n)
    }

    fn softmax() -> impl Strategy<Value = AttentionActivation> {
        prop_oneof![
            Just(AttentionActivation::MatrixSoftmax),
            Just(AttentionActivation::VectorSoftmax)
        ]
    }

    fn arch() -> impl Strategy<Value = Arch> {
        let symmetric = prop_oneof![Just(None), Just(Some(Kick::Gml)), Just(Some(Kick::Exact))];
        prop_oneof![
            (
                (size(), size(), size(), size(), size()),
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
            (size(), size(), size(), activation(), any::<bool>()).prop_map(
                |(dim, n_blocks, n_linear, activation, init_upper)| {
                    Arch::Vpff(Vpff {
                        dim,
                        n_blocks,
                        n_linear,
                        activation,
                        init_upper,
                    })
                }
            ),
            (
                (size(), size(), heads(), size(), size(), any::<bool>()),
                (activation(), activation(), softmax(), any::<bool>())
            )
                .prop_map(
                    |(
                        (dim, seq, (transformer_dim, n_heads), n_blocks, l, upscaled),
                        (activation, upscaling_activation, attention_activation, add_connection),
                    )| {
                        Arch::St(St {
                            // As often with `transformer_dim = dim` as without.
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
                heads(),
                size(),
                size(),
                size(),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(
                    |((dim, n_heads), seq, classes, l, stiefel, add_connection)| {
                        Arch::Ct(Ct {
                            dim,
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
                (
                    even(),
                    size(),
                    even(),
                    any::<bool>(),
                    size(),
                    size(),
                    size()
                ),
                (activation(), softmax(), any::<bool>(), symmetric)
            )
                .prop_map(
                    |(
                        (dim, seq, transformer_dim, upscaled, n_sympnet, upscaling_dimension, l),
                        (sympnet_activation, attention_activation, init_upper, symmetric),
                    )| {
                        Arch::Sympt(Sympt {
                            dim,
                            seq,
                            transformer_dim: if upscaled { transformer_dim } else { dim },
                            n_sympnet,
                            upscaling_dimension,
                            l,
                            sympnet_activation,
                            attention_activation,
                            init_upper,
                            symmetric,
                        })
                    }
                ),
            (
                even(),
                size(),
                size(),
                size(),
                size(),
                activation(),
                any::<bool>()
            )
                .prop_map(
                    |(dim, seq, n_sympnet, upscaling_dimension, l, activation, init_upper)| {
                        Arch::LinSympt(LinSympt {
                            dim,
                            seq,
                            n_sympnet,
                            upscaling_dimension,
                            l,
                            activation,
                            init_upper,
                        })
                    }
                ),
        ]
    }

    /// A keyword of a GML call: name, value, and whether the value is GML's default.
    type Keyword = (&'static str, String, bool);

    fn keyword<T: ToString + PartialEq>(name: &'static str, value: T, default: T) -> Keyword {
        let is_default = value == default;
        (name, value.to_string(), is_default)
    }

    /// `arch` as GML's call: its positional arguments and its keywords, with GML 0.4.8's
    /// defaults as this test writes them from GML's source.
    fn gml_call(arch: &Arch) -> (String, Vec<Keyword>) {
        use Activation::Tanh;
        let own = |name, value: usize| (name, value.to_string(), false);
        match *arch {
            Arch::Vpt(v) => (
                format!("VolumePreservingTransformer({}, {}", v.dim, v.seq),
                vec![
                    keyword("n_blocks", v.n_blocks, 1),
                    keyword("n_linear", v.n_linear, 1),
                    keyword("L", v.l, 1),
                    keyword("activation", v.activation, Tanh),
                    keyword("init_upper", v.init_upper, false),
                    keyword("skew_sym", v.skew_sym, false),
                ],
            ),
            // Positional, so spelled out; their defaults are checked one by one above.
            Arch::Vpff(v) => (
                format!(
                    "VolumePreservingFeedForward({}, {}, {}, {}",
                    v.dim, v.n_blocks, v.n_linear, v.activation
                ),
                vec![keyword("init_upper", v.init_upper, false)],
            ),
            Arch::St(s) => (
                format!("StandardTransformerIntegrator({}", s.dim),
                vec![
                    own("seq", s.seq),
                    keyword("transformer_dim", s.transformer_dim, s.dim),
                    keyword("n_heads", s.n_heads, s.dim),
                    keyword("n_blocks", s.n_blocks, 1),
                    keyword("L", s.l, 2),
                    keyword(
                        "upscaling_activation",
                        s.upscaling_activation,
                        Activation::Identity,
                    ),
                    keyword("resnet_activation", s.activation, Tanh),
                    (
                        "attention_activation",
                        format!("{}()", s.attention_activation),
                        s.attention_activation == AttentionActivation::VectorSoftmax,
                    ),
                    keyword("add_connection", s.add_connection, true),
                ],
            ),
            Arch::Ct(c) => (
                "ClassificationTransformer(dl".to_string(),
                vec![
                    own("dim", c.dim),
                    own("seq", c.seq),
                    own("classes", c.classes),
                    keyword("n_heads", c.n_heads, 7),
                    keyword("L", c.l, 16),
                    keyword("Stiefel", c.stiefel, true),
                    keyword("add_connection", c.add_connection, true),
                ],
            ),
            Arch::Sympt(s) => {
                let mut keywords = vec![
                    own("seq", s.seq),
                    keyword("transformer_dim", s.transformer_dim, s.dim),
                    keyword("n_sympnet", s.n_sympnet, 2),
                    keyword("upscaling_dimension", s.upscaling_dimension, 2 * s.dim),
                    keyword("L", s.l, 1),
                    keyword("sympnet_activation", s.sympnet_activation, Tanh),
                    (
                        "attention_activation",
                        format!("{}()", s.attention_activation),
                        s.attention_activation == AttentionActivation::MatrixSoftmax,
                    ),
                    keyword("init_upper", s.init_upper, true),
                    keyword("symmetric", s.symmetric.is_some(), true),
                ];
                if let Some(kick) = s.symmetric {
                    keywords.push(keyword("kick", kick, Kick::Gml));
                }
                (format!("SymplecticTransformer({}", s.dim), keywords)
            }
            Arch::LinSympt(v) => (
                format!("LinearSymplecticTransformer({}, {}", v.dim, v.seq),
                vec![
                    keyword("n_sympnet", v.n_sympnet, 2),
                    keyword("upscaling_dimension", v.upscaling_dimension, 2 * v.dim),
                    keyword("L", v.l, 1),
                    keyword("activation", v.activation, Tanh),
                    keyword("init_upper", v.init_upper, true),
                ],
            ),
        }
    }

    proptest! {
        #[test]
        fn the_short_form_reads_back_as_itself(arch in arch()) {
            prop_assert_eq!(arch.to_string().parse::<Arch>().unwrap(), arch);
        }

        /// The call `Arch::gml_call` prints (GML's keywords only), with geomattn's own options
        /// added, reads back as the architecture.
        #[test]
        fn the_printed_gml_call_reads_back_as_itself(arch in arch()) {
            let call = arch.gml_call(&[]);
            let own: Vec<String> = arch
                .options()
                .into_iter()
                .filter(|(name, _)| match arch {
                    Arch::St(_) => *name == "seq",
                    Arch::Sympt(_) => ["seq", "kick"].contains(name),
                    Arch::Ct(_) => ["dim", "seq", "classes"].contains(name),
                    _ => false,
                })
                .map(|(name, value)| format!("{name} = {value}"))
                .collect();
            let call = if own.is_empty() {
                call
            } else {
                format!("{}, {})", call.strip_suffix(')').unwrap(), own.join(", "))
            };
            let parsed = call.parse::<Arch>();
            prop_assert!(parsed.is_ok(), "{}: {:?}", call, parsed);
            prop_assert_eq!(parsed.unwrap(), arch, "{}", call);
        }

        /// GML's call with any of GML's defaults left out, keywords after `;` or `,`, spread
        /// over lines or not, with or without a trailing comma.
        #[test]
        fn gmls_call_with_defaults_left_out_reads_as_the_arch(
            arch in arch(),
            keep in proptest::collection::vec(any::<bool>(), 10),
            semicolon in any::<bool>(),
            lines in any::<bool>(),
            trailing in any::<bool>(),
        ) {
            let (head, keywords) = gml_call(&arch);
            let written: Vec<String> = keywords
                .iter()
                .zip(keep.iter().chain(std::iter::repeat(&true)))
                .filter(|((_, _, is_default), keep)| !is_default || **keep)
                .map(|((name, value, _), _)| format!("{name} = {value}"))
                .collect();
            let gap = if lines { ",\n        " } else { ", " };
            let mut call = head;
            if !written.is_empty() {
                call.push_str(if semicolon { "; " } else { gap });
                call.push_str(&written.join(gap));
            }
            if trailing {
                call.push(',');
            }
            call.push(')');
            let parsed = call.parse::<Arch>();
            prop_assert!(parsed.is_ok(), "{}: {:?}", call, parsed);
            prop_assert_eq!(parsed.unwrap(), arch, "{}", call);
        }
    }
}
