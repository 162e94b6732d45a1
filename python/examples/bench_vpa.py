#!/usr/bin/env python3
"""geomattn's volume-preserving attention (skew weighting) side by side with its batched JAX
(jit + vmap) and NumPy peers, on the same arrays: B = 10^5 sequences, d = T in {3, 4, 5, 8},
float32 and float64, one run each. Prints ns per sequence for each and the ratio peer / geomattn
(above 1: geomattn is faster).

The peers are not copied here: they are the shared anchors, ../shared/anchors/vpa_anchors.py
beside the repository (its docstring says how to install JAX and NumPy), run as they are, each in
a fresh process. This script builds the same arrays (same generator, seed and order) for
geomattn and times it the same way (median of 5 timed calls after a warm-up).

    pip install jax numpy && python examples/bench_vpa.py [--threads 1,2]
"""

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import geomattn

ANCHORS = Path(__file__).resolve().parents[3] / "shared" / "anchors" / "vpa_anchors.py"
LINE = re.compile(r"^(\S+)\s+(float\d+) d=(\d+) T=\d+ B=\d+:\s+([\d.]+) ns/sequence")


def packed(a: np.ndarray) -> np.ndarray:
    """GML's packed S of a skew-symmetric matrix: its strict lower triangle, row by row."""
    d = a.shape[0]
    return np.array([a[i, j] for i in range(d) for j in range(i)])


def geomattn_ns(sizes, batch, dtype_name):
    """ns per sequence of geomattn on the anchors' arrays (their generator, seed and order)."""
    dtype = np.float32 if dtype_name == "float32" else np.float64
    rng = np.random.default_rng(0)
    for d in sizes:
        z = rng.uniform(-1, 1, (batch, d, d)).astype(dtype)
        m = rng.standard_normal((d, d))
        a = ((m - m.T) / d).astype(dtype)
        layer = geomattn.SkewAttention(packed(a))
        out = layer.forward(z)
        # The same layer as the NumPy peer's: Z (I − C)(I + C)⁻¹ with C = Zᵀ A Z.
        c = np.einsum("bki,kl,blj->bij", z[:100].astype(np.float64), a.astype(np.float64), z[:100].astype(np.float64))
        eye = np.eye(d)
        reference = z[:100] @ ((eye - c) @ np.linalg.inv(eye + c))
        assert np.abs(out[:100] - reference).max() < (1e-3 if dtype_name == "float32" else 1e-10)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            layer.forward(z)
            times.append(time.perf_counter() - start)
        yield d, float(np.median(times)) / batch * 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="3,4,5,8")
    p.add_argument("--batch", type=int, default=100_000)
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--frameworks", default="jax,jax-st,numpy")
    p.add_argument("--threads", default="1,2", help="geomattn thread counts to time")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    for dtype in args.dtypes.split(","):
        ours = {}
        for n in threads:
            geomattn.set_num_threads(n)
            for d, ns in geomattn_ns(sizes, args.batch, dtype):
                ours[(n, d)] = ns
        peers = {}
        if ANCHORS.exists():
            run = subprocess.run([sys.executable, str(ANCHORS), "--sizes", args.sizes, "--batch",
                                  str(args.batch), "--dtype", dtype, "--frameworks", args.frameworks],
                                 capture_output=True, text=True)
            for line in run.stdout.splitlines():
                if m := LINE.match(line):
                    peers[(m[1], int(m[3]))] = float(m[4])
            if run.returncode != 0:
                print(f"(the anchors failed: {run.stderr.strip().splitlines()[-1:]})")
        else:
            print(f"(no anchors at {ANCHORS}: geomattn alone)")
        frameworks = [f for f in args.frameworks.split(",") if any(k[0] == f for k in peers)]
        header = ["d=T"] + [f"geomattn {n}t ns" for n in threads] + [f"{f} ns" for f in frameworks]
        header += [f"{f}/geomattn {max(threads)}t" for f in frameworks]
        print(f"\n{dtype}, B = {args.batch}")
        print(" | ".join(header))
        for d in sizes:
            row = [str(d)] + [f"{ours[(n, d)]:.1f}" for n in threads]
            row += [f"{peers[(f, d)]:.1f}" if (f, d) in peers else "-" for f in frameworks]
            best = ours[(max(threads), d)]
            row += [f"{peers[(f, d)] / best:.2f}" if (f, d) in peers else "-" for f in frameworks]
            print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
