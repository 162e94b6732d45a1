#!/usr/bin/env python3
"""GML's rigid-body volume-preserving transformer, f32, B = 100 000 windows: geomattn from Python
against the Rust lane path and the JAX/NumPy peers, in one run.

Rows (ns per window, median of each run's timed calls, then the median over --rounds rounds):

- `python fast`, `python exact`: `Network.forward(z)` and `forward(z, exact=True)` on a numpy
  array (B, 3, 3), one thread, pinned to core 0 (`taskset`);
- `python fast, N threads`: the same on every thread of geomattn's pool (not pinned);
- `rust spec_fast`, `rust compiled_fast`, `rust lanewise_vector`, …: `cargo bench --bench batch`
  pinned to core 0 (`geomattn_networks::batch` as Python calls it, on the run-time engine; the
  compile-time type through the same batch, and `Lanewise` on it directly);
- `jax`, `jax-st`, `numpy`: `../shared/anchors/network_anchors.py vpt`, pinned to core 0.

With `--ensemble`, also `python/examples/ensemble.py` (Dask and Ray against the direct call, on
the same numbers of workers): rollouts per second.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install jax numpy h5py   # + the geomattn wheel
    /tmp/peers/bin/python benches/compare_network_peers.py [--rounds 3] [--ensemble --workers 1,2]

The Python that runs this script must have geomattn installed; the peers' script is
`../shared/anchors/network_anchors.py` beside the repository unless `--anchors` says otherwise.
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "gml" / "transformer_rigid_body_nn_vpt.h5"
SPEC = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"
BATCH = 100_000
UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}
PEERS = ["jax", "jax-st", "numpy"]

# The timed Python call, run in a child process (so it can be pinned): prints ns per window.
PYTHON_CALL = """
import sys, time
import numpy as np
import geomattn
threads, exact = int(sys.argv[1]), sys.argv[2] == "exact"
geomattn.set_num_threads(threads)
net = geomattn.load(sys.argv[3], sys.argv[4], dtype="float32")
z = np.random.default_rng(0).uniform(-1, 1, (int(sys.argv[5]), 3, 3)).astype(np.float32)
net.forward(z, exact=exact)
times = []
for _ in range(7):
    start = time.perf_counter()
    net.forward(z, exact=exact)
    times.append(time.perf_counter() - start)
print(sorted(times)[3] / len(z) * 1e9)
"""


def pinned(command):
    return (["taskset", "-c", "0"] if shutil.which("taskset") else []) + command


def python_round(threads):
    """{row: ns per window} of the Python calls."""
    rows = {}
    for exact in ("fast", "exact"):
        for n in threads:
            command = [sys.executable, "-c", PYTHON_CALL, str(n), exact, str(FIXTURE), SPEC,
                       str(BATCH)]
            out = subprocess.run(pinned(command) if n == 1 else command, check=True,
                                 capture_output=True, text=True).stdout
            name = f"python {exact}" + ("" if n == 1 else f", {n} threads")
            rows[name] = float(out.strip())
    return rows


def rust_round():
    """{row: ns per window} of the divan benchmark `batch` (forward rows only)."""
    out = subprocess.run(
        pinned(["cargo", "bench", "-q", "-p", "geomattn-benches", "--bench", "batch",
                "--", "--sample-count", "20"]),
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        row = re.search(r"[├╰]─ (\w+)\s+([\d.]+) (\S+)\s+│\s+[\d.]+ \S+\s+│\s+([\d.]+) (\S+)", line)
        if row and not row.group(1).startswith("spec_rollout"):
            rows[f"rust {row.group(1)}"] = float(row.group(4)) * UNITS[row.group(5)] / BATCH
    return rows


def peers_round(python, anchors):
    """{peer: ns per window} from the peers' script, and the check values."""
    out = subprocess.run(
        pinned([python, str(anchors), "vpt", "--h5", str(FIXTURE), "--batch", str(BATCH),
                "--dtype", "float32", "--frameworks", ",".join(PEERS)]),
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        # The anchors name the sizes after the batch since they run any VPT (`B=… d=3 T=3:`).
        row = re.match(r"(\S+)\s+vpt\s+float32 B=\d+(?: d=\d+ T=\d+)?:\s+([\d.]+) ns/window", line)
        if row:
            rows[row.group(1)] = float(row.group(2))
    return rows


def ensemble(workers, count):
    """The example's own lines: rollouts/s per engine and number of workers."""
    command = [sys.executable, str(ROOT / "python" / "examples" / "ensemble.py"), "--engines",
               "direct,dask,ray", "--workers", workers, "--count", str(count)]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="a Python with jax and numpy")
    parser.add_argument("--anchors",
                        default=ROOT.parent / "shared" / "anchors" / "network_anchors.py")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip", default="", help="comma-separated: python, rust, peers")
    parser.add_argument("--ensemble", action="store_true")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--count", type=int, default=200_000, help="rollouts of --ensemble")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    threads = sorted({1, len(os.sched_getaffinity(0))})

    runs = {}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1} of {args.rounds}", file=sys.stderr)
        sources = []
        if "python" not in skip:
            sources.append(python_round(threads))
        if "rust" not in skip:
            sources.append(rust_round())
        if "peers" not in skip:
            sources.append(peers_round(args.python, args.anchors))
        for source in sources:
            for name, ns in source.items():
                runs.setdefault(name, []).append(ns)
    median = {name: statistics.median(values) for name, values in runs.items()}
    jax_best = min((median[p] for p in ("jax", "jax-st") if p in median), default=None)
    rust = median.get("rust lanewise_vector")
    print(f"rigid-body VPT, float32, B = {BATCH}, ns per window (median of {args.rounds} rounds); "
          f"one core pinned unless threads are named")
    print("| path | ns/window | JAX best / this | this / Rust lane path |")
    print("|---|---|---|---|")
    for name, ns in median.items():
        over_jax = f"{jax_best / ns:.1f}×" if jax_best else "—"
        over_rust = f"{ns / rust:.2f}×" if rust else "—"
        print(f"| {name} | {ns:.1f} | {over_jax} | {over_rust} |")
    if args.ensemble:
        print()
        print(ensemble(args.workers, args.count))


if __name__ == "__main__":
    main()
