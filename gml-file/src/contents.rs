//! A whole file read by its own structure: every parameter of every layer group, in GML's order,
//! with its kind, shape and values, without knowing the architecture.
//!
//! What `geomattn`'s compile-time embedding (`embed_gml!`, `geomattn export --to rust`) reads: a
//! proc-macro sees only tokens, not the network's type, so it takes what the file has and leaves
//! the check against the type to `const` evaluation. The loader of a known network reads the
//! other way round, asked for each parameter by [`Node::stored`]; both go through the same
//! checks ([`Node`]'s), so a file one refuses the other refuses too.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::file::number;
use crate::{GmlFile, Kind, LoadError, Node, Object};

/// One parameter of a layer group.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The layer group `L<layer>`, from 1.
    pub layer: usize,
    /// The plain group holding it (`PQ`), if any.
    pub parent: Option<String>,
    /// Its name, or the prefix of a numbered one (`head_`).
    pub stem: String,
    /// The number of a numbered one (`head_3`).
    pub number: Option<usize>,
    /// Its kind.
    pub kind: Kind,
    /// Julia's rows (`n` of a special matrix, the length of a vector).
    pub rows: usize,
    /// Julia's columns (`1` for a vector, `n` for a special matrix).
    pub cols: usize,
    /// Its values: column-major for a matrix, GML's packed order for a special one; Float32
    /// ones widened to `f64` exactly.
    pub values: Vec<f64>,
}

/// A whole file: its number of layer groups and their parameters, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Contents {
    /// The number of layer groups `L1 … Ln`.
    pub layers: usize,
    /// The parameters, layer group after layer group.
    pub params: Vec<Parameter>,
}

/// GML's order of the parameters inside a layer group (the order of its Julia named tuples):
/// what every `geomattn` schema follows.
const ORDER: [&str; 9] = ["A", "PQ", "PK", "PV", "weight", "bias", "scale", "W", "b"];

impl GmlFile {
    /// Every parameter of every layer group, in GML's order.
    ///
    /// # Errors
    /// The [`Node`] reader's; [`LoadError::Unexpected`] for anything in a layer group that is not
    /// a parameter of a layer GML writes (or, inside a plain group, not a numbered head);
    /// [`LoadError::WideStiefel`] for a Stiefel point with more columns than rows.
    ///
    /// ```
    /// use geomattn_gml_file::{GmlFile, Kind};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"),
    ///     "/../fixtures/gml/transformer_rigid_body_nn_vpt.h5");
    /// let contents = GmlFile::open(path)?.contents()?;
    /// // VolumePreservingTransformer(3, 3; n_blocks = 2, n_linear = 1, L = 3), flattened by GML
    /// // into the layer groups L1 … L33; the first is volume-preserving attention.
    /// assert_eq!(contents.layers, 33);
    /// let first = &contents.params[0];
    /// assert_eq!((first.stem.as_str(), first.kind, first.rows), ("A", Kind::Dense, 3));
    /// # Ok::<(), geomattn_gml_file::LoadError>(())
    /// ```
    pub fn contents(&self) -> Result<Contents, LoadError> {
        let layers = self.layers()?;
        let mut params = Vec::new();
        for (k, node) in layers.iter().enumerate() {
            read_layer(node, k + 1, &mut params)?;
        }
        Ok(Contents {
            layers: layers.len(),
            params,
        })
    }
}

/// The parameters of one layer group, in GML's order.
fn read_layer(node: &Node, layer: usize, params: &mut Vec<Parameter>) -> Result<(), LoadError> {
    let mut children = node.entries()?;
    for (name, found) in &children {
        if !ORDER.contains(&name.as_str()) {
            return Err(LoadError::Unexpected {
                path: node.child_path(name),
                found: found.clone(),
            });
        }
    }
    children.sort_by_key(|(name, _)| ORDER.iter().position(|stem| stem == name));
    for (name, object) in children {
        if object == (Object::Group { gml_type: None }) {
            // A plain group of numbered heads (`PQ/head_1 …`).
            let heads = node.group(&name)?;
            for head in numbered_heads(&heads)? {
                let mut param = parameter(&heads, &head, layer)?;
                param.parent = Some(name.clone());
                param.stem = "head_".into();
                param.number = head["head_".len()..].parse().ok();
                params.push(param);
            }
        } else {
            params.push(parameter(node, &name, layer)?);
        }
    }
    Ok(())
}

/// The names `head_1 … head_n` of a plain group, in order; anything else there is refused.
fn numbered_heads(heads: &Node) -> Result<Vec<String>, LoadError> {
    let mut names = heads.group_names()?;
    names.extend(heads.dataset_names()?);
    for name in &names {
        if number(name, "head_").is_none() {
            heads.reject(name)?;
        }
    }
    heads.numbered(names, "head_")
}

/// The parameter `name` of `node`, whatever its kind: a dense matrix or vector (a dataset), a
/// Stiefel point or a special matrix (a group tagged with its `gml_type`).
fn parameter(node: &Node, name: &str, layer: usize) -> Result<Parameter, LoadError> {
    let found = node.describe(name)?;
    let kind = match &found {
        Some(Object::Dataset { shape, .. }) if shape.len() == 1 => Some(Kind::Vector),
        Some(Object::Dataset { .. }) => Some(Kind::Dense),
        Some(Object::Group {
            gml_type: Some(gml_type),
        }) => Kind::of_gml_type(gml_type),
        Some(Object::Group { gml_type: None }) | None => None,
    };
    let (kind, rows, cols, values) = match (kind, found) {
        (Some(kind @ (Kind::Dense | Kind::Vector)), _) => {
            let (rows, cols, values) = node.dynamic_matrix(name)?;
            (kind, rows, cols, values)
        }
        (Some(Kind::Stiefel), _) => {
            let (rows, cols, values) = node.group(name)?.dynamic_matrix("A")?;
            if cols > rows {
                return Err(LoadError::WideStiefel {
                    path: node.child_path(&format!("{name}/A")),
                    rows,
                    cols,
                });
            }
            (Kind::Stiefel, rows, cols, values)
        }
        (Some(packed), _) => {
            let n = node.group(name)?.size()?;
            (packed, n, n, node.stored(name, packed, n, n)?)
        }
        (None, Some(found)) => {
            return Err(LoadError::Unexpected {
                path: node.child_path(name),
                found,
            });
        }
        (None, None) => {
            return Err(LoadError::Missing {
                path: node.child_path(name),
                expected: Object::floats(&[]),
            });
        }
    };
    Ok(Parameter {
        layer,
        parent: None,
        stem: name.into(),
        number: None,
        kind,
        rows,
        cols,
        values,
    })
}
