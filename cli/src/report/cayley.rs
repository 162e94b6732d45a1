//! The Cayley transform: per `T`, the generated kernel (`geomattn::Generated`, the default)
//! against nalgebra's generic inverse: agreement, orthogonality, time per call and ratio.

use geomattn::nalgebra::{Const, DimMin, SMatrix};
use geomattn::{Generated, NalgebraInverse, OrthogonalMap};
use geomattn_testkit::{orthogonality_error, random_skew};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use super::{BATCH, Table, nanos, sci, time_per_call};

/// The table, one row per `T` (f64, entries of `C` uniform in `(−1, 1)`).
pub fn table() -> Table {
    let mut table = Table::new(
        "Cayley transform: Generated vs nalgebra's generic inverse (f64, ‖C‖ ~ 1)",
        &[
            "T",
            "max |generated − generic|",
            "max ‖ΛᵀΛ−I‖",
            "ns/call",
            "ns/call generic",
            "speed-up",
        ],
    );
    row::<2>(&mut table);
    row::<3>(&mut table);
    row::<4>(&mut table);
    row::<5>(&mut table);
    row::<6>(&mut table);
    row::<7>(&mut table);
    row::<8>(&mut table);
    row::<12>(&mut table);
    table
}

fn row<const T: usize>(table: &mut Table)
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(T as u64);
    let batch: Vec<SMatrix<f64, T, T>> = (0..BATCH).map(|_| random_skew(&mut rng, 1.0)).collect();
    let generated = <Generated as OrthogonalMap<f64, T>>::map;
    let generic = <NalgebraInverse as OrthogonalMap<f64, T>>::map;
    let agreement = batch
        .iter()
        .map(|c| (generated(c) - generic(c)).amax())
        .fold(0.0, f64::max);
    let orthogonality = batch
        .iter()
        .map(|c| orthogonality_error(&generated(c)))
        .fold(0.0, f64::max);
    let time = |f: fn(&SMatrix<f64, T, T>) -> SMatrix<f64, T, T>| {
        time_per_call(3, 7, || {
            for c in &batch {
                black_box(f(black_box(c)));
            }
        }) / BATCH as u32
    };
    let (fast, slow) = (time(generated), time(generic));
    table.row(vec![
        T.to_string(),
        sci(agreement),
        sci(orthogonality),
        nanos(fast),
        nanos(slow),
        format!("{:.1}×", slow.as_secs_f64() / fast.as_secs_f64()),
    ]);
}
