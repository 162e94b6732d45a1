//! The default `f32` Cayley kernel from `T = 5` over SIMD lanes: it picks its kernel by `‖C‖_F`
//! lane by lane (elimination in `f32` below 16, Gram–Schmidt in `f64` above, polished beyond
//! `2³²`), so a group of sequences with some lanes on each side of a bound must still give each
//! lane the bits of the scalar path, on every instruction set this machine has.

use geomattn::{ArbitraryVpa, MapScalar, SkewVpa};
use geomattn_testkit::lanes::{assert_lanes_equal_scalar, batch};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// `count` sequences of `D×T` entries, sequence `n` of amplitude `scales[n % scales.len()]`:
/// consecutive sequences, which share a group of lanes, on different sides of the bounds.
fn mixed_batch(rng: &mut SmallRng, count: usize, len: usize, scales: &[f32]) -> Vec<f32> {
    (0..count)
        .flat_map(|n| batch::<f32>(rng, 1, len, scales[n % scales.len()]))
        .collect()
}

macro_rules! mixed {
    ($t:literal, $seed:expr) => {{
        let mut rng = SmallRng::seed_from_u64($seed);
        let skew = SkewVpa::<f64, 3, $t>::glorot(&mut rng).map_scalar(|w| w as f32);
        let arbitrary = ArbitraryVpa::<f64, 3, $t>::glorot(&mut rng).map_scalar(|w| w as f32);
        // ‖C‖ grows like the square of the amplitude: from far below 16 to past 2⁶³.
        let scales = [0.1, 2.0, 1.0, 3.0, 0.5, 1e3, 1.5, 1e12, 2.5, 1e18, f32::NAN];
        for count in [1, 4, 11, 16, 37] {
            let input = mixed_batch(&mut rng, count, 3 * $t, &scales);
            assert_lanes_equal_scalar::<_, 3, $t>(&skew, &input);
            assert_lanes_equal_scalar::<_, 3, $t>(&arbitrary, &input);
        }
        // Every lane below the bound (elimination over whole vectors), then every lane above.
        for scale in [0.3_f32, 300.0] {
            let input = mixed_batch(&mut rng, 37, 3 * $t, &[scale]);
            assert_lanes_equal_scalar::<_, 3, $t>(&skew, &input);
        }
    }};
}

#[test]
fn lanes_on_both_sides_of_the_bounds_equal_the_scalar_path() {
    mixed!(5, 1);
    mixed!(6, 2);
    mixed!(7, 3);
    mixed!(8, 4);
}
