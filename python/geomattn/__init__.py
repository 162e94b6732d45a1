"""geomattn: structure-preserving transformers trained in GeometricMachineLearning.jl, run from
Python on numpy arrays (the Rust library's batch kernels: parallel, with the GIL released).

>>> import numpy as np, geomattn
>>> net = geomattn.load("fixtures/gml/transformer_rigid_body_nn_vpt.h5",
...     arch="vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)")
>>> z = np.random.default_rng(0).uniform(-1, 1, (1000, 3, 3))
>>> net(z).shape
(1000, 3, 3)

Windows are ``(dim, seq)`` arrays, state ``t`` being the column ``z[:, t]`` (GML's and Julia's
orientation), batches ``(B, dim, seq)``; lists and arrays of other dtypes are converted as numpy
converts them. See ``Network`` for the conversions, the copies and the memory layout.
"""

from ._geomattn import (
    ATTENTION_SIZES,
    Classifier,
    LANES,
    Measurement,
    Network,
    SkewAttention,
    __version__,
    get_num_threads,
    inspect,
    load,
    load_classifier,
    set_num_threads,
)

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
