//! Training on the run-time engine ([`geomattn::engine`]), at any size: the network as GML's
//! chain of its layers, each with its backward pass ([`geomattn::engine::Backward`]), its
//! parameters one flat vector in GML's order, stepped by one of GML's optimisers (the Stiefel
//! weights of the PSD layers on their manifold, [`ManifoldOptimizer`]) and written through the
//! layers' run-time types ([`GmlWriter::write_described`]).

use std::num::NonZeroU64;

use geomattn::engine::{
    Backward, Chain, Dense, Element, FastLanes, Forward, GradientLayer, LanesOf,
    LinearSymplecticAttention, MultiHeadAttention, PsdLayer, ResNetLayer, Scratch,
    SymplecticAttention, VolumePreservingAttention, VolumePreservingLayer,
};
use geomattn::gml::{GmlWriter, Storage};
use geomattn::init::{glorot_parameter, glorot_stiefel};
use geomattn::nalgebra::DMatrix;
use geomattn::schema::{OwnedLayerType, described};
use geomattn::train::{FlatOptimizer, ManifoldOptimizer, SquaredNorms};
use geomattn_arch::layout::{self, Layer, Op};
use rand::rngs::SmallRng;

use super::{Optimizer, Options, Trainee, train_error};
use crate::dispatch::read;
use crate::engine::{Read, build, read_values};
use crate::error::Error;
use crate::export::{kick, layer_type};
use geomattn::{Field, Kind, MapScalar};
use geomattn_arch::Arch;

/// The windows of a minibatch run eight at a time, one per lane of an AVX-512 vector (two AVX2
/// ones), with the vectorised `tanh`, `exp` and sigmoid and fused products ([`FastLanes`]).
const LANES: usize = 8;
type Lane = FastLanes<f64, LANES>;

/// A layer of the engine that has a backward pass: the layers of the networks trained here.
#[derive(Debug, Clone)]
enum Trainable<S> {
    Attention(VolumePreservingAttention<S>),
    VolumePreserving(VolumePreservingLayer<S>),
    ResNet(ResNetLayer<S>),
    Dense(Dense<S>),
    MultiHead(MultiHeadAttention<S>),
    Symplectic(SymplecticAttention<S>),
    LinearSymplectic(LinearSymplecticAttention<S>),
    Gradient(GradientLayer<S>),
    Psd(PsdLayer<S>),
}

/// Calls `$call` on the layer inside a [`Trainable`].
macro_rules! each {
    ($trainable:expr, $layer:ident => $call:expr) => {
        match $trainable {
            Trainable::Attention($layer) => $call,
            Trainable::VolumePreserving($layer) => $call,
            Trainable::ResNet($layer) => $call,
            Trainable::Dense($layer) => $call,
            Trainable::MultiHead($layer) => $call,
            Trainable::Symplectic($layer) => $call,
            Trainable::LinearSymplectic($layer) => $call,
            Trainable::Gradient($layer) => $call,
            Trainable::Psd($layer) => $call,
        }
    };
}

impl<S> Trainable<S> {
    /// The layer read, if it has a backward pass.
    fn of(read: Read<S>) -> Option<Self> {
        match read {
            Read::VolumePreservingAttention(l) => Some(Self::Attention(l)),
            Read::VolumePreservingLayer(l) => Some(Self::VolumePreserving(l)),
            Read::ResNetLayer(l) => Some(Self::ResNet(l)),
            Read::Dense(l) => Some(Self::Dense(l)),
            Read::MultiHeadAttention(l) => Some(Self::MultiHead(l)),
            Read::SymplecticAttention(l) => Some(Self::Symplectic(l)),
            Read::LinearSymplecticAttention(l) => Some(Self::LinearSymplectic(l)),
            Read::GradientLayer(l) => Some(Self::Gradient(l)),
            Read::PsdLayer(l) => Some(Self::Psd(l)),
            _ => None,
        }
    }
}

impl<S: Field> MapScalar for Trainable<S> {
    type Scalar = S;
    type Over<X: Field> = Trainable<X>;

    fn map_scalar<X: Field>(&self, f: impl FnMut(S) -> X) -> Trainable<X> {
        match self {
            Self::Attention(l) => Trainable::Attention(l.map_scalar(f)),
            Self::VolumePreserving(l) => Trainable::VolumePreserving(l.map_scalar(f)),
            Self::ResNet(l) => Trainable::ResNet(l.map_scalar(f)),
            Self::Dense(l) => Trainable::Dense(l.map_scalar(f)),
            Self::MultiHead(l) => Trainable::MultiHead(l.map_scalar(f)),
            Self::Symplectic(l) => Trainable::Symplectic(l.map_scalar(f)),
            Self::LinearSymplectic(l) => Trainable::LinearSymplectic(l.map_scalar(f)),
            Self::Gradient(l) => Trainable::Gradient(l.map_scalar(f)),
            Self::Psd(l) => Trainable::Psd(l.map_scalar(f)),
        }
    }
}

impl<S: Element> Forward<S> for Trainable<S> {
    fn name(&self) -> &'static str {
        each!(self, l => l.name())
    }

    fn input_shape(&self) -> (usize, Option<usize>) {
        each!(self, l => l.input_shape())
    }

    fn forward_in_place(&self, z: &mut DMatrix<S>, scratch: &mut Scratch<S>) {
        each!(self, l => l.forward_in_place(z, scratch));
    }
}

impl<S: Element> Backward<S> for Trainable<S> {
    fn parameter_count(&self) -> usize {
        each!(self, l => l.parameter_count())
    }

    fn backward_in_place(
        &self,
        z: &DMatrix<S>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        each!(self, l => l.backward_in_place(z, bar, gradient, scratch));
    }

    fn forward_keeping(
        &self,
        z: &mut DMatrix<S>,
        kept: &mut Vec<DMatrix<S>>,
        scratch: &mut Scratch<S>,
    ) {
        each!(self, l => l.forward_keeping(z, kept, scratch));
    }

    fn backward_kept(
        &self,
        kept: &mut Vec<DMatrix<S>>,
        bar: &mut DMatrix<S>,
        gradient: &mut [S],
        scratch: &mut Scratch<S>,
    ) {
        each!(self, l => l.backward_kept(kept, bar, gradient, scratch));
    }
}

/// Whether every layer of `arch`'s chain trains on the engine: has a backward pass
/// ([`has_backward`]), and a run-time type to be written as ([`written_types`]).
pub(super) fn trains(arch: &Arch) -> bool {
    // One unit's layers are of the kinds of all units' (and, for a large `L`, what can be built
    // before `fits` has checked the whole).
    let unit = one_unit(arch);
    written_types(&unit).is_some() && layout::layers(&unit).iter().all(has_backward)
}

/// Whether `layer` has a backward pass on the engine (every integrator's layers have).
fn has_backward(layer: &Layer) -> bool {
    matches!(
        layer.op,
        Op::VolumePreservingAttention { .. }
            | Op::VolumePreserving { .. }
            | Op::ResNet { .. }
            | Op::Dense { .. }
            | Op::MultiHeadAttention { .. }
            | Op::SymplecticAttention { .. }
            | Op::LinearSymplecticAttention { .. }
            | Op::Gradient { .. }
            | Op::Psd { .. }
    )
}

/// Why `arch` does not train ([`trains`] is false): its first layer without a backward pass.
pub(super) fn untrainable(arch: &Arch) -> Error {
    let reason = match layout::layers(&one_unit(arch))
        .into_iter()
        .find(|layer| !has_backward(layer))
    {
        Some(layer) => format!("its {} has no backward pass yet", layer.op),
        None => "a layer of it cannot be written in GML's file yet".into(),
    };
    Error::Unsupported {
        arch: arch.to_string(),
        reason,
    }
}

/// The run-time type of every layer of `arch`'s chain, as the trained file records them: the
/// compile-time types' ([`layer_type`]), AbstractNeuralNetworks' `Dense` and GML's `PSDLayer`.
fn written_types(arch: &Arch) -> Option<Vec<OwnedLayerType>> {
    let kick = kick(arch);
    layout::layers(arch)
        .iter()
        .map(|layer| match layer.op {
            Op::Dense {
                inputs,
                outputs,
                activation,
            } => Some(described::dense(inputs, outputs, activation.name())),
            Op::Psd { inputs, outputs } => Some(described::psd_layer(inputs, outputs)),
            ref op => layer_type(op, kick),
        })
        .collect()
}

/// `arch` with one transformer unit (`L = 1`).
fn one_unit(arch: &Arch) -> Arch {
    let mut unit = *arch;
    match &mut unit {
        Arch::Vpt(v) => v.l = 1,
        Arch::St(s) => s.l = 1,
        Arch::Ct(c) => c.l = 1,
        Arch::Sympt(s) => s.l = 1,
        Arch::LinSympt(s) => s.l = 1,
        Arch::Vpff(_) => {}
    }
    unit
}

/// Refuses a network whose training cannot be allocated, before anything is: per unit its
/// layers and their parameters (the values, the gradient, two optimiser caches and the
/// optimiser's coordinates, the layers built from them at each step, a Stiefel weight's `N×N`
/// section), and the layers' inputs a window's backward pass keeps. The
/// allocator is asked for the sum (and gives it back at once): under a memory limit, or past
/// what the system can map, the answer is no, where the same allocation in pieces would abort
/// the process.
fn fits(arch: &Arch, minibatch: usize) -> Result<(), Error> {
    let unit = layout::layers(&one_unit(arch));
    let parameters: usize = unit
        .iter()
        .flat_map(|l| &l.parameters)
        .map(|p| match p.values.kind() {
            (Kind::Stiefel, rows, _) => p.values.len().saturating_add(rows.saturating_mul(rows)),
            _ => p.values.len(),
        })
        .sum();
    let window = arch.dim() * arch.seq();
    let per_unit = unit
        .len()
        .checked_mul(size_of::<Layer>() + size_of::<Trainable<f64>>() + window * size_of::<f64>());
    let bytes = per_unit
        .and_then(|b| b.checked_add(parameters.checked_mul(8 * size_of::<f64>())?))
        .and_then(|b| b.checked_mul(arch.units()))
        .and_then(|b| b.checked_add(minibatch.checked_mul(2 * window * size_of::<f64>())?));
    if bytes.is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok()) {
        return Ok(());
    }
    #[allow(clippy::cast_precision_loss)]
    let gigabytes = bytes.map_or(f64::INFINITY, |b| b as f64 / 1e9);
    Err(train_error(format!(
        "L = {} units need {gigabytes:.3e} GB to train on minibatches of {minibatch} windows \
         (weights, optimiser state, activations), more than can be allocated",
        arch.units()
    )))
}

/// A network in training on the engine.
pub(super) struct ChainTraining {
    arch: Arch,
    chain: Vec<Layer>,
    types: Vec<OwnedLayerType>,
    /// Every parameter, in GML's order.
    parameters: Vec<f64>,
    gradient: Vec<f64>,
    /// The gradient of each lane's windows.
    lane_gradient: Vec<Lane>,
    optimizer: ManifoldOptimizer<f64>,
    /// The state dimension and the states per window.
    window: (usize, usize),
    scratch: Scratch<Lane>,
}

impl ChainTraining {
    /// The network's initial weights (Glorot-uniform from `rng`, drawn parameter by parameter
    /// in GML's order as the compile-time networks draw them, the Stiefel ones then
    /// orthonormalised as GML's `PSDLayer` does; or [`Options::initial`]) and its optimiser
    /// (with the Stiefel weights' global sections drawn from `rng`).
    pub(super) fn start(
        arch: &Arch,
        options: &Options,
        decay_epochs: NonZeroU64,
        minibatch: usize,
        rng: &mut SmallRng,
    ) -> Result<Box<dyn Trainee>, Error> {
        fits(arch, minibatch)?;
        let chain = layout::layers(arch);
        let types = written_types(arch)
            .ok_or_else(|| train_error(format!("{arch} has a layer that cannot be written yet")))?;
        let parameters = match &options.initial {
            Some(path) => read_values(&read(path)?, arch)?,
            None => glorot(&chain, rng),
        };
        let len = parameters.len();
        let eta = options.learning_rate;
        let layout: Vec<_> = chain
            .iter()
            .flat_map(|layer| &layer.parameters)
            .map(|p| p.values.kind())
            .collect();
        let optimizer =
            ManifoldOptimizer::new(&layout, &parameters, rng, |len| match options.optimizer {
                Optimizer::Adam => FlatOptimizer::adam(len, eta),
                Optimizer::AdamWithDecay => FlatOptimizer::adam_with_decay(len, decay_epochs, eta),
                Optimizer::Momentum => FlatOptimizer::momentum(len, eta),
                Optimizer::Gradient => FlatOptimizer::gradient(len, eta),
            })
            .map_err(|e| train_error(e.to_string()))?;
        Ok(Box::new(Self {
            arch: *arch,
            chain,
            types,
            gradient: vec![0.0; len],
            lane_gradient: vec![Lane::broadcast(0.0); len],
            parameters,
            optimizer,
            window: (arch.dim(), arch.seq()),
            scratch: Scratch::new(),
        }))
    }

    /// The network of the current parameters.
    fn network(&self) -> Result<Chain<Trainable<f64>>, geomattn::Error> {
        let mut rest = self.parameters.as_slice();
        let mut layers = Vec::with_capacity(self.chain.len());
        for layer in &self.chain {
            let values: Vec<Vec<f64>> = layer
                .parameters
                .iter()
                .map(|p| {
                    let (kind, rows, cols) = p.values.kind();
                    let (these, after) = rest.split_at(kind.len(rows, cols));
                    rest = after;
                    these.to_vec()
                })
                .collect();
            let read = build(&self.arch, layer, &values)?;
            layers.push(Trainable::of(read).expect("`trains` checked every layer"));
        }
        Ok(Chain::new(layers))
    }
}

/// Glorot-uniform values of every parameter of `chain`, in GML's order (biases zero; Stiefel
/// weights orthonormalised, [`glorot_stiefel`]).
fn glorot(chain: &[Layer], rng: &mut SmallRng) -> Vec<f64> {
    let mut values = Vec::new();
    for parameter in chain.iter().flat_map(|layer| &layer.parameters) {
        let (kind, rows, cols) = parameter.values.kind();
        let start = values.len();
        values.resize(start + kind.len(rows, cols), 0.0);
        let bias = parameter.name.split('/').next() == Some("bias");
        let out = &mut values[start..];
        if kind == Kind::Stiefel {
            glorot_stiefel(rows, cols, rng, out);
        } else {
            glorot_parameter((kind, rows, cols), bias, rng, out);
        }
    }
    values
}

impl Trainee for ChainTraining {
    /// [`LANES`] windows at a time (the last group filled up with copies of its first window,
    /// whose cotangents are zero): one forward pass keeping each layer's input, the residual
    /// `O − Y` as the cotangent, the backward pass; the lanes' gradients summed, and the loss's
    /// factor `1/(‖O − Y‖ ‖Y‖)` applied once at the end.
    fn step(&mut self, inputs: &[f64], targets: &[f64]) -> Result<f64, geomattn::Error> {
        let twin = self.network()?.map_scalar(Lane::broadcast);
        let (dim, seq) = self.window;
        let per_window = dim * seq;
        let mut norms = SquaredNorms::new();
        self.lane_gradient.fill(Lane::broadcast(0.0));
        let scratch = &mut self.scratch;
        let group = LANES * per_window;
        for (x, y) in inputs.chunks(group).zip(targets.chunks(group)) {
            let count = x.len() / per_window;
            let mut z = scratch.zeros(dim, seq);
            for (at, lanes) in z.iter_mut().enumerate() {
                *lanes = Lane::gather(|k| x[if k < count { k } else { 0 } * per_window + at]);
            }
            let residual = |out: &mut DMatrix<Lane>| {
                let (mut residual, mut target) = ([0.0; LANES], [0.0; LANES]);
                for (at, o) in out.iter_mut().enumerate() {
                    let mut r = [0.0; LANES];
                    o.scatter(|k, value| {
                        if k < count {
                            let y = y[k * per_window + at];
                            r[k] = value - y;
                            residual[k] += r[k] * r[k];
                            target[k] += y * y;
                        }
                    });
                    *o = Lane::gather(|k| r[k]);
                }
                for k in 0..count {
                    norms.add(residual[k], target[k]);
                }
            };
            let z_bar = twin.backward_from_output(&z, residual, &mut self.lane_gradient, scratch);
            scratch.recycle(z_bar);
            scratch.recycle(z);
        }
        let (loss, factor) = norms.loss_and_factor()?;
        for (g, lanes) in self.gradient.iter_mut().zip(&self.lane_gradient) {
            let mut sum = 0.0;
            lanes.scatter(|_, value| sum += value);
            *g = sum * factor;
        }
        self.optimizer.step(&mut self.parameters, &self.gradient)?;
        Ok(loss)
    }

    fn file(&self, storage: Storage) -> Result<Vec<u8>, Error> {
        let train_error = |e: geomattn::gml::SaveError| train_error(e.to_string());
        let mut writer = GmlWriter::new(storage);
        writer
            .write_described(&self.types, &self.parameters)
            .map_err(train_error)?;
        writer.finish().map_err(train_error)
    }
}
