//! The lane path (`Lanewise`) against the scalar path (`SequenceLayer::forward_flat`): bit-identical
//! outputs for both weightings of volume-preserving attention, on every instruction set this
//! machine has (AVX-512, AVX2, portable), in both precisions, sizes d = T ∈ {2, 3, 4, 5, 8}, and
//! batch lengths around every lane width (empty, partial groups, remainders); the parallel path
//! against the sequential one; and shape errors. Also GML's trained rigid-body transformer.

use geomattn::{ArbitraryVpa, Error, Isa, Lanewise, MapScalar, SkewVpa};
use geomattn_testkit::lanes::{COUNTS, assert_lanes_equal_scalar, batch, bits, first_difference};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// Both weightings at d = T = `$d` over `$scalar`, every batch length of [`COUNTS`].
macro_rules! sweep {
    ($scalar:ty, $d:literal, $seed:expr) => {{
        let mut rng = SmallRng::seed_from_u64($seed);
        let skew = SkewVpa::<f64, $d, $d>::glorot(&mut rng).map_scalar(|w| w as $scalar);
        let arbitrary = ArbitraryVpa::<f64, $d, $d>::glorot(&mut rng).map_scalar(|w| w as $scalar);
        for count in COUNTS {
            let input = batch::<$scalar>(&mut rng, count, $d * $d, 2.0);
            assert_lanes_equal_scalar::<_, $d, $d>(&skew, &input);
            assert_lanes_equal_scalar::<_, $d, $d>(&arbitrary, &input);
        }
    }};
}

#[test]
fn lanes_equal_scalar_in_f32() {
    sweep!(f32, 2, 1);
    sweep!(f32, 3, 2);
    sweep!(f32, 4, 3);
    sweep!(f32, 5, 4);
    sweep!(f32, 8, 5);
}

#[test]
fn lanes_equal_scalar_in_f64() {
    sweep!(f64, 2, 11);
    sweep!(f64, 3, 12);
    sweep!(f64, 4, 13);
    sweep!(f64, 5, 14);
    sweep!(f64, 8, 15);
}

#[test]
fn the_other_cayley_kernels_run_in_lanes_too() {
    let mut rng = SmallRng::seed_from_u64(16);
    let layer = SkewVpa::<f64, 4, 5>::glorot(&mut rng);
    let input = batch::<f64>(&mut rng, 21, 20, 1.0);
    assert_lanes_equal_scalar::<_, 4, 5>(&layer.with_map::<geomattn::GramSchmidt>(), &input);
    assert_lanes_equal_scalar::<_, 4, 5>(&layer.with_map::<geomattn::Elimination>(), &input);
}

/// GML's rigid-body volume-preserving transformer (3 blocks of arbitrary VPA and the
/// volume-preserving feed-forward network with `tanh`), loaded in both precisions.
#[test]
fn the_trained_rigid_body_network_runs_in_lanes_bit_identically() {
    type Vpt<S> = geomattn::VolumePreservingTransformer<S, 3, 3, 2, 1, 3, geomattn::Tanh>;
    let path = geomattn_testkit::fixture("transformer_rigid_body_nn_vpt.h5");
    let single: Vpt<f32> = geomattn::gml::load_file(&path).unwrap();
    let double: Vpt<f64> = geomattn::gml::load_file(&path).unwrap();
    let mut rng = SmallRng::seed_from_u64(17);
    for count in COUNTS {
        let input = batch::<f64>(&mut rng, count, 9, 1.0);
        assert_lanes_equal_scalar::<_, 3, 3>(&double, &input);
        let input32: Vec<f32> = input.iter().map(|&x| x as f32).collect();
        assert_lanes_equal_scalar::<_, 3, 3>(&single, &input32);
    }
}

#[test]
fn rectangular_sequences_and_hostile_values_stay_bit_identical() {
    // d ≠ T, magnitudes up to 1e18 (where the Cayley transform's inputs overflow to ∞ and NaN in
    // f32) and a NaN input: whatever the scalar path gives, the lanes give the same bits.
    let mut rng = SmallRng::seed_from_u64(21);
    let layer = SkewVpa::<f64, 3, 7>::glorot(&mut rng).map_scalar(|w| w as f32);
    for scale in [1e-30_f32, 1.0, 1e6, 1e18] {
        let mut input = batch::<f32>(&mut rng, 37, 21, scale);
        input[5] = f32::NAN;
        assert_lanes_equal_scalar::<_, 3, 7>(&layer, &input);
    }
}

#[test]
fn new_takes_the_best_instruction_set() {
    let layer = SkewVpa::<f32, 2, 2>::glorot(&mut SmallRng::seed_from_u64(22));
    assert_eq!(Lanewise::new(layer).isa(), Isa::best());
    for isa in Isa::ALL {
        let on = Lanewise::on(isa, layer);
        assert_eq!(on.is_some(), isa.is_available(), "{isa:?}");
        assert!(on.is_none_or(|fast| fast.isa() == isa));
    }
    eprintln!("this machine's lane path: {:?}", Isa::best());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn lanes_equal_scalar_on_random_batches(seed in any::<u64>(), count in 0usize..70, scale in 1e-3f32..1e3) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let layer = ArbitraryVpa::<f64, 4, 4>::glorot(&mut rng);
        let input = batch::<f64>(&mut rng, count, 16, scale);
        assert_lanes_equal_scalar::<_, 4, 4>(&layer, &input);
        let single = layer.map_scalar(|w| w as f32);
        let input32: Vec<f32> = input.iter().map(|&x| x as f32).collect();
        assert_lanes_equal_scalar::<_, 4, 4>(&single, &input32);
    }
}

#[test]
fn parallel_equals_sequential_on_one_and_two_threads() {
    let mut rng = SmallRng::seed_from_u64(31);
    let layer = SkewVpa::<f64, 5, 5>::glorot(&mut rng).map_scalar(|w| w as f32);
    let fast = Lanewise::new(layer);
    // Several tasks of `GROUPS_PER_TASK` groups, and a last task with a partial group.
    let count = 3 * geomattn::GROUPS_PER_TASK * fast.isa().lanes::<f32>() + 7;
    let input = batch::<f32>(&mut rng, count, 25, 1.0);
    let mut sequential = vec![0.0; input.len()];
    fast.forward_flat(&input, &mut sequential).unwrap();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut parallel = vec![0.0; input.len()];
        pool.install(|| fast.forward_flat_parallel(&input, &mut parallel))
            .unwrap();
        assert_eq!(
            first_difference(&bits(&parallel), &bits(&sequential)),
            None,
            "{threads} threads"
        );
    }
}

#[test]
fn shape_errors_are_reported_not_panicked() {
    let mut rng = SmallRng::seed_from_u64(41);
    let fast = Lanewise::new(SkewVpa::<f64, 3, 4>::glorot(&mut rng));
    let input = vec![0.0; 12 * 3];
    for (input_len, output_len) in [(36, 35), (35, 35), (13, 13)] {
        let mut output = vec![0.0; output_len];
        let sequential = fast.forward_flat(&input[..input_len], &mut output);
        let parallel = fast.forward_flat_parallel(&input[..input_len], &mut output);
        for result in [sequential, parallel] {
            assert!(
                matches!(result, Err(Error::BatchShape { per_item: 12, .. })),
                "{input_len}/{output_len}: {result:?}"
            );
        }
    }
}

#[test]
fn the_compact_batch_is_the_full_one_where_compiled_and_refuses_the_others() {
    let mut rng = SmallRng::seed_from_u64(51);
    let layer = ArbitraryVpa::<f64, 3, 4>::glorot(&mut rng).map_scalar(|w| w as f32);
    for isa in Isa::ALL {
        let Some(fast) = Lanewise::on(isa, layer) else {
            eprintln!("{isa:?}: not on this machine, skipped");
            continue;
        };
        for count in COUNTS {
            let input = batch::<f32>(&mut rng, count, 12, 1.0);
            let mut full = vec![0.0; input.len()];
            let mut compact = vec![7.0; input.len()];
            fast.forward_flat(&input, &mut full).unwrap();
            let Some(done) = fast.forward_flat_compact(&input, &mut compact) else {
                assert!(!isa.is_compact(), "{isa:?}");
                assert!(compact.iter().all(|&x| x == 7.0), "{isa:?} wrote");
                continue;
            };
            done.unwrap();
            assert!(isa.is_compact(), "{isa:?}");
            assert_eq!(
                first_difference(&bits(&compact), &bits(&full)),
                None,
                "{isa:?} {count}"
            );
            let (vector, mut fused) = (fast.vector_functions(), vec![f32::NAN; input.len()]);
            vector.forward_flat(&input, &mut full).unwrap();
            vector
                .forward_flat_compact(&input, &mut fused)
                .unwrap()
                .unwrap();
            assert_eq!(
                first_difference(&bits(&fused), &bits(&full)),
                None,
                "{isa:?} {count}"
            );
        }
    }
    // AVX-512 and AVX2 on x86-64; the portable vectors only where they are all there is.
    assert_eq!(Isa::Portable.is_compact(), !cfg!(target_arch = "x86_64"));
}

#[test]
fn the_compact_batch_reports_shape_errors() {
    let fast = Lanewise::new(SkewVpa::<f32, 3, 4>::glorot(&mut SmallRng::seed_from_u64(
        52,
    )));
    let input = [0.0; 36];
    for (input_len, output_len) in [(36, 35), (35, 35), (13, 13)] {
        let mut output = vec![0.0; output_len];
        let result = fast.forward_flat_compact(&input[..input_len], &mut output);
        assert!(
            result.is_none() || matches!(result, Some(Err(Error::BatchShape { per_item: 12, .. }))),
            "{input_len}/{output_len}: {result:?}"
        );
    }
}
