//! `cayley!` through a renamed dependency: this crate dev-depends on geomattn as
//! `ga = { package = "geomattn", … }`, so no crate `::geomattn` exists here, and the expansion
//! compiles only if every path it names goes through `$crate`.

use ga::nalgebra::{Matrix2, Matrix3, SMatrix};
use ga::{LuSolve, OrthogonalMap};
use num_rational::Ratio;

/// A named function, as a user would write one.
fn cayley_3<S: ga::Field>(c: &SMatrix<S, 3, 3>) -> SMatrix<S, 3, 3> {
    ga::cayley!(3)(c)
}

#[test]
fn every_strategy_works_under_another_name() {
    let c = Matrix3::new(0.0, 0.3, -0.2, -0.3, 0.0, 0.5, 0.2, -0.5, 0.0);
    let lu = <LuSolve as OrthogonalMap<f64, 3>>::map(&c);
    let results = [
        cayley_3(&c),
        ga::cayley!(3, strategy = elimination)(&c),
        ga::cayley!(3, strategy = symbolic)(&c),
    ];
    for q in results {
        assert!((q - lu).amax() < 1e-15, "{q} vs LU {lu}");
    }
}

#[test]
fn the_imported_macro_is_exact_in_rationals() {
    use ga::cayley;
    type Q = Ratio<i64>;
    let c = Matrix2::new(Q::from(0), Q::new(-1, 2), Q::new(1, 2), Q::from(0));
    let expected = Matrix2::new(Q::new(3, 5), Q::new(4, 5), Q::new(-4, 5), Q::new(3, 5));
    assert_eq!(cayley!(2)(&c), expected);
    assert_eq!(cayley!(2, strategy = elimination)(&c), expected);
}
