"""Long calls stop on Ctrl-C, and running them in blocks changes no number.

Before, `forward`, `rollout`, `predict` and `check` ran to their end with the GIL released: a
SIGINT was seen only after they returned (a rollout of 10⁸ steps: minutes). Each test here
sends SIGINT to its own process 0.2 s into a call that would take many seconds, and asks that
the call raise KeyboardInterrupt within a tenth of the whole call's time, measured in the same
test on a hundredth (or a thousandth) of the work: a relative bound, whatever the machine.
"""

import os
import signal
import threading
import time

import numpy as np
import pytest

import geomattn
from conftest import FIXTURES, SPECS, fixture
from test_errors import CT



def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def interrupted(call, delay=0.2):
    """The seconds `call` took to raise KeyboardInterrupt, SIGINT sent `delay` s into it."""
    timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def net():
    return geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")


def test_ctrl_c_stops_a_long_check(net):
    whole = seconds(lambda: net.check(samples=1000)) * 1000
    assert interrupted(lambda: net.check(samples=10**6)) < whole / 10


def test_ctrl_c_stops_one_long_rollout(net):
    z = np.random.default_rng(0).uniform(-1, 1, (3, 3)).astype(np.float32)
    whole = seconds(lambda: net.rollout(z, 10**4)) * 1000
    assert interrupted(lambda: net.rollout(z, 10**7)) < whole / 10


def test_ctrl_c_stops_a_large_forward_batch():
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")
    few = np.random.default_rng(1).uniform(-1, 1, (1000, 3, 3)).astype(np.float32)
    z = np.tile(few, (FORWARD_WINDOWS // 1000, 1, 1))  # 108 MB
    whole = seconds(lambda: net.forward(z[: FORWARD_WINDOWS // 100], exact=True)) * 100
    assert interrupted(lambda: net.forward(z, exact=True)) < whole / 10


def test_ctrl_c_stops_a_large_prediction():
    classifier = geomattn.load_classifier(FIXTURES / "mnist_nn2.h5", CT)
    images = np.zeros((PREDICT_IMAGES, 784), dtype=np.uint8)
    whole = seconds(lambda: classifier.predict(images[: PREDICT_IMAGES // 100])) * 100
    assert interrupted(lambda: classifier.predict(images)) < whole / 10


# Sizes whose whole call takes several seconds on a 2-core machine.
FORWARD_WINDOWS = 3 * 10**6
PREDICT_IMAGES = 10**5


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exact", [False, True])
def test_a_long_rollout_is_its_short_rollouts_end_to_end(dtype, exact):
    # Past about 1024 states a rollout runs in segments, each from the last `seq` states of the
    # one before. Each pass of the network reads the window of `seq` states its predecessor
    # wrote (the windows starting at multiples of `seq`), so rollouts of 999 states (one
    # segment each) chained by hand from such windows must give the same trajectory bit for bit.
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype=dtype)
    z = np.random.default_rng(2).uniform(-1, 1, (5, 3, 3)).astype(dtype)
    steps = 3500
    long = net.rollout(z, steps, exact=exact)
    pieces, last = [z], z
    while sum(p.shape[-1] for p in pieces) < steps + 1:
        piece = net.rollout(last, 998, exact=exact)
        pieces.append(piece[..., 3:])
        last = piece[..., -3:]
    chained = np.concatenate(pieces, axis=-1)[..., : steps + 1]
    assert long.shape == (5, 3, steps + 1)
    np.testing.assert_array_equal(long, chained)
    # One window alone: the same states as in the batch.
    np.testing.assert_array_equal(net.rollout(z[3], steps, exact=exact), long[3])
