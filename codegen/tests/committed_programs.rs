//! The committed Symbolica-derived Cayley programs (and, in the random exact check, every
//! strategy's program), checked against exact rational arithmetic only.

use geomattn_codegen::committed::symbolic;
use geomattn_codegen::sizes::{self, Strategy};
use geomattn_codegen::{Op, Program};
use geomattn_testkit::conventions::{CAYLEY_T2, CAYLEY_T4, CAYLEY_T5, CayleyVector};
use geomattn_testkit::exact;
use geomattn_testkit::seeded::XorShift;
use num_rational::BigRational;
use num_traits::Zero;

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(n.into(), d.into())
}

fn program(t: usize) -> Program {
    symbolic(t).unwrap_or_else(|| panic!("no committed program for T = {t}"))
}

/// `Cay(C)` column-major, `C` skew with the given strict upper entries (in the order of the
/// program's inputs), by the testkit's exact reference.
fn cayley_reference(t: usize, upper: &[BigRational]) -> Vec<BigRational> {
    column_major(&exact::cayley(&skew(t, upper)))
}

/// The skew matrix, row by row, with the given strict upper entries.
fn skew(t: usize, upper: &[BigRational]) -> Vec<Vec<BigRational>> {
    let mut c = vec![vec![BigRational::zero(); t]; t];
    for j in 0..t {
        for i in 0..j {
            let x = upper[Program::input_index(i, j)].clone();
            c[j][i] = -x.clone();
            c[i][j] = x;
        }
    }
    c
}

/// A rational with numerator in −9..=9 and denominator in 1..=7.
fn rational(rng: &mut XorShift) -> BigRational {
    let n = rng.below(19) as i64 - 9;
    let d = rng.below(7) as i64 + 1;
    q(n, d)
}

/// The program's inputs for a CONVENTIONS.md vector: the strict upper triangle of its `C`.
fn conventions_inputs<const T: usize>(vector: &CayleyVector<T>) -> Vec<BigRational> {
    let c = vector.input(q);
    let mut upper = vec![BigRational::zero(); T * (T - 1) / 2];
    for j in 0..T {
        for i in 0..j {
            upper[Program::input_index(i, j)] = c[i][j].clone();
        }
    }
    upper
}

/// Column-major from rows.
fn column_major(rows: &[Vec<BigRational>]) -> Vec<BigRational> {
    let t = rows.len();
    (0..t * t).map(|k| rows[k % t][k / t].clone()).collect()
}

#[test]
fn reproduces_the_conventions_vectors() {
    let out = program(2).eval(&conventions_inputs(&CAYLEY_T2));
    assert_eq!(out, column_major(&CAYLEY_T2.expected(q)));
    assert_eq!(
        program(4).eval(&conventions_inputs(&CAYLEY_T4)),
        column_major(&CAYLEY_T4.expected(q))
    );
    assert_eq!(
        program(5).eval(&conventions_inputs(&CAYLEY_T5)),
        column_major(&CAYLEY_T5.expected(q))
    );
}

/// Every strategy's program at every size of the table with `T % 2 == parity` (not only the
/// committed symbolic ones), equal to the exact reference on random rational skew matrices.
fn matches_exact_inversion_at_sizes_of_parity(parity: usize) {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for row in sizes::SIZES.iter().filter(|row| row.t % 2 == parity) {
        let t = row.t;
        for strategy in row.strategies() {
            let program = strategy.program(t).expect("the table lists it");
            let cases = if t >= 7 { 3 } else { 20 };
            for _ in 0..cases {
                let upper: Vec<_> = (0..program.input_count())
                    .map(|_| rational(&mut rng))
                    .collect();
                assert_eq!(
                    program.eval(&upper),
                    cayley_reference(t, &upper),
                    "{strategy}, T = {t}, C upper = {upper:?}"
                );
            }
        }
    }
}

// The sizes in two tests, which the harness runs side by side (9 s together in debug).
#[test]
fn matches_exact_inversion_on_random_rational_skew_matrices_of_even_size() {
    matches_exact_inversion_at_sizes_of_parity(0);
}

#[test]
fn matches_exact_inversion_on_random_rational_skew_matrices_of_odd_size() {
    matches_exact_inversion_at_sizes_of_parity(1);
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
