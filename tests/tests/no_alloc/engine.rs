//! The run-time engine's forward passes allocate nothing once their buffers
//! ([`Scratch`]) have seen a window, for a network of every architecture (and every kick and
//! map up and down); and a batch in lanes allocates as often for 400 windows as for 8.

use std::cell::Cell;

use geomattn::activation::Function;
use geomattn::engine::{
    Batched, Dense, FeedForward, Forward, GradientLayer, LanesOf, LinearSymplecticAttention,
    MultiHeadAttention, PsdLayer, ResNetLayer, Scratch, SymplecticAttention, Transformer, Upscaled,
    VolumePreservingAttention, VolumePreservingLayer, forward_in_lanes,
};
use geomattn::nalgebra::DMatrix;
use geomattn::softmax::Function as Softmax;
use geomattn::symplectic::Side;
use geomattn::{Error, MapScalar};

use crate::{ALLOCATIONS, Probe};

/// `n` values of order one from `seed`.
fn values(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i + 7 * seed) as f64 * 0.731).sin() * 0.5)
        .collect()
}

/// The slices of `m`'s vectors.
fn slices(m: &[Vec<f64>]) -> Vec<&[f64]> {
    m.iter().map(Vec::as_slice).collect()
}

/// The lanes of `f64` batches.
type Lanes = <f64 as Batched>::Lanes;

/// `f` of a network of every architecture: its name, the network, its lane twin, its input shape.
fn each_network(
    mut f: impl FnMut(&'static str, &dyn Forward<f64>, &dyn Forward<Lanes>, (usize, usize)),
) -> Result<(), Error> {
    let v = values;
    let vpt = Transformer::new(
        5,
        Some(6),
        vec![
            (
                VolumePreservingAttention::arbitrary(5, 6, &v(25, 1))?,
                FeedForward::new(
                    5,
                    vec![
                        VolumePreservingLayer::lower(
                            5,
                            &v(10, 2),
                            Some(&v(5, 3)),
                            Function::Sigmoid,
                        )?,
                        VolumePreservingLayer::upper(5, &v(10, 4), None, Function::Tanh)?,
                    ],
                )?,
            ),
            (
                VolumePreservingAttention::skew_sym(5, 6, &v(10, 5))?,
                FeedForward::new(
                    5,
                    vec![VolumePreservingLayer::lower(
                        5,
                        &v(10, 6),
                        None,
                        Function::Relu,
                    )?],
                )?,
            ),
        ],
    )?;
    // GML's tutorial standard transformer: Dense up to 20, five heads, Dense down.
    let heads = |seed: usize| (0..5).map(|h| v(20 * 4, seed + h)).collect::<Vec<_>>();
    let (q, k, w) = (heads(10), heads(20), heads(30));
    let sti = Upscaled::new(
        Some(Dense::new(
            2,
            20,
            &v(40, 40),
            Some(&v(20, 41)),
            Function::Tanh,
        )?),
        Transformer::new(
            20,
            None,
            vec![(
                MultiHeadAttention::new(
                    20,
                    5,
                    &slices(&q),
                    &slices(&k),
                    &slices(&w),
                    Softmax::Vector,
                    true,
                )?,
                FeedForward::new(
                    20,
                    vec![ResNetLayer::new(
                        20,
                        &v(400, 42),
                        Some(&v(20, 43)),
                        Function::Tanh,
                    )?],
                )?,
            )],
        )?,
        Some(Dense::new(20, 2, &v(40, 44), None, Function::Identity)?),
    )?;
    let gradient = |side, seed| {
        GradientLayer::new(
            side,
            8,
            16,
            &v(32, seed),
            &v(8, seed + 1),
            &v(8, seed + 2),
            Function::Tanh,
        )
    };
    let symplectic = Upscaled::new(
        Some(PsdLayer::new(4, 8, &v(8, 50))?),
        Transformer::new(
            8,
            None,
            vec![
                (
                    SymplecticAttention::symmetric_gml(Side::Q, 8, &v(10, 51), Softmax::Vector)?,
                    FeedForward::new(8, vec![gradient(Side::Q, 52)?, gradient(Side::P, 55)?])?,
                ),
                (
                    SymplecticAttention::arbitrary(Side::P, 8, &v(16, 58), Softmax::Vector)?,
                    FeedForward::new(8, vec![gradient(Side::Q, 59)?])?,
                ),
                (
                    SymplecticAttention::symmetric(Side::Q, 8, &v(10, 62), Softmax::Vector)?,
                    FeedForward::new(8, vec![gradient(Side::P, 63)?])?,
                ),
            ],
        )?,
        Some(PsdLayer::new(8, 4, &v(8, 66))?),
    )?;
    let gradient = |side, seed| {
        GradientLayer::new(
            side,
            4,
            20,
            &v(20, seed),
            &v(10, seed + 1),
            &v(10, seed + 2),
            Function::Tanh,
        )
    };
    let linear = Transformer::new(
        4,
        Some(5),
        vec![(
            LinearSymplecticAttention::new(Side::Q, 4, 5, &v(15, 70))?,
            FeedForward::new(4, vec![gradient(Side::Q, 71)?, gradient(Side::P, 74)?])?,
        )],
    )?;
    f(
        "VolumePreservingTransformer",
        &vpt,
        &vpt.map_scalar(Lanes::broadcast),
        (5, 6),
    );
    f(
        "StandardTransformerIntegrator",
        &sti,
        &sti.map_scalar(Lanes::broadcast),
        (2, 4),
    );
    let twin = symplectic.map_scalar(Lanes::broadcast);
    f("SymplecticTransformer", &symplectic, &twin, (4, 5));
    f(
        "LinearSymplecticTransformer",
        &linear,
        &linear.map_scalar(Lanes::broadcast),
        (4, 5),
    );
    Ok(())
}

pub fn check(probe: &mut Probe) {
    each_network(|name, net, _, (dim, seq)| {
        let input = DMatrix::from_column_slice(dim, seq, &values(dim * seq, 90));
        let mut z = input.clone();
        let mut scratch = Scratch::new();
        probe.run(name, || {
            z.copy_from(&input);
            net.forward_in_place(&mut z, &mut scratch);
        });
        // The pass in place is the pass.
        assert_eq!(z, net.forward_unchecked(&input), "{name}");
    })
    .unwrap();
}

/// Allocations of `f`.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn a_batch_in_lanes_allocates_as_often_for_400_windows_as_for_4() {
    each_network(|name, _, twin, (dim, seq)| {
        let input = values(dim * seq * 400, 91);
        let mut output = vec![0.0; input.len()];
        let mut count = |windows: usize| {
            let n = dim * seq * windows;
            allocations(|| forward_in_lanes(twin, (dim, seq), &input[..n], &mut output[..n]))
        };
        let one_group = count(Lanes::WIDTH);
        assert_eq!(count(400), one_group, "{name}");
    })
    .unwrap();
}
