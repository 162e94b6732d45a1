//! The Cayley transform: per `T`, the generated kernel (`geomattn::Generated`, the default)
//! against nalgebra's generic inverse: agreement, orthogonality, time per call and ratio; and per
//! kernel, how orthogonal the result stays across the norms of `C`, in `f32` and `f64`.

use geomattn::nalgebra::{Const, DimMin, RealField, SMatrix};
use geomattn::{Elimination, Exp, Generated, GramSchmidt, LuSolve, NalgebraInverse, OrthogonalMap};
use geomattn_testkit::sweep;
use geomattn_testkit::{orthogonality_error, random_skew};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::hint::black_box;

use super::{Table, batch_len, nanos, sci, time_per_call};

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
    let batch: Vec<SMatrix<f64, T, T>> = (0..batch_len())
        .map(|_| random_skew(&mut rng, 1.0))
        .collect();
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
        }) / batch_len() as u32
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

/// Seeded matrices per cell of the accuracy table (fewer in a `--quick` run).
fn samples() -> usize {
    if super::quick() { 2 } else { 16 }
}

/// The accuracy table: per kernel, `T` and precision, the worst `‖ΛᵀΛ − I‖_max` (in units of the
/// precision's ε) at each Frobenius norm of `C`; `inf` marks a NaN or infinite result.
pub fn accuracy_table() -> Table {
    let norms = sweep::norms(f64::EPSILON);
    let mut header = vec!["kernel".to_string(), "T".into(), "scalar".into()];
    header.extend(norms.iter().map(|n| format!("‖C‖ = {}", sci(*n))));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(
        "Cayley kernels: worst ‖ΛᵀΛ−I‖ in ε over the norm of C (f32 up to 10⁴, f64 up to 10⁸)",
        &header,
    );
    accuracy_rows::<5>(&mut table);
    accuracy_rows::<8>(&mut table);
    table
}

fn accuracy_rows<const T: usize>(table: &mut Table)
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    accuracy_row::<Generated, T>(table, "Generated (default)");
    accuracy_row::<GramSchmidt, T>(table, "GramSchmidt (loops)");
    accuracy_row::<LuSolve, T>(table, "LuSolve");
    accuracy_row::<NalgebraInverse, T>(table, "NalgebraInverse");
    accuracy_row::<Exp, T>(table, "Exp");
    accuracy_row::<Elimination, T>(table, "Elimination (pivot-free)");
}

fn accuracy_row<Map, const T: usize>(table: &mut Table, name: &str)
where
    Map: OrthogonalMap<f32, T> + OrthogonalMap<f64, T>,
{
    cells::<Map, f32, T>(table, name, "f32", f64::from(f32::EPSILON));
    cells::<Map, f64, T>(table, name, "f64", f64::EPSILON);
}

fn cells<Map, S, const T: usize>(table: &mut Table, name: &str, scalar: &str, epsilon: f64)
where
    Map: OrthogonalMap<S, T>,
    S: RealField + Copy,
{
    let mut row = vec![name.to_string(), T.to_string(), scalar.into()];
    let measured = sweep::norms(epsilon);
    for norm in sweep::norms(f64::EPSILON) {
        row.push(if measured.contains(&norm) {
            let error = sweep::worst::<Map, S, T>(norm, samples()) / epsilon;
            if error.is_finite() {
                sci(error)
            } else {
                "inf".into()
            }
        } else {
            "–".into()
        });
    }
    table.row(row);
}
