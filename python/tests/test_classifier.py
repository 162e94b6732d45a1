"""GML's MNIST classifiers from Python: images in, labels and probabilities out."""

from pathlib import Path

import numpy as np
import pytest

import geomattn
from conftest import FIXTURES

MNIST = Path(__file__).resolve().parents[2] / "fixtures" / "mnist"
CT = (
    "classification_transformer(dim=49, seq=16, classes=10, n_heads=7, L=16, "
    "Stiefel=true, add_connection=false)"
)


def images_and_labels():
    """The 300 shipped MNIST images (IDX: a 16-byte header, then 28×28 bytes each) and labels."""
    pixels = np.frombuffer((MNIST / "mnist-train-300-images.idx3-ubyte").read_bytes()[16:], np.uint8)
    labels = np.frombuffer((MNIST / "mnist-train-300-labels.idx1-ubyte").read_bytes()[8:], np.uint8)
    return pixels.reshape(300, 28, 28), labels


@pytest.fixture(scope="module")
def nn2():
    return geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT)


def test_predict_classifies_the_shipped_images_as_gml_reports(nn2):
    images, labels = images_and_labels()
    predicted, probabilities = nn2.predict(images)
    assert predicted.shape == (300,) and predicted.dtype == np.int64
    assert probabilities.shape == (300, 10) and probabilities.dtype == np.float64
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(predicted, probabilities.argmax(axis=1))
    # GML reports 0.8613 on the test set; four binomial standard deviations of 300 images below.
    accuracy = (predicted == labels).mean()
    assert accuracy >= 0.8613 - 4 * np.sqrt(0.8613 * 0.1387 / 300), accuracy
    # The transposed images (a loader that forgot GML's transposition) are not recognised.
    wrong = (nn2.predict(images.transpose(0, 2, 1))[0] == labels).mean()
    assert wrong < 0.4, wrong


def test_one_image_flat_images_and_calls_agree(nn2):
    images, _ = images_and_labels()
    label, p = nn2.predict(images[7])
    assert label.shape == () and p.shape == (10,)
    batch_labels, batch = nn2(images[:10].reshape(10, 784))
    assert int(label) == batch_labels[7]
    np.testing.assert_array_equal(p, batch[7])
    np.testing.assert_array_equal(nn2.probabilities(list(images[:3])), batch[:3])


def test_float64_predicts_the_same_labels():
    images, _ = images_and_labels()
    single = geomattn.load_classifier(FIXTURES / "mnist_nn3.h5", CT, dtype="float32")
    double = geomattn.load_classifier(FIXTURES / "mnist_nn3.h5", CT, dtype="float64")
    (a, pa), (b, pb) = single.predict(images[:50]), double.predict(images[:50])
    np.testing.assert_array_equal(a, b)
    assert np.abs(pa - pb).max() < 1e-4
    assert (double.dtype, double.classes) == ("float64", 10)
    assert "classification_transformer(dim=49" in double.arch and "mnist_nn3" in repr(double)


def test_bad_images_and_specs_are_clear_errors(nn2):
    with pytest.raises(TypeError, match="uint8"):
        nn2.predict(np.zeros((2, 28, 28), np.float32))
    with pytest.raises(ValueError, match="got shape"):
        nn2.predict(np.zeros((2, 27, 28), np.uint8))
    with pytest.raises(ValueError, match="not a classifier"):
        geomattn.load_classifier(
            FIXTURES / "mnist_nn2.h5",
            "vpt(dim=3, seq=3, n_blocks=2, n_linear=1, L=3, activation=tanh, skew_sym=false)",
        )
    with pytest.raises(ValueError, match="does not load"):
        geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT.replace("L=16", "L=15"))
    with pytest.raises(FileNotFoundError, match="nope.h5"):
        geomattn.load_classifier(FIXTURES / "nope.h5", CT)


def patches(images):
    """GML's 16 patches of 7×7 of each image as (N, 49, 16) float32 sequences: patch t = 4·rb + cb,
    feature f = 7·ri + ci is pixel (7·rb + ri, 7·cb + ci), divided by 255."""
    blocks = (images / 255.0).reshape(-1, 4, 7, 4, 7).transpose(0, 2, 4, 1, 3)
    return blocks.reshape(-1, 49, 16).astype(np.float32)


def test_sequence_probabilities_are_the_images_in_every_layout(nn2):
    images, _ = images_and_labels()
    sequences = patches(images[:70])
    batch = nn2.sequence_probabilities(sequences)
    assert batch.shape == (70, 10) and batch.dtype == np.float64
    # The same batched path as for the images: the same numbers, bit for bit.
    np.testing.assert_array_equal(batch, nn2.probabilities(images[:70]))
    # Column-major windows (read in place), strided ones (copied), one window.
    columns = np.ascontiguousarray(sequences.transpose(0, 2, 1)).transpose(0, 2, 1)
    np.testing.assert_array_equal(nn2.sequence_probabilities(columns), batch)
    np.testing.assert_array_equal(nn2.sequence_probabilities(sequences[::-1])[::-1], batch)
    np.testing.assert_array_equal(nn2.sequence_probabilities(sequences[3]), batch[3])
    assert nn2.sequence_probabilities(sequences[:0]).shape == (0, 10)
    assert nn2.probabilities(np.zeros((0, 784), np.uint8)).shape == (0, 10)


def test_batched_predictions_are_one_at_a_time_ones(nn2):
    # Each image alone (a batch of one) and within 300 (five chunks, over the threads) agree.
    images, _ = images_and_labels()
    together = nn2.probabilities(images[:130])
    alone = np.stack([nn2.probabilities(image) for image in images[:130]])
    np.testing.assert_array_equal(together, alone)


def test_sequences_convert_as_network_windows_do(nn2):
    sequences = patches(images_and_labels()[0][:2])
    expected = nn2.sequence_probabilities(sequences)
    # float64 and lists are converted to the classifier's float32 (numpy's "same_kind").
    np.testing.assert_array_equal(nn2.sequence_probabilities(sequences.astype(np.float64)), expected)
    np.testing.assert_array_equal(nn2.sequence_probabilities(sequences[1].tolist()), expected[1])


def test_bad_sequences_are_clear_errors(nn2):
    sequences = patches(images_and_labels()[0][:2])
    with pytest.raises(ValueError, match=r"\(B, 49, 16\)"):
        nn2.sequence_probabilities(sequences[:, :, :15])
    with pytest.raises(ValueError, match=r"\(B, 49, 16\), got shape \[2, 16, 49\]"):
        nn2.sequence_probabilities(sequences.transpose(0, 2, 1).copy())
    with pytest.raises(TypeError, match="complex"):
        nn2.sequence_probabilities(sequences.astype(np.complex64))
    with pytest.raises(ValueError, match="numpy cannot convert"):
        nn2.sequence_probabilities([[0.0] * 16, [0.0]])
    hostile = sequences.copy()
    hostile[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match=r"non-finite value at \[1, 2, 3\]"):
        nn2.sequence_probabilities(hostile)


def test_a_classifier_of_a_size_no_compiled_type_has_runs_on_the_engine():
    # 15 patches: GML's MNIST weights read any number (the sequence length adds no parameters).
    net = geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT.replace("seq=16", "seq=15"))
    p = net.sequence_probabilities(np.zeros((2, 49, 15)))
    assert p.shape == (2, 10) and np.allclose(p.sum(axis=1), 1)
    with pytest.raises(ValueError, match="does not read MNIST images"):
        net.probabilities(np.zeros((28, 28), dtype=np.uint8))
    # One head where the file has seven: the first attention layer's parameters differ.
    with pytest.raises(ValueError, match="does not load as classification_transformer"):
        geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT.replace("n_heads=7", "n_heads=1"))
