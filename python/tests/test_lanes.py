"""The lane path behind `forward` and `rollout` (where `geomattn.LANES`: else the default is the
scalar path, bit for bit): the default (vectorised exp/tanh) within its documented bound of the
exact arithmetic, `exact=True` the same bits whatever the batch around a window (the Rust suite proves those bits are the scalar path's: tests/tests/batch_lanes.rs), for
batch sizes around every lane count (4, 8, 16 f32; 2, 4, 8 f64) and the staging chunk (1024)."""

import numpy as np
import pytest

import geomattn
from conftest import SPECS, fixture

# 0, 1, one below and above each lane count, beyond one staging chunk of 1 024 windows.
COUNTS = [0, 1, 2, 3, 5, 7, 9, 15, 17, 2 * 1024 + 17]


def windows(count, net, dtype, scale=1.0, seed=5):
    rng = np.random.default_rng(seed)
    return rng.uniform(-scale, scale, (count, net.dim, net.seq)).astype(dtype)


def column_major(z):
    """The same windows in Julia's layout (each window column-major)."""
    return np.ascontiguousarray(z.transpose(0, 2, 1)).transpose(0, 2, 1)


@pytest.mark.parametrize("kind", ["vpt", "vpff", "st"])
@pytest.mark.parametrize("count", COUNTS)
def test_exact_batches_give_every_window_its_own_bits(kind, count, dtype):
    net = geomattn.load(fixture(kind), SPECS[kind], dtype=dtype)
    z = windows(count, net, dtype)
    exact = net.forward(z, exact=True)
    assert exact.shape == z.shape and exact.dtype == z.dtype
    np.testing.assert_array_equal(net.forward(column_major(z), exact=True), exact)
    for k in sorted({0, count // 2, count - 1}) if count else []:
        np.testing.assert_array_equal(net.forward(z[k], exact=True), exact[k])
    fast = net.forward(z)
    np.testing.assert_array_equal(net.forward(column_major(z)), fast)
    for k in sorted({0, count // 2, count - 1}) if count else []:
        np.testing.assert_array_equal(net.forward(z[k]), fast[k])


def distance(got, reference, eps):
    """|got − reference| at its largest, in units of eps · max(|reference|, 1)."""
    if got.size == 0:
        return 0.0
    return float((np.abs(got - reference) / (eps * np.maximum(np.abs(reference), 1))).max())


@pytest.mark.parametrize("kind", ["vpt", "vpff", "st"])
@pytest.mark.parametrize("scale", [1e-2, 1.0, 10.0])
def test_the_fast_default_is_within_its_documented_bound(kind, scale, dtype):
    # Arithmetic::Fast: no further from the exact result (f64, exact arithmetic) than four times
    # the exact arithmetic's own rounding, and at least 16 eps.
    net = geomattn.load(fixture(kind), SPECS[kind], dtype=dtype)
    reference = geomattn.load(fixture(kind), SPECS[kind], dtype="float64")
    z = windows(3000, net, dtype, scale)
    truth = reference.forward(z.astype(np.float64), exact=True)
    eps = np.finfo(dtype).eps
    rounding = distance(net.forward(z, exact=True).astype(np.float64), truth, eps)
    error = distance(net.forward(z).astype(np.float64), truth, eps)
    assert error <= 4 * max(rounding, 4), (error, rounding)


def test_exact_and_fast_differ_in_float32_exactly_where_the_lane_path_runs():
    # geomattn.LANES: the processor has AVX2 or AVX-512, where float32's default arithmetic runs
    # the vectorised functions. Without them the default is bit for bit exact=True.
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")
    z = windows(3000, net, "float32")
    fast, exact = net.forward(z), net.forward(z, exact=True)
    if geomattn.LANES:
        assert not np.array_equal(fast, exact)
    else:
        assert fast.tobytes() == exact.tobytes()
    trajectories = net.rollout(z, 20), net.rollout(z, 20, exact=True)
    assert (trajectories[0].tobytes() == trajectories[1].tobytes()) is not geomattn.LANES


@pytest.mark.parametrize("count", [0, 1, 7, 17, 1025])
def test_rollouts_are_one_batch_of_steps_in_either_arithmetic(count, dtype):
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype)
    z0 = windows(count, net, dtype, scale=0.5)
    for exact in (False, True):
        trajectories = net.rollout(z0, 13, exact=exact)
        assert trajectories.shape == (count, 3, 14) and trajectories.dtype == z0.dtype
        np.testing.assert_array_equal(trajectories[:, :, :3], z0)
        # Each step is one forward pass of the whole batch in the same arithmetic.
        if count:
            step = net.forward(z0, exact=exact)
            np.testing.assert_array_equal(trajectories[:, :, 3:6], step)
            np.testing.assert_array_equal(trajectories[-1], net.rollout(z0[-1], 13, exact=exact))
        np.testing.assert_array_equal(net.rollout(column_major(z0), 13, exact=exact), trajectories)


def test_the_skew_attention_layer_takes_exact_too():
    rng = np.random.default_rng(8)
    layer = geomattn.SkewAttention((rng.standard_normal(28) / 8).astype(np.float32))
    z = rng.uniform(-1, 1, (1000, 8, 8)).astype(np.float32)
    exact = layer.forward(z, exact=True)
    np.testing.assert_array_equal(layer.forward(z[17], exact=True), exact[17])
    assert np.abs(layer.forward(z) - exact).max() < 1e-4
