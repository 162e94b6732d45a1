//! The exact Cayley vectors of `../shared/spec/CONVENTIONS.md` ("Exact test vectors"), one
//! definition each, for every test that checks a Cayley kernel or program against them.
//!
//! Each input is `C = SkewSym(S = 1, 2, …, T(T−1)/2, T) / d`: CONVENTIONS.md packs a skew matrix
//! as its strict lower triangle, row by row, `A[i,j] = S[i(i−1)/2 + j]` (0-based, `i > j`), and
//! `A[j,i] = −A[i,j]`. Equivalently, the strict upper triangle read column by column is `−S`.
//! The vectors are written as given there; [`CayleyVector::input`] and
//! [`CayleyVector::expected`] turn them into any scalar, [`CayleyVector::input_q`] and
//! [`CayleyVector::expected_q`] into nalgebra matrices of [`Q`].
//!
//! ```
//! use geomattn_testkit::conventions::CAYLEY_T2;
//! use geomattn_testkit::q_matrix;
//! assert_eq!(CAYLEY_T2.input_q(), q_matrix([[0, -1], [1, 0]], 2));
//! assert_eq!(CAYLEY_T2.expected_q(), q_matrix([[3, 4], [-4, 3]], 5));
//! ```

use crate::{Q, q};
use geomattn::nalgebra::SMatrix;

/// `Cay(SkewSym(1..=T(T−1)/2, T) / denominator) = expected`.
pub struct CayleyVector<const T: usize> {
    /// The common denominator `d` of the packed entries `S = 1/d, 2/d, …`.
    pub denominator: i64,
    /// `Cay(C)` row by row, as `(numerator, denominator)` pairs.
    pub expected: [[(i64, i64); T]; T],
}

/// `T = 2`: `C = [0 −½; ½ 0] → [3/5 4/5; −4/5 3/5]`.
pub const CAYLEY_T2: CayleyVector<2> = CayleyVector {
    denominator: 2,
    expected: [[(3, 5), (4, 5)], [(-4, 5), (3, 5)]],
};

/// `T = 4`: `C = SkewSym(S = 1..6, 4)/3 → (1/482)·[…]`.
pub const CAYLEY_T4: CayleyVector<4> = CayleyVector {
    denominator: 3,
    expected: [
        [(229, 482), (-63, 482), (-255, 482), (333, 482)],
        [(-405, 482), (103, 482), (-111, 482), (213, 482)],
        [(-123, 482), (-465, 482), (-23, 482), (-21, 482)],
        [(-27, 482), (39, 482), (-393, 482), (-275, 482)],
    ],
};

/// `T = 5`: `C = SkewSym(S = 1..10, 5)/5`, mixed denominators (all dividing 6222).
pub const CAYLEY_T5: CayleyVector<5> = CayleyVector {
    denominator: 5,
    expected: [
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
    ],
};

impl<const T: usize> CayleyVector<T> {
    /// The packed vector `S/d = (1/d, 2/d, …, (T(T−1)/2)/d)` of `C`.
    pub fn packed<F>(&self, ratio: impl Fn(i64, i64) -> F) -> Vec<F> {
        (1..=(T * (T - 1) / 2) as i64)
            .map(|k| ratio(k, self.denominator))
            .collect()
    }

    /// `C`, row by row, with `ratio(n, d)` making the scalar `n/d`.
    pub fn input<F>(&self, ratio: impl Fn(i64, i64) -> F) -> Vec<Vec<F>> {
        (0..T)
            .map(|i| {
                (0..T)
                    .map(|j| {
                        if i == j {
                            return ratio(0, 1);
                        }
                        let (row, col, sign) = if i > j { (i, j, 1) } else { (j, i, -1) };
                        let k = (row * (row - 1) / 2 + col + 1) as i64;
                        ratio(sign * k, self.denominator)
                    })
                    .collect()
            })
            .collect()
    }

    /// `Cay(C)`, row by row, with `ratio(n, d)` making the scalar `n/d`.
    pub fn expected<F>(&self, ratio: impl Fn(i64, i64) -> F) -> Vec<Vec<F>> {
        self.expected
            .iter()
            .map(|row| row.iter().map(|&(n, d)| ratio(n, d)).collect())
            .collect()
    }

    /// [`Self::packed`] in [`Q`].
    pub fn packed_q(&self) -> Vec<Q> {
        self.packed(q_of)
    }

    /// [`Self::input`] as a matrix of [`Q`].
    pub fn input_q(&self) -> SMatrix<Q, T, T> {
        let rows = self.input(q_of);
        SMatrix::from_fn(|i, j| rows[i][j])
    }

    /// [`Self::expected`] as a matrix of [`Q`].
    pub fn expected_q(&self) -> SMatrix<Q, T, T> {
        SMatrix::from_fn(|i, j| q_of(self.expected[i][j].0, self.expected[i][j].1))
    }
}

fn q_of(n: i64, d: i64) -> Q {
    q(n.into(), d.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{exact, q_matrix};

    /// CONVENTIONS.md's example of the packing: `S = 1..6, n = 4`.
    #[test]
    fn inputs_follow_the_packing_of_conventions() {
        let c = CayleyVector::<4> {
            denominator: 1,
            expected: [[(0, 1); 4]; 4],
        };
        assert_eq!(
            c.input_q(),
            q_matrix(
                [[0, -1, -2, -4], [1, 0, -3, -5], [2, 3, 0, -6], [4, 5, 6, 0]],
                1
            )
        );
    }

    /// The exact reference reproduces every vector, in `Ratio<i128>` and in `BigRational`.
    #[test]
    fn the_exact_reference_reproduces_the_vectors() {
        fn check<const T: usize>(v: &CayleyVector<T>) {
            assert_eq!(
                exact::cayley_matrix(&v.input_q()),
                v.expected_q(),
                "T = {T}"
            );
            let big = |n: i64, d: i64| num_rational::BigRational::new(n.into(), d.into());
            assert_eq!(exact::cayley(&v.input(big)), v.expected(big), "T = {T}");
        }
        check(&CAYLEY_T2);
        check(&CAYLEY_T4);
        check(&CAYLEY_T5);
    }
}
