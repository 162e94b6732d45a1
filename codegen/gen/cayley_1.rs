// @generated: what `geomattn::cayley!(1)` expands to (strategy `gram_schmidt`, the default at T = 1),
// named `cayley_1`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 0 add/sub, 0 mul, 0 neg, 0 div; 0 in all.

#[inline(always)]
fn cayley_1<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 1, 1>,
) -> ::geomattn::__private::SMatrix<S, 1, 1> {
    let _ = c;
    let k0: S = ::geomattn::__private::ratio::<S>(1, 1);
    ::geomattn::__private::SMatrix::<
        S,
        1,
        1,
    >::from_array_storage(::geomattn::__private::ArrayStorage([[k0]]))
}
