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

from typing import TYPE_CHECKING, Any

import numpy as np

from . import load

if TYPE_CHECKING:
    import dask.array

    from ._geomattn import _DTypeLike


def rollout_blocks(
    path: str,
    arch: str,
    z0: Any,
    steps: int,
    block: int = 10_000,
    dtype: _DTypeLike = "float32",
    threads: int | None = 1,
) -> dask.array.Array:
    """The rollouts of many initial windows as a lazy Dask array, ``block`` windows per task.

    Parameters
    ----------
    path : str
        The GML file, as :func:`geomattn.load` takes it (each task loads it anew).
    arch : str
        The architecture spec.
    z0 : array_like or dask.array.Array, shape (B, dim, seq)
        The initial windows.
    steps : int
        The number of steps of each rollout.
    block : int, default 10000
        Windows per task.
    dtype : numpy dtype or str, default "float32"
        The scalar the network computes in (``z0`` is cast to it).
    threads : int or None, default 1
        Threads of each task (1: the parallelism is Dask's workers); ``None`` keeps geomattn's
        default (one per core).

    Returns
    -------
    dask.array.Array
        Shape ``(B, dim, steps + 1)``, computed when asked.

    Raises
    ------
    OSError, ValueError, TypeError
        As :func:`geomattn.load` raises them (here, at once); the tasks raise as
        :meth:`geomattn.Network.rollout` does.

    Examples
    --------
    >>> from geomattn.ensemble import rollout_blocks
    >>> z0 = np.zeros((1000, 3, 3), np.float32)
    >>> lazy = rollout_blocks("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
    ...     z0, steps=60, block=250)
    >>> lazy.shape, lazy.numblocks
    ((1000, 3, 61), (4, 1, 1))
    >>> lazy[:, :, -1].compute(scheduler="synchronous").shape
    (1000, 3)
    """
    import dask.array as da

    net = load(path, arch, dtype=dtype)
    blocks = da.asarray(z0).rechunk((block, net.dim, net.seq)).astype(net.dtype)

    def rollout(windows: np.ndarray) -> np.ndarray:
        from . import set_num_threads

        set_num_threads(threads)
        return net.rollout(np.ascontiguousarray(windows), steps)

    # (Dask's `map_blocks` is untyped.)
    trajectories: dask.array.Array = blocks.map_blocks(
        rollout,
        chunks=(blocks.chunks[0], (net.dim,), (steps + 1,)),
        dtype=np.dtype(net.dtype),
        # Given, so that Dask does not call `rollout` (and set the threads) here to infer it.
        meta=np.empty((0, 0, 0), dtype=net.dtype),
    )
    return trajectories


class RayRollout:
    """Rollouts for ``ray.data.Dataset.map_batches`` (``batch_format="numpy"``).

    A callable class: give it to ``map_batches`` with ``fn_constructor_args``, so that each actor
    loads the network once.

    Parameters
    ----------
    path : str
        The GML file, as :func:`geomattn.load` takes it.
    arch : str
        The architecture spec.
    steps : int
        The number of steps of each rollout.
    dtype : numpy dtype or str, default "float32"
        The scalar the network computes in (the windows are cast to it).
    threads : int or None, default 1
        Threads of each actor (1: the parallelism is Ray's actors); ``None``: one per core.
    column : str, default "data"
        The batch's column of initial windows ``(dim, seq)`` (``"data"`` for
        ``ray.data.from_numpy``).
    last_only : bool, default False
        Return only the last state of each rollout.

    Raises
    ------
    OSError, ValueError, TypeError
        As :func:`geomattn.load` raises them.

    Examples
    --------
    Without Ray, on one batch as ``map_batches`` passes it:

    >>> from geomattn.ensemble import RayRollout
    >>> rollout = RayRollout("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
    ...     steps=10, last_only=True, threads=None)
    >>> rollout({"data": np.zeros((8, 3, 3))})["last"].shape
    (8, 3)
    """

    def __init__(
        self,
        path: str,
        arch: str,
        steps: int,
        dtype: _DTypeLike = "float32",
        threads: int | None = 1,
        column: str = "data",
        last_only: bool = False,
    ) -> None:
        from . import set_num_threads

        set_num_threads(threads)
        self.net = load(path, arch, dtype=dtype)
        self.steps = steps
        self.dtype = np.dtype(self.net.dtype)
        self.column = column
        self.last_only = last_only

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The rollouts of one batch.

        Parameters
        ----------
        batch : dict of str to numpy.ndarray
            A batch of ``map_batches``, holding the initial windows ``(B, dim, seq)`` in the
            column ``column``.

        Returns
        -------
        dict of str to numpy.ndarray
            ``{"trajectory": (B, dim, steps + 1)}``, or with ``last_only`` ``{"last": (B, dim)}``.

        Raises
        ------
        KeyError
            The batch has no column ``column``.
        ValueError, TypeError
            As :meth:`geomattn.Network.rollout` raises them.

        Examples
        --------
        >>> from geomattn.ensemble import RayRollout
        >>> rollout = RayRollout("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
        ...     steps=10, threads=None)
        >>> rollout({"data": np.zeros((8, 3, 3))})["trajectory"].shape
        (8, 3, 11)
        """
        z0 = np.ascontiguousarray(batch[self.column], dtype=self.dtype)
        trajectories = self.net.rollout(z0, self.steps)
        if self.last_only:
            return {"last": np.ascontiguousarray(trajectories[:, :, -1])}
        return {"trajectory": trajectories}
