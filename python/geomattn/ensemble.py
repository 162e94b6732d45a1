"""Ensembles of rollouts on an existing distributed engine: Dask arrays and Ray datasets.

Both call the same batch kernel, ``Network.rollout``, on one block of initial windows at a time;
the engine schedules the blocks. A ``Network`` pickles as the call that loads it, so each worker
reads the file once per task it receives (milliseconds) and keeps no state.

>>> import numpy as np
>>> from geomattn.ensemble import rollout_blocks
>>> z0 = np.zeros((1000, 3, 3), np.float32)
>>> rollout_blocks("net.h5", "vpt(...)", z0, steps=60, block=250)   # doctest: +SKIP
dask.array<...shape=(1000, 3, 61)...>
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import load


def rollout_blocks(
    path: str,
    arch: str,
    z0: Any,
    steps: int,
    block: int = 10_000,
    dtype: str = "float32",
    threads: int | None = 1,
):
    """A lazy Dask array ``(B, dim, steps + 1)``: the rollouts of the initial windows ``z0``
    (a numpy or Dask array ``(B, dim, seq)``), ``block`` windows per task.

    ``threads`` is the number of threads of each task (1: the parallelism is Dask's workers);
    ``None`` keeps geomattn's default (one per core).
    """
    import dask.array as da

    net = load(path, arch, dtype=dtype)
    z0 = da.asarray(z0).rechunk((block, net.dim, net.seq)).astype(dtype)

    def rollout(windows: np.ndarray) -> np.ndarray:
        from . import set_num_threads

        set_num_threads(threads)
        return net.rollout(np.ascontiguousarray(windows), steps)

    return z0.map_blocks(
        rollout,
        chunks=(z0.chunks[0], (net.dim,), (steps + 1,)),
        dtype=np.dtype(dtype),
        # Given, so that Dask does not call `rollout` (and set the threads) here to infer it.
        meta=np.empty((0, 0, 0), dtype=dtype),
    )


class RayRollout:
    """A callable class for ``ray.data.Dataset.map_batches`` (``batch_format="numpy"``): the
    rollouts of the initial windows ``(dim, seq)`` in the batch's column ``column`` (``"data"``
    for ``ray.data.from_numpy``), as a column ``"trajectory"`` ``(dim, steps + 1)``, or with
    ``last_only`` a column ``"last"`` ``(dim,)``. Give it to ``map_batches`` as a class with
    ``fn_constructor_args``, so each actor loads the network once."""

    def __init__(
        self,
        path: str,
        arch: str,
        steps: int,
        dtype: str = "float32",
        threads: int | None = 1,
        column: str = "data",
        last_only: bool = False,
    ):
        from . import set_num_threads

        set_num_threads(threads)
        self.net = load(path, arch, dtype=dtype)
        self.steps = steps
        self.dtype = np.dtype(dtype)
        self.column = column
        self.last_only = last_only

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        z0 = np.ascontiguousarray(batch[self.column], dtype=self.dtype)
        trajectories = self.net.rollout(z0, self.steps)
        if self.last_only:
            return {"last": np.ascontiguousarray(trajectories[:, :, -1])}
        return {"trajectory": trajectories}
