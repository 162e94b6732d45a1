//! The committed Symbolica-derived Cayley programs, checked against exact rational arithmetic only.

use geomattn_codegen::committed::symbolic;
use geomattn_codegen::sizes::{self, Strategy};
use geomattn_codegen::{Op, Program};
use num_rational::BigRational;
use num_traits::{One, Zero};

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(n.into(), d.into())
}

fn program(t: usize) -> Program {
    symbolic(t).unwrap_or_else(|| panic!("no committed program for T = {t}"))
}

/// `I + s·C` as a dense row-major matrix, `C` skew with the given strict upper entries.
fn identity_plus(t: usize, upper: &[BigRational], sign: i64) -> Vec<Vec<BigRational>> {
    let sign = BigRational::from_integer(sign.into());
    let mut m = vec![vec![BigRational::zero(); t]; t];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = BigRational::one();
    }
    for j in 0..t {
        for i in 0..j {
            let c = &upper[Program::input_index(i, j)] * &sign;
            m[j][i] = -c.clone();
            m[i][j] = c;
        }
    }
    m
}

/// `(I − C)(I + C)⁻¹` column-major, by Gauss–Jordan elimination with pivot search.
fn cayley_reference(t: usize, upper: &[BigRational]) -> Vec<BigRational> {
    let mut a = identity_plus(t, upper, 1);
    let mut inv = identity_plus(t, &vec![BigRational::zero(); upper.len()], 1);
    for k in 0..t {
        let pivot = (k..t)
            .find(|&r| !a[r][k].is_zero())
            .expect("I + C is invertible");
        a.swap(k, pivot);
        inv.swap(k, pivot);
        let p = a[k][k].clone();
        for col in 0..t {
            a[k][col] = &a[k][col] / &p;
            inv[k][col] = &inv[k][col] / &p;
        }
        for r in (0..t).filter(|&r| r != k) {
            let f = a[r][k].clone();
            for col in 0..t {
                a[r][col] = &a[r][col] - &(&f * &a[k][col]);
                inv[r][col] = &inv[r][col] - &(&f * &inv[k][col]);
            }
        }
    }
    let minus = identity_plus(t, upper, -1);
    (0..t * t)
        .map(|k| {
            let (row, col) = (k % t, k / t);
            (0..t).fold(BigRational::zero(), |acc, m| {
                acc + &minus[row][m] * &inv[m][col]
            })
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A rational with numerator in −9..=9 and denominator in 1..=7.
    fn rational(&mut self) -> BigRational {
        let n = (self.next() % 19) as i64 - 9;
        let d = (self.next() % 7) as i64 + 1;
        q(n, d)
    }
}

/// `Cay(C)` for the packed skew matrix `SkewSym(1..=n, T)/scale` of CONVENTIONS.md: its input `k`
/// (column-major strict upper triangle) is `−(k+1)/scale`.
fn conventions_inputs(t: usize, scale: i64) -> Vec<BigRational> {
    (0..t * (t - 1) / 2)
        .map(|k| q(-(k as i64 + 1), scale))
        .collect()
}

/// Column-major from rows.
fn column_major(rows: &[Vec<BigRational>]) -> Vec<BigRational> {
    let t = rows.len();
    (0..t * t).map(|k| rows[k % t][k / t].clone()).collect()
}

#[test]
fn reproduces_the_conventions_vectors() {
    let out = program(2).eval(&[q(-1, 2)]);
    assert_eq!(out, vec![q(3, 5), q(-4, 5), q(4, 5), q(3, 5)]);

    let rows4 = [
        [229, -63, -255, 333],
        [-405, 103, -111, 213],
        [-123, -465, -23, -21],
        [-27, 39, -393, -275],
    ];
    let rows4: Vec<Vec<_>> = rows4
        .iter()
        .map(|row| row.iter().map(|&n| q(n, 482)).collect())
        .collect();
    assert_eq!(
        program(4).eval(&conventions_inputs(4, 3)),
        column_major(&rows4)
    );

    let rows5 = [
        [
            (3367, 6222),
            (-421, 2074),
            (-881, 6222),
            (-2857, 6222),
            (684, 1037),
        ],
        [
            (-4553, 6222),
            (743, 2074),
            (-263, 6222),
            (-1771, 6222),
            (522, 1037),
        ],
        [
            (-2461, 6222),
            (-1871, 2074),
            (947, 6222),
            (13, 6222),
            (84, 1037),
        ],
        [
            (-239, 2074),
            (-267, 2074),
            (-2009, 2074),
            (-67, 2074),
            (-182, 1037),
        ],
        [
            (-46, 1037),
            (-8, 1037),
            (134, 1037),
            (-872, 1037),
            (-543, 1037),
        ],
    ];
    let rows5: Vec<Vec<_>> = rows5
        .iter()
        .map(|row| row.iter().map(|&(n, d)| q(n, d)).collect())
        .collect();
    assert_eq!(
        program(5).eval(&conventions_inputs(5, 5)),
        column_major(&rows5)
    );
}

#[test]
fn matches_exact_inversion_on_random_rational_skew_matrices() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for t in sizes::having(Strategy::Symbolic) {
        let program = program(t);
        let cases = if t >= 7 { 3 } else { 20 };
        for _ in 0..cases {
            let upper: Vec<_> = (0..program.input_count()).map(|_| rng.rational()).collect();
            assert_eq!(
                program.eval(&upper),
                cayley_reference(t, &upper),
                "T = {t}, C upper = {upper:?}"
            );
        }
    }
}

#[test]
fn has_exactly_one_division() {
    for t in sizes::having(Strategy::Symbolic) {
        let program = program(t);
        assert_eq!(program.counts().div, 1, "T = {t}");
        let divisions = program
            .steps()
            .iter()
            .filter(|op| matches!(op, Op::Recip(_) | Op::Div(..)))
            .count();
        assert_eq!(divisions, 1, "T = {t}");
    }
}

/// GML's operation counts for its cofactor inverse (CONVENTIONS.md, without the `T³` product).
const GML_TOTALS: [(usize, usize); 4] = [
    (2, 8 + 4 + 4 + 6),
    (3, 126 + 54 + 9 + 36),
    (4, 784 + 448 + 16 + 360),
    (5, 13_800 + 3_550 + 25 + 1_800),
];

#[test]
fn needs_fewer_operations_than_gml() {
    for (t, gml) in GML_TOTALS {
        let counts = program(t).counts();
        println!("T = {t}: {counts:?}, total {} (GML {gml})", counts.total());
        assert!(counts.total() < gml, "T = {t}: {counts:?} vs GML {gml}");
    }
}

#[test]
fn sizes_outside_the_range_have_no_program() {
    assert!(symbolic(1).is_none());
    let last = sizes::having(Strategy::Symbolic).last().unwrap();
    assert!(symbolic(last + 1).is_none());
    for t in sizes::having(Strategy::Symbolic) {
        assert_eq!(program(t).size(), t);
    }
}
