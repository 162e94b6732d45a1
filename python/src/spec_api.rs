//! The one module that talks to `geomattn-networks`: parsing a spec, loading and checking a file,
//! reading its parameters, the batch kernels, and the translation of the spec's errors into
//! Python exceptions. When the spec crate's API changes, this file is the one to adapt.

use geomattn::gml::{GmlFile, LoadError, Node, Object};
use geomattn_networks::batch::{self, Arithmetic, Layout};
use geomattn_networks::classify::{self, Classifier};
use geomattn_networks::{Arch, Error, Network, Precision, Scalar};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::{PyErr, PyErrArguments};

/// A scalar a numpy batch may hold, with the network's batch kernel for it.
pub(crate) trait Element: numpy::Element + Scalar + Send + Sync {
    /// numpy's name of the dtype.
    const NAME: &'static str;

    /// The network's forward pass on a chunk of windows.
    fn forward(
        net: &dyn Network,
        input: &[Self],
        layout: Layout,
        output: &mut [Self],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error>;

    /// The network's rollout of a chunk of initial windows.
    fn rollout(
        net: &dyn Network,
        initial: &[Self],
        layout: Layout,
        output: &mut [Self],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error>;
}

impl Element for f32 {
    const NAME: &'static str = "float32";
    fn forward(
        net: &dyn Network,
        input: &[f32],
        layout: Layout,
        output: &mut [f32],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error> {
        net.forward_f32(input, layout, output, checked, arithmetic)
    }
    fn rollout(
        net: &dyn Network,
        initial: &[f32],
        layout: Layout,
        output: &mut [f32],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error> {
        net.rollout_f32(initial, layout, output, checked, arithmetic)
    }
}

impl Element for f64 {
    const NAME: &'static str = "float64";
    fn forward(
        net: &dyn Network,
        input: &[f64],
        layout: Layout,
        output: &mut [f64],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error> {
        net.forward_f64(input, layout, output, checked, arithmetic)
    }
    fn rollout(
        net: &dyn Network,
        initial: &[f64],
        layout: Layout,
        output: &mut [f64],
        checked: bool,
        arithmetic: Arithmetic,
    ) -> Result<(), geomattn::Error> {
        net.rollout_f64(initial, layout, output, checked, arithmetic)
    }
}

/// The arithmetic of Python's ``exact`` keyword: ``exact=True`` gives the scalar path's bits.
pub(crate) fn arithmetic(exact: bool) -> Arithmetic {
    if exact {
        Arithmetic::Exact
    } else {
        Arithmetic::Fast
    }
}

/// The spec's errors as Python exceptions, each with one message: a file the operating system
/// cannot open is the `OSError` subclass of its `errno` (`FileNotFoundError`, `PermissionError`,
/// `IsADirectoryError`, …) with the path as its `filename`, any other unreadable file an `OSError`,
/// everything else (a malformed spec, a file that does not hold the architecture) a
/// `ValueError` with the library's message.
pub(crate) fn exception(error: &Error) -> PyErr {
    match error {
        Error::Unreadable { file, source } => unreadable(file, source),
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// The `OSError` of a file that cannot be read: the operating system's error if there is one,
/// else the loader's message, naming the file once.
fn unreadable(file: &str, source: &LoadError) -> PyErr {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(error) = cause {
        if let Some(errno) = error
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::raw_os_error)
        {
            return PyOSError::new_err(OsErrorArguments {
                errno,
                file: file.to_owned(),
            });
        }
        cause = error.source();
    }
    match source {
        // The loader's message already names the file.
        LoadError::Hdf5 { path, .. } | LoadError::NotAFile { path, .. } if path == file => {
            PyOSError::new_err(source.to_string())
        }
        _ => PyOSError::new_err(format!("cannot read `{file}`: {source}")),
    }
}

/// `OSError(errno, os.strerror(errno), file)`: Python makes it the subclass of the `errno`, with
/// the message Python's own `open` gives (`[Errno 2] No such file or directory: 'path'`).
struct OsErrorArguments {
    errno: i32,
    file: String,
}

impl PyErrArguments for OsErrorArguments {
    fn arguments(self, py: Python<'_>) -> Py<PyAny> {
        let strerror = py
            .import("os")
            .and_then(|os| os.call_method1("strerror", (self.errno,)))
            .and_then(|message| message.extract::<String>())
            .unwrap_or_else(|_| format!("os error {}", self.errno));
        (self.errno, strerror, self.file)
            .into_pyobject(py)
            .map_or_else(|_| py.None(), |arguments| arguments.into_any().unbind())
    }
}

/// numpy's name of a precision.
pub(crate) fn dtype_name(precision: Precision) -> &'static str {
    match precision {
        Precision::F32 => f32::NAME,
        Precision::F64 => f64::NAME,
    }
}

/// A network loaded from a file, with what the bindings need to know about it.
pub(crate) struct Loaded {
    /// The network.
    pub(crate) net: Box<dyn Network>,
    /// Its architecture, in the spec's short form.
    pub(crate) arch: String,
    /// `dim` and `seq` (1 for the feed-forward network).
    pub(crate) dim: usize,
    /// States per window.
    pub(crate) seq: usize,
    /// The parameters, by their path in the file.
    pub(crate) parameters: Vec<Parameter>,
}

/// One parameter of the file: its path (`L1/A/S`), its Julia shape, its values in C order (widened
/// to `f64` exactly), and whether the file stores them as Float32 (else Float64).
pub(crate) struct Parameter {
    pub(crate) name: String,
    pub(crate) shape: Vec<usize>,
    pub(crate) values: Vec<f64>,
    pub(crate) float32: bool,
}

fn parse(arch: &str) -> Result<Arch, PyErr> {
    arch.parse::<Arch>().map_err(|e| exception(&Error::from(e)))
}

/// What the GML file at `path` holds.
pub(crate) fn inspect(path: &str) -> Result<geomattn_networks::inspect::Inspection, PyErr> {
    let file = open_gml(path).map_err(|e| exception(&e))?;
    geomattn_networks::inspect::inspect(&file).map_err(|e| exception(&Error::from(e)))
}

/// The GML file at `path`, opened.
fn open_gml(path: &str) -> Result<GmlFile, Error> {
    GmlFile::open(path).map_err(|source| Error::Unreadable {
        file: path.into(),
        source: Box::new(source),
    })
}

/// Loads the file at `path` as `arch`, computing in `precision`.
pub(crate) fn load(path: &str, arch: &str, precision: Precision) -> Result<Loaded, PyErr> {
    let arch = parse(arch)?;
    let file = open_gml(path).map_err(|e| exception(&e))?;
    let net = geomattn_networks::open(&file, &arch, precision).map_err(|e| exception(&e))?;
    let parameters = parameters(&file).map_err(|source| {
        exception(&Error::Unreadable {
            file: path.into(),
            source: Box::new(source),
        })
    })?;
    Ok(Loaded {
        net,
        arch: arch.to_string(),
        dim: arch.dim(),
        seq: arch.seq(),
        parameters,
    })
}

/// Loads the classifier (GML's `ClassificationTransformer`) at `path` as `arch`, computing in
/// `precision`; with its number of classes.
pub(crate) fn load_classifier(
    path: &str,
    arch: &str,
    precision: Precision,
) -> Result<(Box<dyn Classifier>, usize), PyErr> {
    let arch = parse(arch)?;
    let net = classify::open_file(path, &arch, precision).map_err(|e| exception(&e))?;
    let classes = match arch {
        Arch::Ct(ct) => ct.classes,
        _ => unreachable!("classify::open_file loads classifiers only"),
    };
    Ok((net, classes))
}

/// Every dataset under the file's layer groups, by path, as GML wrote it.
fn parameters(file: &GmlFile) -> Result<Vec<Parameter>, LoadError> {
    let mut out = Vec::new();
    for layer in file.layers()? {
        collect(&layer, &mut out)?;
    }
    Ok(out)
}

fn collect(node: &Node, out: &mut Vec<Parameter>) -> Result<(), LoadError> {
    for (name, object) in node.entries()? {
        match object {
            Object::Group { gml_type: None } => collect(&node.group(&name)?, out)?,
            // A special matrix: GML's packed vector `S`, or a Stiefel weight's matrix `A`, under
            // the group's name (its other datasets, such as the size `n`, are metadata).
            Object::Group {
                gml_type: Some(gml_type),
            } => {
                let dataset = if gml_type == "StiefelManifold" {
                    "A"
                } else {
                    "S"
                };
                out.push(parameter(&node.group(&name)?, dataset, &name, node.path())?);
            }
            Object::Dataset { .. } => out.push(parameter(node, &name, &name, node.path())?),
        }
    }
    Ok(())
}

/// The dataset `dataset` of `node`, named `parent/name`, in C order of its Julia shape.
fn parameter(node: &Node, dataset: &str, name: &str, parent: &str) -> Result<Parameter, LoadError> {
    let (rows, cols, values) = node.dynamic_matrix(dataset)?;
    // Julia's column-major `rows×cols` in numpy's C order.
    let values = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| (i, j)))
        .map(|(i, j)| values[i + rows * j])
        .collect();
    let (rank, float32) = node
        .entries()?
        .into_iter()
        .find(|(n, _)| n == dataset)
        .map_or((2, true), |(_, object)| match object {
            Object::Dataset { shape, dtype } => (shape.len(), dtype == "Float32"),
            Object::Group { .. } => (2, true),
        });
    let shape = if rank == 1 {
        vec![rows]
    } else {
        vec![rows, cols]
    };
    let path = format!("{parent}/{name}");
    Ok(Parameter {
        name: path.trim_start_matches('/').to_owned(),
        shape,
        values,
        float32,
    })
}

/// One measured property of [`check`].
pub(crate) struct Measurement {
    pub(crate) property: String,
    pub(crate) worst: f64,
    pub(crate) tolerance: f64,
    pub(crate) promised: bool,
    pub(crate) passes: bool,
}

/// The structure `arch` promises, measured on the file at `path` (exact Jacobians, `f64`).
pub(crate) fn check(
    path: &str,
    arch: &str,
    samples: usize,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Measurement>, Error> {
    let arch: Arch = arch.parse()?;
    let file = open_gml(path)?;
    Ok(
        geomattn_networks::check_until(&file, &arch, samples, seed, stop)?
            .into_iter()
            .map(|m| Measurement {
                passes: m.passes(),
                property: m.property,
                worst: m.worst,
                tolerance: m.tolerance,
                promised: m.promised,
            })
            .collect(),
    )
}

/// The skew-weighted volume-preserving attention layer alone (`skew_sym = true`), for the
/// benchmark against the batched NumPy and JAX peers: sizes `d = T` in [`ATTENTION_SIZES`].
pub(crate) mod attention {
    use geomattn::{LaneTwin, SequenceLayer, SkewSymmetric, SkewVpa};

    use super::{Arithmetic, Element, Layout, batch};

    /// The sizes `d = T` compiled for the bare attention layer.
    pub(crate) const SIZES: [usize; 4] = [3, 4, 5, 8];

    /// The batch kernel of one layer, type-erased.
    pub(crate) trait Kernel<X>: Send + Sync {
        fn forward(
            &self,
            input: &[X],
            layout: Layout,
            output: &mut [X],
            checked: bool,
            arithmetic: Arithmetic,
        ) -> Result<(), geomattn::Error>;
    }

    struct Layer<X, const D: usize>(SkewVpa<X, D, D>);

    impl<X: Element, const D: usize> Kernel<X> for Layer<X, D>
    where
        SkewVpa<X, D, D>: SequenceLayer<X, D, D> + LaneTwin<D, D, Scalar = X> + Send + Sync,
    {
        fn forward(
            &self,
            input: &[X],
            layout: Layout,
            output: &mut [X],
            checked: bool,
            arithmetic: Arithmetic,
        ) -> Result<(), geomattn::Error> {
            batch::forward::<X, X, _, D, D>(&self.0, input, layout, output, checked, arithmetic)
        }
    }

    fn layer<X: Element, const D: usize>(
        packed: &[X],
    ) -> Result<Box<dyn Kernel<X>>, geomattn::Error>
    where
        SkewVpa<X, D, D>: SequenceLayer<X, D, D> + LaneTwin<D, D, Scalar = X> + Send + Sync,
    {
        let a = SkewSymmetric::<X, D>::from_packed(packed)?;
        Ok(Box::new(Layer(SkewVpa::<X, D, D>::skew_sym(a))))
    }

    /// The layer of size `d = T = dim` with GML's packed skew-symmetric weight `packed`; `None`
    /// for a size not compiled.
    pub(crate) fn build<X: Element>(
        dim: usize,
        packed: &[X],
    ) -> Option<Result<Box<dyn Kernel<X>>, geomattn::Error>> {
        match dim {
            3 => Some(layer::<X, 3>(packed)),
            4 => Some(layer::<X, 4>(packed)),
            5 => Some(layer::<X, 5>(packed)),
            8 => Some(layer::<X, 8>(packed)),
            _ => None,
        }
    }
}
