"""Type stubs of the native module (the Rust crate ``geomattn-python``)."""

from os import PathLike
from typing import Literal, Optional, Union, final

import numpy as np
import numpy.typing as npt

_Float = Union[np.float32, np.float64]
_Array = npt.NDArray[_Float]

__all__ = [
    "ATTENTION_SIZES",
    "Classifier",
    "Measurement",
    "Network",
    "SkewAttention",
    "get_num_threads",
    "grid",
    "load",
    "load_classifier",
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
    ``ValueError`` says so otherwise: nothing is rounded silently). The input is copied once
    before the GIL is released (another thread may then resize, write or drop the array without
    harm); windows stored column-major (``x.transpose(0, 2, 1)`` of a C-order ``(B, seq, dim)``
    array) are read as such. Batches run on :func:`get_num_threads` threads with the GIL
    released.
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
    def forward(self, z: _Array, *, checked: bool = False, exact: bool = False) -> _Array:
        """The forward pass of one window ``(dim, seq)`` or a batch ``(B, dim, seq)``; same shape out.

        Unchecked, NaN and ∞ propagate; with ``checked=True`` the first non-finite value of an
        input or of a layer's output (the network's checked pass) raises ``ValueError`` naming the
        window, the time step and the layer.

        A ``float32`` network runs several windows at a time, one per SIMD lane, on the best
        instruction set of the processor, with vectorised ``exp``/``tanh`` and fused products: no
        further from the exact result than four times the scalar path's own rounding (and 16 ε).
        ``exact=True`` (and a ``float64`` network) gives the scalar path's results bit for bit.
        """
    def rollout(
        self, z0: _Array, steps: int, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """GML's ``iterate`` (prediction window ``seq``) from one initial window ``(dim, seq)``
        or a batch ``(B, dim, seq)``: the states ``z_0 … z_steps`` as ``(dim, steps + 1)`` or
        ``(B, dim, steps + 1)``, the initial window first. ``checked=True`` raises ``ValueError``
        at the first non-finite state; ``exact`` as in :meth:`forward`."""
    def check(self, samples: int = 100, seed: int = 0) -> list[Measurement]:
        """The structure the architecture promises, measured on ``samples`` random inputs with
        exact Jacobians (dual numbers, ``f64``). Empty for the standard transformer."""
    def parameters(self) -> dict[str, _Array]:
        """The file's parameters by path (``"L1/A"``), read-only arrays in Julia's shape and in
        the element type the file stores (``float32``, or ``float64`` for a network GML trained
        in Float64); a special matrix (``SkewSymMatrix``, ``LowerTriangular``, …) as GML's packed
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
    def forward(self, z: _Array, *, checked: bool = False, exact: bool = False) -> _Array:
        """The forward pass of one sequence ``(d, d)`` or a batch ``(B, d, d)``; ``exact`` as in
        :meth:`Network.forward`."""

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

_Labels = npt.NDArray[np.int64]
_Probabilities = npt.NDArray[np.float64]

@final
class Classifier:
    """A classifier trained in GeometricMachineLearning.jl (``ClassificationTransformer``, such
    as GML's MNIST networks), loaded by :func:`load_classifier`. Images are ``uint8`` pixels of
    the upright image (as MNIST stores them): ``(28, 28)``, ``(N, 28, 28)`` or ``(N, 784)``, each
    cut into GML's 16 patches of 7×7. Batches run on :func:`get_num_threads` threads with the
    GIL released."""

    @property
    def arch(self) -> str:
        """The architecture, in the spec's short form."""
    @property
    def classes(self) -> int:
        """The number of classes."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in."""
    @property
    def path(self) -> str:
        """The file it was loaded from."""
    def probabilities(self, images: npt.ArrayLike) -> _Probabilities:
        """The class probabilities: ``(classes,)`` for one image, ``(N, classes)`` for ``N``.

        Raises ``TypeError`` for pixels of another dtype than ``uint8``, ``ValueError`` for
        another shape."""
    def predict(self, images: npt.ArrayLike) -> tuple[_Labels, _Probabilities]:
        """The predicted classes (the first index of the largest probability, as GML) and the
        probabilities: ``((), (classes,))`` for one image, ``((N,), (N, classes))`` for ``N``."""
    def __call__(self, images: npt.ArrayLike) -> tuple[_Labels, _Probabilities]:
        """:meth:`predict`."""

def load_classifier(
    path: Union[str, PathLike[str]],
    arch: str,
    dtype: Literal["float32", "float64"] = "float32",
) -> Classifier:
    """Loads the classifier at ``path`` as ``arch`` (``"classification_transformer(dim=49,
    seq=16, classes=10, n_heads=7, L=16, Stiefel=true, add_connection=false)"`` for GML's MNIST
    networks, or GML's constructor call), computing in ``dtype``.

    Raises ``OSError`` if the file cannot be read, ``ValueError`` if ``arch`` is not a
    classifier or the file does not hold it.
    """

def set_num_threads(n: Optional[int]) -> None:
    """Uses ``n`` threads for batches from now on; ``None``: one per core (or ``RAYON_NUM_THREADS``)."""

def get_num_threads() -> int:
    """The number of threads batches use."""

def grid() -> str:
    """The sizes this build is compiled for, one line per architecture."""
