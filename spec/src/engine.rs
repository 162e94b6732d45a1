//! Networks whose sizes are read from the file ([`geomattn::engine`]), for the architectures the
//! run-time engine has so far: the volume-preserving feed-forward network and transformer and the
//! standard transformer integrator, at any size GML allows, with every option. Built from GML's
//! chain as data ([`geomattn_arch::layout`]): each layer's parameters are read by the names and
//! shapes GML's `save` gives them, and a file that is not that chain is refused naming the first
//! difference.
//!
//! ```
//! use geomattn_spec::{Arch, Precision, engine};
//! use geomattn::gml::GmlFile;
//! let arch: Arch = "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)".parse()?;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/gml/transformer_rigid_body_nn_vpff.h5");
//! let net = engine::open(&GmlFile::open(path)?, &arch, Precision::F64)?;
//! let next = net.forward(&[0.0, 0.89, 0.45])?;
//! assert_eq!(next.len(), 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use geomattn::Field;
use geomattn::engine::{
    Dense, FeedForward, Forward, MultiHeadAttention, ResNetLayer, StandardTransformerIntegrator,
    Transformer, VolumePreservingAttention, VolumePreservingFeedForward, VolumePreservingLayer,
    VolumePreservingTransformer,
};
use geomattn::gml::{GmlFile, LoadError, Node};
use geomattn::nalgebra::{DMatrix, RealField};
use geomattn::softmax::Function as Softmax;
use geomattn_arch::AttentionActivation;
use geomattn_arch::layout::{self, Layer, Op};
use num_dual::Dual64;

use crate::dispatch::load_error;
use crate::network::{Precision, checked};
use crate::structure::{
    Sampling, feed_forward_measurements, largest, transformer_measurements, worse,
};
use crate::{Arch, Error, Measurement, Network, Scalar};

/// Whether the run-time engine has `arch`'s architecture.
pub fn runs(arch: &Arch) -> bool {
    matches!(arch, Arch::Vpt(_) | Arch::Vpff(_) | Arch::St(_))
}

/// Loads `file` as `arch` on the run-time engine, computing in `precision`.
///
/// # Errors
/// [`Error::Unsupported`] for an architecture the engine does not have yet ([`runs`]);
/// [`Error::Mismatch`] if the file's layers are not `arch`'s chain, [`Error::Load`] if a value
/// cannot be read as it.
pub fn open(file: &GmlFile, arch: &Arch, precision: Precision) -> Result<Box<dyn Network>, Error> {
    match precision {
        Precision::F32 => Ok(Box::new(Engine::<f32>::open(file, arch)?)),
        Precision::F64 => Ok(Box::new(Engine::<f64>::open(file, arch)?)),
    }
}

/// A network of run-time size with its architecture.
pub(crate) struct Engine<S> {
    arch: Arch,
    net: Box<dyn Forward<S> + Send + Sync>,
    /// `(dim, seq)` of a window (`seq = 1` for a feed-forward network).
    shape: (usize, usize),
}

/// A network of run-time size as built, its parts reachable (the structure check measures
/// them).
enum Built<S> {
    FeedForward(VolumePreservingFeedForward<S>),
    Transformer(VolumePreservingTransformer<S>),
    Standard(StandardTransformerIntegrator<S>),
}

/// `file` read as `arch`'s network, in the scalar `S`.
fn built<S: Field + RealField>(file: &GmlFile, arch: &Arch) -> Result<Built<S>, Error> {
    match *arch {
        Arch::Vpff(v) => {
            let layers = volume_preserving(read_layers(file, arch)?);
            let net = assembled(file, arch, FeedForward::new(v.dim, layers))?;
            Ok(Built::FeedForward(net))
        }
        Arch::Vpt(v) => {
            let mut layers = read_layers(file, arch)?.into_iter();
            let per_block = layers.len() / v.l.max(1);
            let mut blocks = Vec::with_capacity(v.l);
            for _ in 0..v.l {
                let mut block = layers.by_ref().take(per_block);
                let Some(Read::Attention(attention)) = block.next() else {
                    unreachable!("GML's chain starts each block with attention")
                };
                let feedforward = FeedForward::new(v.dim, volume_preserving(block));
                blocks.push((attention, assembled(file, arch, feedforward)?));
            }
            let net = assembled(file, arch, Transformer::new(v.dim, Some(v.seq), blocks))?;
            Ok(Built::Transformer(net))
        }
        Arch::St(s) => {
            let mut layers = read_layers(file, arch)?.into_iter();
            let upscaled = s.transformer_dim != s.dim;
            let dense = |layers: &mut dyn Iterator<Item = Read<S>>| match layers.next() {
                Some(Read::Dense(dense)) => dense,
                _ => unreachable!("GML's chain maps up first and down last"),
            };
            let up = upscaled.then(|| dense(&mut layers));
            let mut blocks = Vec::with_capacity(s.l);
            for _ in 0..s.l {
                let Some(Read::MultiHead(attention)) = layers.next() else {
                    unreachable!("GML's chain starts each block with attention")
                };
                let resnets = layers
                    .by_ref()
                    .take(s.n_blocks + 1)
                    .map(|layer| match layer {
                        Read::ResNet(layer) => layer,
                        _ => unreachable!("GML's block ends in ResNet layers"),
                    });
                let stack = assembled(
                    file,
                    arch,
                    FeedForward::new(s.transformer_dim, resnets.collect()),
                )?;
                blocks.push((attention, stack));
            }
            let down = upscaled.then(|| dense(&mut layers));
            let inner = assembled(
                file,
                arch,
                Transformer::new(s.transformer_dim, None, blocks),
            )?;
            let net = assembled(
                file,
                arch,
                StandardTransformerIntegrator::new(up, inner, down),
            )?;
            Ok(Built::Standard(net))
        }
        _ => Err(Error::Unsupported {
            arch: arch.to_string(),
            reason: "does not run on the run-time engine yet".into(),
        }),
    }
}

impl<S: Scalar> Engine<S> {
    fn open(file: &GmlFile, arch: &Arch) -> Result<Self, Error> {
        let (net, shape): (Box<dyn Forward<S> + Send + Sync>, _) = match built(file, arch)? {
            Built::FeedForward(net) => {
                let dim = net.input_shape().0;
                (Box::new(net), (dim, 1))
            }
            Built::Transformer(net) => {
                let (dim, seq) = net.input_shape();
                (Box::new(net), (dim, seq.unwrap_or(1)))
            }
            Built::Standard(net) => {
                let Arch::St(s) = arch else {
                    unreachable!("only a standard transformer is built as one")
                };
                (Box::new(net), (s.dim, s.seq))
            }
        };
        Ok(Self {
            arch: *arch,
            net,
            shape,
        })
    }

    /// A flat column-major window in `f64` as a matrix in `S`.
    fn window(&self, values: &[f64]) -> DMatrix<S> {
        let (dim, seq) = self.shape;
        DMatrix::from_iterator(dim, seq, values.iter().map(|&x| S::from_double(x)))
    }
}

/// The structure `arch` promises, measured on the network in `file` on the engine, over `samples`
/// random inputs from `seed`: the measurements of [`crate::check`], which takes the engine for
/// sizes no compiled network has, on the same inputs. The Jacobians are exact, by forward-mode
/// dual numbers (`num-dual`'s [`Dual64`]), one pass of the engine's layers per input (the engine
/// has no backward passes yet).
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
    })
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

/// One layer as read.
enum Read<S> {
    Attention(VolumePreservingAttention<S>),
    VolumePreserving(VolumePreservingLayer<S>),
    MultiHead(MultiHeadAttention<S>),
    ResNet(ResNetLayer<S>),
    Dense(Dense<S>),
}

/// The volume-preserving layers of `layers` (a feed-forward network's chain holds nothing else).
fn volume_preserving<S>(
    layers: impl IntoIterator<Item = Read<S>>,
) -> Vec<VolumePreservingLayer<S>> {
    layers
        .into_iter()
        .map(|layer| match layer {
            Read::VolumePreserving(layer) => layer,
            _ => unreachable!("GML's volume-preserving feed-forward chain has nothing else"),
        })
        .collect()
}

/// Every layer of `file`, read as `arch`'s chain.
fn read_layers<S: Field + RealField>(file: &GmlFile, arch: &Arch) -> Result<Vec<Read<S>>, Error> {
    let chain = layout::layers(arch);
    let read = || -> Result<Vec<Read<S>>, LoadError> {
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
                build(layer, &values).map_err(|source| LoadError::Invalid {
                    path: node.path().into(),
                    source,
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
        load_error(file, arch, LoadError::Invalid { path, source })
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

/// The engine's layer `layer`, from its parameters' values.
fn build<S: Field + RealField>(
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
            Ok(Read::VolumePreserving(layer?))
        }
        Op::VolumePreservingAttention { dim, seq, skew_sym } => {
            let attention = if skew_sym {
                VolumePreservingAttention::skew_sym(dim, seq, &values[0])
            } else {
                VolumePreservingAttention::arbitrary(dim, seq, &values[0])
            };
            Ok(Read::Attention(attention?))
        }
        Op::ResNet { dim, activation } => Ok(Read::ResNet(ResNetLayer::new(
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
            add_connection,
            softmax,
            ..
        } => {
            // `PQ`, `PK`, `PV`, each head by head (the chain's order).
            let projections: Vec<&[S]> = values.iter().map(Vec::as_slice).collect();
            let (query, rest) = projections.split_at(heads);
            let (key, value) = rest.split_at(heads);
            let softmax = match softmax.unwrap_or(AttentionActivation::VectorSoftmax) {
                AttentionActivation::VectorSoftmax => Softmax::Vector,
                AttentionActivation::MatrixSoftmax => Softmax::Matrix,
            };
            Ok(Read::MultiHead(MultiHeadAttention::new(
                dim,
                heads,
                query,
                key,
                value,
                softmax,
                add_connection,
            )?))
        }
        _ => unreachable!("only the chains of the engine's architectures are read (`runs`)"),
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
        }))
    }
}

/// The stream of [`Network::states`]: the window whose states are handed out, and the next one's
/// index; when all are, the window is replaced by the network's output on it (GML's `iterate`
/// with the whole window as prediction window).
struct States<'a, S> {
    engine: &'a Engine<S>,
    window: DMatrix<S>,
    next: usize,
}

impl<S: Scalar> Iterator for States<'_, S> {
    type Item = Vec<f64>;

    fn next(&mut self) -> Option<Vec<f64>> {
        if self.next == self.window.ncols() {
            self.window = self.engine.net.forward_unchecked(&self.window);
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

#[cfg(feature = "batch")]
mod batched {
    use geomattn::nalgebra::DMatrix;

    use super::Engine;
    use crate::Scalar;
    use crate::batch::{
        Arithmetic, Batch, Layout, Windows, forward_windows, network_name, rollout_windows,
    };

    /// The scalar path, window by window, whatever the arithmetic (the engine has no lane path
    /// yet).
    impl<S: Scalar> Windows<S> for Engine<S> {
        fn shape(&self) -> (usize, usize) {
            self.shape
        }

        fn run(&self, _: Arithmetic, input: &[S], output: &mut [S]) -> Result<(), geomattn::Error> {
            let (dim, seq) = self.shape;
            for (z, y) in input
                .chunks_exact(dim * seq)
                .zip(output.chunks_exact_mut(dim * seq))
            {
                let z = DMatrix::from_column_slice(dim, seq, z);
                y.copy_from_slice(self.net.forward_unchecked(&z).as_slice());
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
