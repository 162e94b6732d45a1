// @generated: what `geomattn::cayley!(4)` expands to (strategy `quaternion`, the default at T = 4),
// named `cayley_4`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 60 add/sub, 42 mul, 2 neg, 2 div; 106 in all.

#[inline(always)]
fn cayley_4<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 4, 4>,
) -> ::geomattn::__private::SMatrix<S, 4, 4> {
    let i0: S = c[(0, 1)];
    let i1: S = c[(0, 2)];
    let i2: S = c[(1, 2)];
    let i3: S = c[(0, 3)];
    let i4: S = c[(1, 3)];
    let i5: S = c[(2, 3)];
    let k1: S = ::geomattn::__private::ratio::<S>(1, 1);
    let k0: S = ::geomattn::__private::ratio::<S>(1, 2);
    let k2: S = ::geomattn::__private::ratio::<S>(2, 1);
    let k3: S = ::geomattn::__private::ratio::<S>(4, 1);
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
        t33,
        t34,
        t35,
        t36,
        t37,
        t38,
        t39,
        t40,
        t41,
        t42,
        t43,
        t44,
        t45,
        t46,
        t47,
        t48,
        t49,
        t50,
        t51,
        t52,
        t53,
        t54,
        t55,
        t56,
        t57,
        t58,
        t59,
        t60,
        t61,
        t62,
        t63,
        t64,
        t65,
        t66,
        t67,
        t68,
        t69,
        t70,
        t71,
        t72,
        t73,
        t74,
        t75,
        t76,
        t77,
        t78,
        t79,
        t80,
        t81,
        t82,
        t83,
        t84,
        t85,
        t86,
        t87,
        t88,
        t89,
        t90,
        t91,
        t92,
        t93,
        t94,
        t95,
        t96,
        t97,
        t98,
        t99,
        t100,
        t101,
        t102,
        t103,
        t104,
        t105,
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
        S,
        S,
        S,
        S,
        S,
        S,
        S,
    );
    t0 = i0 + i5;
    t1 = i4 - i1;
    t2 = i2 + i3;
    t3 = i5 - i0;
    t4 = i1 + i4;
    t5 = i2 - i3;
    t6 = t0 * k0;
    t7 = t1 * k0;
    t8 = t2 * k0;
    t9 = t3 * k0;
    t10 = t4 * k0;
    t11 = t5 * k0;
    t12 = t6 * t6;
    t13 = t7 * t7;
    t14 = t8 * t8;
    t15 = t12 + t13;
    t16 = t14 + t15;
    t17 = t9 * t9;
    t18 = t10 * t10;
    t19 = t11 * t11;
    t20 = t17 + t18;
    t21 = t19 + t20;
    t22 = t16 + k1;
    t23 = t21 + t22;
    t24 = k1 / t23;
    t25 = t16 - t21;
    t26 = t24 * t25;
    t27 = t24 + t26;
    t28 = t24 - t26;
    t29 = k2 - t24;
    t30 = t24 * t29;
    t31 = t26 * t26;
    t32 = t30 + t31;
    t33 = k1 / t32;
    t34 = t24 * t33;
    t35 = t28 * t33;
    t36 = t27 * t35;
    t37 = t27 * t34;
    t38 = t37 * k2;
    t39 = t28 * t34;
    t40 = t39 * k2;
    t41 = t24 * t34;
    t42 = t41 * k3;
    t43 = t6 * t38;
    t44 = t7 * t38;
    t45 = t8 * t38;
    t46 = t9 * t40;
    t47 = t10 * t40;
    t48 = t11 * t40;
    t49 = t6 * t42;
    t50 = t7 * t42;
    t51 = t8 * t42;
    t52 = t9 * t49;
    t53 = t10 * t50;
    t54 = t11 * t51;
    t55 = t36 + t52;
    t56 = t53 + t55;
    t57 = t54 + t56;
    t58 = t11 * t50;
    t59 = t10 * t51;
    t60 = t43 - t46;
    t61 = t58 + t60;
    t62 = t61 - t59;
    t63 = t9 * t51;
    t64 = t11 * t49;
    t65 = t47 - t44;
    t66 = t65 - t63;
    t67 = t64 + t66;
    t68 = t10 * t49;
    t69 = t9 * t50;
    t70 = t45 - t48;
    t71 = t68 + t70;
    t72 = t71 - t69;
    t73 = t46 - t43;
    t74 = t58 + t73;
    t75 = t74 - t59;
    t76 = t55 - t53;
    t77 = t76 - t54;
    t78 = t45 + t48;
    t79 = t78 - t68;
    t80 = t79 - t69;
    t81 = t44 + t47;
    t82 = t64 + t81;
    t83 = t63 + t82;
    t84 = t44 - t47;
    t85 = t84 - t63;
    t86 = t64 + t85;
    t87 = t68 + t78;
    t88 = t69 + t87;
    t89 = t36 - t52;
    t90 = t53 + t89;
    t91 = t90 - t54;
    t92 = t43 + t46;
    t93 = t92 - t58;
    t94 = t93 - t59;
    t95 = t48 - t45;
    t96 = t68 + t95;
    t97 = t96 - t69;
    t98 = t64 - t81;
    t99 = t63 + t98;
    t100 = t58 + t92;
    t101 = t59 + t100;
    t102 = t89 - t53;
    t103 = t54 + t102;
    t104 = -t88;
    t105 = -t101;
    ::geomattn::__private::SMatrix::<
        S,
        4,
        4,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t57, t62, t67, t72],
            [t75, t77, t80, t83],
            [t86, t104, t91, t94],
            [t97, t99, t105, t103],
        ]),
    )
}
