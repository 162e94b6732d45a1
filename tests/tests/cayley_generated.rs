//! The generated Cayley transforms (`geomattn::Generated` and each strategy of
//! `geomattn::cayley!`): exact in rational arithmetic, and accurate in f64 and f32.

use geomattn::cayley;
use geomattn::nalgebra::{Const, DimMin, SMatrix};
use geomattn::{Generated, LuSolve, OrthogonalMap};
use geomattn_testkit::conventions::{CAYLEY_T2, CAYLEY_T4, CAYLEY_T5};
use geomattn_testkit::{Q, exact, orthogonality_error, q, random_skew};
use rand::SeedableRng;
use rand::rngs::SmallRng;

#[test]
fn conventions_vectors_are_exact() {
    let (c2, e2) = (CAYLEY_T2.input_q(), CAYLEY_T2.expected_q());
    assert_eq!(<Generated as OrthogonalMap<Q, 2>>::map(&c2), e2);
    assert_eq!(cayley!(2, strategy = elimination)(&c2), e2);
    assert_eq!(cayley!(2, strategy = symbolic)(&c2), e2);

    let (c4, e4) = (CAYLEY_T4.input_q(), CAYLEY_T4.expected_q());
    assert_eq!(<Generated as OrthogonalMap<Q, 4>>::map(&c4), e4);
    assert_eq!(cayley!(4, strategy = elimination)(&c4), e4);
    assert_eq!(cayley!(4, strategy = symbolic)(&c4), e4);

    let (c5, e5) = (CAYLEY_T5.input_q(), CAYLEY_T5.expected_q());
    assert_eq!(<Generated as OrthogonalMap<Q, 5>>::map(&c5), e5);
    assert_eq!(cayley!(5, strategy = elimination)(&c5), e5);
    assert_eq!(cayley!(5, strategy = symbolic)(&c5), e5);
}

/// A random skew `C` with entries `n/d`, `|n| ≤ 3`, `d ∈ {1, 2, 3}` (small, so that i128 holds
/// every intermediate; an overflow would panic in this debug build, not pass silently).
fn random_rational_skew<const T: usize>(rng: &mut SmallRng) -> SMatrix<Q, T, T> {
    let f = random_skew::<T>(rng, 1.0);
    SMatrix::from_fn(|i, j| {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        let x = q(
            (f[(a, b)] * 3.5).round() as i128,
            1 + (a + 2 * b) as i128 % 3,
        );
        match i.cmp(&j) {
            core::cmp::Ordering::Less => x,
            core::cmp::Ordering::Greater => -x,
            core::cmp::Ordering::Equal => q(0, 1),
        }
    })
}

/// `(I + C)·Q = I − C` exactly: `Q` is the exact `(I + C)⁻¹(I − C)`, since `I + C` is invertible;
/// and `Q` is what the testkit's exact reference (Gauss–Jordan with pivot search) computes.
fn assert_exact<const T: usize>(
    kernel: impl Fn(&SMatrix<Q, T, T>) -> SMatrix<Q, T, T>,
    what: &str,
) {
    let mut rng = SmallRng::seed_from_u64(T as u64);
    let identity = SMatrix::<Q, T, T>::identity();
    for _ in 0..8 {
        let c = random_rational_skew::<T>(&mut rng);
        let cay = kernel(&c);
        assert_eq!(
            (identity + c) * cay,
            identity - c,
            "{what}, T = {T}, C = {c}"
        );
        assert_eq!(cay, exact::cayley_matrix(&c), "{what}, T = {T}, C = {c}");
    }
}

macro_rules! exact {
    ($($t:literal),*) => {$(
        assert_exact::<$t>(|c| <Generated as OrthogonalMap<Q, $t>>::map(c), "Generated");
        assert_exact::<$t>(|c| cayley!($t, strategy = elimination)(c), "elimination");
        assert_exact::<$t>(|c| cayley!($t, strategy = gram_schmidt)(c), "gram_schmidt");
    )*};
}

/// At `T = 10, 12` Gram–Schmidt's exact intermediates (dot products of rational vectors)
/// overflow `i128` on these inputs, so only elimination is checked here in `Ratio<i128>`; the
/// Gram–Schmidt program is checked exactly to `T = 12` in arbitrary precision in
/// `geomattn-codegen` (`gram_schmidt::tests`).
macro_rules! elimination_exact {
    ($($t:literal),*) => {$(
        assert_exact::<$t>(|c| cayley!($t, strategy = elimination)(c), "elimination");
    )*};
}

macro_rules! symbolic_exact {
    ($($t:literal),*) => {$(
        assert_exact::<$t>(|c| cayley!($t, strategy = symbolic)(c), "symbolic");
    )*};
}

/// In a thread with a large stack: unoptimised, the straight-line functions keep every step
/// (47 401 rationals of 32 bytes for the symbolic `T = 8`) on the stack.
#[test]
fn random_rational_inputs_are_exact() {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            exact!(1, 2, 3, 4, 5, 6, 7, 8);
            symbolic_exact!(2, 3, 4, 5, 6, 7, 8);
            // Beyond the unrolled sizes, Generated is the GramSchmidt loop kernel.
            assert_exact::<9>(<Generated as OrthogonalMap<Q, 9>>::map, "Generated");
            elimination_exact!(10, 12);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Worst elementwise difference from f64 LU with partial pivoting, and worst `‖ΛᵀΛ − I‖_max`,
/// in units of the scalar's epsilon, over 200 random skew `C` with entries in `(−s, s)`.
fn accuracy<S, const T: usize>(
    kernel: impl Fn(&SMatrix<S, T, T>) -> SMatrix<S, T, T>,
    scale: f64,
    to: impl Fn(f64) -> S,
    from: impl Fn(S) -> f64,
    epsilon: f64,
) -> (f64, f64)
where
    S: geomattn::Field,
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    let mut rng = SmallRng::seed_from_u64(7 + T as u64);
    let (mut difference, mut orthogonality) = (0.0_f64, 0.0_f64);
    for _ in 0..200 {
        let c = random_skew::<T>(&mut rng, scale).map(&to);
        let reference = <LuSolve as OrthogonalMap<f64, T>>::map(&c.map(&from));
        let cay = kernel(&c).map(&from);
        difference = difference.max((cay - reference).amax());
        orthogonality = orthogonality.max(orthogonality_error(&cay));
    }
    (difference / epsilon, orthogonality / epsilon)
}

/// The bound the accuracy test asserts, in units of epsilon: `4·T·(1 + s·√T)²`. At moderate
/// scale (`s ≤ 1`) that is a few ulp times `T`; it grows like `‖C‖²` (the condition number of
/// `I + C` squared, the growth of pivot-free elimination) for large `‖C‖`.
fn bound(t: usize, scale: f64) -> f64 {
    4.0 * t as f64 * (1.0 + scale * (t as f64).sqrt()).powi(2)
}

const SCALES: [f64; 7] = [1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3];

fn accuracy_rows<const T: usize>(
    name: &str,
    f64_kernel: impl Fn(&SMatrix<f64, T, T>) -> SMatrix<f64, T, T>,
    f32_kernel: impl Fn(&SMatrix<f32, T, T>) -> SMatrix<f32, T, T>,
) where
    Const<T>: DimMin<Const<T>, Output = Const<T>>,
{
    for scale in SCALES {
        let (d64, o64) = accuracy(&f64_kernel, scale, |x| x, |x| x, f64::EPSILON);
        let (d32, o32) = accuracy(
            &f32_kernel,
            scale,
            |x| x as f32,
            f64::from,
            f32::EPSILON.into(),
        );
        println!("| {name} | {T} | {scale:.0e} | {d64:.1} | {o64:.1} | {d32:.1} | {o32:.1} |");
        let limit = bound(T, scale);
        for (what, value) in [
            ("f64 diff", d64),
            ("f64 orth", o64),
            ("f32 diff", d32),
            ("f32 orth", o32),
        ] {
            assert!(
                value <= limit,
                "{name}, T = {T}, s = {scale:e}: {what} = {value:.1} ε > {limit:.1} ε"
            );
        }
    }
}

macro_rules! accuracy {
    ($($t:literal),*) => {$(
        accuracy_rows::<$t>(
            "Generated",
            |c| <Generated as OrthogonalMap<f64, $t>>::map(c),
            |c| <Generated as OrthogonalMap<f32, $t>>::map(c),
        );
        accuracy_rows::<$t>(
            "elimination",
            |c| cayley!($t, strategy = elimination)(c),
            |c| cayley!($t, strategy = elimination)(c),
        );
        accuracy_rows::<$t>(
            "symbolic",
            |c| cayley!($t, strategy = symbolic)(c),
            |c| cayley!($t, strategy = symbolic)(c),
        );
        accuracy_rows::<$t>(
            "LuSolve (baseline)",
            |c| <LuSolve as OrthogonalMap<f64, $t>>::map(c),
            |c| <LuSolve as OrthogonalMap<f32, $t>>::map(c),
        );
    )*};
}

/// Run with `--nocapture` for the table (units of the scalar's epsilon).
#[test]
fn accuracy_against_f64_lu() {
    println!("| kernel | T | scale | f64 diff | f64 ‖ΛᵀΛ−I‖ | f32 diff | f32 ‖ΛᵀΛ−I‖ |");
    println!("|---|---|---|---|---|---|---|");
    accuracy!(2, 3, 4, 5, 6, 7, 8);
}
