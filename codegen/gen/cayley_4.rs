// @generated: what `geomattn::cayley!(4)` expands to (strategy `symbolic`, the default at T = 4),
// named `cayley_4`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 54 add/sub, 59 mul, 3 neg, 1 div; 117 in all.

#[inline]
fn cayley_4<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 4, 4>,
) -> ::geomattn::__private::SMatrix<S, 4, 4> {
    let i0: S = c[(0, 1)];
    let i1: S = c[(0, 2)];
    let i2: S = c[(1, 2)];
    let i3: S = c[(0, 3)];
    let i4: S = c[(1, 3)];
    let i5: S = c[(2, 3)];
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
        t106,
        t107,
        t108,
        t109,
        t110,
        t111,
        t112,
        t113,
        t114,
        t115,
        t116,
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
    t0 = i4 * i4;
    t1 = t0 + k0;
    t2 = i1 * t1;
    t3 = i2 * i3;
    t4 = i4 * t3;
    t5 = t4 * k1;
    t6 = t2 - t5;
    t7 = i1 * t6;
    t8 = i1 * i4;
    t9 = t8 * k1;
    t10 = t3 * k1;
    t11 = t10 - t9;
    t12 = i0 * t11;
    t13 = i0 * i0;
    t14 = t13 + k0;
    t15 = i5 * t14;
    t16 = t12 + t15;
    t17 = i5 * t16;
    t18 = i2 * i2;
    t19 = i3 * i3;
    t20 = t19 + k0;
    t21 = t18 * t20;
    t22 = t0 + t13;
    t23 = t20 + t22;
    t24 = t7 + t17;
    t25 = t21 + t24;
    t26 = t23 + t25;
    t27 = i5 * i5;
    t28 = t1 + t18;
    t29 = t27 + t28;
    t30 = i1 * i2;
    t31 = i3 * i4;
    t32 = t30 + t31;
    t33 = i1 * i1;
    t34 = t20 + t27;
    t35 = t33 + t34;
    t36 = i0 * i2;
    t37 = i3 * i5;
    t38 = t36 - t37;
    t39 = i0 * i1;
    t40 = i4 * i5;
    t41 = t39 + t40;
    t42 = i0 * i4;
    t43 = i1 * i5;
    t44 = t42 + t43;
    t45 = i0 * i3;
    t46 = i2 * i5;
    t47 = t46 - t45;
    t48 = i1 * i3;
    t49 = i2 * i4;
    t50 = t48 + t49;
    t51 = t14 + t18;
    t52 = t33 + t51;
    t53 = i0 * i5;
    t54 = t3 + t53;
    t55 = t8 - t54;
    t56 = i5 * t55;
    t57 = t56 - i0;
    t58 = i4 * t53;
    t59 = t4 + t58;
    t60 = t59 - t2;
    t61 = i3 * t8;
    t62 = i3 * t53;
    t63 = i2 * t20;
    t64 = t62 + t63;
    t65 = t61 - t64;
    t66 = i2 * t8;
    t67 = i2 * t53;
    t68 = i3 * t18;
    t69 = i3 + t67;
    t70 = t68 + t69;
    t71 = t66 - t70;
    t72 = i1 * t53;
    t73 = t3 - t8;
    t74 = i1 * t73;
    t75 = t72 + t74;
    t76 = t75 - i4;
    t77 = t8 - t3;
    t78 = i0 * t77;
    t79 = t78 - t15;
    t80 = k0 / t26;
    t81 = t80 * k1;
    t82 = t29 * t81;
    t83 = t82 - k0;
    t84 = t57 - t32;
    t85 = t32 + t57;
    t86 = t81 * t84;
    t87 = t81 * t85;
    t88 = t35 * t81;
    t89 = t88 - k0;
    t90 = t38 + t60;
    t91 = t38 - t60;
    t92 = t81 * t90;
    t93 = t81 * t91;
    t94 = t65 - t41;
    t95 = t41 + t65;
    t96 = t81 * t94;
    t97 = t81 * t95;
    t98 = t23 * t81;
    t99 = t98 - k0;
    t100 = t44 + t71;
    t101 = t44 - t71;
    t102 = t81 * t100;
    t103 = t81 * t101;
    t104 = t47 + t76;
    t105 = t47 - t76;
    t106 = t81 * t104;
    t107 = t81 * t105;
    t108 = t79 - t50;
    t109 = t50 + t79;
    t110 = t81 * t108;
    t111 = t81 * t109;
    t112 = t52 * t81;
    t113 = t112 - k0;
    t114 = -t87;
    t115 = -t97;
    t116 = -t111;
    ::geomattn::__private::SMatrix::<
        S,
        4,
        4,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t83, t114, t93, t103],
            [t86, t89, t115, t107],
            [t92, t96, t99, t116],
            [t102, t106, t110, t113],
        ]),
    )
}
