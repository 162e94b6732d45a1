"""Every error path is a Python exception with the library's message, never a crash."""

import numpy as np
import pytest

import geomattn
from conftest import FIXTURES, SPECS, fixture

CT = (
    "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, Stiefel=true, "
    "add_connection=false)"
)


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
        # Any size of the volume-preserving, standard and symplectic transformers runs (the
        # run-time engine): this file is not it.
        (
            "symplectic_transformer(dim=6, seq=3, n_sympnet=2, upscaling_dimension=12, L=1, "
            "sympnet_activation=tanh, attention_activation=VectorSoftmax, init_upper=true, "
            "symmetric=true, kick=gml)",
            "does not load as symplectic_transformer",
        ),
        ("vpt(dim=9, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)", "/L1/A` is 3×3 in the file"),
        ("st(dim=9, seq=3, n_heads=1, n_blocks=2, L=3, activation=tanh, add_connection=false)", "does not load as st"),
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
    # 10**6 spent 20 s starting threads before the system refused one.
    for n in (0, 1025, 10**6):
        with pytest.raises(ValueError, match="from 1 to 1024"):
            geomattn.set_num_threads(n)


def test_check_measures_from_one_to_a_million_windows(net):
    # check(samples=0) measured nothing and passed.
    for samples in (0, 10**6 + 1):
        with pytest.raises(ValueError, match="from 1 to 1000000"):
            net.check(samples=samples)


def test_skew_attention_rejects_non_finite_weights():
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="non-finite value at position 1"):
            geomattn.SkewAttention(np.array([0.5, bad, 0.25]))


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


# A batch whose copy cannot be allocated under a memory limit: Python's MemoryError, where the
# interpreter was aborted. Each call runs in a child process under RLIMIT_AS, set to what the
# process maps after loading plus `room` times the copy: numpy's own C-order copy of a broadcast
# batch fits, ours does not.
_UNDER_A_LIMIT = """
import resource, sys
import numpy as np
import geomattn
kind, fixture, spec, ct_file, ct_spec = sys.argv[1:]
net = geomattn.load(fixture, spec, dtype="float32")
classifier = geomattn.load_classifier(ct_file, ct_spec)
n = 10**8
if kind == "images":
    z, room, call = np.broadcast_to(np.zeros(784, np.uint8), (n // 8, 784)), 0.5, classifier.predict
else:
    z, room = np.broadcast_to(np.zeros((3, 3), np.float32), (n // 3, 3, 3)), 1.5
    call = net if kind == "forward" else (lambda z: net.rollout(z, 1))
copy = z.shape[0] * z[0].nbytes
mapped = int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmSize:")))
limit = mapped * 1024 + int(room * copy)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    call(z)
except MemoryError as error:
    print("MemoryError", error)
"""


@pytest.mark.parametrize("kind", ["forward", "rollout", "images"])
def test_a_batch_too_large_to_copy_is_a_memory_error(kind):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _UNDER_A_LIMIT, kind, str(fixture("vpt")), SPECS["vpt"],
         str(FIXTURES / "mnist_nn2.h5"), CT],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MemoryError"), out.stdout
