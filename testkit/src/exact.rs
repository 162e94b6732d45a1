//! The exact reference for the Cayley transform: `Cay(C) = (I − C)(I + C)⁻¹` by Gauss–Jordan
//! elimination with pivot search, in any exact field.
//!
//! One definition for every test that needs it: the codegen tests run it on
//! `num_rational::BigRational` in `Vec`s ([`cayley`]), the runtime tests on [`crate::Q`] in
//! nalgebra matrices ([`cayley_matrix`]). It shares nothing with the kernels it checks (those
//! eliminate without pivoting, or follow a derived straight-line program), and it needs no
//! property of `C`: it searches for a non-zero pivot and panics only if `I + C` is singular,
//! which for skew `C` never happens.
//!
//! ```
//! use geomattn_testkit::{exact, q};
//! let c = vec![vec![q(0, 1), q(-1, 2)], vec![q(1, 2), q(0, 1)]];
//! let expected = vec![vec![q(3, 5), q(4, 5)], vec![q(-4, 5), q(3, 5)]];
//! assert_eq!(exact::cayley(&c), expected);
//! ```

use geomattn::nalgebra::{SMatrix, Scalar};
use num_traits::Num;

/// `Cay(C) = (I − C)(I + C)⁻¹` of the square matrix `c`, given and returned row by row.
///
/// Any exact field will do (`F: Num` is `+ − × ÷` with `0`, `1` and equality): `Ratio<i128>`,
/// `BigRational`, ….
///
/// # Panics
/// If `c` is not square or `I + C` is singular.
pub fn cayley<F: Num + Clone>(c: &[Vec<F>]) -> Vec<Vec<F>> {
    let t = c.len();
    assert!(c.iter().all(|row| row.len() == t), "C is not square");
    let identity = |i: usize, j: usize| if i == j { F::one() } else { F::zero() };
    let mut a: Vec<Vec<F>> = (0..t)
        .map(|i| (0..t).map(|j| identity(i, j) + c[i][j].clone()).collect())
        .collect();
    let mut inv: Vec<Vec<F>> = (0..t)
        .map(|i| (0..t).map(|j| identity(i, j)).collect())
        .collect();
    for k in 0..t {
        let pivot = (k..t)
            .find(|&r| !a[r][k].is_zero())
            .expect("I + C is invertible");
        a.swap(k, pivot);
        inv.swap(k, pivot);
        let p = a[k][k].clone();
        for col in 0..t {
            a[k][col] = a[k][col].clone() / p.clone();
            inv[k][col] = inv[k][col].clone() / p.clone();
        }
        for r in (0..t).filter(|&r| r != k) {
            let f = a[r][k].clone();
            for col in 0..t {
                a[r][col] = a[r][col].clone() - f.clone() * a[k][col].clone();
                inv[r][col] = inv[r][col].clone() - f.clone() * inv[k][col].clone();
            }
        }
    }
    (0..t)
        .map(|row| {
            (0..t)
                .map(|col| {
                    (0..t).fold(F::zero(), |acc, m| {
                        acc + (identity(row, m) - c[row][m].clone()) * inv[m][col].clone()
                    })
                })
                .collect()
        })
        .collect()
}

/// [`cayley`] on an nalgebra matrix.
pub fn cayley_matrix<F: Num + Scalar, const T: usize>(c: &SMatrix<F, T, T>) -> SMatrix<F, T, T> {
    let rows: Vec<Vec<F>> = (0..T)
        .map(|i| (0..T).map(|j| c[(i, j)].clone()).collect())
        .collect();
    let cay = cayley(&rows);
    SMatrix::from_fn(|i, j| cay[i][j].clone())
}
