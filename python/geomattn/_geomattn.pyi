"""Type stubs of the native module (the Rust crate ``geomattn-python``).

The docstrings are the module's own (``tests/test_docs.py`` keeps them equal).
"""

from os import PathLike
from typing import Any, Literal, Optional, Union, final

import numpy as np
import numpy.typing as npt

_Float = Union[np.float32, np.float64]
_Array = npt.NDArray[_Float]
_DTypeLike = Union[str, type[np.floating[Any]], type[float], np.dtype[Any]]
"""What ``dtype`` may be: a name (``"float32"``, ``"f4"``), a scalar type, a numpy dtype."""

__all__ = [
    "ATTENTION_SIZES",
    "Classifier",
    "LANES",
    "Measurement",
    "Network",
    "SkewAttention",
    "__version__",
    "get_num_threads",
    "inspect",
    "load",
    "load_classifier",
    "set_num_threads",
]

__version__: str
"""The version of the crate (and of the wheel)."""

ATTENTION_SIZES: list[int]
"""The sizes ``d = T`` compiled for :class:`SkewAttention`."""

LANES: bool
"""Whether ``exact=False`` runs float32 networks with the vectorised functions and fused products
here: the processor has AVX2 or AVX-512. When ``False``, ``exact=False`` gives the same bits as
``exact=True``."""

@final
class Measurement:
    """One measured property of :meth:`Network.check`.

    Examples
    --------
    >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpff.h5",
    ...     "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)")
    >>> m = net.check(samples=10)[0]
    >>> m.property
    '|det J − 1| of the map of one state'
    >>> m.promised, m.passes, m.worst < m.tolerance
    (True, True, True)
    """

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
    """A network trained in GeometricMachineLearning.jl, loaded for one architecture spec by
    :func:`load`.

    Windows are ``(dim, seq)`` arrays: state ``t`` is the column ``z[:, t]`` (GML's orientation);
    batches are ``(B, dim, seq)``. Inputs are array-likes, converted as numpy converts them:
    lists and tuples by ``numpy.asarray``, another dtype by ``astype`` to the network's dtype
    under ``casting="same_kind"`` (float64 rounds to float32; complex numbers are refused).
    The input is always copied once before the GIL is released (so another thread may resize,
    write or drop the array meanwhile); a conversion makes one temporary copy more. Windows
    stored column-major (``x.transpose(0, 2, 1)`` of a C-order ``(B, seq, dim)`` array) are read
    as such. Batches run on :func:`get_num_threads` threads with the GIL released. A network is
    called as a function: ``net(z)`` is ``net.forward(z)``. It pickles as the call that loads it.

    Examples
    --------
    >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
    >>> net
    geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5", arch="vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)", dtype="float64")
    >>> net.dim, net.seq, net.dtype
    (3, 3, 'float64')
    >>> net([[1.0, 0.9, 0.8], [0.0, 0.1, 0.2], [0.0, 0.0, 0.1]]).shape
    (3, 3)
    """

    @property
    def arch(self) -> str:
        """The architecture, in the spec's short form."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in, ``"float32"`` or ``"float64"``."""
    @property
    def dim(self) -> int:
        """The dimension of one state."""
    @property
    def seq(self) -> int:
        """States per window (1 for the feed-forward network)."""
    @property
    def path(self) -> str:
        """The file it was loaded from."""
    def forward(
        self, z: npt.ArrayLike, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """The forward pass of one window or a batch of windows.

        Parameters
        ----------
        z : array_like, shape (dim, seq) or (B, dim, seq)
            The windows, converted to the network's dtype as the class says.
        checked : bool, default False
            Raise at the first non-finite value of an input or of a layer's output (the checked
            pass); unchecked, NaN and inf propagate.
        exact : bool, default False
            Where :data:`LANES` (a processor with AVX2 or AVX-512), a float32
            network runs several windows at a time, one per SIMD lane, with vectorised
            ``exp``/``tanh`` and fused products: no further from the exact result than four
            times the scalar path's own rounding (and 16 ε). ``True``, any float64 network,
            and any network where :data:`LANES` is ``False`` give the scalar path's results bit
            for bit.

        Returns
        -------
        numpy.ndarray
            A new C-order array of ``z``'s shape, in the network's dtype.

        Raises
        ------
        ValueError
            ``z`` has another shape, numpy cannot convert it, or (``checked=True``) a value is not
            finite: the message names the window, the time step and the layer.
        TypeError
            ``z``'s dtype does not cast to the network's (complex numbers, strings, objects).

        Examples
        --------
        >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
        >>> z = np.zeros((100, 3, 3))
        >>> net.forward(z).shape
        (100, 3, 3)
        >>> bool((net.forward(z[7]) == net.forward(z)[7]).all())
        True
        """
    def __call__(
        self, z: npt.ArrayLike, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """``net(z, checked=False, exact=False)`` is :meth:`forward`."""
    def rollout(
        self, z0: npt.ArrayLike, steps: int, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """GML's ``iterate``: the trajectory from one initial window or a batch of them.

        Each pass feeds the last ``seq`` states to the network and appends the ``seq`` states it
        returns (GML's prediction window ``seq``); the trajectory is cut at ``steps + 1`` states.

        Parameters
        ----------
        z0 : array_like, shape (dim, seq) or (B, dim, seq)
            The initial windows, converted to the network's dtype as the class says.
        steps : int
            The number of steps, ``≥ 0``.
        checked : bool, default False
            Raise at the first non-finite state; unchecked, NaN and inf propagate.
        exact : bool, default False
            As in :meth:`forward`: the lane path by default where :data:`LANES`, the scalar
            path's bits if ``True``.

        Returns
        -------
        numpy.ndarray
            The states ``z_0 … z_steps``, shape ``(dim, steps + 1)`` or ``(B, dim, steps + 1)``,
            the initial window first (cut to ``steps + 1`` states if ``steps < seq``).

        Raises
        ------
        ValueError
            ``z0`` has another shape or numpy cannot convert it, ``steps`` is negative or too
            large, or (``checked=True``) a state is not finite.
        TypeError
            ``z0``'s dtype does not cast to the network's.
        MemoryError
            The trajectories do not fit in memory.

        Examples
        --------
        >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
        >>> z0 = np.array([[0.0, 0.0, 0.0], [0.89, 0.90, 0.91], [0.45, 0.44, 0.43]])
        >>> trajectory = net.rollout(z0, 100)
        >>> trajectory.shape
        (3, 101)
        >>> bool((trajectory[:, :3] == z0).all())
        True
        """
    def check(self, samples: int = 100, seed: int = 0) -> list[Measurement]:
        """The structure the architecture promises, measured with exact Jacobians.

        The file is read anew and evaluated in float64 on ``samples`` random windows, the
        Jacobians row by row from the backward passes; the standard transformer promises nothing
        (an empty list).

        Parameters
        ----------
        samples : int, default 100
            The number of random windows, from 1 to 10⁶.
        seed : int, default 0
            The seed of the random windows, ``≥ 0``.

        Returns
        -------
        list of Measurement
            One per property (volume preservation, symplecticity, …).

        Raises
        ------
        ValueError
            ``samples`` is not from 1 to 10⁶ (none measured would pass everything), or the
            file no longer holds the network.
        OSError
            The file can no longer be read (``FileNotFoundError`` if it is gone).
        KeyboardInterrupt
            Ctrl-C (or what a signal handler raises) during the check: signals are looked at
            every 50 ms.

        Examples
        --------
        >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
        >>> [m.passes for m in net.check(samples=10)]
        [True, True, True]
        """
    def parameters(self) -> dict[str, _Array]:
        """The file's parameters by path.

        Returns
        -------
        dict of str to numpy.ndarray
            A new dict of read-only arrays, by their path in the file (``"L1/A"``), in Julia's
            shape and in the element type the file stores (float32, or float64 for a network GML
            trained in Float64); a special matrix (``SkewSymMatrix``, ``LowerTriangular``, …) as
            GML's packed vector ``S``, a Stiefel weight as its matrix ``A``.

        Examples
        --------
        >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
        ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
        >>> parameters = net.parameters()
        >>> parameters["L1/A"].shape, parameters["L1/A"].dtype
        ((3, 3), dtype('float32'))
        """

@final
class SkewAttention:
    """GML's volume-preserving attention ``Z ↦ Z·Cay(Zᵀ A Z)`` (``skew_sym = true``) alone.

    Parameters
    ----------
    a : array_like, shape (d(d−1)/2,)
        GML's packed skew-symmetric weight (the strict lower triangle, row by row), for ``d`` in
        :data:`ATTENTION_SIZES`. A float32 array makes a float32 layer; anything else is
        converted to float64 (``casting="same_kind"``) and makes a float64 layer.

    Raises
    ------
    ValueError
        ``a`` has another shape, or numpy cannot convert it.
    TypeError
        ``a``'s dtype does not cast to float64 (complex numbers, strings, objects).

    Notes
    -----
    Sequences are ``(d, d)`` (``T = d``), converted and copied as :class:`Network` does. A layer
    is called as a function: ``layer(z)`` is ``layer.forward(z)``.

    Examples
    --------
    >>> layer = geomattn.SkewAttention(np.array([0.5, -0.2, 0.1], dtype=np.float32))
    >>> layer.dim, layer.dtype
    (3, 'float32')
    >>> z = np.eye(3, dtype=np.float32)
    >>> out = layer(z)
    >>> out.shape, out.dtype
    ((3, 3), dtype('float32'))
    """

    def __new__(cls, a: npt.ArrayLike) -> SkewAttention: ...
    @property
    def dim(self) -> int:
        """``d`` (= ``T``)."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in, ``"float32"`` or ``"float64"``."""
    def forward(
        self, z: npt.ArrayLike, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """The forward pass of one sequence or a batch of sequences.

        Parameters
        ----------
        z : array_like, shape (d, d) or (B, d, d)
            The sequences, converted to the layer's dtype as :class:`Network` converts them.
        checked : bool, default False
            Raise at the first non-finite value; unchecked, NaN and inf propagate.
        exact : bool, default False
            As in :meth:`Network.forward`: the lane path by default where :data:`LANES`, the
            scalar path's bits if ``True``.

        Returns
        -------
        numpy.ndarray
            A new C-order array of ``z``'s shape, in the layer's dtype.

        Raises
        ------
        ValueError
            ``z`` has another shape or numpy cannot convert it, or (``checked=True``) a value is
            not finite.
        TypeError
            ``z``'s dtype does not cast to the layer's.

        Examples
        --------
        >>> layer = geomattn.SkewAttention([0.5, -0.2, 0.1])
        >>> layer.forward(np.ones((10, 3, 3))).shape
        (10, 3, 3)
        """
    def __call__(
        self, z: npt.ArrayLike, *, checked: bool = False, exact: bool = False
    ) -> _Array:
        """``layer(z, checked=False, exact=False)`` is :meth:`forward`."""

def load(
    path: Union[str, PathLike[str]],
    arch: str,
    dtype: _DTypeLike = "float64",
) -> Network:
    """Loads a network GeometricMachineLearning.jl saved.

    Parameters
    ----------
    path : str or os.PathLike
        The HDF5 file GML wrote.
    arch : str
        The architecture: a spec such as ``"vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3,
        activation=tanh, skew_sym=false)"``, or GML's constructor call.
    dtype : numpy dtype or str, default "float64"
        The scalar it computes in: ``numpy.float32``, ``numpy.dtype("float64")``, ``"float32"``,
        ``"f4"``, … (float32 or float64).

    Returns
    -------
    Network

    Raises
    ------
    FileNotFoundError
        There is no file at ``path`` (``PermissionError``, ``IsADirectoryError``, … likewise: the
        ``OSError`` of the operating system's error, with ``filename``).
    OSError
        The file is not a readable HDF5 file.
    ValueError
        A malformed spec, a file that does not hold ``arch`` (any size GML allows loads),
        or a ``dtype`` other than float32 and float64.
    TypeError
        ``dtype`` is not a dtype.

    Examples
    --------
    >>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
    ...     "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
    ...     dtype=np.float32)
    >>> net.dtype
    'float32'
    """

_Labels = npt.NDArray[np.int64]
_Probabilities = npt.NDArray[np.float64]

@final
class Classifier:
    """A classifier trained in GeometricMachineLearning.jl (``ClassificationTransformer``, such as
    GML's MNIST networks), loaded by :func:`load_classifier`.

    Images are pixels 0 … 255 of the upright image (as MNIST stores them): ``(28, 28)``,
    ``(N, 28, 28)`` or ``(N, 784)``, each cut into GML's 16 patches of 7×7. They are converted as
    numpy converts them (lists by ``numpy.asarray``; integers of another dtype to ``uint8`` if
    every value is in 0 … 255) and copied once. Batches run on :func:`get_num_threads` threads
    with the GIL released. A classifier is called as a function: ``mnist(images)`` is
    ``mnist.predict(images)``.

    Examples
    --------
    >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
    ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    ...     "Stiefel=true, add_connection=false)")
    >>> mnist.classes, mnist.dtype
    (10, 'float32')
    >>> labels, probabilities = mnist(np.zeros((5, 28, 28), dtype=np.uint8))
    >>> labels.shape, probabilities.shape
    ((5,), (5, 10))
    """

    @property
    def arch(self) -> str:
        """The architecture, in the spec's short form."""
    @property
    def classes(self) -> int:
        """The number of classes."""
    @property
    def dtype(self) -> Literal["float32", "float64"]:
        """The scalar it computes in, ``"float32"`` or ``"float64"``."""
    @property
    def path(self) -> str:
        """The file it was loaded from."""
    def probabilities(self, images: npt.ArrayLike) -> _Probabilities:
        """The class probabilities of images.

        Parameters
        ----------
        images : array_like of uint8, shape (28, 28), (N, 28, 28) or (N, 784)
            Pixels 0 … 255, as the class says.

        Returns
        -------
        numpy.ndarray of float64
            ``(classes,)`` for one image, ``(N, classes)`` for ``N``, whatever the classifier's
            dtype.

        Raises
        ------
        TypeError
            Pixels that are not integers (floats are not converted: scale them yourself).
        ValueError
            Another shape, integers outside 0 … 255, or a classifier that does not read 16
            patches of 49 pixels.

        Examples
        --------
        >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
        ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
        ...     "Stiefel=true, add_connection=false)")
        >>> p = mnist.probabilities(np.zeros((28, 28), dtype=np.uint8))
        >>> p.shape, bool(abs(p.sum() - 1) < 1e-6)
        ((10,), True)
        """
    def predict(self, images: npt.ArrayLike) -> tuple[_Labels, _Probabilities]:
        """The predicted classes of images, beside their probabilities.

        Parameters
        ----------
        images : array_like of uint8, shape (28, 28), (N, 28, 28) or (N, 784)
            Pixels 0 … 255, as the class says.

        Returns
        -------
        labels : numpy.ndarray of int64
            The first index of each image's largest probability (GML's ``argmax``): shape ``()``
            for one image, ``(N,)`` for ``N``.
        probabilities : numpy.ndarray of float64
            As :meth:`probabilities` returns them.

        Raises
        ------
        TypeError
            Pixels that are not integers.
        ValueError
            As :meth:`probabilities`.

        Examples
        --------
        >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
        ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
        ...     "Stiefel=true, add_connection=false)")
        >>> labels, probabilities = mnist.predict(np.zeros((3, 784), dtype=np.uint8))
        >>> bool((labels == probabilities.argmax(axis=1)).all())
        True
        """
    def sequence_probabilities(self, sequences: npt.ArrayLike) -> _Probabilities:
        """The class probabilities of sequences: the network's inputs themselves, not images.

        A sequence is what GML's network reads: ``dim`` features (the 49 pixels of a 7×7 patch,
        divided by 255, for MNIST) at each of ``seq`` steps (its 16 patches). The batched path of
        :meth:`probabilities` computes them: an image and its sequence give the same numbers.

        Parameters
        ----------
        sequences : array_like, shape (dim, seq) or (N, dim, seq)
            The sequences, converted to the classifier's dtype as :class:`Network` converts
            windows; C order or column-major (Julia's) are read as they are.

        Returns
        -------
        numpy.ndarray of float64
            ``(classes,)`` for one sequence, ``(N, classes)`` for ``N``, whatever the classifier's
            dtype.

        Raises
        ------
        ValueError
            Another shape, numpy cannot convert it, or a value is NaN or infinite: the message names
            its place ``[sequence, feature, step]``.
        TypeError
            Its dtype does not cast to the classifier's (complex numbers, strings, objects).

        Examples
        --------
        >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
        ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
        ...     "Stiefel=true, add_connection=false)")
        >>> p = mnist.sequence_probabilities(np.zeros((4, 49, 16)))
        >>> p.shape, bool((p == mnist.probabilities(np.zeros((4, 784), dtype=np.uint8))).all())
        ((4, 10), True)
        """
    def __call__(self, images: npt.ArrayLike) -> tuple[_Labels, _Probabilities]:
        """``mnist(images)`` is :meth:`predict`."""

def load_classifier(
    path: Union[str, PathLike[str]],
    arch: str,
    dtype: _DTypeLike = "float32",
) -> Classifier:
    """Loads a classifier GeometricMachineLearning.jl saved (``ClassificationTransformer``).

    Parameters
    ----------
    path : str or os.PathLike
        The HDF5 file GML wrote.
    arch : str
        The architecture: ``"classification_transformer(dim=49, seq=16, classes=10, n_heads=7,
        L=16, Stiefel=true, add_connection=false)"`` for GML's MNIST networks, or GML's
        constructor call.
    dtype : numpy dtype or str, default "float32"
        The scalar it computes in, float32 or float64, as :func:`load` takes it.

    Returns
    -------
    Classifier

    Raises
    ------
    FileNotFoundError
        There is no file at ``path`` (other ``OSError`` subclasses as :func:`load` raises them).
    OSError
        The file is not a readable HDF5 file.
    ValueError
        ``arch`` is malformed or not a classifier, the file does not hold it, or ``dtype`` is
        another dtype than float32 and float64.
    TypeError
        ``dtype`` is not a dtype.

    Examples
    --------
    >>> mnist = geomattn.load_classifier("fixtures/gml/mnist_nn2.h5",
    ...     "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    ...     "Stiefel=true, add_connection=false)", dtype="f8")
    >>> mnist.dtype
    'float64'
    """

def set_num_threads(n: Optional[int]) -> None:
    """Sets the number of threads batches use from now on.

    Parameters
    ----------
    n : int or None
        The number of threads, from 1 to 1024; ``None``: one per core (or ``RAYON_NUM_THREADS``).

    Raises
    ------
    ValueError
        ``n`` is not from 1 to 1024.
    RuntimeError
        The operating system refused a thread.

    Examples
    --------
    >>> geomattn.set_num_threads(1)
    >>> geomattn.get_num_threads()
    1
    >>> geomattn.set_num_threads(None)
    """

def get_num_threads() -> int:
    """The number of threads batches use.

    Returns
    -------
    int
        The number :func:`set_num_threads` set, else one per core (or ``RAYON_NUM_THREADS``).

    Examples
    --------
    >>> geomattn.get_num_threads() >= 1
    True
    """

def inspect(path: Union[str, PathLike[str]]) -> dict[str, Any]:
    """What a GML file holds: its layers, and every architecture whose chain it is, at any size.

    The file records parameters only: what it cannot say (the window length, the activations,
    ``add_connection``, …) is ``?`` in the spec and in GML's call, and named in ``unknown``.

    Parameters
    ----------
    path : str or os.PathLike
        The HDF5 file GML wrote.

    Returns
    -------
    dict
        ``"layers"``: one dict per layer group in order (``"name"``, and ``"parameters"``: dicts
        with ``"name"``, ``"kind"``, ``"shape"`` as Julia writes it, ``"storage"``);
        ``"matches"``: one dict per architecture (``"spec"``, the short form; ``"gml"``, GML's
        constructor call; ``"unknown"``, what to give and why), empty if none.

    Raises
    ------
    FileNotFoundError
        There is no file at ``path`` (``PermissionError``, ``IsADirectoryError``, … likewise).
    OSError
        The file is not a readable HDF5 file.

    Examples
    --------
    >>> found = geomattn.inspect("fixtures/gml/integrator_parameters.h5")
    >>> len(found["layers"])
    17
    >>> found["matches"][0]["gml"]
    'StandardTransformerIntegrator(2; transformer_dim = 20, n_heads = 5, n_blocks = 3, L = 3, upscaling_activation = ?, resnet_activation = ?, attention_activation = ?, add_connection = ?)'
    """

