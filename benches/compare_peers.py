#!/usr/bin/env python3
"""geomattn's batched skew VPA against its peers (JAX, NumPy), interleaved, on one core.

Runs, ROUNDS times in turn: the throughput benchmark (`cargo bench --bench throughput`: the scalar
path and the lane path on every instruction set the machine has), then the peers'
`vpa_anchors.py` (JAX at its default setting, JAX single-threaded `jax-st`, NumPy), every process
pinned to one core with `taskset` when it exists. Prints ns per sequence (the median over rounds
of each run's median) and the peers' time over geomattn's best lane path.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install jax numpy
    python3 benches/compare_peers.py --python /tmp/peers/bin/python [--dtype float32] [--rounds 2]

The peers' script is `../shared/anchors/vpa_anchors.py` beside the repository unless `--anchors`
says otherwise; it is not part of this repository.
"""
import argparse
import pathlib
import re
import shutil
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SIZES = [3, 4, 5, 8]
BATCH = 100_000
UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}
PEERS = ["jax", "jax-st", "numpy"]


def pinned(command):
    return (["taskset", "-c", "0"] if shutil.which("taskset") else []) + command


def rust_round(dtype):
    """{path: {d: ns per sequence}} from one run of the throughput benchmark."""
    suffix = "f32" if dtype == "float32" else "f64"
    out = subprocess.run(
        pinned(["cargo", "bench", "-q", "-p", "geomattn-benches", "--bench", "throughput", "--",
                f"skew_vpa::(scalar|portable|avx2|avx512)_{suffix}", "--sample-count", "30"]),
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    results, path = {}, None
    for line in out.splitlines():
        name = re.search(r"[├╰]─ (\w+)_" + suffix + r"\b", line)
        if name:
            path = name.group(1)
            continue
        size = re.search(r"[├╰]─ (\d+)\s+([\d.]+) (\S+)\s+│\s+[\d.]+ \S+\s+│\s+([\d.]+) (\S+)", line)
        if size and path:
            median = float(size.group(4)) * UNITS[size.group(5)]
            results.setdefault(path, {})[int(size.group(1))] = median / BATCH
    return results


def peers_round(python, anchors, dtype):
    """{peer: {d: ns per sequence}} from one run of the peers' script."""
    out = subprocess.run(
        pinned([python, str(anchors), "--sizes", ",".join(map(str, SIZES)), "--batch", str(BATCH),
                "--frameworks", ",".join(PEERS), "--dtype", dtype]),
        check=True, capture_output=True, text=True).stdout
    results = {}
    for line in out.splitlines():
        row = re.match(r"(\S+)\s+\S+ d=(\d+) T=\d+ B=\d+:\s+([\d.]+) ns/sequence", line)
        if row:
            results.setdefault(row.group(1), {})[int(row.group(2))] = float(row.group(3))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="a Python with jax and numpy")
    parser.add_argument("--anchors", default=ROOT.parent / "shared" / "anchors" / "vpa_anchors.py")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    runs = {}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1} of {args.rounds}: geomattn, then the peers", file=sys.stderr)
        for source in (rust_round(args.dtype), peers_round(args.python, args.anchors, args.dtype)):
            for name, by_size in source.items():
                for d, ns in by_size.items():
                    runs.setdefault(name, {}).setdefault(d, []).append(ns)
    median = {name: {d: statistics.median(v) for d, v in by_size.items()}
              for name, by_size in runs.items()}
    lanes = [p for p in ("portable", "avx2", "avx512") if p in median]
    peers = [p for p in PEERS if p in median]
    header = ["d = T", "scalar"] + lanes + peers + [f"{p} / best lanes" for p in peers]
    print(f"skew VPA, {args.dtype}, B = {BATCH}, one core, ns per sequence "
          f"(median of {args.rounds} interleaved rounds)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for d in SIZES:
        best = min(median[p][d] for p in lanes)
        cells = [str(d), f"{median['scalar'][d]:.1f}"]
        cells += [f"{median[p][d]:.1f}" for p in lanes]
        cells += [f"{median[p][d]:.0f}" for p in peers]
        cells += [f"{median[p][d] / best:.0f}×" for p in peers]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
