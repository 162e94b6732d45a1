// @generated: what `geomattn::cayley!(4)` expands to (strategy `gram_schmidt`, the default at T = 4),
// named `cayley_4`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 76 add/sub, 103 mul, 0 neg, 4 div; 183 in all.

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
        t117,
        t118,
        t119,
        t120,
        t121,
        t122,
        t123,
        t124,
        t125,
        t126,
        t127,
        t128,
        t129,
        t130,
        t131,
        t132,
        t133,
        t134,
        t135,
        t136,
        t137,
        t138,
        t139,
        t140,
        t141,
        t142,
        t143,
        t144,
        t145,
        t146,
        t147,
        t148,
        t149,
        t150,
        t151,
        t152,
        t153,
        t154,
        t155,
        t156,
        t157,
        t158,
        t159,
        t160,
        t161,
        t162,
        t163,
        t164,
        t165,
        t166,
        t167,
        t168,
        t169,
        t170,
        t171,
        t172,
        t173,
        t174,
        t175,
        t176,
        t177,
        t178,
        t179,
        t180,
        t181,
        t182,
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
    t0 = i0 * i0;
    t1 = i1 * i1;
    t2 = i3 * i3;
    t3 = t0 + k0;
    t4 = t1 + t3;
    t5 = t2 + t4;
    t6 = k0 / t5;
    t7 = i1 * i2;
    t8 = i3 * i4;
    t9 = t7 + t8;
    t10 = t6 * t9;
    t11 = i0 - t10;
    t12 = i0 * t10;
    t13 = t12 + k0;
    t14 = i1 * t10;
    t15 = t14 - i2;
    t16 = i3 * t10;
    t17 = t16 - i4;
    t18 = i0 * i2;
    t19 = i3 * i5;
    t20 = t19 - t18;
    t21 = t6 * t20;
    t22 = i1 - t21;
    t23 = i0 * t21;
    t24 = i2 + t23;
    t25 = i1 * t21;
    t26 = t25 + k0;
    t27 = i3 * t21;
    t28 = t27 - i5;
    t29 = i0 * i4;
    t30 = i1 * i5;
    t31 = t29 + t30;
    t32 = t6 * t31;
    t33 = i3 + t32;
    t34 = i0 * t32;
    t35 = i4 - t34;
    t36 = i1 * t32;
    t37 = i5 - t36;
    t38 = i3 * t32;
    t39 = k0 - t38;
    t40 = t6 * k1;
    t41 = i0 * t40;
    t42 = i1 * t40;
    t43 = i3 * t40;
    t44 = t11 * t11;
    t45 = t13 * t13;
    t46 = t15 * t15;
    t47 = t17 * t17;
    t48 = t44 + t45;
    t49 = t46 + t48;
    t50 = t47 + t49;
    t51 = k0 / t50;
    t52 = t11 * t22;
    t53 = t13 * t24;
    t54 = t15 * t26;
    t55 = t17 * t28;
    t56 = t52 + t53;
    t57 = t54 + t56;
    t58 = t55 + t57;
    t59 = t51 * t58;
    t60 = t11 * t59;
    t61 = t22 - t60;
    t62 = t13 * t59;
    t63 = t24 - t62;
    t64 = t15 * t59;
    t65 = t26 - t64;
    t66 = t17 * t59;
    t67 = t28 - t66;
    t68 = t11 * t33;
    t69 = t13 * t35;
    t70 = t15 * t37;
    t71 = t17 * t39;
    t72 = t68 + t69;
    t73 = t70 + t72;
    t74 = t71 + t73;
    t75 = t51 * t74;
    t76 = t11 * t75;
    t77 = t33 - t76;
    t78 = t13 * t75;
    t79 = t35 - t78;
    t80 = t15 * t75;
    t81 = t37 - t80;
    t82 = t17 * t75;
    t83 = t39 - t82;
    t84 = t51 * k1;
    t85 = t11 * t84;
    t86 = t13 * t84;
    t87 = t15 * t84;
    t88 = t17 * t84;
    t89 = t61 * t61;
    t90 = t63 * t63;
    t91 = t65 * t65;
    t92 = t67 * t67;
    t93 = t89 + t90;
    t94 = t91 + t93;
    t95 = t92 + t94;
    t96 = k0 / t95;
    t97 = t61 * t77;
    t98 = t63 * t79;
    t99 = t65 * t81;
    t100 = t67 * t83;
    t101 = t97 + t98;
    t102 = t99 + t101;
    t103 = t100 + t102;
    t104 = t96 * t103;
    t105 = t61 * t104;
    t106 = t77 - t105;
    t107 = t63 * t104;
    t108 = t79 - t107;
    t109 = t65 * t104;
    t110 = t81 - t109;
    t111 = t67 * t104;
    t112 = t83 - t111;
    t113 = t96 * k1;
    t114 = t61 * t113;
    t115 = t63 * t113;
    t116 = t65 * t113;
    t117 = t67 * t113;
    t118 = t106 * t106;
    t119 = t108 * t108;
    t120 = t110 * t110;
    t121 = t112 * t112;
    t122 = t118 + t119;
    t123 = t120 + t122;
    t124 = t121 + t123;
    t125 = k0 / t124;
    t126 = t125 * k1;
    t127 = t106 * t126;
    t128 = t108 * t126;
    t129 = t110 * t126;
    t130 = t112 * t126;
    t131 = t104 * t127;
    t132 = t114 - t131;
    t133 = t104 * t128;
    t134 = t115 - t133;
    t135 = t104 * t129;
    t136 = t116 - t135;
    t137 = t104 * t130;
    t138 = t117 - t137;
    t139 = t59 * t132;
    t140 = t85 - t139;
    t141 = t59 * t134;
    t142 = t86 - t141;
    t143 = t59 * t136;
    t144 = t87 - t143;
    t145 = t59 * t138;
    t146 = t88 - t145;
    t147 = t75 * t127;
    t148 = t140 - t147;
    t149 = t75 * t128;
    t150 = t142 - t149;
    t151 = t75 * t129;
    t152 = t144 - t151;
    t153 = t75 * t130;
    t154 = t146 - t153;
    t155 = t10 * t148;
    t156 = t40 - t155;
    t157 = t10 * t150;
    t158 = t41 + t157;
    t159 = t10 * t152;
    t160 = t42 + t159;
    t161 = t10 * t154;
    t162 = t43 + t161;
    t163 = t21 * t132;
    t164 = t156 - t163;
    t165 = t21 * t134;
    t166 = t158 + t165;
    t167 = t21 * t136;
    t168 = t160 + t167;
    t169 = t21 * t138;
    t170 = t162 + t169;
    t171 = t32 * t127;
    t172 = t164 + t171;
    t173 = t32 * t128;
    t174 = t173 - t166;
    t175 = t32 * t129;
    t176 = t175 - t168;
    t177 = t32 * t130;
    t178 = t177 - t170;
    t179 = t172 - k0;
    t180 = t150 - k0;
    t181 = t136 - k0;
    t182 = t130 - k0;
    ::geomattn::__private::SMatrix::<
        S,
        4,
        4,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t179, t148, t132, t127],
            [t174, t180, t134, t128],
            [t176, t152, t181, t129],
            [t178, t154, t138, t182],
        ]),
    )
}
