// @generated: what `geomattn::cayley!(4)` expands to (strategy `gram_schmidt`, the default at T = 4),
// named `cayley_4`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 80 add/sub, 103 mul, 3 neg, 4 div; 190 in all.

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
        t183,
        t184,
        t185,
        t186,
        t187,
        t188,
        t189,
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
        S,
        S,
        S,
        S,
        S,
        S,
        S,
    );
    t0 = i0 * i0;
    t1 = t0 + k0;
    t2 = i1 * i1;
    t3 = t1 + t2;
    t4 = i3 * i3;
    t5 = t3 + t4;
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
    t19 = i1 - t18;
    t20 = t19 - i1;
    t21 = i3 * i5;
    t22 = t20 + t21;
    t23 = t6 * t22;
    t24 = i1 - t23;
    t25 = i0 * t23;
    t26 = i2 + t25;
    t27 = i1 * t23;
    t28 = t27 + k0;
    t29 = i3 * t23;
    t30 = t29 - i5;
    t31 = i0 * i4;
    t32 = i3 - t31;
    t33 = i1 * i5;
    t34 = t32 - t33;
    t35 = t34 - i3;
    t36 = t6 * t35;
    t37 = i3 - t36;
    t38 = i0 * t36;
    t39 = i4 + t38;
    t40 = i1 * t36;
    t41 = i5 + t40;
    t42 = i3 * t36;
    t43 = t42 + k0;
    t44 = t6 * k1;
    t45 = i0 * t44;
    t46 = i1 * t44;
    t47 = i3 * t44;
    t48 = t11 * t11;
    t49 = t13 * t13;
    t50 = t48 + t49;
    t51 = t15 * t15;
    t52 = t50 + t51;
    t53 = t17 * t17;
    t54 = t52 + t53;
    t55 = k0 / t54;
    t56 = t11 * t24;
    t57 = t13 * t26;
    t58 = t56 + t57;
    t59 = t15 * t28;
    t60 = t58 + t59;
    t61 = t17 * t30;
    t62 = t60 + t61;
    t63 = t55 * t62;
    t64 = t11 * t63;
    t65 = t24 - t64;
    t66 = t13 * t63;
    t67 = t26 - t66;
    t68 = t15 * t63;
    t69 = t28 - t68;
    t70 = t17 * t63;
    t71 = t30 - t70;
    t72 = t11 * t37;
    t73 = t13 * t39;
    t74 = t72 + t73;
    t75 = t15 * t41;
    t76 = t74 + t75;
    t77 = t17 * t43;
    t78 = t76 + t77;
    t79 = t55 * t78;
    t80 = t11 * t79;
    t81 = t37 - t80;
    t82 = t13 * t79;
    t83 = t39 - t82;
    t84 = t15 * t79;
    t85 = t41 - t84;
    t86 = t17 * t79;
    t87 = t43 - t86;
    t88 = t55 * k1;
    t89 = t11 * t88;
    t90 = t13 * t88;
    t91 = t15 * t88;
    t92 = t17 * t88;
    t93 = t65 * t65;
    t94 = t67 * t67;
    t95 = t93 + t94;
    t96 = t69 * t69;
    t97 = t95 + t96;
    t98 = t71 * t71;
    t99 = t97 + t98;
    t100 = k0 / t99;
    t101 = t65 * t81;
    t102 = t67 * t83;
    t103 = t101 + t102;
    t104 = t69 * t85;
    t105 = t103 + t104;
    t106 = t71 * t87;
    t107 = t105 + t106;
    t108 = t100 * t107;
    t109 = t65 * t108;
    t110 = t81 - t109;
    t111 = t67 * t108;
    t112 = t83 - t111;
    t113 = t69 * t108;
    t114 = t85 - t113;
    t115 = t71 * t108;
    t116 = t87 - t115;
    t117 = t100 * k1;
    t118 = t65 * t117;
    t119 = t67 * t117;
    t120 = t69 * t117;
    t121 = t71 * t117;
    t122 = t110 * t110;
    t123 = t112 * t112;
    t124 = t122 + t123;
    t125 = t114 * t114;
    t126 = t124 + t125;
    t127 = t116 * t116;
    t128 = t126 + t127;
    t129 = k0 / t128;
    t130 = t129 * k1;
    t131 = t110 * t130;
    t132 = t112 * t130;
    t133 = t114 * t130;
    t134 = t116 * t130;
    t135 = t108 * t131;
    t136 = t118 - t135;
    t137 = t108 * t132;
    t138 = t119 - t137;
    t139 = t108 * t133;
    t140 = t120 - t139;
    t141 = t108 * t134;
    t142 = t121 - t141;
    t143 = t63 * t136;
    t144 = t89 - t143;
    t145 = t63 * t138;
    t146 = t90 - t145;
    t147 = t63 * t140;
    t148 = t91 - t147;
    t149 = t63 * t142;
    t150 = t92 - t149;
    t151 = t79 * t131;
    t152 = t144 - t151;
    t153 = t79 * t132;
    t154 = t146 - t153;
    t155 = t79 * t133;
    t156 = t148 - t155;
    t157 = t79 * t134;
    t158 = t150 - t157;
    t159 = t10 * t152;
    t160 = t44 - t159;
    t161 = t10 * t154;
    t162 = t45 + t161;
    t163 = t10 * t156;
    t164 = t46 + t163;
    t165 = t10 * t158;
    t166 = t47 + t165;
    t167 = t23 * t136;
    t168 = t160 - t167;
    t169 = t23 * t138;
    t170 = t162 + t169;
    t171 = t23 * t140;
    t172 = t164 + t171;
    t173 = t23 * t142;
    t174 = t166 + t173;
    t175 = t36 * t131;
    t176 = t168 - t175;
    t177 = t36 * t132;
    t178 = t170 + t177;
    t179 = t36 * t133;
    t180 = t172 + t179;
    t181 = t36 * t134;
    t182 = t174 + t181;
    t183 = t176 - k0;
    t184 = t154 - k0;
    t185 = t140 - k0;
    t186 = t134 - k0;
    t187 = -t178;
    t188 = -t180;
    t189 = -t182;
    ::geomattn::__private::SMatrix::<
        S,
        4,
        4,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t183, t152, t136, t131],
            [t187, t184, t138, t132],
            [t188, t156, t185, t133],
            [t189, t158, t142, t186],
        ]),
    )
}
