"""Numbers: against the rigid body's ground truth, the Rust library's published run, an
independent NumPy implementation of the attention layer, and across layouts and batch sizes."""

import os

import numpy as np
import pytest

import geomattn
from conftest import SPECS, fixture, truth


def test_main_job_errors_match_the_rust_library():
    # The README's main job (`cargo run -p geomattn-cli`): the VPT from the truth's first window,
    # 60 steps in f64; its table of max-norm errors, as the Rust library printed it (3 digits).
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float64")
    reference = truth(1.1, 61)
    trajectory = net.rollout(reference[:, :3], 60)
    assert trajectory.shape == (3, 61)
    errors = np.abs(trajectory - reference).max(axis=0)
    published = {6: 2.22e-3, 12: 5.38e-3, 18: 3.89e-3, 24: 8.09e-3, 30: 1.01e-2, 36: 1.07e-2,
                 42: 6.15e-3, 48: 8.50e-3, 54: 8.47e-3, 60: 1.17e-2}
    for step, error in published.items():
        assert float(f"{errors[step]:.2e}") == pytest.approx(error, rel=1e-12), step
    assert errors[:3].max() == 0.0


def test_networks_predict_the_rigid_body(dtype):
    # The bounds of the Rust suite's fixture tests (tests/tests/gml_fixtures.rs), over a batch of
    # all 55 windows of one trajectory at once.
    reference = truth(1.1, 60)
    windows = np.stack([reference[:, k : k + 3] for k in range(55)]).astype(dtype)
    vpt = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype).forward(windows)
    assert np.abs(vpt[0] - windows[3]).max() < 3e-3  # the Rust suite bounds the first window
    # GML's trained standard transformer predicts the next window's middle in all three columns.
    st = geomattn.load(fixture("st"), SPECS["st"], dtype=dtype).forward(windows)
    assert np.abs(st - st[:, :, :1]).max() < 1e-5
    assert np.abs(st[:-4, :, 0] - reference[:, 4:55].T).max() < 3e-3
    states = reference.T.reshape(60, 3, 1).astype(dtype)
    vpff = geomattn.load(fixture("vpff"), SPECS["vpff"], dtype=dtype).forward(states)
    assert np.abs(vpff[:-1] - states[1:]).max() < 3e-3


@pytest.mark.parametrize("kind, bound", [("vpt", 3e-2), ("vpff", 0.1), ("st", 0.15)])
def test_rollouts_follow_the_rigid_body(kind, bound, dtype):
    net = geomattn.load(fixture(kind), SPECS[kind], dtype=dtype)
    reference = truth(1.1, 60)
    start = reference[:, : net.seq].astype(dtype)
    trajectory = net.rollout(start, 59)
    assert trajectory.shape == (3, 60) and trajectory.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(trajectory[:, : net.seq], start)
    assert np.abs(trajectory - reference).max() < bound


@pytest.mark.parametrize("kind", ["vpt", "vpff", "st"])
def test_batches_equal_single_windows_in_every_layout(kind, dtype):
    net = geomattn.load(fixture(kind), SPECS[kind], dtype=dtype)
    rng = np.random.default_rng(7)
    # Large enough to be split over threads (chunks of at least 256 windows).
    z = rng.uniform(-1, 1, (1500, net.dim, net.seq)).astype(dtype)
    out = net.forward(z)
    assert out.shape == z.shape and out.dtype == z.dtype
    for k in (0, 777, 1499):
        np.testing.assert_array_equal(out[k], net.forward(z[k]))
    columns = np.ascontiguousarray(z.transpose(0, 2, 1)).transpose(0, 2, 1)
    np.testing.assert_array_equal(net.forward(columns), out)
    strided = np.repeat(z, 2, axis=0)[::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(net.forward(strided), out)
    np.testing.assert_array_equal(net.forward(np.asfortranarray(z[5])), out[5])
    trajectories = net.rollout(z[:300], 7)
    assert trajectories.shape == (300, net.dim, 8)
    np.testing.assert_array_equal(trajectories[123], net.rollout(z[123], 7))


def test_threads_do_not_change_the_numbers():
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float64")
    z = np.random.default_rng(3).uniform(-1, 1, (5000, 3, 3))
    try:
        geomattn.set_num_threads(1)
        assert geomattn.get_num_threads() == 1
        one = net.forward(z)
        geomattn.set_num_threads(3)
        assert geomattn.get_num_threads() == 3
        np.testing.assert_array_equal(net.forward(z), one)
    finally:
        geomattn.set_num_threads(None)
    # Back to rayon's default: RAYON_NUM_THREADS, or one thread per core this process may use.
    default = int(os.environ.get("RAYON_NUM_THREADS", 0)) or len(os.sched_getaffinity(0))
    assert geomattn.get_num_threads() == default


def test_float32_and_float64_agree_to_float32_rounding():
    z = np.random.default_rng(1).uniform(-1, 1, (2000, 3, 3))
    f64 = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float64").forward(z)
    f32 = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32").forward(z.astype(np.float32))
    assert np.abs(f32 - f64).max() < 1e-5
    assert np.abs(f32 - f64).max() > 0  # really computed in f32


def skew(packed, d):
    """GML's SkewSymMatrix: S fills the strict lower triangle row by row (CONVENTIONS.md)."""
    a = np.zeros((d, d))
    k = 0
    for i in range(d):
        for j in range(i):
            a[i, j] = packed[k]
            a[j, i] = -packed[k]
            k += 1
    return a


@pytest.mark.parametrize("d", geomattn.ATTENTION_SIZES)
def test_skew_attention_equals_numpy(d):
    rng = np.random.default_rng(d)
    packed = rng.standard_normal(d * (d - 1) // 2) / d
    layer = geomattn.SkewAttention(packed)
    assert (layer.dim, layer.dtype) == (d, "float64")
    z = rng.uniform(-1, 1, (400, d, d))
    a = skew(packed, d)
    c = np.einsum("bki,kl,blj->bij", z, a, z)
    eye = np.eye(d)
    expected = z @ ((eye - c) @ np.linalg.inv(eye + c))
    np.testing.assert_allclose(layer.forward(z), expected, rtol=0, atol=1e-12)
    f32 = geomattn.SkewAttention(packed.astype(np.float32)).forward(z.astype(np.float32))
    assert np.abs(f32 - expected).max() < 1e-4


def test_structure_check_passes_what_is_promised():
    vpt = geomattn.load(fixture("vpt"), SPECS["vpt"]).check(samples=5, seed=1)
    assert [m.promised for m in vpt] == [True, True, False]
    assert all(m.passes for m in vpt)
    assert vpt[0].worst < 1e-12 and vpt[2].worst > 1e-6  # skew_sym = false: not volume-preserving
    assert geomattn.load(fixture("st"), SPECS["st"]).check(samples=5) == []


def test_parameters_are_read_only_views_by_gml_name():
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")
    parameters = net.parameters()
    # L1 is the first attention layer (a dense 3×3 `A`), L2 a lower layer (packed `S`, 3 values).
    assert parameters["L1/A"].shape == (3, 3) and parameters["L1/A"].dtype == np.float32
    assert parameters["L2/weight"].shape == (3,)
    assert all(name.startswith("L") for name in parameters)
    with pytest.raises(ValueError):
        parameters["L1/A"][0, 0] = 1.0
    # The attention weight enters the output: a different A would give other numbers.
    assert np.abs(parameters["L1/A"]).max() > 0
