"""Type stubs of the native module (the Rust crate ``geomattn-python``)."""

from os import PathLike
from typing import Literal, Optional, Union, final

import numpy as np
import numpy.typing as npt

_Float = Union[np.float32, np.float64]
_Array = npt.NDArray[_Float]

__all__ = [
    "ATTENTION_SIZES",
    "Measurement",
    "Network",
    "SkewAttention",
    "get_num_threads",
    "grid",
    "load",
    "set_num_threads",
]

ATTENTION_SIZES: list[int]
"""The sizes ``d = T`` compiled for :class:`SkewAttention`."""

@final
class Measurement:
    """One measured property of :meth:`Network.check`."""

    property: str
    """What is measured."""
    worst: float
    """The worst value over all samples."""
    tolerance: float
    """The bound it must stay under, if promised."""
    promised: bool
    """Whether the architecture promises it (otherwise it is reported only)."""
    passes: bool
    """A promised property within its tolerance, or one not promised."""

@final
class Network:
    """A network trained in GeometricMachineLearning.jl, loaded for one architecture spec.

    Windows are ``(dim, seq)`` arrays: state ``t`` is the column ``z[:, t]`` (GML's
    orientation); batches are ``(B, dim, seq)``. Arrays must have the network's dtype (a
    ``ValueError`` says so otherwise: nothing is rounded silently). A C-order array is read in
    place, and so is one whose windows are column-major (``x.transpose(0, 2, 1)`` of a C-order
    ``(B, seq, dim)`` array); other strides are copied once. Batches run on
    :func:`get_num_threads` threads with the GIL released.
    """

    @property
    def arch(self) -> str:
        """The architecture, in the spec's short form."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in."""
    @property
    def dim(self) -> int:
        """The dimension of one state."""
    @property
    def seq(self) -> int:
        """States per window (1 for the feed-forward network)."""
    @property
    def path(self) -> str:
        """The file it was loaded from."""
    def forward(self, z: _Array, *, checked: bool = False) -> _Array:
        """The forward pass of one window ``(dim, seq)`` or a batch ``(B, dim, seq)``; same shape out.

        Unchecked, NaN and ∞ propagate; with ``checked=True`` the first non-finite value of an
        input or of a layer's output (the network's checked pass) raises ``ValueError`` naming the
        window, the time step and the layer.
        """
    def rollout(self, z0: _Array, steps: int, *, checked: bool = False) -> _Array:
        """GML's ``iterate`` (prediction window ``seq``) from one initial window ``(dim, seq)``
        or a batch ``(B, dim, seq)``: the states ``z_0 … z_steps`` as ``(dim, steps + 1)`` or
        ``(B, dim, steps + 1)``, the initial window first. ``checked=True`` raises ``ValueError``
        at the first non-finite state."""
    def check(self, samples: int = 100, seed: int = 0) -> list[Measurement]:
        """The structure the architecture promises, measured on ``samples`` random inputs with
        exact Jacobians (dual numbers, ``f64``). Empty for the standard transformer."""
    def parameters(self) -> dict[str, npt.NDArray[np.float32]]:
        """The file's parameters by path (``"L1/A"``), read-only ``float32`` arrays in Julia's
        shape; a special matrix (``SkewSymMatrix``, ``LowerTriangular``, …) as GML's packed
        vector ``S``, a Stiefel weight as its matrix ``A``."""

@final
class SkewAttention:
    """Volume-preserving attention ``Z ↦ Z·Cay(Zᵀ A Z)`` (``skew_sym = true``) alone, at ``d = T``
    in :data:`ATTENTION_SIZES`, with GML's packed skew-symmetric weight ``a`` of length
    ``d(d−1)/2``; the layer's dtype is ``a``'s."""

    def __new__(cls, a: _Array) -> SkewAttention: ...
    @property
    def dim(self) -> int:
        """``d`` (= ``T``)."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in."""
    def forward(self, z: _Array, *, checked: bool = False) -> _Array:
        """The forward pass of one sequence ``(d, d)`` or a batch ``(B, d, d)``."""

def load(
    path: Union[str, PathLike[str]],
    arch: str,
    dtype: Literal["float32", "float64"] = "float64",
) -> Network:
    """Loads the GML file at ``path`` as the architecture ``arch`` (a spec such as
    ``"vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)"`` or
    GML's constructor call), computing in ``dtype``.

    Raises ``OSError`` if the file cannot be read, ``ValueError`` for a malformed spec, a size
    this build is not compiled for (see :func:`grid`), or a file that does not hold ``arch``.
    """

def set_num_threads(n: Optional[int]) -> None:
    """Uses ``n`` threads for batches from now on; ``None``: one per core (or ``RAYON_NUM_THREADS``)."""

def get_num_threads() -> int:
    """The number of threads batches use."""

def grid() -> str:
    """The sizes this build is compiled for, one line per architecture."""
