use super::{Default, Form, GRAMMARS, Role, find, gml_defaults, signature, wrap};

/// The rows of the defaults table in `spec.rs`'s module docs.
fn documented_rows() -> Vec<String> {
    include_str!("../../spec.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("//! | "))
        .map(str::to_string)
        .collect()
}

/// The table row the docs must hold for each option: architecture, keyword, default.
fn expected_rows() -> Vec<String> {
    let ordinals = ["1st", "2nd", "3rd", "4th"];
    let mut rows = Vec::new();
    for grammar in &GRAMMARS {
        for key in grammar.options {
            let position = grammar.positional.iter().position(|p| *p == key.name);
            let positional = position.map(|i| format!("{} positional", ordinals[i]));
            let mut notes: Vec<String> = positional.into_iter().collect();
            if key.gml.is_none() {
                notes.push("geomattn's own".into());
            }
            match key.role {
                Role::Field => {}
                Role::Added => notes.push("short form: may be left out".into()),
                Role::DefaultOnly => notes.push("only".into()),
                Role::NoEffect => notes.push("no effect".into()),
            }
            let default = match key.default {
                Default::Required => "required".to_string(),
                Default::Ignored => "may be left out".to_string(),
                Default::Value(text) | Default::TimesDim(_, text) => format!("`{text}`"),
                Default::WhenSymmetric(text) => {
                    notes.push("with `symmetric = true`".into());
                    format!("`{text}`")
                }
            };
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            };
            rows.push(format!(
                "{} | `{}` | {default}{notes} |",
                grammar.gml,
                key.gml_name()
            ));
        }
    }
    rows
}

#[test]
fn the_module_docs_table_is_the_grammars_defaults() {
    let documented = documented_rows();
    let expected = expected_rows();
    // The header, then one row per option, in the grammars' order.
    assert_eq!(documented[0], "Architecture | Keyword | Default |");
    assert_eq!(documented.len(), expected.len() + 1, "{documented:#?}");
    for (doc, row) in documented[1..].iter().zip(&expected) {
        assert_eq!(doc, row);
    }
}

#[test]
fn the_help_shows_every_constructor_with_its_defaults() {
    let signatures: Vec<String> = GRAMMARS.iter().map(signature).collect();
    assert_eq!(
        signatures,
        [
            "  VolumePreservingTransformer(sys_dim, seq_length; n_blocks = 1, n_linear = 1, L = 1, \
             activation = tanh, init_upper = false, skew_sym = false)",
            "  VolumePreservingFeedForward(sys_dim, n_blocks = 1, n_linear = 1, activation = tanh; \
             init_upper = false)",
            "  StandardTransformerIntegrator(sys_dim; transformer_dim = sys_dim, \
             n_heads = sys_dim, n_blocks = 1, L = 2, upscaling_activation = identity, \
             resnet_activation = tanh, attention_activation = VectorSoftmax(), \
             add_connection = true) + seq",
            "  ClassificationTransformer(dl (unused); n_heads = 7, L = 16, \
             activation = softmax (only), Stiefel = true, add_connection = true) \
             + dim, seq, classes",
            "  SymplecticTransformer(dim; transformer_dim = dim, n_sympnet = 2, \
             upscaling_dimension = 2 * dim, L = 1, sympnet_activation = tanh, \
             attention_activation = MatrixSoftmax(), init_upper = true, symmetric = true) \
             + seq, kick = gml",
            "  LinearSymplecticTransformer(dim, seq_length; n_sympnet = 2, \
             upscaling_dimension = 2 * dim, L = 1, activation = tanh, init_upper = true)",
        ]
    );
    // The help is the signatures, wrapped, and the legend.
    let help = gml_defaults();
    let unwrapped = help.replace("\n      ", " ");
    for signature in &signatures {
        assert!(
            unwrapped.contains(&format!("{signature}\n")),
            "{signature}\n{help}"
        );
    }
    assert!(
        help.lines().all(|line| line.chars().count() <= 100),
        "{help}"
    );
}

#[test]
fn wrapping_breaks_after_commas_only() {
    assert_eq!(wrap("ab, cd, ef", 7, " "), "ab, cd,\n ef");
    assert_eq!(wrap("ab, cd, ef", 6, " "), "ab,\n cd,\n ef");
    assert_eq!(wrap("ab, cd, ef", 100, " "), "ab, cd, ef");
    // A piece longer than the width stays whole.
    assert_eq!(wrap("abcdefgh, i", 4, " "), "abcdefgh,\n i");
}

#[test]
fn names_pick_the_form() {
    for grammar in &GRAMMARS {
        let short = find(grammar.short).unwrap();
        assert!(std::ptr::eq(short.0, grammar) && short.1 == Form::Short);
        let upper = find(&grammar.short.to_uppercase()).unwrap();
        assert_eq!(upper.1, Form::Short);
        let gml = find(grammar.gml).unwrap();
        assert!(std::ptr::eq(gml.0, grammar) && gml.1 == Form::Gml);
        // GML's names are case-sensitive, as in Julia.
        assert!(find(&grammar.gml.to_lowercase()).is_none_or(|(_, f)| f == Form::Short));
    }
    assert!(find("transformer").is_none());
}
