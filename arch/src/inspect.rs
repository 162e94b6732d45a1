//! What a GML file says about itself: its layers and their parameters, and the architectures
//! whose chain ([`layers`](crate::layout::layers)) it is, with GML's constructor call of each
//! and the options the file cannot say.
//!
//! ```
//! use geomattn::gml::GmlFile;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
//! let inspection = geomattn_arch::inspect::inspect(&GmlFile::open(path).unwrap())?;
//! assert_eq!(inspection.layers.len(), 26);
//! let found = &inspection.matches[0];
//! assert_eq!(found.spec, "vpff(dim=3, n_blocks=6, n_linear=1, activation=?)");
//! assert_eq!(found.gml, "VolumePreservingFeedForward(3, 6, 1, ?; init_upper = false)");
//! # Ok::<(), geomattn_arch::Error>(())
//! ```

use core::fmt;

use geomattn::gml::{GmlFile, LoadError, Node, Object};
use geomattn::nalgebra::DMatrix;

use crate::error::Error;
use crate::layout::{self, Packed, Values};
use crate::spec::{
    Activation, Arch, AttentionActivation, Ct, Kick, LinSympt, St, Sympt, Vpff, Vpt,
};

/// One parameter of a layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// Its path inside the layer (`A`, `weight`, `PQ/head_1`).
    pub name: String,
    /// What kind of matrix it is.
    pub kind: String,
    /// Its Julia shape (`3×3`, `3`), or the packed size.
    pub shape: String,
    /// The element type its values are stored in, as Julia names it (`Float32`, `Float64`).
    pub storage: String,
    /// `‖WᵀW − I‖_max` of a Stiefel weight.
    pub stiefel_deviation: Option<f64>,
    /// What it holds, if it is a matrix or vector of a kind GML's layers have.
    pub values: Option<Values>,
}

/// One layer group `Ln`.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Its name, `L1 …`.
    pub name: String,
    /// Its parameters.
    pub parameters: Vec<Parameter>,
}

/// An architecture whose chain the file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The architecture; what the file cannot say is GML's default (and `seq`, where the file
    /// does not fix it, 0).
    pub arch: Arch,
    /// The short form, with `?` for what the file cannot say.
    pub spec: String,
    /// GML's constructor call, every keyword written out, with `?` for what the file cannot say
    /// (geomattn's own options, such as `seq`, are not GML's: [`unknown`](Self::unknown) names
    /// them).
    pub gml: String,
    /// What the user must give, and why, one option each.
    pub unknown: Vec<String>,
}

/// Everything [`inspect`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The layers in order.
    pub layers: Vec<Layer>,
    /// The matching architectures (empty if none).
    pub matches: Vec<Match>,
}

/// Describes `file`.
///
/// # Errors
/// [`Error::Unreadable`] if the file's groups cannot be read.
pub fn inspect(file: &GmlFile) -> Result<Inspection, Error> {
    let layers = read_layers(file, true)?;
    let matches = matches(&layers);
    Ok(Inspection { layers, matches })
}

/// The file's layers; with `deviation`, each Stiefel weight's deviation too.
fn read_layers(file: &GmlFile, deviation: bool) -> Result<Vec<Layer>, Error> {
    let unreadable = |source: LoadError| Error::Unreadable {
        file: file.name().into(),
        source: Box::new(source),
    };
    file.layers()
        .map_err(unreadable)?
        .iter()
        .map(|node| layer(node, deviation).map_err(unreadable))
        .collect()
}

/// The first place where the file's layers differ from `arch`'s chain, or `None` if they are the
/// same: a network of `arch` loads from the file's structure (its values may still be
/// malformed).
///
/// ```
/// use geomattn::gml::GmlFile;
/// use geomattn_arch::{Arch, inspect};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
/// let file = GmlFile::open(path).unwrap();
/// let right: Arch = "VolumePreservingTransformer(3, 3; n_blocks = 2, L = 3)".parse()?;
/// assert!(inspect::mismatch(&file, &right)?.is_none());
/// let wrong: Arch = "VolumePreservingTransformer(3, 3; n_blocks = 1, L = 3)".parse()?;
/// assert_eq!(
///     inspect::mismatch(&file, &wrong)?.unwrap().to_string(),
///     "`/L8/A` is not in the file (its layer has bias 3, weight LowerTriangular 3×3), where \
///      the architecture's VolumePreservingAttention(3, 3; skew_sym = false) has 3×3"
/// );
/// # Ok::<(), geomattn_arch::Error>(())
/// ```
///
/// # Errors
/// [`Error::Unreadable`] if the file's groups cannot be read.
pub fn mismatch(file: &GmlFile, arch: &Arch) -> Result<Option<Mismatch>, Error> {
    let layers = read_layers(file, false)?;
    Ok(first_difference(&layers, &layout::layers(arch)))
}

/// Where a file differs from an architecture's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// A parameter differs, is missing, or is one the architecture does not have.
    Parameter {
        /// Its path, `/L2/PQ/head_1`.
        path: String,
        /// GML's constructor call of the architecture's layer there.
        layer: String,
        /// What the architecture has there, if it has the parameter.
        expected: Option<Values>,
        /// What the file has there, if it has the parameter (`None` inside: not a matrix or
        /// vector of GML's layers).
        found: Option<Option<Values>>,
        /// The file's parameters of that layer.
        file_layer: String,
    },
    /// Every layer both have agrees, but one has more.
    Count {
        /// The file's layers.
        file: usize,
        /// The architecture's.
        arch: usize,
        /// The first layer only one of them has.
        next: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parameter {
                path,
                layer,
                expected,
                found,
                file_layer,
            } => match (expected, found) {
                (Some(expected), Some(Some(found))) => write!(
                    f,
                    "`{path}` is {found} in the file, where the architecture's {layer} has \
                     {expected}"
                ),
                (Some(expected), Some(None)) => write!(
                    f,
                    "`{path}` is not a matrix or vector of GML's layers, where the \
                     architecture's {layer} has {expected}"
                ),
                (Some(expected), None) => write!(
                    f,
                    "`{path}` is not in the file (its layer has {file_layer}), where the \
                     architecture's {layer} has {expected}"
                ),
                (None, _) => write!(
                    f,
                    "`{path}` is in the file, but the architecture's {layer} has no such \
                     parameter"
                ),
            },
            Self::Count { file, arch, next } => write!(
                f,
                "the file has {file} layers, the architecture {arch}: every layer both have \
                 agrees, the next is {next}"
            ),
        }
    }
}

/// The parameters of a layer as `name shape` items, sorted by name (GML finds a parameter by its
/// name, whatever the order of the file).
fn found_signature(layer: &Layer) -> Vec<String> {
    let mut items: Vec<String> = layer
        .parameters
        .iter()
        .map(|p| match p.values {
            Some(values) => format!("{} {values}", p.name),
            None => format!("{} ({} {})", p.name, p.kind, p.shape),
        })
        .collect();
    items.sort();
    items
}

/// The first parameter where `layer` differs from `wanted`: in `wanted`'s order, then the
/// file's parameters `wanted` does not have.
fn parameter_difference(layer: &Layer, wanted: &layout::Layer) -> Option<Mismatch> {
    let mismatch = |name: &str, expected, found| Mismatch::Parameter {
        path: format!("/{}/{name}", layer.name),
        layer: wanted.op.to_string(),
        expected,
        found,
        file_layer: found_signature(layer).join(", "),
    };
    for p in &wanted.parameters {
        let found = layer.parameters.iter().find(|f| f.name == p.name);
        match found.map(|f| f.values) {
            Some(Some(values)) if values == p.values => {}
            other => return Some(mismatch(&p.name, Some(p.values), other)),
        }
    }
    let mut extra: Vec<&Parameter> = layer
        .parameters
        .iter()
        .filter(|f| !wanted.parameters.iter().any(|p| p.name == f.name))
        .collect();
    extra.sort_by(|a, b| a.name.cmp(&b.name));
    extra
        .first()
        .map(|f| mismatch(&f.name, None, Some(f.values)))
}

fn first_difference(layers: &[Layer], expected: &[layout::Layer]) -> Option<Mismatch> {
    if let Some(mismatch) = layers
        .iter()
        .zip(expected)
        .find_map(|(layer, wanted)| parameter_difference(layer, wanted))
    {
        return Some(mismatch);
    }
    let common = layers.len().min(expected.len());
    let next = match (layers.get(common), expected.get(common)) {
        (Some(layer), _) => format!(
            "the file's `/{}`: {}",
            layer.name,
            found_signature(layer).join(", ")
        ),
        (None, Some(wanted)) => format!("the architecture's {wanted}"),
        (None, None) => return None,
    };
    Some(Mismatch::Count {
        file: layers.len(),
        arch: expected.len(),
        next,
    })
}

fn layer(node: &Node, deviation: bool) -> Result<Layer, LoadError> {
    let mut parameters = Vec::new();
    collect(node, "", &mut parameters, deviation)?;
    Ok(Layer {
        name: node.path().trim_start_matches('/').to_owned(),
        parameters,
    })
}

/// The parameters under `node`, recursing into plain groups (`PQ`, …); with `deviation`, each
/// Stiefel weight's deviation from orthonormal columns.
fn collect(
    node: &Node,
    prefix: &str,
    out: &mut Vec<Parameter>,
    deviation: bool,
) -> Result<(), LoadError> {
    for (name, object) in node.entries()? {
        let path = format!("{prefix}{name}");
        match object {
            Object::Group { gml_type: None } => {
                collect(&node.group(&name)?, &format!("{path}/"), out, deviation)?
            }
            Object::Group {
                gml_type: Some(gml_type),
            } => out.push(special(node, &name, path, &gml_type, deviation)?),
            Object::Dataset { dtype, shape } => {
                // A dimension past `usize` (a hostile file's) saturates: it matches no layout.
                let julia: Vec<usize> = shape
                    .iter()
                    .rev()
                    .map(|&d| usize::try_from(d).unwrap_or(usize::MAX))
                    .collect();
                let (kind, values) = match julia[..] {
                    [] => ("scalar", None),
                    [len] => ("vector", Some(Values::Vector(len))),
                    [rows, cols] => ("dense matrix", Some(Values::Dense { rows, cols })),
                    _ => ("array", None),
                };
                let shape: Vec<String> = julia.iter().map(ToString::to_string).collect();
                out.push(Parameter {
                    name: path,
                    kind: kind.into(),
                    shape: shape.join("×"),
                    storage: dtype,
                    stiefel_deviation: None,
                    values,
                });
            }
        }
    }
    Ok(())
}

/// A special-matrix group: its kind, its size, and (with `deviation`) a Stiefel weight's
/// deviation.
fn special(
    node: &Node,
    name: &str,
    path: String,
    gml_type: &str,
    deviation: bool,
) -> Result<Parameter, LoadError> {
    let group = node.group(name)?;
    let packed = Packed::from_gml_type(gml_type);
    let kind = match packed {
        Some(Packed::SkewSym) => "skew-symmetric",
        Some(Packed::Symmetric) => "symmetric",
        Some(Packed::Lower) => "strictly lower triangular",
        Some(Packed::Upper) => "strictly upper triangular",
        None if gml_type == "StiefelManifold" => "Stiefel (orthonormal columns)",
        None => "unknown special matrix",
    };
    // A Stiefel point holds the matrix `A`, the other special matrices the packed vector `S`.
    let values = if gml_type == "StiefelManifold" {
        "A"
    } else {
        "S"
    };
    let storage = group
        .entries()?
        .into_iter()
        .find_map(|(name, object)| match object {
            Object::Dataset { dtype, .. } if name == values => Some(dtype),
            _ => None,
        })
        .unwrap_or_else(|| format!("no dataset `{values}`"));
    if gml_type == "StiefelManifold" {
        let (rows, cols, values) = group.dynamic_matrix("A")?;
        // `WᵀW` is `cols × cols`: bounded by the file only when `cols ≤ rows` (then
        // `cols² ≤ rows · cols`, the values read). A wide matrix is no Stiefel point anyway.
        if cols > rows {
            return Err(LoadError::WideStiefel {
                path: format!("{}/A", group.path()),
                rows,
                cols,
            });
        }
        let stiefel_deviation = deviation.then(|| {
            let w = DMatrix::from_vec(rows, cols, values);
            (w.transpose() * &w - DMatrix::identity(cols, cols)).amax()
        });
        return Ok(Parameter {
            name: path,
            kind: kind.into(),
            shape: format!("{rows}×{cols}"),
            storage,
            stiefel_deviation,
            values: Some(Values::Stiefel { rows, cols }),
        });
    }
    // The values read, not a dimension of the shape (which may be anything beside a zero).
    let len = group.dynamic_matrix("S")?.2.len();
    // n(n − 1)/2 packed values (n(n + 1)/2 for a symmetric matrix): the size shown is the
    // smallest that holds them; `values` only where they are exactly a size's.
    let diagonal = usize::from(packed == Some(Packed::Symmetric));
    let n = (0..=len.saturating_mul(2))
        .find(|n| n * (n + 2 * diagonal).saturating_sub(1) / 2 >= len)
        .unwrap_or(0);
    Ok(Parameter {
        name: path,
        kind: format!("{kind} (packed, {len} values)"),
        shape: format!("{n}×{n}"),
        storage,
        stiefel_deviation: None,
        values: packed.and_then(|p| Some(Values::Packed(p, p.size(len)?))),
    })
}

/// What the file cannot say, by option: the option and why.
fn unknown(key: &str) -> String {
    let why = match key {
        "seq" => "the window length: adds no parameters, not in the file",
        "activation" | "sympnet_activation" | "upscaling_activation" => "not in the file",
        "attention_activation" => "MatrixSoftmax or VectorSoftmax: not in the file",
        "add_connection" => {
            "not in the file; GML's default is true, the bundled networks used false"
        }
        "init_upper" => "Q and P gradient layers have the same parameters",
        "kick" => {
            "gml: GML's numbers; exact: the symplectic gradient, equal to gml with MatrixSoftmax"
        }
        _ => "not in the file",
    };
    format!("{key} ({why})")
}

/// The architectures whose chain the file's layers are.
fn matches(layers: &[Layer]) -> Vec<Match> {
    candidates(layers)
        .into_iter()
        .filter(|(arch, _)| first_difference(layers, &layout::layers(arch)).is_none())
        .map(|(arch, unknown_keys)| Match {
            spec: arch.short_with_unknown(&unknown_keys),
            gml: arch.gml_call(&unknown_keys),
            unknown: unknown_keys.iter().map(|k| unknown(k)).collect(),
            arch,
        })
        .collect()
}

/// What parameter `name` of `layer` holds.
fn values(layer: &Layer, name: &str) -> Option<Values> {
    layer
        .parameters
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.values)
}

/// The heads of a multi-head attention layer: their count, the dimension, and whether they are
/// Stiefel points.
fn heads(layer: &Layer) -> Option<(usize, usize, bool)> {
    let count = layer
        .parameters
        .iter()
        .filter(|p| p.name.starts_with("PQ/head_"))
        .count();
    match values(layer, "PQ/head_1")? {
        Values::Dense { rows, .. } => Some((count, rows, false)),
        Values::Stiefel { rows, .. } => Some((count, rows, true)),
        _ => None,
    }
}

/// `(n_blocks, n_linear)` of a volume-preserving feed-forward chain of `len` layers: every pair
/// with `2·n_blocks·(n_linear + 1) + 2 = len` (the layout tells them apart).
fn vpff_sizes(len: usize) -> impl Iterator<Item = (usize, usize)> {
    let rest = len.saturating_sub(2);
    // 2·(n_linear + 1) ≤ rest.
    (1..rest / 2).filter_map(move |n_linear| {
        let pairs = 2 * (n_linear + 1);
        (rest.is_multiple_of(pairs)).then_some((rest / pairs, n_linear))
    })
}

/// The architectures the file's first layers and its length allow, each with the options the
/// file cannot say. Each is then checked against the whole file.
fn candidates(layers: &[Layer]) -> Vec<(Arch, Vec<&'static str>)> {
    let mut found = Vec::new();
    let Some(first) = layers.first() else {
        return found;
    };
    let count = |is: &dyn Fn(&Layer) -> bool| layers.iter().filter(|l| is(l)).count();
    // Volume-preserving feed-forward: triangular layers only.
    if let Some(Values::Packed(kind @ (Packed::Lower | Packed::Upper), dim)) =
        values(first, "weight")
    {
        for (n_blocks, n_linear) in vpff_sizes(layers.len()) {
            found.push((
                Arch::Vpff(Vpff {
                    dim,
                    n_blocks,
                    n_linear,
                    activation: Activation::Tanh,
                    init_upper: kind == Packed::Upper,
                }),
                vec!["activation"],
            ));
        }
    }
    let a = values(first, "A");
    // Volume-preserving transformer: attention, then a feed-forward chain, L times.
    if let Some(Values::Dense { rows: dim, .. } | Values::Packed(Packed::SkewSym, dim)) = a {
        let l = count(&|layer| values(layer, "A") == a);
        let second = layers.get(1).and_then(|layer| values(layer, "weight"));
        if let (true, Some(Values::Packed(kind, _))) = (layers.len().is_multiple_of(l), second) {
            for (n_blocks, n_linear) in vpff_sizes(layers.len() / l - 1) {
                found.push((
                    Arch::Vpt(Vpt {
                        dim,
                        seq: 0,
                        n_blocks,
                        n_linear,
                        l,
                        activation: Activation::Tanh,
                        init_upper: kind == Packed::Upper,
                        skew_sym: matches!(a, Some(Values::Packed(..))),
                    }),
                    vec!["seq", "activation"],
                ));
            }
        }
    }
    // Standard transformer integrator (a `Dense` up first, if any) and the classifier.
    let up = values(first, "W");
    let attention = usize::from(up.is_some());
    if let Some((n_heads, transformer_dim, stiefel)) = layers.get(attention).and_then(heads) {
        let l = count(&|layer| heads(layer).is_some());
        let dim = match up {
            Some(Values::Dense { cols, .. }) => cols,
            _ => transformer_dim,
        };
        let extra = 2 * attention;
        let per_unit = layers.len().saturating_sub(extra) / l;
        if let Some(n_blocks) = per_unit.checked_sub(2).filter(|n| *n > 0) {
            let mut unknown = vec![
                "seq",
                "activation",
                "attention_activation",
                "add_connection",
            ];
            if dim != transformer_dim {
                unknown.insert(1, "upscaling_activation");
            }
            found.push((
                Arch::St(St {
                    dim,
                    seq: 0,
                    transformer_dim,
                    n_heads,
                    n_blocks,
                    l,
                    activation: Activation::Tanh,
                    upscaling_activation: Activation::Identity,
                    attention_activation: AttentionActivation::VectorSoftmax,
                    add_connection: true,
                }),
                unknown,
            ));
        }
        if let Some(Values::Dense { rows: classes, .. }) = layers.last().and_then(|last| {
            (last.parameters.len() == 1)
                .then(|| values(last, "weight"))
                .flatten()
        }) {
            found.push((
                Arch::Ct(Ct {
                    dim,
                    seq: 0,
                    classes,
                    n_heads,
                    l,
                    stiefel,
                    add_connection: true,
                }),
                vec!["seq", "add_connection"],
            ));
        }
    }
    // The symplectic transformers (a `PSDLayer` first, if any).
    let psd = match values(first, "weight") {
        Some(Values::Stiefel { rows, cols }) => Some((rows, cols)),
        _ => None,
    };
    let at = usize::from(psd.is_some());
    if let (
        Some(a),
        Some(Values::Dense {
            rows: hidden,
            cols: n,
        }),
    ) = (
        layers.get(at).and_then(|layer| values(layer, "A")),
        layers.get(at + 1).and_then(|layer| values(layer, "weight")),
    ) {
        let n_sympnet = layers[at + 1..]
            .iter()
            .take_while(|layer| values(layer, "scale").is_some())
            .count();
        let attentions = count(&|layer| values(layer, "A").is_some());
        let l = attentions / 2;
        let transformer_dim = 2 * n;
        let dim = match psd {
            Some((rows, cols)) if rows == n => 2 * cols,
            Some((rows, _)) => 2 * rows,
            None => transformer_dim,
        };
        let sympt = |symmetric: Option<Kick>| {
            let mut unknown = vec![
                "seq",
                "sympnet_activation",
                "attention_activation",
                "init_upper",
            ];
            if symmetric.is_some() {
                unknown.push("kick");
            }
            (
                Arch::Sympt(Sympt {
                    dim,
                    seq: 0,
                    transformer_dim,
                    n_sympnet,
                    upscaling_dimension: 2 * hidden,
                    l,
                    sympnet_activation: Activation::Tanh,
                    attention_activation: AttentionActivation::MatrixSoftmax,
                    init_upper: true,
                    symmetric,
                }),
                unknown,
            )
        };
        if l > 0 && n_sympnet > 0 {
            match a {
                Values::Dense { .. } => found.push(sympt(None)),
                Values::Packed(Packed::Symmetric, size) => {
                    found.push(sympt(Some(Kick::Gml)));
                    if psd.is_none() {
                        found.push((
                            Arch::LinSympt(LinSympt {
                                dim: transformer_dim,
                                seq: size,
                                n_sympnet,
                                upscaling_dimension: 2 * hidden,
                                l,
                                activation: Activation::Tanh,
                                init_upper: true,
                            }),
                            vec!["activation", "init_upper"],
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    found
}
