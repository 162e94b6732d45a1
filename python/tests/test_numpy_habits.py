"""numpy's habits: dtypes as numpy names them, array-likes converted as numpy converts them,
callable networks, ``__version__``, and standard exceptions with one clear message."""

import errno
import re
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import geomattn
from conftest import FIXTURES, SPECS, fixture

ROOT = Path(__file__).resolve().parents[2]
CT = (
    "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, Stiefel=true, "
    "add_connection=false)"
)


@pytest.fixture(scope="module")
def net():
    return geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")


@pytest.fixture(scope="module")
def windows():
    return np.random.default_rng(7).uniform(-1, 1, (40, 3, 3)).astype(np.float32)


@pytest.mark.parametrize(
    "dtype, name",
    [
        (np.float32, "float32"),
        (np.float64, "float64"),
        (np.dtype("float32"), "float32"),
        (np.dtype(">f8"), "float64"),
        ("float32", "float32"),
        ("f4", "float32"),
        ("<f8", "float64"),
        ("single", "float32"),
        ("double", "float64"),
        (float, "float64"),
    ],
)
def test_dtype_takes_what_numpy_takes(dtype, name):
    assert geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype).dtype == name


def test_classifier_dtype_takes_numpy_dtypes():
    assert geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT, dtype=np.float64).dtype == "float64"
    assert geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT).dtype == "float32"
    assert geomattn.load(fixture("vpt"), SPECS["vpt"]).dtype == "float64"


@pytest.mark.parametrize("dtype", ["float16", np.int32, "i8", np.complex128, "U3"])
def test_another_dtype_is_a_value_error_naming_the_accepted_ones(dtype):
    with pytest.raises(ValueError, match=r"dtype must be float32 or float64: numpy\.float32, .*\"f4\""):
        geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype)


@pytest.mark.parametrize("dtype", ["nope", object(), None, 3.5])
def test_what_is_no_dtype_is_a_type_error_naming_the_accepted_ones(dtype):
    with pytest.raises(TypeError, match=r"dtype must be float32 or float64: numpy\.float32"):
        geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype)
    with pytest.raises(TypeError, match=r"dtype must be float32 or float64"):
        geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT, dtype=dtype)


def test_lists_tuples_and_nested_lists_are_converted(net, windows):
    expected = net.forward(windows)
    np.testing.assert_array_equal(net.forward(windows.tolist()), expected)
    np.testing.assert_array_equal(net.forward(tuple(map(tuple, windows[0].tolist()))), expected[0])
    np.testing.assert_array_equal(net.forward([w for w in windows]), expected)
    np.testing.assert_array_equal(net.rollout(windows[:3].tolist(), 5), net.rollout(windows[:3], 5))


def test_other_dtypes_are_cast_as_numpy_casts_them(net, windows):
    wide = windows.astype(np.float64) + 1e-12  # rounds back to the float32 values
    out = net.forward(wide)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, net.forward(wide.astype(np.float32)))
    integers = np.arange(9, dtype=np.int64).reshape(3, 3) % 2
    np.testing.assert_array_equal(net.forward(integers), net.forward(integers.astype(np.float32)))
    np.testing.assert_array_equal(net.forward(windows.astype(">f4")), net.forward(windows))
    double = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float64")
    np.testing.assert_array_equal(double.forward(windows), double.forward(windows.astype(np.float64)))
    # The caller's array is left as it was.
    assert wide.dtype == np.float64 and (wide == windows.astype(np.float64) + 1e-12).all()


def test_non_contiguous_arrays_are_read_as_their_values(net, windows):
    every_other = windows[::2]
    reversed_states = windows[:, :, ::-1]
    for strided in (every_other, reversed_states, np.asfortranarray(windows)):
        assert not strided.flags.c_contiguous
        np.testing.assert_array_equal(net.forward(strided), net.forward(np.ascontiguousarray(strided)))


@pytest.mark.parametrize(
    "z, error, message",
    [
        (np.zeros((3, 3), np.complex64), TypeError, r"got dtype complex64, which numpy does not cast to float32"),
        ([["a", "b", "c"]] * 3, TypeError, r"got dtype <U1"),
        ([[0.0, 0.0, 0.0], [0.0, 0.0], [0.0]], ValueError, r"numpy cannot convert this list to an array"),
        (3.0, ValueError, r"got shape \[\]"),
        ([[0.0] * 3] * 4, ValueError, r"got shape \[4, 3\]"),
    ],
)
def test_what_does_not_convert_is_a_clear_error(net, z, error, message):
    with pytest.raises(error, match=r"z must be an array of shape \(3, 3\) or \(B, 3, 3\).*" + message):
        net.forward(z)


def test_networks_and_layers_are_callable(net, windows):
    np.testing.assert_array_equal(net(windows), net.forward(windows))
    poisoned = windows.copy()
    poisoned[5, 0, 0] = np.nan
    assert np.isnan(net(poisoned)[5]).any()
    with pytest.raises(ValueError, match="sequence 5"):
        net(poisoned, checked=True)
    layer = geomattn.SkewAttention(np.array([0.3, -0.1, 0.2], np.float32))
    np.testing.assert_array_equal(layer(windows), layer.forward(windows))


def test_skew_attention_converts_its_weight():
    assert geomattn.SkewAttention(np.array([0.3, -0.1, 0.2], np.float32)).dtype == "float32"
    from_list = geomattn.SkewAttention([0.3, -0.1, 0.2])
    from_ints = geomattn.SkewAttention(np.array([1, 0, -1]))
    assert (from_list.dtype, from_list.dim, from_ints.dtype) == ("float64", 3, "float64")
    z = np.eye(3)
    np.testing.assert_array_equal(from_ints(z), geomattn.SkewAttention([1.0, 0.0, -1.0])(z))
    with pytest.raises(TypeError, match="complex128"):
        geomattn.SkewAttention(np.zeros(3, np.complex128))
    with pytest.raises(ValueError, match=r"d\(d−1\)/2"):
        geomattn.SkewAttention([[0.0, 1.0, 2.0]])


def test_classifier_converts_integer_pixels_in_range():
    mnist = geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT)
    pixels = np.random.default_rng(1).integers(0, 256, (4, 28, 28))
    labels, probabilities = mnist(pixels.tolist())
    expected_labels, expected_probabilities = mnist(pixels.astype(np.uint8))
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(probabilities, expected_probabilities)
    pixels[2, 3, 4] = 256
    with pytest.raises(ValueError, match="int64 values outside 0 … 255"):
        mnist(pixels)
    pixels[2, 3, 4] = -1
    with pytest.raises(ValueError, match="outside 0 … 255"):
        mnist.probabilities(pixels)
    with pytest.raises(TypeError, match="got dtype float64"):
        mnist(pixels / 255)


def test_version_is_the_crates():
    cargo = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    workspace = re.search(r'^\[workspace\.package\][^\[]*?^version = "([^"]+)"', cargo, re.M | re.S)
    assert workspace is not None and geomattn.__version__ == workspace.group(1)
    assert re.fullmatch(r"\d+\.\d+\.\d+", geomattn.__version__)
    try:
        installed = metadata.version("geomattn")
    except metadata.PackageNotFoundError:  # run from the source folder, not installed
        return
    assert installed == geomattn.__version__


@pytest.mark.parametrize("loader", ["load", "load_classifier"])
def test_a_missing_file_is_file_not_found_naming_the_path_once(tmp_path, loader):
    missing = tmp_path / "nope.h5"
    arch = SPECS["vpt"] if loader == "load" else CT
    with pytest.raises(FileNotFoundError) as raised:
        getattr(geomattn, loader)(missing, arch)
    assert raised.value.errno == errno.ENOENT
    assert raised.value.filename == str(missing)
    assert str(raised.value) == f"[Errno 2] No such file or directory: '{missing}'"


def test_a_directory_is_an_os_error_of_its_errno(tmp_path):
    with pytest.raises(IsADirectoryError) as raised:
        geomattn.load(tmp_path, SPECS["vpt"])
    assert raised.value.filename == str(tmp_path)


def test_a_file_that_is_not_hdf5_is_an_os_error_naming_it_once(tmp_path):
    garbage = tmp_path / "garbage.h5"
    garbage.write_bytes(b"not an HDF5 file at all")
    with pytest.raises(OSError) as raised:
        geomattn.load(garbage, SPECS["vpt"])
    assert type(raised.value) is OSError
    assert str(raised.value).count("garbage.h5") == 1, str(raised.value)


def test_negative_counts_are_value_errors(net):
    with pytest.raises(ValueError, match="n must be ≥ 0, got -1"):
        geomattn.set_num_threads(-1)
    with pytest.raises(ValueError, match="samples must be ≥ 0, got -3"):
        net.check(samples=-3)
    with pytest.raises(ValueError, match="steps must be ≥ 0, got -1"):
        net.rollout(np.zeros((3, 3), np.float32), -1)
