#!/usr/bin/env python3
"""One million rigid-body rollouts with geomattn's batch kernel, scheduled by Dask and by Ray.

Each rollout is the bundled volume-preserving transformer (GML's rigid-body network) run for
`--steps` steps from a window of three states on the unit sphere; each task rolls out one block
of initial windows in one call (`Network.rollout`, one thread per task: the engine's workers are
the parallelism). Printed: rollouts per second in total and per worker, for 1 … N local workers,
and the largest drift of |z| over the final states (the rigid body conserves it; the network
nearly does).

    python python/examples/ensemble.py --engines direct,dask,ray,ray-pool --workers 1,2 --count 1000000

Run it from the repository root, with geomattn installed: Ray's workers put the driver's working
directory first on their import path, so from `python/` they would import the source folder
`geomattn/` (which lacks the compiled module) instead of the installed package.

`direct` is the baseline: one process, geomattn's own thread pool. No home-made scheduler: Dask's
`LocalCluster` (worker processes) with `dask.array.map_blocks`, and Ray in local mode
(`ray.init(num_cpus=N)`) with `ray.data` `map_batches` over an actor pool (`ray`), or with Ray's
`ActorPool` on actors started before the clock (`ray-pool`: a running service's cost, without
the actors' start-up, which `ray` counts).
"""

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from geomattn.ensemble import RayRollout, rollout_blocks

ROOT = Path(__file__).resolve().parents[2]
PATH = str(ROOT / "fixtures" / "gml" / "transformer_rigid_body_nn_vpt.h5")
ARCH = "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"


def initial_windows(count: int, seed: int = 0) -> np.ndarray:
    """`count` windows of three states: random points of the unit sphere, each followed by two
    explicit-Euler steps of h = 0.2 of Euler's rigid-body equations (near the true trajectory,
    which is all the network needs to be fed)."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((count, 3))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    states = [z]
    for _ in range(2):
        x = states[-1]
        f = np.stack([0.5 * x[:, 1] * x[:, 2], -x[:, 2] * x[:, 0], 0.5 * x[:, 0] * x[:, 1]], axis=1)
        states.append(x + 0.2 * f)
    return np.stack(states, axis=2).astype(np.float32)  # (count, 3 components, 3 states)


def drift(z0: np.ndarray, last: np.ndarray) -> float:
    return float(np.abs(np.linalg.norm(last, axis=1) - np.linalg.norm(z0[:, :, 0], axis=1)).max())


def run_direct(z0, steps, workers, block):
    """The baseline without an engine: one call, `workers` threads of geomattn's own pool."""
    import geomattn

    geomattn.set_num_threads(workers)
    net = geomattn.load(PATH, ARCH, dtype="float32")
    start = time.perf_counter()
    # `.copy()`: a view of the last states would keep each block's whole trajectory alive (about
    # 0.7 GB for a million rollouts), which cost a third of the one-thread time in page faults.
    last = np.concatenate([net.rollout(z0[k:k + block], steps)[:, :, -1].copy()
                           for k in range(0, len(z0), block)])
    return time.perf_counter() - start, last


def run_dask(z0, steps, workers, block):
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        lazy = rollout_blocks(PATH, ARCH, z0, steps=steps, block=block)[:, :, -1]
        start = time.perf_counter()
        last = lazy.compute()
        return time.perf_counter() - start, last


def run_ray(z0, steps, workers, block):
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        start = time.perf_counter()
        # One block per task-sized slice: a single array would be one block, run by one actor.
        blocks = [z0[k:k + block] for k in range(0, len(z0), block)]
        dataset = ray.data.from_numpy(blocks).map_batches(
            RayRollout,
            fn_constructor_args=(PATH, ARCH, steps),
            fn_constructor_kwargs={"last_only": True},
            batch_size=block,
            batch_format="numpy",
            concurrency=workers,
        )
        last = np.concatenate([b["last"] for b in dataset.iter_batches(batch_format="numpy", batch_size=None)])
        return time.perf_counter() - start, last
    finally:
        ray.shutdown()


def run_ray_pool(z0, steps, workers, block):
    """Ray's core API on actors started, with the network loaded, before the clock (as Dask's
    workers are): what Ray costs per block once it runs, without ray.data's start-up."""
    import ray
    from ray.util import ActorPool

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        class Rollout(RayRollout):
            def last(self, windows):
                return self({"data": windows})["last"]

        # Actor handles (Ray's stubs type them as the class).
        actors: list[Any] = [ray.remote(num_cpus=1)(Rollout).remote(PATH, ARCH, steps, last_only=True)
                             for _ in range(workers)]
        ray.get([actor.last.remote(z0[:1]) for actor in actors])  # started, network loaded
        start = time.perf_counter()
        blocks = [z0[k:k + block] for k in range(0, len(z0), block)]
        last = np.concatenate(list(ActorPool(actors).map(lambda actor, b: actor.last.remote(b), blocks)))
        return time.perf_counter() - start, last
    finally:
        ray.shutdown()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=1_000_000)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--block", type=int, default=20_000)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--engines", default="direct,dask,ray,ray-pool")
    args = p.parse_args()
    z0 = initial_windows(args.count)
    runners = {"direct": run_direct, "dask": run_dask, "ray": run_ray, "ray-pool": run_ray_pool}
    print(f"{args.count} rollouts of {args.steps} steps, blocks of {args.block}, f32, "
          f"{os.cpu_count()} cores (the load average counts other processes on the machine too)")
    for engine in args.engines.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            seconds, last = runners[engine](z0, args.steps, workers, args.block)
            rate = args.count / seconds
            print(f"{engine:6s} {workers} worker(s): {seconds:7.1f} s, {rate:9.0f} rollouts/s, "
                  f"{rate / workers:9.0f} per worker; max | |z_end| - |z_0| | = {drift(z0, last):.2e}; "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
