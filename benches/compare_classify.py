#!/usr/bin/env python3
"""`geomattn classify` against its peers (JAX, JAX single-threaded, NumPy) on GML's MNIST nn2.

Tiles the 300 shipped images (and labels) to `--images` of them in IDX files under a temporary
directory, then runs, ROUNDS times in turn: the release `geomattn classify` pinned to core 0
(`taskset -c 0`), the same on every core, and the peers' `network_anchors.py mnist` (JAX at its
default setting, `jax-st`, NumPy) pinned to core 0. Prints µs per image (the median over rounds)
and each peer's time over geomattn's on one core.

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install jax numpy h5py
    cargo build --release -p geomattn-cli
    python3 benches/compare_classify.py --python /tmp/peers/bin/python [--dtype float32] [--rounds 3]

The peers' script is `../shared/anchors/network_anchors.py` beside the repository unless
`--anchors` says otherwise; it is not part of this repository.
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MNIST = ROOT / "fixtures" / "mnist"
NETWORK = ROOT / "fixtures" / "gml" / "mnist_nn2.h5"
ARCH = ("classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
        "Stiefel=true, add_connection=false)")
PEERS = ["jax", "jax-st", "numpy"]


def tiled(directory, count):
    """IDX files of the 300 shipped images and labels, repeated to `count`."""
    images = (MNIST / "mnist-train-300-images.idx3-ubyte").read_bytes()
    labels = (MNIST / "mnist-train-300-labels.idx1-ubyte").read_bytes()
    pixels, marks = images[16:], labels[8:]
    reps = -(-count // 300)
    paths = directory / f"images-{count}.idx3-ubyte", directory / f"labels-{count}.idx1-ubyte"
    header = lambda magic, *sizes: bytes([0, 0, 8, magic]) + b"".join(s.to_bytes(4, "big") for s in sizes)
    paths[0].write_bytes(header(3, count, 28, 28) + (pixels * reps)[: count * 784])
    paths[1].write_bytes(header(1, count) + (marks * reps)[:count])
    return paths


def pinned(command, core="0"):
    return (["taskset", "-c", core] if shutil.which("taskset") else []) + command


def geomattn(binary, images, labels, dtype, core):
    """(µs per image, accuracy) of one `geomattn classify` run."""
    command = [str(binary), "classify", str(NETWORK), "--arch", ARCH, "--images", str(images),
               "--labels", str(labels)] + (["--f32"] if dtype == "float32" else [])
    out = subprocess.run(pinned(command, core), capture_output=True, text=True, check=True).stdout
    found = re.search(r"accuracy ([0-9.]+) .*?; ([0-9.]+) µs per image on (\d+) threads", out)
    return float(found[2]), float(found[1]), int(found[3])


def peers(python, anchors, images, labels, dtype):
    """{peer: (µs per image, accuracy)} from one run of the anchors script."""
    out = subprocess.run(
        pinned([python, str(anchors), "mnist", "--h5", str(NETWORK), "--images", str(images),
                "--labels", str(labels), "--dtype", dtype]),
        capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+mnist \S+ B=\d+:\s+([0-9.]+) us/image\s+accuracy ([0-9.]+)", line)
        if m:
            found[m[1]] = float(m[2]), float(m[3])
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--python", required=True, help="a Python with jax, numpy and h5py")
    p.add_argument("--anchors", default=str(ROOT.parent / "shared" / "anchors" / "network_anchors.py"))
    p.add_argument("--binary", default=str(ROOT / "target" / "release" / "geomattn"))
    p.add_argument("--images", type=int, default=5000)
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    cores = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        images, labels = tiled(pathlib.Path(tmp), args.images)
        for _ in range(args.rounds):
            for name, core in [("geomattn, 1 core", "0"), ("geomattn, all cores", cores)]:
                us, accuracy, threads = geomattn(args.binary, images, labels, args.dtype, core)
                times.setdefault(f"{name} ({threads} threads)", []).append((us, accuracy))
            for peer, result in peers(args.python, args.anchors, images, labels, args.dtype).items():
                times.setdefault(peer, []).append(result)
    best = statistics.median(us for us, _ in next(iter(times.values())))
    print(f"MNIST nn2, {args.images} images, {args.dtype}, median of {args.rounds} rounds "
          f"({os.cpu_count()} cores: {cores})\n")
    print("| run | µs per image | accuracy | over geomattn on 1 core |")
    print("|---|---:|---:|---:|")
    for name, runs in times.items():
        us = statistics.median(u for u, _ in runs)
        print(f"| {name} | {us:.1f} | {runs[-1][1]:.4f} | {us / best:.2f}× |")


if __name__ == "__main__":
    main()
