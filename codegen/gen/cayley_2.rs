// @generated: what `geomattn::cayley!(2)` expands to (strategy `symbolic`, the default at T = 2),
// named `cayley_2`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 2 add/sub, 3 mul, 1 neg, 1 div; 7 in all.

#[inline(always)]
fn cayley_2<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 2, 2>,
) -> ::geomattn::__private::SMatrix<S, 2, 2> {
    let i0: S = c[(0, 1)];
    let k0: S = ::geomattn::__private::ratio::<S>(1, 1);
    let k1: S = ::geomattn::__private::ratio::<S>(2, 1);
    let (t0, t1, t2, t3, t4, t5, t6): (S, S, S, S, S, S, S);
    t0 = i0 * i0;
    t1 = t0 + k0;
    t2 = k0 / t1;
    t3 = t2 * k1;
    t4 = t3 - k0;
    t5 = i0 * t3;
    t6 = -t5;
    ::geomattn::__private::SMatrix::<
        S,
        2,
        2,
    >::from_array_storage(::geomattn::__private::ArrayStorage([[t4, t5], [t6, t4]]))
}
