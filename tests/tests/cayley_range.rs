//! The orthogonal maps at the numerical edge: volume-preserving attention in `f32` on
//! unnormalised sequences (large `‖C‖`) against LU with partial pivoting, the edge where the
//! default kernel's squares overflow, and the measured ranges of the maps that answer NaN beyond
//! them.
//!
//! `cargo test -p geomattn-tests --test integration cayley_range:: -- --nocapture` prints the tables.

use geomattn::cayley::{NARROW_BELOW, WIDE_BELOW};
use geomattn::nalgebra::{Const, DimMin, RealField, SMatrix};
use geomattn::{
    ArbitraryVpa, DefaultCayley, Elimination, Error, Exp, Generated, GramSchmidt, LuSolve,
    NalgebraInverse, OrthogonalMap, ScalingSquaring, SequenceLayer, SkewCorrelation, SkewVpa,
    VolumePreservingAttention,
};
use geomattn_testkit::sweep::{orthogonality, skew_of_norm};
use geomattn_testkit::{random_matrix, random_skew, unit};
use rand::SeedableRng;
use rand::rngs::SmallRng;

const EPSILON: f64 = f32::EPSILON as f64;

/// LU with partial pivoting, `(I + C).lu().solve(I − C)`, without the range of [`LuSolve`]: the
/// reference the default kernel is held to, wherever it is finite.
struct PivotedLu;

impl<S: RealField + Copy, const T: usize> OrthogonalMap<S, T> for PivotedLu
where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    const NAME: &'static str = "LU with partial pivoting, no range";

    fn map(c: &SMatrix<S, T, T>) -> SMatrix<S, T, T> {
        let skew = SMatrix::<S, T, T>::from_fn(|i, j| match i.cmp(&j) {
            core::cmp::Ordering::Less => c[(i, j)],
            core::cmp::Ordering::Greater => -c[(j, i)],
            core::cmp::Ordering::Equal => S::zero(),
        });
        let identity = SMatrix::<S, T, T>::identity();
        (identity + skew)
            .lu()
            .solve(&(identity - skew))
            .unwrap_or_else(|| SMatrix::from_element(S::zero() / S::zero()))
    }
}

/// For one input: `|‖ZΛ‖/‖Z‖ − 1|` of the layer's output and `‖ΛᵀΛ − I‖_max` of its map, both in
/// `f64`, infinite when not finite.
fn errors<Corr, Map, const T: usize>(
    layer: &VolumePreservingAttention<f32, 3, T, Corr, Map>,
    z: &SMatrix<f32, 3, T>,
) -> [f64; 2]
where
    Corr: SkewCorrelation<f32, 3>,
    Map: OrthogonalMap<f32, T>,
{
    let out = layer.forward(z).map(f64::from);
    let norm = (out.norm() / z.map(f64::from).norm() - 1.0).abs();
    let norm = if out.iter().all(|x| x.is_finite()) {
        norm
    } else {
        f64::INFINITY
    };
    [norm, orthogonality(&Map::map(&layer.correlation(z)))]
}

/// Quantiles of a sample: the median, the 90th and 99th percentiles, and the worst.
#[derive(Debug, Clone, Copy)]
struct Quantiles([f64; 4]);

impl Quantiles {
    const LEVELS: [f64; 4] = [0.5, 0.9, 0.99, 1.0];

    fn of(mut sample: Vec<f64>) -> Self {
        sample.sort_by(f64::total_cmp);
        let last = sample.len() - 1;
        Self(Self::LEVELS.map(|level| sample[(last as f64 * level).round() as usize]))
    }

    /// Within `factor` times `reference` at the median, the 90th and the 99th percentile, each
    /// floored at `4ε` (where both are rounding).
    fn within(self, factor: f64, reference: Quantiles) -> bool {
        let floor = 4.0 * EPSILON;
        (0..3).all(|k| self.0[k] <= factor * reference.0[k].max(floor))
    }
}

impl core::fmt::Display for Quantiles {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [a, b, c, d] = self.0;
        write!(f, "{a:7.1e} {b:7.1e} {c:7.1e} {d:7.1e}")
    }
}

/// Per input, `[default kernel, LU]` × `[norm error, orthogonality error]`, over `samples` inputs
/// from `sequence` and layers from `layer` (a new weight `A` each time), skipping the inputs
/// where LU is not finite.
fn sample<Corr, const T: usize>(
    seed: u64,
    samples: usize,
    layer: impl Fn(&mut SmallRng) -> VolumePreservingAttention<f32, 3, T, Corr>,
    sequence: impl Fn(&mut SmallRng) -> SMatrix<f32, 3, T>,
) -> Vec<[[f64; 2]; 2]>
where
    Corr: SkewCorrelation<f32, 3> + Copy,
    DefaultCayley: OrthogonalMap<f32, T>,
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..samples)
        .map(|_| {
            let (layer, z) = (layer(&mut rng), sequence(&mut rng));
            [
                errors(&layer, &z),
                errors(&layer.with_map::<PivotedLu>(), &z),
            ]
        })
        .filter(|[_, lu]| lu.iter().all(|x| x.is_finite()))
        .collect()
}

/// `3×T` entries uniform in `(−amplitude, amplitude)`.
fn uniform<const T: usize>(rng: &mut SmallRng, amplitude: f32) -> SMatrix<f32, 3, T> {
    random_matrix::<3, T>(rng).map(|x| x as f32 * amplitude)
}

/// `amplitude · sin(1.3 i + 0.7 t + φ)`, `φ` uniform in `[0, 3)`: a smooth sequence, whose rows
/// span only `sin(0.7 t)` and `cos(0.7 t)`, so that it lies in the range of `C`.
fn sines<const T: usize>(rng: &mut SmallRng, amplitude: f32) -> SMatrix<f32, 3, T> {
    let phase = 3.0 * unit(rng) as f32;
    SMatrix::from_fn(|i, t| amplitude * (1.3 * i as f32 + 0.7 * t as f32 + phase).sin())
}

/// Inputs per cell of the table.
const SAMPLES: usize = 1000;

/// One cell of the table, sampled once for both of its checks: prints its quantiles; returns
/// whether the default kernel is within 10× of LU at the median, 90th and 99th percentile of both
/// errors, and its worst ratio input by input to LU's `|‖ZΛ‖/‖Z‖ − 1|` floored at `4ε` (where
/// both are rounding, either can be 0 by luck), with our error and LU's at that input.
fn cell<Corr, const T: usize>(
    weighting: &str,
    amplitude: f32,
    layer: impl Fn(&mut SmallRng) -> VolumePreservingAttention<f32, 3, T, Corr>,
) -> (bool, [f64; 3])
where
    Corr: SkewCorrelation<f32, 3> + Copy,
    DefaultCayley: OrthogonalMap<f32, T>,
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let pairs = sample(T as u64 + amplitude as u64, SAMPLES, layer, |rng| {
        uniform(rng, amplitude)
    });
    assert_eq!(
        pairs.len(),
        SAMPLES,
        "LU not finite at a = {amplitude}, T = {T}"
    );
    let quantiles =
        |who: usize, what: usize| Quantiles::of(pairs.iter().map(|p| p[who][what]).collect());
    let [ours_norm, lu_norm, ours_orth, lu_orth] = [
        quantiles(0, 0),
        quantiles(1, 0),
        quantiles(0, 1),
        quantiles(1, 1),
    ];
    println!(
        "{weighting:>9} {amplitude:5} {T} | LU {lu_norm} | ours {ours_norm} | LU {lu_orth} | ours {ours_orth}"
    );
    let worst = pairs
        .iter()
        .map(|[ours, lu]| [ours[0] / lu[0].max(4.0 * EPSILON), ours[0], lu[0]])
        .fold(
            [0.0; 3],
            |worst, next| {
                if next[0] > worst[0] { next } else { worst }
            },
        );
    (
        ours_norm.within(10.0, lu_norm) && ours_orth.within(10.0, lu_orth),
        worst,
    )
}

macro_rules! cells {
    ($failures:ident, $worst:ident, $amplitude:expr, $($t:literal)*) => {$(
        let skew = cell::<_, $t>("skew", $amplitude, |rng| SkewVpa::<f32, 3, $t>::glorot(rng));
        let arbitrary =
            cell::<_, $t>("arbitrary", $amplitude, |rng| ArbitraryVpa::<f32, 3, $t>::glorot(rng));
        for (weighting, (within, found)) in [("skew", skew), ("arbitrary", arbitrary)] {
            let at = format!("{weighting}, a = {}, T = {}", $amplitude, $t);
            if !within {
                $failures.push(at.clone());
            }
            if found[0] > $worst.0[0] {
                $worst = (found, at);
            }
        }
    )*};
}

/// The default kernel of an `f32` volume-preserving attention layer (`D = 3`, both weightings,
/// a new Glorot weight per input) on 1 000 random sequences per cell with entries of amplitude
/// 1, 10, 86.4 and 300 (`‖C‖` up to about `10⁶`), `T = 3 … 8`, against LU with partial pivoting,
/// two checks on the same inputs:
///
/// - at the quantiles: its `|‖ZΛ‖/‖Z‖ − 1|` and `‖ΛᵀΛ − I‖` within 10× of LU's at the median,
///   90th and 99th percentile (measured: 3.3× at most before the Newton–Schulz polish, over ten
///   seeds; with it, at most 0.8× LU's from `T = 5`, and up to 3.4× at `T = 3, 4`, where the
///   closed forms and LU are both rounding);
/// - issue 23, item 7: on **every** input, its `|‖ZΛ‖/‖Z‖ − 1|` within 10× of `max(LU's, 4ε)`.
///   The edge: Gram–Schmidt alone (`T ≥ 5`) was 6 900× LU's here, on one input (skew, amplitude
///   300, `T = 5`: `3.3·10⁻³` where LU's was `4.2·10⁻⁷`), and 4 700 – 5 300× at every `T ≥ 5`
///   over ten seeds. Polished by Newton–Schulz steps: one step left up to 1 900× (ten seeds), two
///   6.9× here but 15× on the smooth sequences below; three (the default kernel) 0.84× here, the
///   worst input now one of the quaternion form at `T = 4`.
///
/// (Until 30 November 2026 these were two tests, each drawing the same inputs from the same
/// seeds: 25 s each of the tests' run, in debug.)
#[test]
fn volume_preserving_attention_is_within_ten_times_lu_at_every_amplitude_and_on_every_input() {
    println!(
        "weighting     a T | |‖ZΛ‖/‖Z‖ − 1| at the median, 90th, 99th percentile and worst \
         (LU, ours) | ‖ΛᵀΛ − I‖_max (LU, ours)"
    );
    let mut failures = Vec::new();
    let mut worst = ([0.0; 3], String::new());
    for amplitude in [1.0_f32, 10.0, 86.4, 300.0] {
        cells!(failures, worst, amplitude, 3 4 5 6 7 8);
    }
    let ([ratio, ours, lu], at) = worst;
    println!("worst ratio to LU: {ratio:.2} ({at}: ours {ours:.1e}, LU {lu:.1e})");
    assert!(
        failures.is_empty(),
        "more than 10× LU's error at a quantile: {failures:?}"
    );
    assert!(
        ratio <= 10.0,
        "{ratio:.0}× LU's error on one input ({at}: ours {ours:e}, LU {lu:e})"
    );
}

/// The reported case: smooth sequences (sines of amplitude 300, so `‖C‖` up to `2·10⁶`) lie in
/// the range of `C`, where LU keeps the output's norm to rounding; the default kernel does too,
/// input by input (it lost up to `9·10⁻³` when it orthogonalised `I − C`).
#[test]
fn smooth_sequences_keep_their_norm_as_with_lu() {
    fn check<const T: usize>()
    where
        DefaultCayley: OrthogonalMap<f32, T>,
        Const<T>: DimMin<Const<T>, Output = Const<T>>,
    {
        for amplitude in [86.4, 300.0] {
            let pairs = sample(T as u64, 200, SkewVpa::<f32, 3, T>::glorot, |rng| {
                sines(rng, amplitude)
            });
            assert_eq!(pairs.len(), 200);
            for [ours, lu] in pairs {
                assert!(
                    ours[0] <= 10.0 * lu[0].max(EPSILON),
                    "T = {T}, a = {amplitude}: ‖ZΛ‖/‖Z‖ − 1 = {:e}, LU's {:e}",
                    ours[0],
                    lu[0]
                );
            }
        }
    }
    check::<3>();
    check::<4>();
    check::<5>();
    check::<6>();
    check::<7>();
    check::<8>();
}

/// A skew `T×T` matrix of Frobenius norm `norm`: random (full rank for even `T`) when `index` is
/// even, else the rank-2 correlation `ZᵀAZ` of a skew volume-preserving attention layer
/// (`D = 3`), rescaled.
fn skew_at<S: RealField + Copy, const T: usize>(
    rng: &mut SmallRng,
    norm: f64,
    index: usize,
) -> SMatrix<S, T, T> {
    if index.is_multiple_of(2) {
        return skew_of_norm(rng, norm);
    }
    let layer = SkewVpa::<f64, 3, T>::glorot(rng);
    let c = layer.correlation(&random_matrix::<3, T>(rng));
    (c * (norm / c.norm().max(f64::MIN_POSITIVE))).map(geomattn::nalgebra::convert)
}

/// `√MAX`: where `‖C‖_F²` overflows.
fn square_root_of_max<S: RealField + Copy>() -> f64 {
    geomattn::nalgebra::try_convert::<S, f64>(S::max_value().unwrap())
        .unwrap()
        .sqrt()
}

fn finite_up_to_the_overflow_of_the_squares<S: RealField + Copy, const T: usize>()
where
    Generated: OrthogonalMap<S, T>,
    GramSchmidt: OrthogonalMap<S, T>,
{
    let edge = square_root_of_max::<S>();
    let mut rng = SmallRng::seed_from_u64(T as u64);
    // 5.1·10⁷: the smallest NaN reported in f32 (a late Gram–Schmidt column cancelled to zero).
    for norm in [5.1e7, 1e9, 1e12, 1e15, 0.99 * edge] {
        for index in 0..64 {
            let c = skew_at::<S, T>(&mut rng, norm, index);
            for (name, q) in [
                ("Generated", Generated::map(&c)),
                ("GramSchmidt", GramSchmidt::map(&c)),
            ] {
                assert!(
                    q.iter().all(|x| x.is_finite()),
                    "{name}, T = {T}, ‖C‖_F = {norm:e}: {q}"
                );
            }
        }
    }
}

/// Beyond the edge (`‖C‖_F = 10²⁵` in `f32`, every column's square overflows): NaN from the
/// closed forms (`T = 3, 4`), not a finite wrong answer.
fn nan_beyond_the_edge<const T: usize>()
where
    Generated: OrthogonalMap<f32, T>,
{
    let mut rng = SmallRng::seed_from_u64(T as u64);
    for index in 0..16 {
        let q = Generated::map(&skew_at::<f32, T>(&mut rng, 1e25, index));
        assert!(q.iter().any(|x| x.is_nan()), "T = {T}: {q}");
    }
}

/// Beyond the same edge, the `f32` kernel from `T = 5` (Gram–Schmidt in `f64`, polished) is still
/// orthogonal to within `64ε`, up to `‖C‖_F = 10³⁸` (entries of `C` near the largest `f32`).
fn orthogonal_beyond_the_edge<const T: usize>()
where
    Generated: OrthogonalMap<f32, T>,
{
    let mut rng = SmallRng::seed_from_u64(T as u64);
    for norm in [1e25, 1e30, 1e38] {
        for index in 0..16 {
            let q = Generated::map(&skew_at::<f32, T>(&mut rng, norm, index));
            let error = orthogonality(&q);
            assert!(
                error <= 64.0 * EPSILON,
                "T = {T}, ‖C‖_F = {norm:e}: ‖ΛᵀΛ − I‖ = {error:e}"
            );
        }
    }
}

macro_rules! beyond_sizes {
    ($check:ident, $($t:literal)*) => {$(
        $check::<$t>();
    )*};
}

macro_rules! finite_sizes {
    ($($t:literal)*) => {$(
        finite_up_to_the_overflow_of_the_squares::<f32, $t>();
        finite_up_to_the_overflow_of_the_squares::<f64, $t>();
    )*};
}

/// The default kernel and the Gram–Schmidt loops are finite for every `C` with `‖C‖_F²` finite
/// (`‖C‖_F` below `1.8·10¹⁹` in `f32`, `1.3·10¹⁵⁴` in `f64`), random and rank-2, `T = 1 … 12`.
/// Beyond, the squares overflow: the closed forms (`T = 3, 4`) give NaN, which the checked
/// forward pass reports (but at `T = 2`, where the closed form reaches its limit `−I`), and the
/// `f32` kernel from `T = 5`, which computes in `f64` there, stays orthogonal.
#[test]
fn the_default_kernel_is_finite_until_the_squares_of_c_overflow() {
    finite_sizes!(1 2 3 4 5 6 7 8 9 10 11 12);

    beyond_sizes!(nan_beyond_the_edge, 3 4);
    beyond_sizes!(orthogonal_beyond_the_edge, 5 6 7 8 12);
    // Z of size 10¹³: C of size 10²⁶, finite, its squares not.
    let z = SMatrix::<f32, 3, 4>::from_fn(|i, t| 1e13 * (1.3 * i as f32 + 0.7 * t as f32).sin());
    let layer = SkewVpa::<f32, 3, 4>::glorot(&mut SmallRng::seed_from_u64(1));
    assert!(layer.correlation(&z).iter().all(|x| x.is_finite()));
    assert!(matches!(
        layer.forward_checked(&z),
        Err(Error::NonFinite(found)) if found.layer == "VolumePreservingAttention"
    ));
    let z = SMatrix::<f32, 3, 6>::from_fn(|i, t| 1e13 * (1.3 * i as f32 + 0.7 * t as f32).sin());
    let layer = SkewVpa::<f32, 3, 6>::glorot(&mut SmallRng::seed_from_u64(1));
    let out = layer.forward_checked(&z).unwrap().map(f64::from);
    assert!((out.norm() / z.map(f64::from).norm() - 1.0).abs() <= 4.0 * EPSILON);
}

/// The report: an `f32` skew volume-preserving attention layer gave NaN on 0.5% of random inputs
/// with entries of size `10⁴` (`‖C‖ ≈ 10⁸`). Now none of 2 000 per `T`.
#[test]
fn skew_attention_on_inputs_of_size_ten_thousand_is_finite() {
    fn check<const T: usize>()
    where
        DefaultCayley: OrthogonalMap<f32, T>,
    {
        let mut rng = SmallRng::seed_from_u64(T as u64);
        for _ in 0..2000 {
            let layer = SkewVpa::<f32, 3, T>::glorot(&mut rng);
            let z = uniform::<T>(&mut rng, 1e4);
            let out = layer.forward(&z);
            assert!(
                out.iter().all(|x| x.is_finite()),
                "T = {T}: z = {z}, out = {out}"
            );
        }
    }
    check::<3>();
    check::<4>();
    check::<5>();
    check::<6>();
    check::<7>();
    check::<8>();
}

/// `Map` on `C` just inside its range (`ε‖C‖_F = 0.99 limit`, or `‖C‖_F = 0.99 √MAX` for an
/// unlimited range): finite and `‖ΛᵀΛ − I‖ ≤ 1/4`, random and rank-2 `C`; just outside
/// (`1.01 limit`): NaN. Returns the worst orthogonality error inside.
fn assert_range<Map, S, const T: usize>(name: &str, limit: f64) -> f64
where
    Map: OrthogonalMap<S, T>,
    S: RealField + Copy,
{
    let epsilon = geomattn::nalgebra::try_convert::<S, f64>(S::default_epsilon()).unwrap();
    let edge = if limit.is_finite() {
        limit / epsilon
    } else {
        square_root_of_max::<S>()
    };
    let mut rng = SmallRng::seed_from_u64(T as u64 + 100);
    let worst = (0..64)
        .map(|index| orthogonality(&Map::map(&skew_at::<S, T>(&mut rng, 0.99 * edge, index))))
        .fold(0.0, f64::max);
    assert!(
        worst <= 0.25,
        "{name}, T = {T}, ε = {epsilon:e}: ‖ΛᵀΛ − I‖ = {worst} just inside the range"
    );
    for index in 0..8 {
        let q = Map::map(&skew_at::<S, T>(&mut rng, 1.01 * edge, index));
        assert!(
            q.iter().all(|x| x.partial_cmp(x).is_none()),
            "{name}, T = {T}, ε = {epsilon:e}: an answer outside the range: {q}"
        );
    }
    worst
}

macro_rules! ranges {
    ($($t:literal)*) => {$(
        let lu = if $t <= 2 { f64::INFINITY } else { 0.25 };
        let inverse = match $t {
            0..=2 => f64::INFINITY,
            4 => f64::from(f32::EPSILON).sqrt(),
            _ => 0.25,
        };
        let inverse64 = if $t == 4 { f64::EPSILON.sqrt() } else { inverse };
        let worst = [
            assert_range::<LuSolve, f32, $t>("LuSolve", lu),
            assert_range::<LuSolve, f64, $t>("LuSolve", lu),
            assert_range::<NalgebraInverse, f32, $t>("NalgebraInverse", inverse),
            assert_range::<NalgebraInverse, f64, $t>("NalgebraInverse", inverse64),
            assert_range::<ScalingSquaring, f32, $t>("ScalingSquaring", 1.0 / 32.0),
            assert_range::<ScalingSquaring, f64, $t>("ScalingSquaring", 1.0 / 32.0),
        ];
        println!(
            "T = {:2}: worst ‖ΛᵀΛ − I‖ just inside the range, f32 / f64: LU {:.2} / {:.2}, \
             nalgebra inverse {:.2} / {:.2}, scaling and squaring {:.2} / {:.2}",
            $t, worst[0], worst[1], worst[2], worst[3], worst[4], worst[5]
        );
    )*};
}

/// The maps that need `RealField` answer up to their measured range and return NaN beyond, which
/// the checked forward passes report: LU (`LuSolve`) while `ε‖C‖_F ≤ 1/4` (any `‖C‖_F` with a
/// finite square at `T ≤ 2`), nalgebra's inverse likewise but for `ε‖C‖_F² ≤ 1` at `T = 4`
/// (cofactors), scaling and squaring while `ε‖C‖_F ≤ 1/32`; just inside, every one is
/// orthogonal to within 1/4 (the table: `-- --nocapture`).
#[test]
fn real_field_maps_answer_up_to_the_edge_of_their_range() {
    ranges!(2 3 4 5 6 7 8 12);
    // Exp is scaling and squaring from T = 4.
    assert_range::<Exp, f32, 4>("Exp", 1.0 / 32.0);
    assert_range::<Exp, f64, 12>("Exp", 1.0 / 32.0);
}

/// The closed-form exponentials (`T = 2`: a rotation; `T = 3`: Rodrigues' formula with `θ` by
/// `hypot`) are orthogonal for every `C` with a finite norm, up to `‖C‖_F = 0.99 MAX`.
#[test]
fn the_closed_form_exponentials_are_orthogonal_for_every_finite_c() {
    fn check<S: RealField + Copy, const T: usize>(tolerance: f64) {
        let max = geomattn::nalgebra::try_convert::<S, f64>(S::max_value().unwrap()).unwrap();
        let mut rng = SmallRng::seed_from_u64(T as u64);
        for norm in [0.0, 1e-30, 1.0, 1e10, 1e20, 1e30, 1e300, 0.99 * max] {
            let norm = norm.min(0.99 * max);
            for _ in 0..16 {
                let unit = random_skew::<T>(&mut rng, 1.0);
                let c = ((unit / unit.norm()) * norm).map(geomattn::nalgebra::convert::<f64, S>);
                let q = Exp::map(&c);
                assert!(
                    orthogonality(&q) <= tolerance,
                    "T = {T}, ‖C‖_F = {norm:e}: ‖ΛᵀΛ − I‖ = {:e}",
                    orthogonality(&q)
                );
            }
        }
    }
    check::<f32, 2>(4.0 * EPSILON);
    check::<f32, 3>(8.0 * EPSILON);
    check::<f64, 2>(4.0 * f64::EPSILON);
    check::<f64, 3>(8.0 * f64::EPSILON);
}

/// The default kernel's closed forms (`T = 2, 3`: symbolic; `T = 4`: quaternion) are orthogonal
/// to rounding at every `‖C‖_F` up to the overflow of its square, random and rank-2 `C`: within
/// `16ε`, where LU loses `ε‖C‖`.
#[test]
fn the_closed_forms_are_orthogonal_to_rounding_at_every_norm() {
    fn check<S: RealField + Copy, const T: usize>()
    where
        Generated: OrthogonalMap<S, T>,
    {
        let epsilon = geomattn::nalgebra::try_convert::<S, f64>(S::default_epsilon()).unwrap();
        let edge = square_root_of_max::<S>();
        let mut rng = SmallRng::seed_from_u64(T as u64);
        let norms = (0..)
            .map(|e| 1e-3 * 1e3_f64.powi(e))
            .take_while(|&norm| norm < 0.99 * edge);
        for norm in norms.chain([0.99 * edge]) {
            for index in 0..32 {
                let q = Generated::map(&skew_at::<S, T>(&mut rng, norm, index));
                let error = orthogonality(&q);
                assert!(
                    error <= 16.0 * epsilon,
                    "T = {T}, ε = {epsilon:e}, ‖C‖_F = {norm:e}: ‖ΛᵀΛ − I‖ = {error:e}"
                );
            }
        }
    }
    check::<f32, 2>();
    check::<f32, 3>();
    check::<f32, 4>();
    check::<f64, 2>();
    check::<f64, 3>();
    check::<f64, 4>();
}

/// The `f32` kernel from `T = 5` is elimination in `f32`, bit for bit, just below `‖C‖_F = 16`
/// ([`NARROW_BELOW`]), and Gram–Schmidt computed in `f64` and rounded just above it (up to
/// [`WIDE_BELOW`]), random and rank-2 `C`.
#[test]
fn the_f32_kernel_is_narrow_below_its_bound_and_wide_above() {
    fn check<const T: usize>()
    where
        Generated: OrthogonalMap<f32, T>,
    {
        let mut rng = SmallRng::seed_from_u64(T as u64 + 200);
        let bound = f64::from(NARROW_BELOW);
        for index in 0..32 {
            let below = skew_at::<f32, T>(&mut rng, 0.99 * bound, index);
            assert_eq!(Generated::map(&below), Elimination::map(&below), "T = {T}");
            for norm in [1.01 * bound, 0.99 * f64::from(WIDE_BELOW)] {
                let above = skew_at::<f32, T>(&mut rng, norm, index);
                let wide = <GramSchmidt as OrthogonalMap<f64, T>>::map(&above.map(f64::from));
                assert_eq!(Generated::map(&above), wide.map(|x| x as f32), "T = {T}");
            }
        }
    }
    check::<5>();
    check::<6>();
    check::<7>();
    check::<8>();
    check::<12>();
}

/// The worst ratio, over 50 inputs, of `Map`'s `|‖ZΛ‖/‖Z‖ − 1|` to
/// `max(LU's, 4ε)`, for sequences rescaled so that `‖C‖_F = norm` (`C` is quadratic in `Z`), on
/// the inputs where LU is finite. Returns the ratio and the number of inputs compared.
fn worst_ratio_at_norm<Corr, Map, const T: usize>(
    seed: u64,
    norm: f64,
    layer: impl Fn(&mut SmallRng) -> VolumePreservingAttention<f32, 3, T, Corr>,
) -> (f64, usize)
where
    Corr: SkewCorrelation<f32, 3> + Copy,
    Map: OrthogonalMap<f32, T>,
    DefaultCayley: OrthogonalMap<f32, T>,
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut worst, mut compared) = (0.0_f64, 0);
    for _ in 0..50 {
        let layer = layer(&mut rng);
        let z = random_matrix::<3, T>(&mut rng);
        let c = layer.correlation(&z.map(|x| x as f32)).map(f64::from);
        let z = (z * (norm / c.norm()).sqrt()).map(|x| x as f32);
        let [ours, _] = errors(&layer.with_map::<Map>(), &z);
        let [lu, _] = errors(&layer.with_map::<PivotedLu>(), &z);
        if lu.is_finite() {
            worst = worst.max(ours / lu.max(4.0 * EPSILON));
            compared += 1;
        }
    }
    (worst, compared)
}

macro_rules! norm_cells {
    ($worst:ident, $map:ty, $norm:expr, $($t:literal)*) => {$(
        let seed = $t as u64 + $norm.log2() as u64;
        let skew = worst_ratio_at_norm::<_, $map, $t>(seed, $norm, |rng| SkewVpa::<f32, 3, $t>::glorot(rng));
        let arbitrary = worst_ratio_at_norm::<_, $map, $t>(seed, $norm, |rng| ArbitraryVpa::<f32, 3, $t>::glorot(rng));
        for (weighting, (ratio, compared)) in [("skew", skew), ("arbitrary", arbitrary)] {
            assert!(compared >= 25, "LU finite on {compared} of 50 inputs at ‖C‖_F = {:e}", $norm);
            if ratio > $worst.0 {
                $worst = (ratio, format!("{weighting}, ‖C‖_F = {:e}, T = {}", $norm, $t));
            }
        }
    )*};
}

/// Why the default `f32` kernel leaves elimination at `‖C‖_F = 16` ([`NARROW_BELOW`]): its error
/// grows faster than LU's. Measured over 300 inputs per cell (`T = 5 … 8`, both weightings): 1.2×
/// LU's up to `‖C‖_F = 8`, 3.9× just below 16, 12× at 31, 54× at 64. Here, 50 per cell: within
/// 4× just below the bound (as the default kernel, which is elimination there), past the issue's
/// 10× at 64.
#[test]
fn elimination_falls_behind_lu_past_its_bound() {
    let worst_at = |norm: f64| {
        let mut worst = (0.0, String::new());
        norm_cells!(worst, Elimination, norm, 5 6 7 8);
        println!(
            "elimination at ‖C‖_F = {norm}: {:.2}× LU's error ({})",
            worst.0, worst.1
        );
        worst.0
    };
    let bound = f64::from(NARROW_BELOW);
    assert!(worst_at(0.99 * bound) <= 4.0);
    assert!(worst_at(4.0 * bound) > 10.0);
}

/// Issue 23, item 7, up to the overflow of `C`: the default `f32` kernel within 4× of LU with
/// partial pivoting on every input where LU is finite (the issue asks for 10×; the docs claim 4×), `T = 5 … 8`, both weightings, at
/// `‖C‖_F = 2ᵏ` for every other `k` from `−20` to `126` (`C` then has entries near the largest
/// `f32`) and just below and above each bound where the kernel switches (`2⁴`, `2³²`, `2⁴⁸`,
/// `2⁶³`, by 1%). Measured: 1.6× at worst, just below `‖C‖_F = 16` (elimination; 3.9× there
/// over 300 inputs per cell, where Gram–Schmidt in `f32` is 0.9×); 12× at `‖C‖_F = 31` had
/// elimination been kept beyond 16, `4·10⁵`× near `2⁵⁵` (odd `T`) had the polished wide kernel
/// been kept.
#[test]
fn volume_preserving_attention_is_within_four_times_lu_up_to_the_overflow_of_c() {
    let mut worst = (0.0, String::new());
    let bounds = [4, 32, 48, 63].map(|k| 2.0_f64.powi(k));
    let norms = (-10..=63).map(|k| 2.0_f64.powi(2 * k)).chain(
        bounds
            .iter()
            .flat_map(|&bound| [0.99 * bound, 1.01 * bound]),
    );
    for norm in norms {
        norm_cells!(worst, DefaultCayley, norm, 5 6 7 8);
    }
    let (ratio, at) = worst;
    println!("worst ratio to LU: {ratio:.2} ({at})");
    assert!(ratio <= 4.0, "{ratio:.1}× LU's error on one input ({at})");
}
