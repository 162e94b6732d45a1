//! What a GML file says about itself: its layers and their parameters, and which of this
//! library's architectures have that layer structure (with the options the file cannot say).
//!
//! ```
//! use geomattn::gml::GmlFile;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
//! let inspection = geomattn_spec::inspect::inspect(&GmlFile::open(path).unwrap())?;
//! assert_eq!(inspection.layers.len(), 26);
//! assert_eq!(inspection.matches[0].spec, "vpff(dim=3, n_blocks=6, n_linear=1, activation=?)");
//! # Ok::<(), geomattn_spec::Error>(())
//! ```

use geomattn::gml::{GmlFile, LoadError, Node, Object};
use geomattn::nalgebra::DMatrix;

use crate::Error;

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
}

/// What a layer is, as far as its parameters tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// Volume-preserving attention with a dense weight `A` (`skew_sym = false`) of this size.
    Attention {
        /// `dim`.
        dim: usize,
        /// Whether the weight is skew-symmetric.
        skew_sym: bool,
    },
    /// A volume-preserving lower or upper layer.
    Triangular {
        /// Lower (`true`) or upper.
        lower: bool,
        /// The length of its bias, if it has one.
        bias: Option<usize>,
    },
    /// Multi-head attention.
    MultiHead {
        /// `dim`.
        dim: usize,
        /// Heads.
        heads: usize,
    },
    /// A phase-space attention layer whose `A` is a `SymmetricMatrix`: symplectic attention
    /// with `symmetric = true` (`size = n`) or linear symplectic attention (`size = seq`).
    SymmetricAttention {
        /// The size of `A`.
        size: usize,
    },
    /// A SympNet gradient layer (`weight`, `bias`, `scale`) of phase space `R^{2n}`; `Q` and `P`
    /// layers have the same parameters.
    Gradient {
        /// `n`, half the phase-space dimension.
        n: usize,
        /// Hidden units (half GML's `upscaling_dimension`).
        hidden: usize,
    },
    /// A ResNet layer.
    ResNet {
        /// `dim`.
        dim: usize,
    },
    /// Something else.
    Unknown,
}

/// One layer group `Ln`.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Its name, `L1 …`.
    pub name: String,
    /// What it is.
    pub kind: LayerKind,
    /// Its parameters.
    pub parameters: Vec<Parameter>,
}

/// An architecture whose layer structure the file has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The spec, with `?` for what the file cannot say.
    pub spec: String,
    /// What the user must give, and why.
    pub unknown: Vec<&'static str>,
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
    let unreadable = |source: LoadError| Error::Unreadable {
        file: file.name().into(),
        source: Box::new(source),
    };
    let layers = file
        .layers()
        .map_err(unreadable)?
        .iter()
        .map(|node| layer(node).map_err(unreadable))
        .collect::<Result<Vec<_>, _>>()?;
    let matches = matches(&layers);
    Ok(Inspection { layers, matches })
}

fn layer(node: &Node) -> Result<Layer, LoadError> {
    let mut parameters = Vec::new();
    collect(node, "", &mut parameters)?;
    let name = node.path().trim_start_matches('/').to_owned();
    Ok(Layer {
        name,
        kind: kind(&parameters),
        parameters,
    })
}

/// The parameters under `node`, recursing into plain groups (`PQ`, …).
fn collect(node: &Node, prefix: &str, out: &mut Vec<Parameter>) -> Result<(), LoadError> {
    for (name, object) in node.entries()? {
        let path = format!("{prefix}{name}");
        match object {
            Object::Group { gml_type: None } => {
                collect(&node.group(&name)?, &format!("{path}/"), out)?
            }
            Object::Group {
                gml_type: Some(gml_type),
            } => out.push(special(node, &name, path, &gml_type)?),
            Object::Dataset { dtype, shape } => {
                let julia: Vec<String> = shape.iter().rev().map(ToString::to_string).collect();
                let kind = match shape.len() {
                    0 => "scalar",
                    1 => "vector",
                    2 => "dense matrix",
                    _ => "array",
                };
                out.push(Parameter {
                    name: path,
                    kind: kind.into(),
                    shape: julia.join("×"),
                    storage: dtype,
                    stiefel_deviation: None,
                });
            }
        }
    }
    Ok(())
}

/// A special-matrix group: its kind, its size, and for a Stiefel weight its deviation.
fn special(node: &Node, name: &str, path: String, gml_type: &str) -> Result<Parameter, LoadError> {
    let group = node.group(name)?;
    let kind = match gml_type {
        "SkewSymMatrix" => "skew-symmetric",
        "SymmetricMatrix" => "symmetric",
        "LowerTriangular" => "strictly lower triangular",
        "UpperTriangular" => "strictly upper triangular",
        "StiefelManifold" => "Stiefel (orthonormal columns)",
        _ => "unknown special matrix",
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
        let w = DMatrix::from_vec(rows, cols, values);
        let deviation = (w.transpose() * &w - DMatrix::identity(cols, cols)).amax();
        return Ok(Parameter {
            name: path,
            kind: kind.into(),
            shape: format!("{rows}×{cols}"),
            storage,
            stiefel_deviation: Some(deviation),
        });
    }
    // The values read, not a dimension of the shape (which may be anything beside a zero).
    let packed = group.dynamic_matrix("S")?.2.len();
    // n(n − 1)/2 packed values (n(n + 1)/2 for a symmetric matrix).
    let diagonal = usize::from(gml_type == "SymmetricMatrix");
    let n = (0..=packed.saturating_mul(2))
        .find(|n| n * (n + 2 * diagonal).saturating_sub(1) / 2 >= packed)
        .unwrap_or(0);
    Ok(Parameter {
        name: path,
        kind: format!("{kind} (packed, {packed} values)"),
        shape: format!("{n}×{n}"),
        storage,
        stiefel_deviation: None,
    })
}

fn parse_shape(shape: &str) -> Vec<usize> {
    shape.split('×').filter_map(|d| d.parse().ok()).collect()
}

fn kind(parameters: &[Parameter]) -> LayerKind {
    let find = |name: &str| parameters.iter().find(|p| p.name == name);
    let heads = parameters
        .iter()
        .filter(|p| p.name.starts_with("PQ/head_"))
        .count();
    if heads > 0 {
        let dim = find("PQ/head_1")
            .and_then(|p| parse_shape(&p.shape).first().copied())
            .unwrap_or(0);
        return LayerKind::MultiHead { dim, heads };
    }
    if let (Some(w), Some(_), Some(_)) = (find("weight"), find("bias"), find("scale"))
        && let [hidden, n] = parse_shape(&w.shape)[..]
    {
        return LayerKind::Gradient { n, hidden };
    }
    match (find("A"), find("weight"), find("bias")) {
        (Some(a), None, None) if a.kind.starts_with("symmetric") => LayerKind::SymmetricAttention {
            size: parse_shape(&a.shape).first().copied().unwrap_or(0),
        },
        (Some(a), None, None) => LayerKind::Attention {
            dim: parse_shape(&a.shape).first().copied().unwrap_or(0),
            skew_sym: a.kind.starts_with("skew"),
        },
        (None, Some(w), bias) if w.kind.starts_with("strictly") => LayerKind::Triangular {
            lower: w.kind.contains("lower"),
            bias: bias.and_then(|b| parse_shape(&b.shape).first().copied()),
        },
        (None, Some(w), Some(_)) if w.kind.starts_with("dense") => LayerKind::ResNet {
            dim: parse_shape(&w.shape).first().copied().unwrap_or(0),
        },
        _ => LayerKind::Unknown,
    }
}

/// The layer kinds of GML's `VolumePreservingFeedForward(dim, nb, nl)` chain (with `dim` left
/// out of the biases' lengths: compared by presence).
fn vpff_pattern(nb: usize, nl: usize) -> Vec<(bool, bool)> {
    let mut pattern = Vec::new();
    for _ in 0..nb {
        for k in 0..nl {
            pattern.push((true, false));
            pattern.push((false, k + 1 == nl));
        }
        pattern.push((true, true));
        pattern.push((false, true));
    }
    pattern.push((true, false));
    pattern.push((false, true));
    pattern
}

/// `(dim, n_blocks, n_linear)` of a VPFF chain, if the layers are one.
fn vpff(layers: &[Layer]) -> Option<(usize, usize, usize)> {
    let shape: Vec<(bool, bool)> = layers
        .iter()
        .map(|l| match l.kind {
            LayerKind::Triangular { lower, bias } => Some((lower, bias.is_some())),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let dim = layers.iter().find_map(|l| match l.kind {
        LayerKind::Triangular { bias, .. } => bias,
        _ => None,
    })?;
    // The chain has 2·nb·(nl + 1) + 2 layers: each nl gives nb, if any.
    let rest = shape.len().checked_sub(2)?;
    (1..=rest / 2).find_map(|nl| {
        let nb = rest / (2 * (nl + 1));
        (nb > 0 && vpff_pattern(nb, nl) == shape).then_some((dim, nb, nl))
    })
}

/// The file's layers cut into units, each starting with an attention layer.
fn units(layers: &[Layer]) -> Vec<&[Layer]> {
    let starts: Vec<usize> = layers
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            matches!(
                l.kind,
                LayerKind::Attention { .. }
                    | LayerKind::MultiHead { .. }
                    | LayerKind::SymmetricAttention { .. }
            )
        })
        .map(|(i, _)| i)
        .collect();
    if starts.first() != Some(&0) {
        return Vec::new();
    }
    starts
        .iter()
        .zip(starts.iter().skip(1).chain([&layers.len()]))
        .map(|(&a, &b)| &layers[a..b])
        .collect()
}

fn matches(layers: &[Layer]) -> Vec<Match> {
    const ACTIVATION: &str = "activation (not in the file)";
    const SEQ: &str = "seq (the window length: adds no parameters, not in the file)";
    if let Some((dim, nb, nl)) = vpff(layers) {
        return vec![Match {
            spec: format!("vpff(dim={dim}, n_blocks={nb}, n_linear={nl}, activation=?)"),
            unknown: vec![ACTIVATION],
        }];
    }
    let units = units(layers);
    let Some(first) = units.first() else {
        return Vec::new();
    };
    let l = units.len();
    let same = units
        .iter()
        .all(|u| u.len() == first.len() && u.iter().zip(*first).all(|(a, b)| a.kind == b.kind));
    if !same {
        return Vec::new();
    }
    if let Some(found) = symplectic(first, units.len()) {
        return found;
    }
    match first[0].kind {
        LayerKind::Attention { dim, skew_sym } => match vpff(&first[1..]) {
            Some((d, nb, nl)) if d == dim => vec![Match {
                spec: format!(
                    "vpt(dim={dim}, seq=?, n_blocks={nb}, n_linear={nl}, L={l}, activation=?, skew_sym={skew_sym})"
                ),
                unknown: vec![SEQ, ACTIVATION],
            }],
            _ => Vec::new(),
        },
        LayerKind::MultiHead { dim, heads } => {
            let resnets = first[1..]
                .iter()
                .all(|layer| layer.kind == LayerKind::ResNet { dim });
            if !resnets || first.len() < 3 {
                return Vec::new();
            }
            vec![Match {
                spec: format!(
                    "st(dim={dim}, seq=?, n_heads={heads}, n_blocks={}, L={l}, activation=?, add_connection=?)",
                    first.len() - 2
                ),
                unknown: vec![
                    SEQ,
                    ACTIVATION,
                    "add_connection (not in the file; GML's default is true, the bundled network used false)",
                ],
            }]
        }
        _ => Vec::new(),
    }
}

/// The symplectic transformers whose chain is `halves` times `half` (an attention layer and its
/// gradient layers): `None` if `half` is not such a half.
fn symplectic(half: &[Layer], halves: usize) -> Option<Vec<Match>> {
    const UNKNOWN: [&str; 3] = [
        "seq (the window length: adds no parameters, not in the file)",
        "activation (of the gradient layers, not in the file)",
        "init_upper (Q and P gradient layers have the same parameters)",
    ];
    let LayerKind::Gradient { n, hidden } = half.get(1)?.kind else {
        return None;
    };
    let gradients = half[1..]
        .iter()
        .all(|layer| layer.kind == LayerKind::Gradient { n, hidden });
    if !gradients || !halves.is_multiple_of(2) {
        return None;
    }
    let (dim, n_sympnet, l) = (2 * n, half.len() - 1, halves / 2);
    let common = format!(
        "dim={dim}, seq=?, n_sympnet={n_sympnet}, upscaling_dimension={}, L={l}",
        2 * hidden
    );
    let sympt = |symmetric: &str| Match {
        spec: format!(
            "symplectic_transformer({common}, sympnet_activation=?, attention_activation=?, \
             init_upper=?, {symmetric})"
        ),
        unknown: [
            &UNKNOWN[..],
            &["attention_activation (MatrixSoftmax or VectorSoftmax: not in the file)"],
            if symmetric.contains("kick") {
                &[
                    "kick (gml: GML's numbers; exact: the symplectic gradient, equal to gml with \
                   MatrixSoftmax)",
                ][..]
            } else {
                &[]
            },
        ]
        .concat(),
    };
    match half[0].kind {
        LayerKind::Attention {
            dim: size,
            skew_sym: false,
        } if size == n => Some(vec![sympt("symmetric=false")]),
        LayerKind::SymmetricAttention { size } => {
            let linear = Match {
                spec: format!(
                    "linear_symplectic_transformer({}, activation=?, init_upper=?)",
                    common.replace("seq=?", &format!("seq={size}"))
                ),
                unknown: vec![UNKNOWN[1], UNKNOWN[2]],
            };
            Some(if size == n {
                vec![sympt("symmetric=true, kick=?"), linear]
            } else {
                vec![linear]
            })
        }
        _ => None,
    }
}
