"""Derive the rational `tanh` of `f32` in `runtime/src/isa/polynomial.rs` and measure it.

    python3 scripts/tanh_rational.py            # the coefficients, as the Rust source has them
    python3 scripts/tanh_rational.py --check    # and the error over every f32 in [1e-4, ONE_FROM)

`tanh a ≈ a·P(a²)/Q(a²)` on `0 ≤ a < ONE_FROM`, where `ONE_FROM` is the least `a` whose `tanh`
rounds to `1` in `f32`; `P` of degree 6 and `Q` of degree 3 in `a²` (the 13/6 form of Eigen's and
XLA's `f32` `tanh`, fitted here afresh). The fit minimises the largest relative error: linearised
least squares (`tanh·Q − a·P`, divided by the last `Q`) in a Chebyshev basis, with Lawson's
weights, on 2·10⁴ Chebyshev points. Its own error is 0.11 ulp; the rest of the measured bound is
the rounding of the evaluation, simulated here in `f32` with fused multiply-adds as the vectors
run it (`a·b + c` exact in `f64` for `f32` inputs, then rounded). Needs numpy only.
"""

import math
import sys

import numpy as np
from numpy.polynomial import chebyshev, polynomial

F32 = np.float32
DEGREES = (6, 3)


def one_from() -> float:
    """The least `a` with `1 − tanh a ≤ 2⁻²⁵` (rounds to 1, the tie to even), in f32."""
    low, high = 8.0, 10.0
    for _ in range(200):
        mid = (low + high) / 2
        if 2 / (math.exp(2 * mid) + 1) <= 2.0**-25:
            high = mid
        else:
            low = mid
    return float(F32(high) if F32(high) >= high else np.nextafter(F32(high), F32(np.inf)))


def fit(end: float) -> tuple[np.ndarray, np.ndarray, float]:
    """`P` and `Q` (lowest first, `Q(0) = 1`) and their largest relative error on `(0, end]`."""
    n_p, n_q = DEGREES
    a = end * (1 - np.cos(np.linspace(0, np.pi, 20_000))) / 2
    a = a[a > 1e-4]
    t_exact, u = np.tanh(a), 2 * (a / end) ** 2 - 1
    basis_p, basis_q = chebyshev.chebvander(u, n_p), chebyshev.chebvander(u, n_q)
    weights, last_q, best = np.full(len(a), 1 / len(a)), np.ones(len(a)), None
    for _ in range(2000):
        system = np.hstack([a[:, None] * basis_p, -t_exact[:, None] * basis_q[:, 1:]])
        scale = np.sqrt(weights) / (t_exact * np.abs(last_q))
        solution, *_ = np.linalg.lstsq(system * scale[:, None], t_exact * scale, rcond=None)
        c_p, c_q = solution[: n_p + 1], np.concatenate([[1.0], solution[n_p + 1 :]])
        last_q = basis_q @ c_q
        error = (a * (basis_p @ c_p) / last_q - t_exact) / t_exact
        if best is None or np.abs(error).max() < best[2]:
            best = (c_p, c_q, np.abs(error).max())
        weights = weights * np.sqrt(np.abs(error))
        weights /= weights.sum()
    c_p, c_q, error = best

    def in_square(c: np.ndarray) -> np.ndarray:
        # Chebyshev in u = 2·s/end² − 1 to monomials in s = a².
        result, power = np.zeros(1), np.ones(1)
        for coefficient in chebyshev.cheb2poly(c):
            result = polynomial.polyadd(result, coefficient * power)
            power = polynomial.polymul(power, [-1.0, 2 / end**2])
        return result

    p, q = in_square(c_p), in_square(c_q)
    return p / q[0], q / q[0], error


def evaluate(p: np.ndarray, q: np.ndarray, a: np.ndarray, fused: bool) -> np.ndarray:
    """`a·P(a²)/Q(a²)` in f32 as the vectors compute it (Horner's rule; fused on AVX2 and
    AVX-512, a product and a sum each rounded on the portable vectors)."""

    def horner(coefficients: np.ndarray, s: np.ndarray) -> np.ndarray:
        value = np.full_like(s, coefficients[-1])
        for c in coefficients[-2::-1]:
            if fused:
                value = (value.astype(np.float64) * s + np.float64(c)).astype(F32)
            else:
                value = (value * s).astype(F32) + F32(c)
        return value

    s = (a * a).astype(F32)
    return ((a * horner(p, s)).astype(F32) / horner(q, s)).astype(F32)


def largest_error(p: np.ndarray, q: np.ndarray, end: float, fused: bool) -> tuple[float, float]:
    """The largest error in ulp of the exact result over every f32 in [1e-4, end), and where."""
    first, last = (np.array(x, dtype=F32).view(np.uint32) for x in (1e-4, end))
    worst = (0.0, 0.0)
    for start in range(int(first), int(last), 1 << 23):
        a = np.arange(start, min(start + (1 << 23), int(last)), dtype=np.uint32).view(F32)
        exact = np.tanh(a.astype(np.float64))
        ulps = np.abs(evaluate(p, q, a, fused) - exact) / 2.0 ** (np.floor(np.log2(exact)) - 23)
        k = int(np.argmax(ulps))
        worst = max(worst, (float(ulps[k]), float(a[k])))
    return worst


def shortest(coefficients: np.ndarray) -> str:
    """The coefficients, highest first, each as the shortest text that reads back to it."""
    return ", ".join(np.format_float_scientific(c, unique=True) for c in coefficients[::-1])


def main() -> None:
    end = one_from()
    p, q, error = fit(end)
    p, q = p.astype(F32), q.astype(F32)
    print(f"one_from: {end!r}_f32; the fit's own largest error {error / 2.0**-24:.3f} ulp")
    print(f"numerator (highest first): [{shortest(p)}]")
    print(f"denominator (highest first): [{shortest(q)}]")
    if "--check" in sys.argv:
        for fused in (True, False):
            ulps, at = largest_error(p, q, end, fused)
            how = "fused" if fused else "not fused"
            print(f"every f32 in [1e-4, {end}), {how}: within {ulps:.3f} ulp (worst at {at!r})")


if __name__ == "__main__":
    main()
