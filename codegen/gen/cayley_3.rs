// @generated: what `geomattn::cayley!(3)` expands to (strategy `symbolic`, the default at T = 3),
// named `cayley_3`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 14 add/sub, 16 mul, 2 neg, 1 div; 33 in all.

#[inline(always)]
fn cayley_3<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 3, 3>,
) -> ::geomattn::__private::SMatrix<S, 3, 3> {
    let i0: S = c[(0, 1)];
    let i1: S = c[(0, 2)];
    let i2: S = c[(1, 2)];
    let k0: S = ::geomattn::__private::ratio::<S>(1, 1);
    let k1: S = ::geomattn::__private::ratio::<S>(2, 1);
    let (
        t0,
        t1,
        t2,
        t3,
        t4,
        t5,
        t6,
        t7,
        t8,
        t9,
        t10,
        t11,
        t12,
        t13,
        t14,
        t15,
        t16,
        t17,
        t18,
        t19,
        t20,
        t21,
        t22,
        t23,
        t24,
        t25,
        t26,
        t27,
        t28,
        t29,
        t30,
        t31,
        t32,
    ): (
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
    );
    t0 = i0 * i0;
    t1 = i1 * i1;
    t2 = i2 * i2;
    t3 = t2 + k0;
    t4 = t0 + t1;
    t5 = t3 + t4;
    t6 = i1 * i2;
    t7 = t1 + k0;
    t8 = i0 * i2;
    t9 = i0 * i1;
    t10 = t0 + k0;
    t11 = k0 / t5;
    t12 = t11 * k1;
    t13 = t3 * t12;
    t14 = t13 - k0;
    t15 = i0 + t6;
    t16 = i0 - t6;
    t17 = t12 * t15;
    t18 = t12 * t16;
    t19 = t7 * t12;
    t20 = t19 - k0;
    t21 = t8 - i1;
    t22 = i1 + t8;
    t23 = t12 * t21;
    t24 = t12 * t22;
    t25 = i2 + t9;
    t26 = i2 - t9;
    t27 = t12 * t25;
    t28 = t12 * t26;
    t29 = t10 * t12;
    t30 = t29 - k0;
    t31 = -t17;
    t32 = -t27;
    ::geomattn::__private::SMatrix::<
        S,
        3,
        3,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t14, t18, t24],
            [t31, t20, t28],
            [t23, t32, t30],
        ]),
    )
}
