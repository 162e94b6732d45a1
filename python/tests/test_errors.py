"""Every error path is a Python exception with the library's message, never a crash."""

import numpy as np
import pytest

import geomattn
from conftest import SPECS, fixture


@pytest.fixture(scope="module")
def net():
    return geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")


def test_unreadable_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.h5"):
        geomattn.load(tmp_path / "nope.h5", SPECS["vpt"])
    garbage = tmp_path / "garbage.h5"
    garbage.write_bytes(b"not an HDF5 file at all")
    with pytest.raises(OSError, match="garbage.h5"):
        geomattn.load(garbage, SPECS["vpt"])


def test_file_without_the_architecture_is_a_value_error():
    with pytest.raises(ValueError, match="does not load as vpff"):
        geomattn.load(fixture("vpt"), "vpff(dim=3, n_blocks=6, n_linear=1, activation=tanh)")


@pytest.mark.parametrize(
    "spec, message",
    [
        ("vpt(dim=3)", "missing"),
        ("transformer(dim=3)", "unknown architecture"),
        ("vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=maybe)", "skew_sym"),
        ("vpt(dim=9, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)", "not in the sizes"),
    ],
)
def test_bad_specs_are_value_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        geomattn.load(fixture("vpt"), spec)


def test_bad_dtype_name():
    with pytest.raises(ValueError, match="dtype must be float32 or float64.*got 'float16'"):
        geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float16")


def test_a_dtype_that_does_not_cast_names_the_expected_one(net):
    z = np.zeros((4, 3, 3), dtype=np.complex128)
    with pytest.raises(TypeError, match=r"shape \(3, 3\) or \(B, 3, 3\) of real numbers \(cast to float32\).*got dtype complex128"):
        net.forward(z)
    with pytest.raises(TypeError, match="cast to float32"):
        net.rollout(np.zeros((3, 3), dtype=np.str_), 3)


@pytest.mark.parametrize("shape", [(3,), (3, 4), (4, 3), (2, 3, 4), (1, 2, 3, 3), ()])
def test_wrong_shape_names_the_expected_one(net, shape):
    with pytest.raises(ValueError, match=rf"shape \(3, 3\) or \(B, 3, 3\).*got shape"):
        net.forward(np.zeros(shape, dtype=np.float32))


def test_what_numpy_cannot_convert_is_a_value_error(net):
    with pytest.raises(ValueError, match="numpy cannot convert this list"):
        net.forward([[0.0] * 3, [0.0] * 2, [0.0]])


def test_negative_steps(net):
    with pytest.raises(ValueError, match="steps must be ≥ 0"):
        net.rollout(np.zeros((3, 3), dtype=np.float32), -1)


def test_nan_propagates_unchecked_and_is_named_checked(net):
    z = np.random.default_rng(0).uniform(-1, 1, (2000, 3, 3)).astype(np.float32)
    z[1234, 1, 2] = np.nan
    out = net.forward(z)
    assert np.isnan(out[1234]).any() and np.isfinite(np.delete(out, 1234, axis=0)).all()
    # The window's index in the whole batch, though the batch is split over threads.
    with pytest.raises(ValueError, match="time step 2 of sequence 1234 in the input"):
        net.forward(z, checked=True)
    with pytest.raises(ValueError, match="sequence 1234 in the input"):
        net.rollout(z, 5, checked=True)
    assert np.isnan(net.rollout(z[1234], 5)[:, 3:]).all()


def test_divergence_is_named_checked():
    # A huge input saturates nothing in attention but overflows f32 in the feed-forward part.
    net = geomattn.load(fixture("vpff"), SPECS["vpff"], dtype="float32")
    z = np.full((3, 1), 3e38, dtype=np.float32)
    out = net.forward(z)
    assert not np.isfinite(out).all()
    with pytest.raises(ValueError, match="in the output of VolumePreservingFeedForward"):
        net.forward(z, checked=True)


def test_a_transformers_checked_error_names_the_layer_and_its_block(net):
    # C = ZᵀAZ/√3 overflows f32 at once: the first block's attention is the first non-finite output.
    z = np.full((3, 3), 1e30, dtype=np.float32)
    z[1] = -2e30
    with pytest.raises(ValueError, match=r"in the output of VolumePreservingAttention \(block 0\)$"):
        net.forward(z, checked=True)
    with pytest.raises(ValueError, match=r"of sequence 1 in the output of \w+ \(block \d+\)"):
        net.forward(np.stack([z / 1e29, z]), checked=True)


def test_threads(net):
    with pytest.raises(ValueError, match="≥ 1"):
        geomattn.set_num_threads(0)


def test_skew_attention_rejects_bad_weights():
    with pytest.raises(ValueError, match="d\\(d−1\\)/2"):
        geomattn.SkewAttention(np.zeros(4))
    with pytest.raises(TypeError, match="cast to float64"):
        geomattn.SkewAttention(np.zeros(3, dtype=np.complex64))
    with pytest.raises(ValueError, match="numpy cannot convert"):
        geomattn.SkewAttention([[0.0], [0.0, 0.0]])


def test_empty_batches(net):
    assert net.forward(np.zeros((0, 3, 3), dtype=np.float32)).shape == (0, 3, 3)
    assert net.rollout(np.zeros((0, 3, 3), dtype=np.float32), 4).shape == (0, 3, 5)


def test_short_rollouts_cut_the_initial_window(net):
    z = np.arange(9, dtype=np.float32).reshape(3, 3)
    np.testing.assert_array_equal(net.rollout(z, 0), z[:, :1])
    np.testing.assert_array_equal(net.rollout(z, 2), z)


def test_a_result_too_large_is_a_memory_error(net):
    with pytest.raises(MemoryError):
        net.rollout(np.zeros((3, 3), dtype=np.float32), 10**15)
    with pytest.raises(ValueError, match="too large"):
        net.rollout(np.zeros((3, 3), dtype=np.float32), 2**63 - 1)
