//! Networks whose sizes are read from the file ([`geomattn::engine`]): the volume-preserving
//! feed-forward network and transformer, the standard transformer integrator and the symplectic
//! transformers as [`Network`]s, the classifier for [`crate::classify::engine`], at any size GML
//! allows, with every option. Built from GML's
//! chain as data ([`geomattn_arch::layout`]): each layer's parameters are read by the names and
//! shapes GML's `save` gives them, and a file that is not that chain is refused naming the first
//! difference.
//!
//! ```
//! use geomattn_networks::{Arch, Precision, engine};
//! use geomattn::gml::GmlFile;
//! let arch: Arch = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)".parse()?;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
//! let net = engine::open(&GmlFile::open(path)?, &arch, Precision::F64)?;
//! let next = net.forward(&[0.0, 0.89, 0.45])?;
//! assert_eq!(next.len(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use geomattn::engine::{
    BlockAttention, ClassificationLayer, ClassificationTransformer, Dense, FeedForward, Forward,
    GradientLayer, LinearSymplecticAttention, LinearSymplecticTransformer, MultiHeadAttention,
    PsdLayer, ResNetLayer, Scratch, StackLayer, StandardTransformerIntegrator, SymplecticAttention,
    SymplecticTransformer, Transformer, Upscaled, Upscaling, VolumePreservingAttention,
    VolumePreservingFeedForward, VolumePreservingLayer, VolumePreservingTransformer,
};
use geomattn::gml::{GmlFile, LoadError, Node, ReadWeights};
use geomattn::nalgebra::{DMatrix, RealField};
use geomattn::softmax::Function as Softmax;
use geomattn::{Field, MapScalar};
use geomattn_arch::AttentionActivation;
use geomattn_arch::layout::{self, Layer, Op};
use num_dual::Dual64;

use crate::dispatch::load_error;
use crate::error::Error;
use crate::network::Network;
use crate::network::Scalar;
use crate::network::{Precision, checked};
use crate::structure::Measurement;
use crate::structure::{
    Sampling, feed_forward_measurements, largest, symplectic_measurement, symplecticity,
    transformer_measurements, worse,
};
use geomattn_arch::Arch;
use geomattn_arch::Kick;

/// Loads `file` as `arch` on the run-time engine, computing in `precision`.
///
/// # Errors
/// [`Error::Unsupported`] for the classifier (see [`crate::classify`]);
/// [`Error::Mismatch`] if the file's layers are not `arch`'s chain, [`Error::Load`] if a value
/// cannot be read as it.
pub fn open(file: &GmlFile, arch: &Arch, precision: Precision) -> Result<Box<dyn Network>, Error> {
    match precision {
        Precision::F32 => Ok(Box::new(Engine::<f32>::open(file, arch)?)),
        Precision::F64 => Ok(Box::new(Engine::<f64>::open(file, arch)?)),
    }
}

/// A network of run-time size with its architecture.
pub(crate) struct Engine<S: Scalar> {
    arch: Arch,
    net: Box<dyn Forward<S> + Send + Sync>,
    /// `net` over lanes: its batches in [`crate::batch::Arithmetic::Exact`].
    lanes: Box<dyn Forward<S::Lanes> + Send + Sync>,
    /// `net` over the lanes of [`crate::batch::Arithmetic::Fast`] (in `f64`, the same lanes).
    fast: Box<dyn Forward<S::FastLanes> + Send + Sync>,
    /// `(dim, seq)` of a window (`seq = 1` for a feed-forward network).
    shape: (usize, usize),
}

/// A network of run-time size as built, its parts reachable (the structure check measures
/// them).
enum Built<S> {
    FeedForward(VolumePreservingFeedForward<S>),
    Transformer(VolumePreservingTransformer<S>),
    Standard(StandardTransformerIntegrator<S>),
    Symplectic(SymplecticTransformer<S>),
    LinearSymplectic(LinearSymplecticTransformer<S>),
}

/// `file` read as `arch`'s network, in the scalar `S`.
fn built<S: Field + RealField>(file: &GmlFile, arch: &Arch) -> Result<Built<S>, Error> {
    let read = read_layers::<S>(file, arch)?;
    let layers = &mut read.into_iter();
    match *arch {
        Arch::Vpff(v) => Ok(Built::FeedForward(assembled(
            file,
            arch,
            FeedForward::new(v.dim, layers.map(|layer| part(Some(layer))).collect()),
        )?)),
        Arch::Vpt(v) => {
            let per_block = (layers.len() / v.l.max(1)).saturating_sub(1);
            let blocks = blocks(file, arch, layers, v.l, per_block, v.dim)?;
            let net = assembled(file, arch, Transformer::new(v.dim, Some(v.seq), blocks))?;
            Ok(Built::Transformer(net))
        }
        Arch::St(s) => {
            let (dim, count) = (s.transformer_dim, s.l);
            let net = upscaled(file, arch, layers, dim, count, s.n_blocks + 1)?;
            Ok(Built::Standard(net))
        }
        Arch::Sympt(s) => {
            let (dim, count) = (s.transformer_dim, 2 * s.l);
            let net = upscaled(file, arch, layers, dim, count, s.n_sympnet)?;
            Ok(Built::Symplectic(net))
        }
        Arch::LinSympt(s) => {
            let blocks = blocks(file, arch, layers, 2 * s.l, s.n_sympnet, s.dim)?;
            let net = assembled(file, arch, Transformer::new(s.dim, Some(s.seq), blocks))?;
            Ok(Built::LinearSymplectic(net))
        }
        Arch::Ct(_) => Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: "is a classifier, not an integrator: use `geomattn classify` \
                     (`geomattn_networks::classify`, Python's `load_classifier`)"
                .into(),
        }),
    }
}

/// Reads `file` as `arch` (an integrator or a classifier) on the run-time engine, in the scalar
/// `S`, to check that it holds that network: what the blob export reads before it writes.
///
/// # Errors
/// As [`open`] and [`crate::classify::open`].
pub(crate) fn read_as<S: Field + RealField>(file: &GmlFile, arch: &Arch) -> Result<(), Error> {
    match arch {
        Arch::Ct(_) => classifier::<S>(file, arch).map(drop),
        _ => built::<S>(file, arch).map(drop),
    }
}

/// `file` read as the classifier `arch` on the run-time engine, in the scalar `S`.
///
/// # Errors
/// [`Error::Unsupported`] if `arch` is not a classifier; as [`open`] otherwise.
pub(crate) fn classifier<S: Field + RealField>(
    file: &GmlFile,
    arch: &Arch,
) -> Result<ClassificationTransformer<S>, Error> {
    let Arch::Ct(c) = arch else {
        return Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: "is not a classifier (give `classification_transformer(…)`)".into(),
        });
    };
    let read = read_layers::<S>(file, arch)?;
    let layers = &mut read.into_iter();
    let blocks = blocks(file, arch, layers, c.l, 1, c.dim)?;
    let blocks = assembled(file, arch, Transformer::new(c.dim, None, blocks))?;
    let head = part(layers.next());
    assembled(file, arch, ClassificationTransformer::new(blocks, head))
}

/// GML's chain from `layers` with `count` blocks of dimension `dim` ([`blocks`]), between a map
/// up to `dim` and one back down where `dim` is not `arch`'s.
fn upscaled<S, Map, Att, L>(
    file: &GmlFile,
    arch: &Arch,
    layers: &mut impl Iterator<Item = Read<S>>,
    dim: usize,
    count: usize,
    per_block: usize,
) -> Result<Upscaled<Map, Transformer<Att, FeedForward<L>>>, Error>
where
    S: Field + RealField,
    Map: Part<S> + Upscaling<S>,
    Att: Part<S> + BlockAttention<S>,
    L: Part<S> + StackLayer<S>,
{
    let maps = dim != arch.dim();
    let up = maps.then(|| part(layers.next()));
    let blocks = blocks(file, arch, layers, count, per_block, dim)?;
    let inner = assembled(file, arch, Transformer::new(dim, None, blocks))?;
    let down = maps.then(|| part(layers.next()));
    assembled(file, arch, Upscaled::new(up, inner, down))
}

/// `count` blocks of GML's chain from `layers`: each an attention layer, then the `per_block`
/// layers of its feed-forward part, of dimension `dim`.
fn blocks<S: Field + RealField, Att: Part<S>, L: Part<S> + StackLayer<S>>(
    file: &GmlFile,
    arch: &Arch,
    layers: &mut impl Iterator<Item = Read<S>>,
    count: usize,
    per_block: usize,
    dim: usize,
) -> Result<Vec<(Att, FeedForward<L>)>, Error> {
    (0..count)
        .map(|_| {
            let attention = part(layers.next());
            let stack = layers
                .by_ref()
                .take(per_block)
                .map(Some)
                .map(part)
                .collect();
            Ok((
                attention,
                assembled(file, arch, FeedForward::new(dim, stack))?,
            ))
        })
        .collect()
}

impl<S: Scalar> Engine<S> {
    fn open(file: &GmlFile, arch: &Arch) -> Result<Self, Error> {
        match built(file, arch)? {
            Built::FeedForward(net) => Ok(Self::of(arch, net)),
            Built::Transformer(net) => Ok(Self::of(arch, net)),
            Built::Standard(net) => Ok(Self::of(arch, net)),
            Built::Symplectic(net) => Ok(Self::of(arch, net)),
            Built::LinearSymplectic(net) => Ok(Self::of(arch, net)),
        }
    }

    /// `net`, and (for batches) its lane twins.
    fn of<Net>(arch: &Arch, net: Net) -> Self
    where
        Net: Forward<S> + MapScalar<Scalar = S> + Send + Sync + 'static,
        Net::Over<S::Lanes>: Forward<S::Lanes> + Send + Sync + 'static,
        Net::Over<S::FastLanes>: Forward<S::FastLanes> + Send + Sync + 'static,
    {
        Self {
            arch: *arch,
            lanes: Box::new(net.map_scalar(<S::Lanes as geomattn::engine::LanesOf<S>>::broadcast)),
            fast: Box::new(
                net.map_scalar(<S::FastLanes as geomattn::engine::LanesOf<S>>::broadcast),
            ),
            net: Box::new(net),
            shape: (arch.dim(), arch.seq()),
        }
    }

    /// A flat column-major window in `f64` as a matrix in `S`.
    fn window(&self, values: &[f64]) -> DMatrix<S> {
        let (dim, seq) = self.shape;
        DMatrix::from_iterator(dim, seq, values.iter().map(|&x| S::from_double(x)))
    }
}

/// The structure `arch` promises, measured on the network in `file` on the engine, over `samples`
/// random inputs from `seed`: what [`crate::check`] measures. The Jacobians are exact, by
/// forward-mode dual numbers (`num-dual`'s [`Dual64`]): the engine's layers over `Dual64`, one
/// pass per input and per entry of it (the whole Jacobian of the map at once, with no separate
/// code for any layer's derivative).
///
/// # Errors
/// As [`crate::check`].
pub fn check(
    file: &GmlFile,
    arch: &Arch,
    samples: usize,
    seed: u64,
) -> Result<Vec<Measurement>, Error> {
    check_sampled(file, arch, &Sampling::new(samples, seed, &|| false)?)
}

/// [`check`] on the inputs of `sampling`.
pub(crate) fn check_sampled(
    file: &GmlFile,
    arch: &Arch,
    sampling: &Sampling,
) -> Result<Vec<Measurement>, Error> {
    Ok(match built::<Dual64>(file, arch)? {
        Built::FeedForward(net) => {
            let dim = net.input_shape().0;
            let worst = sampling
                .inputs_of(dim, 1)
                .map(|z| {
                    let (y, jac) = jacobian(&net, &z);
                    let error = (jac.determinant() - 1.0).abs();
                    if finite(&y) { error } else { f64::NAN }
                })
                .fold(0.0, worse);
            feed_forward_measurements(worst)
        }
        Built::Transformer(net) => {
            let (dim, seq) = (net.input_shape().0, net.input_shape().1.unwrap_or(1));
            let (mut orthogonality, mut feed_forward, mut whole) = (0.0_f64, 0.0_f64, 0.0_f64);
            for z in sampling.inputs_of(dim, seq) {
                let mut x = z.map(Dual64::from_re);
                for (attention, ff) in net.blocks() {
                    let c = assembled(file, arch, attention.correlation(&x))?;
                    let lambda = assembled(file, arch, attention.cayley(&c))?.map(|q| q.re);
                    let identity = DMatrix::<f64>::identity(seq, seq);
                    let error = largest((lambda.transpose() * &lambda - identity).iter().copied());
                    orthogonality = worse(orthogonality, error);
                    let y = attention.forward_unchecked(&x);
                    for column in y.column_iter() {
                        let state = DMatrix::from_iterator(dim, 1, column.iter().map(|v| v.re));
                        let (_, jac) = jacobian(ff, &state);
                        feed_forward = worse(feed_forward, (jac.determinant() - 1.0).abs());
                    }
                    x = ff.forward_unchecked(&y);
                }
                // A network whose output is not finite fails every promise.
                let output_nan = if finite(&x.map(|v| v.re)) {
                    0.0
                } else {
                    f64::NAN
                };
                let (_, jac) = jacobian(&net, &z);
                whole = worse(worse(whole, output_nan), (jac.determinant() - 1.0).abs());
                orthogonality = worse(orthogonality, output_nan);
            }
            let skew_sym = matches!(arch, Arch::Vpt(v) if v.skew_sym);
            transformer_measurements((dim, seq), skew_sym, orthogonality, feed_forward, whole)
        }
        // Built to check that the file holds it; the architecture promises no structure.
        Built::Standard(_) => Vec::new(),
        Built::Symplectic(net) => symplectic(&net, net.blocks(), net.maps(), arch, sampling),
        Built::LinearSymplectic(net) => symplectic(&net, &net, None, arch, sampling),
    })
}

/// What a symplectic transformer `net` promises, measured: its `blocks` are symplectic on the
/// windows they see. With `maps` (a `PSDLayer` up and one down, for `transformer_dim ≠ dim`)
/// their `Φ` have orthonormal columns, and the whole map is measured too, not promised: `Φᵀ`
/// after `Φ` is a projection, so the whole map is symplectic only on the subspace the first
/// `PSDLayer` maps onto.
fn symplectic(
    net: &dyn Forward<Dual64>,
    blocks: &dyn Forward<Dual64>,
    maps: Option<(&PsdLayer<Dual64>, &PsdLayer<Dual64>)>,
    arch: &Arch,
    sampling: &Sampling,
) -> Vec<Measurement> {
    let (dim, seq) = (arch.dim(), arch.seq());
    let inner = blocks.input_shape().0;
    let (mut core, mut whole) = (0.0, 0.0);
    for z in sampling.inputs_of(dim, seq) {
        let x = match maps {
            Some((up, _)) => up.forward_unchecked(&z.map(Dual64::from_re)).map(|v| v.re),
            None => z.clone(),
        };
        let (y, jac) = jacobian(blocks, &x);
        core = worse(core, symplecticity(&jac, (inner, seq), finite(&y)));
        if maps.is_some() {
            let (y, jac) = jacobian(net, &z);
            whole = worse(whole, symplecticity(&jac, (dim, seq), finite(&y)));
        }
    }
    let Some((up, down)) = maps else {
        return vec![symplectic_measurement(
            "the whole map",
            (dim, seq),
            core,
            true,
        )];
    };
    let orthonormality = [up, down]
        .into_iter()
        .map(|map| {
            let phi = map.weight().map(|v| v.re);
            let identity = DMatrix::<f64>::identity(phi.ncols(), phi.ncols());
            largest((phi.transpose() * &phi - identity).iter().copied())
        })
        .fold(0.0, worse);
    vec![
        Measurement {
            property: "‖ΦᵀΦ − I‖_max of both PSDLayers' Φ (GML's Stiefel manifold)".into(),
            worst: orthonormality,
            // The bound the loaders hold GML's Stiefel weights to (they drift in training).
            tolerance: geomattn::STIEFEL_TOLERANCE,
            promised: true,
        },
        symplectic_measurement("the blocks' map", (inner, seq), core, true),
        symplectic_measurement("the whole map", (dim, seq), whole, false),
    ]
}

/// `net`'s output at `z` and its Jacobian (inputs and outputs flattened column-major), column `k`
/// from one pass with the dual part 1 at input `k`.
fn jacobian(net: &dyn Forward<Dual64>, z: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let n = z.len();
    let mut jac = DMatrix::zeros(n, n);
    let mut y = z.clone();
    for k in 0..n {
        let mut input = z.map(Dual64::from_re);
        input[k] = input[k].derivative();
        let out = net.forward_unchecked(&input);
        for (i, value) in out.iter().enumerate() {
            jac[(i, k)] = value.eps;
        }
        y = out.map(|v| v.re);
    }
    (y, jac)
}

fn finite(m: &DMatrix<f64>) -> bool {
    m.iter().all(|v| v.is_finite())
}

/// One layer as read, of each kind GML's chains have: `Read<S>` with a variant per engine
/// layer, and [`Part`] to take it out as its type.
macro_rules! read_layer {
    ($($layer:ident),* $(,)?) => {
        /// One layer as read.
        pub(crate) enum Read<S> {
            $($layer($layer<S>),)*
        }

        $(impl<S> Part<S> for $layer<S> {
            fn of(read: Read<S>) -> Option<Self> {
                match read {
                    Read::$layer(layer) => Some(layer),
                    _ => None,
                }
            }
        })*
    };
}

read_layer!(
    VolumePreservingAttention,
    VolumePreservingLayer,
    MultiHeadAttention,
    ResNetLayer,
    Dense,
    SymplecticAttention,
    LinearSymplecticAttention,
    GradientLayer,
    PsdLayer,
    ClassificationLayer,
);

/// A layer type of the engine, taken out of a [`Read`] layer.
trait Part<S>: Sized {
    /// The layer, if `read` is one of this type.
    fn of(read: Read<S>) -> Option<Self>;
}

/// The next layer of a chain, of the type its place in GML's chain has.
fn part<S, P: Part<S>>(read: Option<Read<S>>) -> P {
    read.and_then(P::of)
        .expect("the layers are read from the architecture's own chain")
}

/// Every layer of `file`, read as `arch`'s chain.
fn read_layers<S: Field + RealField>(file: &GmlFile, arch: &Arch) -> Result<Vec<Read<S>>, Error> {
    read_chain(file, arch, |layer, values| build(arch, layer, &values))
}

/// The values of every parameter of `file`, read as `arch`'s chain, one after the other in
/// GML's order (and checked: each layer is built from them): where training starts from a file.
pub(crate) fn read_values(file: &GmlFile, arch: &Arch) -> Result<Vec<f64>, Error> {
    let layers = read_chain(file, arch, |layer, values: Vec<Vec<f64>>| {
        build(arch, layer, &values).map(|_| values)
    })?;
    Ok(layers.into_iter().flatten().flatten().collect())
}

/// `make` of every layer of `file` (read as `arch`'s chain) and its parameters' values.
fn read_chain<S: Field + RealField, T>(
    file: &GmlFile,
    arch: &Arch,
    make: impl Fn(&Layer, Vec<Vec<S>>) -> Result<T, geomattn::Error>,
) -> Result<Vec<T>, Error> {
    let chain = layout::layers(arch);
    let read = || -> Result<Vec<T>, LoadError> {
        let nodes = file.layers()?;
        if nodes.len() != chain.len() {
            return Err(LoadError::LayerCount {
                expected: chain.len(),
                found: nodes.len(),
            });
        }
        nodes
            .iter()
            .zip(&chain)
            .map(|(node, layer)| {
                let values = parameters(node, layer)?;
                make(layer, values).map_err(|source| LoadError::Invalid {
                    path: node.path().into(),
                    source: source.into(),
                })
            })
            .collect()
    };
    read().map_err(|source| load_error(file, arch, source))
}

/// A network assembled from layers read from `file`: an error is one of the file's (the layers
/// are built from `arch`'s chain, so their sizes agree).
fn assembled<T>(
    file: &GmlFile,
    arch: &Arch,
    network: Result<T, geomattn::Error>,
) -> Result<T, Error> {
    network.map_err(|source| {
        let path = file.name().into();
        load_error(
            file,
            arch,
            LoadError::Invalid {
                path,
                source: source.into(),
            },
        )
    })
}

/// The values of `layer`'s parameters in the group `node`, in order; anything else there is
/// refused.
fn parameters<S: Field + RealField>(node: &Node, layer: &Layer) -> Result<Vec<Vec<S>>, LoadError> {
    for (name, _) in node.entries()? {
        if !layer
            .parameters
            .iter()
            .any(|p| p.name.split('/').next() == Some(&name))
        {
            node.reject(&name)?;
        }
    }
    layer
        .parameters
        .iter()
        .map(|p| {
            let (kind, rows, cols) = p.values.kind();
            node.parameter(&p.name, kind, rows, cols)
        })
        .collect()
}

/// The engine's layer `layer` of `arch`'s chain, from its parameters' values.
pub(crate) fn build<S: Field + RealField>(
    arch: &Arch,
    layer: &Layer,
    values: &[Vec<S>],
) -> Result<Read<S>, geomattn::Error> {
    match layer.op {
        Op::VolumePreserving {
            dim,
            upper,
            activation,
            bias,
        } => {
            let bias = bias.then(|| values[1].as_slice());
            let layer = if upper {
                VolumePreservingLayer::upper(dim, &values[0], bias, activation)
            } else {
                VolumePreservingLayer::lower(dim, &values[0], bias, activation)
            };
            Ok(Read::VolumePreservingLayer(layer?))
        }
        Op::VolumePreservingAttention { dim, seq, skew_sym } => {
            let attention = if skew_sym {
                VolumePreservingAttention::skew_sym(dim, seq, &values[0])
            } else {
                VolumePreservingAttention::arbitrary(dim, seq, &values[0])
            };
            Ok(Read::VolumePreservingAttention(attention?))
        }
        Op::ResNet { dim, activation } => Ok(Read::ResNetLayer(ResNetLayer::new(
            dim,
            &values[0],
            Some(&values[1]),
            activation,
        )?)),
        Op::Dense {
            inputs,
            outputs,
            activation,
        } => Ok(Read::Dense(Dense::new(
            inputs,
            outputs,
            &values[0],
            Some(&values[1]),
            activation,
        )?)),
        Op::MultiHeadAttention {
            dim,
            heads,
            stiefel,
            add_connection,
            softmax,
        } => {
            // `PQ`, `PK`, `PV`, each head by head (the chain's order).
            let projections: Vec<&[S]> = values.iter().map(Vec::as_slice).collect();
            let (query, rest) = projections.split_at(heads);
            let (key, value) = rest.split_at(heads);
            let softmax = softmax_function(softmax.unwrap_or(AttentionActivation::VectorSoftmax));
            let layer =
                MultiHeadAttention::new(dim, heads, query, key, value, softmax, add_connection)?;
            if stiefel {
                // As the compile-time loaders hold GML's Stiefel weights.
                layer.check_stiefel(geomattn::nalgebra::convert(geomattn::STIEFEL_TOLERANCE))?;
            }
            Ok(Read::MultiHeadAttention(layer))
        }
        Op::Gradient {
            dim,
            upscaling_dimension,
            activation,
            side,
        } => Ok(Read::GradientLayer(GradientLayer::new(
            side,
            dim,
            upscaling_dimension,
            &values[0],
            &values[1],
            &values[2],
            activation,
        )?)),
        Op::SymplecticAttention {
            dim, side, softmax, ..
        } => {
            let softmax = softmax_function(softmax);
            let a = &values[0];
            let kick = match arch {
                Arch::Sympt(s) => s.symmetric,
                _ => unreachable!("only a symplectic transformer has symplectic attention"),
            };
            Ok(Read::SymplecticAttention(match kick {
                None => SymplecticAttention::arbitrary(side, dim, a, softmax),
                Some(Kick::Gml) => SymplecticAttention::symmetric_gml(side, dim, a, softmax),
                Some(Kick::Exact) => SymplecticAttention::symmetric(side, dim, a, softmax),
            }?))
        }
        Op::LinearSymplecticAttention { dim, seq, side } => Ok(Read::LinearSymplecticAttention(
            LinearSymplecticAttention::new(side, dim, seq, &values[0])?,
        )),
        Op::Psd { inputs, outputs } => {
            Ok(Read::PsdLayer(PsdLayer::new(inputs, outputs, &values[0])?))
        }
        Op::Classification { dim, classes } => Ok(Read::ClassificationLayer(
            ClassificationLayer::new(dim, classes, &values[0])?,
        )),
    }
}

/// The softmax GML's `attention_activation` names.
fn softmax_function(softmax: AttentionActivation) -> Softmax {
    match softmax {
        AttentionActivation::VectorSoftmax => Softmax::Vector,
        AttentionActivation::MatrixSoftmax => Softmax::Matrix,
    }
}

impl<S: Scalar> Network for Engine<S> {
    fn arch(&self) -> &Arch {
        &self.arch
    }

    fn precision(&self) -> Precision {
        S::PRECISION
    }

    fn forward(&self, window: &[f64]) -> Result<Vec<f64>, Error> {
        let (dim, seq) = self.shape;
        checked("the window", window, &self.arch, &[dim * seq])?;
        let y = self.net.forward_unchecked(&self.window(window));
        Ok(y.iter().map(|x| x.to_double()).collect())
    }

    fn states<'a>(
        &'a self,
        initial: &[f64],
    ) -> Result<Box<dyn Iterator<Item = Vec<f64>> + 'a>, Error> {
        let (dim, seq) = self.shape;
        checked("the initial window", initial, &self.arch, &[dim * seq])?;
        Ok(Box::new(States {
            engine: self,
            window: self.window(initial),
            next: 0,
            scratch: Scratch::new(),
        }))
    }
}

/// The stream of [`Network::states`]: the window whose states are handed out, and the next one's
/// index; when all are, the window is replaced by the network's output on it (GML's `iterate`
/// with the whole window as prediction window), and the buffers of the passes.
struct States<'a, S: Scalar> {
    engine: &'a Engine<S>,
    window: DMatrix<S>,
    next: usize,
    scratch: Scratch<S>,
}

impl<S: Scalar> Iterator for States<'_, S> {
    type Item = Vec<f64>;

    fn next(&mut self) -> Option<Vec<f64>> {
        if self.next == self.window.ncols() {
            (self.engine.net).forward_in_place(&mut self.window, &mut self.scratch);
            self.next = 0;
        }
        let state = self
            .window
            .column(self.next)
            .iter()
            .map(|x| x.to_double())
            .collect();
        self.next += 1;
        Some(state)
    }
}

mod batched {
    use geomattn::nalgebra::DMatrix;

    use geomattn::engine::forward_in_lanes;

    use super::Engine;
    use crate::batch::{
        Arithmetic, Batch, Layout, Windows, forward_windows, network_name, rollout_windows,
    };
    use crate::network::Scalar;

    /// Windows several at a time in lanes ([`forward_in_lanes`]): in `Exact`, each window's
    /// output bit for bit its scalar pass; in `Fast`, for `f32`, with the polynomial `exp` and
    /// `tanh` on the processor's own vectors ([`geomattn::engine::FastLanes`]).
    impl<S: Scalar> Windows<S> for Engine<S> {
        fn shape(&self) -> (usize, usize) {
            self.shape
        }

        fn run(
            &self,
            arithmetic: Arithmetic,
            input: &[S],
            output: &mut [S],
        ) -> Result<(), geomattn::Error> {
            match arithmetic {
                Arithmetic::Exact => {
                    forward_in_lanes(self.lanes.as_ref(), self.shape, input, output)
                }
                Arithmetic::Fast => forward_in_lanes(self.fast.as_ref(), self.shape, input, output),
            }
            Ok(())
        }

        fn forward_checked(&self, window: &[S], output: &mut [S]) -> Result<(), geomattn::Error> {
            let (dim, seq) = self.shape;
            let z = DMatrix::from_column_slice(dim, seq, window);
            output.copy_from_slice(self.net.forward_checked(&z)?.as_slice());
            Ok(())
        }
    }

    macro_rules! batch_methods {
        ($($forward:ident, $rollout:ident, $X:ty;)*) => {$(
            fn $forward(&self, input: &[$X], layout: Layout, output: &mut [$X], checked: bool,
                        arithmetic: Arithmetic) -> Result<(), geomattn::Error> {
                forward_windows(self, input, layout, output, checked, arithmetic)
            }
            fn $rollout(&self, initial: &[$X], layout: Layout, output: &mut [$X], checked: bool,
                        arithmetic: Arithmetic) -> Result<(), geomattn::Error> {
                rollout_windows(self, network_name(&self.arch), initial, layout, output, checked,
                                arithmetic)
            }
        )*};
    }

    impl<S: Scalar> Batch for Engine<S> {
        batch_methods! {
            forward_f32, rollout_f32, f32;
            forward_f64, rollout_f64, f64;
        }
    }
}
