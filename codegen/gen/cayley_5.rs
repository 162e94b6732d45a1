// @generated: what `geomattn::cayley!(5)` expands to (strategy `elimination`, the default at T = 5),
// named `cayley_5`. DO NOT EDIT: regenerate with `GEOMATTN_BLESS=1 cargo test -p geomattn-codegen --test generated_files`.
// Operations: 85 add/sub, 114 mul, 5 neg, 4 div; 208 in all.

#[inline]
fn cayley_5<S: ::geomattn::__private::Field>(
    c: &::geomattn::__private::SMatrix<S, 5, 5>,
) -> ::geomattn::__private::SMatrix<S, 5, 5> {
    let i0: S = c[(0, 1)];
    let i1: S = c[(0, 2)];
    let i2: S = c[(1, 2)];
    let i3: S = c[(0, 3)];
    let i4: S = c[(1, 3)];
    let i5: S = c[(2, 3)];
    let i6: S = c[(0, 4)];
    let i7: S = c[(1, 4)];
    let i8: S = c[(2, 4)];
    let i9: S = c[(3, 4)];
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
        t190,
        t191,
        t192,
        t193,
        t194,
        t195,
        t196,
        t197,
        t198,
        t199,
        t200,
        t201,
        t202,
        t203,
        t204,
        t205,
        t206,
        t207,
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
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
        S,
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
    t2 = i0 * i1;
    t3 = i2 + t2;
    t4 = i0 * i3;
    t5 = i4 + t4;
    t6 = i0 * i6;
    t7 = i7 + t6;
    t8 = t2 - i2;
    t9 = i1 * i1;
    t10 = t9 + k0;
    t11 = i1 * i3;
    t12 = i5 + t11;
    t13 = i1 * i6;
    t14 = i8 + t13;
    t15 = t4 - i4;
    t16 = t11 - i5;
    t17 = i3 * i3;
    t18 = t17 + k0;
    t19 = i3 * i6;
    t20 = i9 + t19;
    t21 = t6 - i7;
    t22 = t13 - i8;
    t23 = t19 - i9;
    t24 = i6 * i6;
    t25 = t24 + k0;
    t26 = k0 / t1;
    t27 = t3 * t26;
    t28 = t5 * t26;
    t29 = t7 * t26;
    t30 = t8 * t27;
    t31 = t10 - t30;
    t32 = t8 * t28;
    t33 = t12 - t32;
    t34 = t8 * t29;
    t35 = t14 - t34;
    t36 = t15 * t27;
    t37 = t16 - t36;
    t38 = t15 * t28;
    t39 = t18 - t38;
    t40 = t15 * t29;
    t41 = t20 - t40;
    t42 = t21 * t27;
    t43 = t22 - t42;
    t44 = t21 * t28;
    t45 = t23 - t44;
    t46 = t21 * t29;
    t47 = t25 - t46;
    t48 = k0 / t31;
    t49 = t33 * t48;
    t50 = t35 * t48;
    t51 = t37 * t49;
    t52 = t39 - t51;
    t53 = t37 * t50;
    t54 = t41 - t53;
    t55 = t43 * t49;
    t56 = t45 - t55;
    t57 = t43 * t50;
    t58 = t47 - t57;
    t59 = k0 / t52;
    t60 = t54 * t59;
    t61 = t56 * t60;
    t62 = t58 - t61;
    t63 = k0 / t62;
    t64 = i0 * k1;
    t65 = t26 * t64;
    t66 = i1 * k1;
    t67 = t8 * t65;
    t68 = t67 - t66;
    t69 = t48 * t68;
    t70 = i3 * k1;
    t71 = t15 * t65;
    t72 = t71 - t70;
    t73 = t37 * t69;
    t74 = t72 - t73;
    t75 = t59 * t74;
    t76 = i6 * k1;
    t77 = t21 * t65;
    t78 = t77 - t76;
    t79 = t43 * t69;
    t80 = t78 - t79;
    t81 = t56 * t75;
    t82 = t80 - t81;
    t83 = t63 * t82;
    t84 = t26 * k1;
    t85 = t8 * t84;
    t86 = t48 * t85;
    t87 = t15 * t84;
    t88 = t37 * t86;
    t89 = t87 - t88;
    t90 = t59 * t89;
    t91 = t21 * t84;
    t92 = t43 * t86;
    t93 = t91 - t92;
    t94 = t56 * t90;
    t95 = t93 - t94;
    t96 = t63 * t95;
    t97 = t48 * k1;
    t98 = t37 * t97;
    t99 = t59 * t98;
    t100 = t43 * t97;
    t101 = t56 * t99;
    t102 = t100 - t101;
    t103 = t63 * t102;
    t104 = t59 * k1;
    t105 = t56 * t104;
    t106 = t63 * t105;
    t107 = t63 * k1;
    t108 = t60 * t83;
    t109 = t108 - t75;
    t110 = t60 * t96;
    t111 = t110 - t90;
    t112 = t60 * t103;
    t113 = t112 - t99;
    t114 = t60 * t106;
    t115 = t104 + t114;
    t116 = t60 * t107;
    t117 = t49 * t109;
    t118 = t69 + t117;
    t119 = t50 * t83;
    t120 = t119 - t118;
    t121 = t49 * t111;
    t122 = t86 + t121;
    t123 = t50 * t96;
    t124 = t123 - t122;
    t125 = t49 * t113;
    t126 = t97 - t125;
    t127 = t50 * t103;
    t128 = t126 + t127;
    t129 = t49 * t115;
    t130 = t50 * t106;
    t131 = t130 - t129;
    t132 = t49 * t116;
    t133 = t50 * t107;
    t134 = t132 - t133;
    t135 = t27 * t120;
    t136 = t65 - t135;
    t137 = t28 * t109;
    t138 = t136 - t137;
    t139 = t29 * t83;
    t140 = t138 + t139;
    t141 = t27 * t124;
    t142 = t84 - t141;
    t143 = t28 * t111;
    t144 = t142 - t143;
    t145 = t29 * t96;
    t146 = t144 + t145;
    t147 = t27 * t128;
    t148 = t28 * t113;
    t149 = t147 + t148;
    t150 = t29 * t103;
    t151 = t150 - t149;
    t152 = t27 * t131;
    t153 = t28 * t115;
    t154 = t152 + t153;
    t155 = t29 * t106;
    t156 = t155 - t154;
    t157 = t27 * t134;
    t158 = t28 * t116;
    t159 = t158 - t157;
    t160 = t29 * t107;
    t161 = t159 - t160;
    t162 = i0 * t140;
    t163 = k1 - t162;
    t164 = i1 * t120;
    t165 = t163 - t164;
    t166 = i3 * t109;
    t167 = t165 - t166;
    t168 = i6 * t83;
    t169 = t167 + t168;
    t170 = i0 * t146;
    t171 = i1 * t124;
    t172 = t170 + t171;
    t173 = i3 * t111;
    t174 = t172 + t173;
    t175 = i6 * t96;
    t176 = t175 - t174;
    t177 = i0 * t151;
    t178 = i1 * t128;
    t179 = t177 + t178;
    t180 = i3 * t113;
    t181 = t179 + t180;
    t182 = i6 * t103;
    t183 = t182 - t181;
    t184 = i0 * t156;
    t185 = i1 * t131;
    t186 = t184 + t185;
    t187 = i3 * t115;
    t188 = t186 + t187;
    t189 = i6 * t106;
    t190 = t189 - t188;
    t191 = i0 * t161;
    t192 = i1 * t134;
    t193 = t191 + t192;
    t194 = i3 * t116;
    t195 = t194 - t193;
    t196 = i6 * t107;
    t197 = t195 - t196;
    t198 = t169 - k0;
    t199 = t146 - k0;
    t200 = t128 - k0;
    t201 = t115 - k0;
    t202 = t107 - k0;
    t203 = -t83;
    t204 = -t96;
    t205 = -t103;
    t206 = -t106;
    t207 = -t116;
    ::geomattn::__private::SMatrix::<
        S,
        5,
        5,
    >::from_array_storage(
        ::geomattn::__private::ArrayStorage([
            [t198, t140, t120, t109, t203],
            [t176, t199, t124, t111, t204],
            [t183, t151, t200, t113, t205],
            [t190, t156, t131, t201, t206],
            [t197, t161, t134, t207, t202],
        ]),
    )
}
