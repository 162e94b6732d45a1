//! The Cayley kernels, generated and baseline, in f64, f32 and exact rationals.

use geomattn::cayley;
use geomattn::nalgebra::SMatrix;
use geomattn::{Elimination, Generated, OrthogonalMap};
use geomattn_testkit::Q;
use std::hint::black_box;

use crate::Probe;

pub fn check(probe: &mut Probe) {
    let c = SMatrix::<f64, 5, 5>::from_fn(|i, j| (j as f64 - i as f64) / 7.0);
    probe.run("Cayley Generated (f64, T = 5)", || {
        black_box(<Generated as OrthogonalMap<f64, 5>>::map(black_box(&c)));
    });
    let c8 = SMatrix::<f32, 8, 8>::from_fn(|i, j| (j as f32 - i as f32) / 9.0);
    probe.run("Cayley Generated (f32, T = 8)", || {
        black_box(<Generated as OrthogonalMap<f32, 8>>::map(black_box(&c8)));
    });
    let c12 = SMatrix::<f64, 12, 12>::from_fn(|i, j| (j as f64 - i as f64) / 20.0);
    probe.run("Cayley Generated (f64, T = 12, loop fallback)", || {
        black_box(<Generated as OrthogonalMap<f64, 12>>::map(black_box(&c12)));
    });
    probe.run("Cayley elimination strategy (f64, T = 6)", || {
        black_box(cayley!(6, strategy = elimination)(black_box(
            &c.fixed_resize(0.0),
        )));
    });
    let q3 = SMatrix::<Q, 3, 3>::from_fn(|i, j| Q::new(j as i128 - i as i128, 3));
    probe.run("Cayley Generated (rational, T = 3)", || {
        black_box(<Generated as OrthogonalMap<Q, 3>>::map(black_box(&q3)));
    });
    probe.run("Cayley Elimination loops (f64, T = 5)", || {
        black_box(<Elimination as OrthogonalMap<f64, 5>>::map(black_box(&c)));
    });
}
