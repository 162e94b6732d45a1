"""Shared material: the fixtures' paths and specs, and the rigid body's ground truth."""

from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "gml"

# The three rigid-body networks of GML's documentation (fixtures/gml/README.md).
SPECS = {
    "vpt": "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
    "vpff": "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)",
    "st": "st(dim=3, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)",
}


def fixture(kind: str) -> Path:
    return FIXTURES / f"transformer_rigid_body_nn_{kind}.h5"


H = 0.2
COEFFICIENTS = np.array([0.5, -1.0, 0.5])


def field(z):
    return COEFFICIENTS * np.array([z[1] * z[2], z[2] * z[0], z[0] * z[1]])


def midpoint_step(z, h=H):
    """One implicit midpoint step of Euler's equations (inertia (2, 1, 2/3)), by Newton."""
    a, b, c = COEFFICIENTS
    nxt = z + h * field(z)
    for _ in range(50):
        m = (z + nxt) / 2
        residual = nxt - z - h * field(m)
        jac = np.eye(3) - h / 2 * np.array(
            [[0, a * m[2], a * m[1]], [b * m[2], 0, b * m[0]], [c * m[1], c * m[0], 0]]
        )
        delta = np.linalg.solve(jac, residual)
        nxt = nxt - delta
        if np.abs(delta).max() <= np.finfo(float).eps * np.abs(nxt).max():
            break
    return nxt


def truth(theta: float, states: int) -> np.ndarray:
    """The states z_0 … z_{states−1} from (0, sin θ, cos θ), as a (3, states) array."""
    z = np.array([0.0, np.sin(theta), np.cos(theta)])
    out = np.empty((3, states))
    for k in range(states):
        out[:, k] = z
        z = midpoint_step(z)
    return out


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    return request.param
