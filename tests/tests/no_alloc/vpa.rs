//! Volume-preserving attention, every entry point, both weightings, several kernels.

use geomattn::nalgebra::SMatrix;
use geomattn::{ArbitraryVpa, LuSolve, NalgebraInverse, SequenceLayer, SkewVpa};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use crate::Probe;

pub fn check(probe: &mut Probe) {
    let mut rng = SmallRng::seed_from_u64(3);
    let skew = SkewVpa::<f64, 4, 5>::glorot(&mut rng);
    let arbitrary = ArbitraryVpa::<f32, 3, 7>::glorot(&mut rng);
    let z = SMatrix::<f64, 4, 5>::from_fn(|i, j| (i as f64 - j as f64) / 7.0);
    let zs = [z; 8];
    let mut outs = [SMatrix::<f64, 4, 5>::zeros(); 8];
    let flat: Vec<f64> = zs.iter().flat_map(|m| m.iter().copied()).collect();
    let mut flat_out = vec![0.0; flat.len()];

    probe.run("VPA skew forward", || {
        black_box(skew.forward(black_box(&z)));
    });
    probe.run("VPA skew forward_in_place", || {
        let mut w = z;
        skew.forward_in_place(black_box(&mut w));
        black_box(w);
    });
    probe.run("VPA skew forward_batch", || {
        skew.forward_batch(black_box(&zs), &mut outs).unwrap();
    });
    probe.run("VPA skew forward_flat", || {
        skew.forward_flat(black_box(&flat), &mut flat_out).unwrap();
    });
    let z32 = SMatrix::<f32, 3, 7>::from_fn(|i, j| (i * j) as f32 / 9.0);
    probe.run("VPA arbitrary forward (f32)", || {
        black_box(arbitrary.forward(black_box(&z32)));
    });
    probe.run("VPA skew forward_checked", || {
        black_box(skew.forward_checked(black_box(&z)).unwrap());
    });
    probe.run("VPA skew forward_batch_checked", || {
        skew.forward_batch_checked(black_box(&zs), &mut outs)
            .unwrap();
    });
    probe.run("VPA skew forward_flat_checked", || {
        skew.forward_flat_checked(black_box(&flat), &mut flat_out)
            .unwrap();
    });
    let mut bad = z;
    bad[(2, 3)] = f64::NAN;
    probe.run("VPA skew forward_checked on NaN input (the error)", || {
        black_box(skew.forward_checked(black_box(&bad)).unwrap_err());
    });
    let baseline = skew.with_map::<NalgebraInverse>();
    probe.run("VPA skew with nalgebra's inverse", || {
        black_box(baseline.forward(black_box(&z)));
    });
    let lu = skew.with_map::<LuSolve>();
    probe.run("VPA skew with LU", || {
        black_box(lu.forward(black_box(&z)));
    });
}
