//! The sizes this build is compiled for. Each architecture's layers are const-generic, so every
//! combination below is one monomorphised network type (in `f32` and `f64`); a spec outside the
//! grid gets [`Error::OffGrid`](crate::Error::OffGrid), which names the way out. The number of
//! transformer units `L` and `add_connection` are read at run time: any value works.
//!
//! The grid covers every bundled GML network and the common small sizes, and keeps a clean
//! release build of the `geomattn` command within a few minutes on two cores. To add a size,
//! add it to the constant here **and** to the matching arm of the `on_grid!` macro in
//! `dispatch.rs` (a test checks that the two agree).
//!
//! ```
//! assert!(geomattn_networks::grid::VPT.dims.contains(&3));
//! println!("{}", geomattn_networks::grid::describe());
//! ```

use crate::Activation;

/// The compiled sizes of one architecture.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    /// The architecture's short name.
    pub name: &'static str,
    /// `dim`.
    pub dims: &'static [usize],
    /// `seq` (empty for the feed-forward network, whose windows are single states).
    pub seqs: &'static [usize],
    /// `n_blocks`.
    pub n_blocks: &'static [usize],
    /// `n_linear` (empty where the architecture has no such option).
    pub n_linear: &'static [usize],
    /// `n_heads` (empty where the architecture has no such option).
    pub n_heads: &'static [usize],
    /// `n_sympnet` (empty where the architecture has no such option).
    pub n_sympnet: &'static [usize],
    /// The activations.
    pub activations: &'static [Activation],
    /// What is free at run time.
    pub free: &'static str,
}

/// The volume-preserving transformer's grid.
pub const VPT: Grid = Grid {
    name: "vpt",
    dims: &[2, 3, 4],
    seqs: &[2, 3, 4],
    n_blocks: &[1, 2],
    n_linear: &[1],
    n_heads: &[],
    n_sympnet: &[],
    activations: &[Activation::Tanh],
    free: "any L, skew_sym true or false; init_upper = false",
};

/// The volume-preserving feed-forward network's grid.
pub const VPFF: Grid = Grid {
    name: "vpff",
    dims: &[2, 3, 4],
    seqs: &[],
    n_blocks: &[1, 2, 3, 4, 5, 6],
    n_linear: &[1],
    n_heads: &[],
    n_sympnet: &[],
    activations: &[Activation::Tanh],
    free: "init_upper = false",
};

/// The standard transformer integrator's grid.
pub const ST: Grid = Grid {
    name: "st",
    dims: &[2, 3, 4],
    seqs: &[2, 3, 4],
    n_blocks: &[1, 2],
    n_linear: &[],
    n_heads: &[1],
    n_sympnet: &[],
    activations: &[Activation::Tanh],
    free: "any L, add_connection true or false; transformer_dim = dim, \
           attention_activation = VectorSoftmax",
};

/// The classification transformer's grid: GML's MNIST classifier (`classes = 10` too).
pub const CT: Grid = Grid {
    name: "classification_transformer",
    dims: &[49],
    seqs: &[16],
    n_blocks: &[],
    n_linear: &[],
    n_heads: &[7],
    n_sympnet: &[],
    activations: &[Activation::Tanh],
    free: "classes = 10, any L, Stiefel and add_connection true or false",
};

/// The symplectic transformer's grid: phase space `dim = 2n`, the gradient layers' upscaling
/// `2·dim` (GML's default), `activation` = `sympnet_activation`.
pub const SYMPT: Grid = Grid {
    name: "symplectic_transformer",
    dims: &[2, 4],
    seqs: &[2, 3],
    n_blocks: &[],
    n_linear: &[],
    n_heads: &[],
    n_sympnet: &[1, 2],
    activations: &[Activation::Tanh],
    free: "upscaling_dimension = 2·dim, transformer_dim = dim, any L, init_upper and symmetric \
           true or false, attention_activation MatrixSoftmax or VectorSoftmax, kick gml or exact",
};

/// The linear symplectic transformer's grid (as [`SYMPT`]).
pub const LINSYMPT: Grid = Grid {
    name: "linear_symplectic_transformer",
    dims: &[2, 4],
    seqs: &[2, 3],
    n_blocks: &[],
    n_linear: &[],
    n_heads: &[],
    n_sympnet: &[1, 2],
    activations: &[Activation::Tanh],
    free: "upscaling_dimension = 2·dim, any L, init_upper true or false",
};

/// Every grid, in the order of [`describe`].
pub const ALL: [Grid; 6] = [VPT, VPFF, ST, CT, SYMPT, LINSYMPT];

fn list(values: &[usize]) -> String {
    let values: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("{{{}}}", values.join(", "))
}

impl Grid {
    /// One line: `vpt: dim ∈ {2, 3, 4}, seq ∈ {…}, …; any L, …`.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("dim ∈ {}", list(self.dims))];
        let optional = [
            ("seq", self.seqs),
            ("n_heads", self.n_heads),
            ("n_blocks", self.n_blocks),
            ("n_linear", self.n_linear),
            ("n_sympnet", self.n_sympnet),
        ];
        for (key, values) in optional {
            if !values.is_empty() {
                parts.push(format!("{key} ∈ {}", list(values)));
            }
        }
        let activations: Vec<String> = self.activations.iter().map(ToString::to_string).collect();
        parts.push(format!("activation ∈ {{{}}}", activations.join(", ")));
        format!("{}: {}; {}", self.name, parts.join(", "), self.free)
    }
}

/// The whole grid, one line per architecture.
pub fn describe() -> String {
    let mut lines = vec![
        "every architecture: any size and option GML allows, on the run-time engine; compiled (the \
         lane path, train) for the sizes below"
            .to_string(),
    ];
    lines.extend(ALL.iter().map(Grid::line));
    lines.join("\n")
}
