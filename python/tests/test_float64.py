"""A network GML saved in Float64: its parameters are float64, and it computes what
CONVENTIONS.md's formulas give on them (written here in numpy)."""

from pathlib import Path

import numpy as np

import geomattn

FILE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "float64_symplectic_transformer.h5"
# Phase space R⁴ (n = 2), 4 hidden units, n_sympnet = 2, L = 1: layers A, 2 gradient, A, 2 gradient.
SPEC = (
    "symplectic_transformer(dim=4, seq=3, n_sympnet=2, upscaling_dimension=8, L=1, "
    "sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=true, "
    "symmetric=true, kick=gml)"
)


def symmetric(packed, n):
    """GML's SymmetricMatrix: the lower triangle with the diagonal, row by row, mirrored."""
    a = np.empty((n, n))
    k = 0
    for i in range(n):
        for j in range(i + 1):
            a[i, j] = a[j, i] = packed[k]
            k += 1
    return a


def vector_softmax(c):
    e = np.exp(c - c.max(axis=0))
    return e / e.sum(axis=0)


def reference(parameters, z):
    """L × [attention Q, gradient Q, gradient P, attention P, gradient Q, gradient P]."""
    z = z.copy()
    updates_q = [True, True, False, False, True, False]
    for layer, q in zip(range(1, 7), updates_q):
        x, y = (z[:2], z[2:]) if q else (z[2:], z[:2])
        if f"L{layer}/A" in parameters:
            a = symmetric(parameters[f"L{layer}/A"], 2)
            x = x + 2 * a @ y @ vector_softmax(y.T @ a @ y)
        else:
            k, b, s = (parameters[f"L{layer}/{name}"] for name in ("weight", "bias", "scale"))
            x = x + k.T @ (s[:, None] * np.tanh(k @ y + b[:, None]))
        z = np.vstack([x, y]) if q else np.vstack([y, x])
    return z


def test_a_float64_file_computes_its_float64_weights():
    net = geomattn.load(FILE, SPEC, dtype="float64")
    parameters = net.parameters()
    assert all(p.dtype == np.float64 for p in parameters.values())
    # Genuine Float64 values: not all of them are Float32 numbers.
    assert any((p != p.astype(np.float32)).any() for p in parameters.values())
    z = np.random.default_rng(3).uniform(-1, 1, (50, 4, 3))
    ours = net.forward(z)
    expected = np.stack([reference(parameters, window) for window in z])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12)
    # In float32 the weights are rounded once: close to, not equal to, the float64 network.
    single = geomattn.load(FILE, SPEC, dtype="float32").forward(z.astype(np.float32))
    gap = np.abs(single - ours).max()
    assert 0 < gap < 1e-5, gap
