"""The GIL is released during compute, and Dask drives the kernels."""

import threading

import numpy as np

import geomattn
from conftest import SPECS, fixture


def test_another_python_thread_runs_during_a_forward_pass():
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float64")
    z = np.random.default_rng(0).uniform(-1, 1, (200_000, 3, 3))
    counter = [0]
    running = threading.Event()
    stop = threading.Event()

    def spin():
        running.set()
        while not stop.is_set():
            counter[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    running.wait()
    try:
        before = counter[0]
        net.forward(z)
        during = counter[0] - before
    finally:
        stop.set()
        spinner.join()
    # Holding the GIL for the whole call would leave the spinner at most one switch interval
    # before the call; released, it counts all along (hundreds of thousands of iterations).
    assert during > 10_000, during


def test_dask_map_blocks_equals_one_call():
    import dask
    import dask.array as da

    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")
    z0 = np.random.default_rng(5).uniform(-1, 1, (1000, 3, 3)).astype(np.float32)
    chunks = da.from_array(z0, chunks=(250, 3, 3))
    steps = 12
    lazy = chunks.map_blocks(
        lambda block: net.rollout(block, steps), chunks=(250, 3, steps + 1), dtype=np.float32
    )
    with dask.config.set(scheduler="threads", num_workers=2):
        result = lazy.compute()
    np.testing.assert_array_equal(result, net.rollout(z0, steps))


def test_dask_distributed_local_cluster():
    from dask.distributed import Client, LocalCluster

    from geomattn.ensemble import rollout_blocks

    z0 = np.random.default_rng(6).uniform(-1, 1, (600, 3, 3)).astype(np.float32)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            result = rollout_blocks(
                str(fixture("vpt")), SPECS["vpt"], z0, steps=8, block=200, dtype="float32"
            ).compute()
    net = geomattn.load(fixture("vpt"), SPECS["vpt"], dtype="float32")
    np.testing.assert_array_equal(result, net.rollout(z0, 8))


def test_a_network_pickles_as_its_load_call():
    import pickle

    net = geomattn.load(fixture("st"), SPECS["st"], dtype="float32")
    again = pickle.loads(pickle.dumps(net))
    assert (again.arch, again.dtype, again.path) == (net.arch, net.dtype, net.path)
    z = np.random.default_rng(2).uniform(-1, 1, (10, 3, 3)).astype(np.float32)
    np.testing.assert_array_equal(again.forward(z), net.forward(z))


def test_a_thread_resizing_the_input_during_forward_cannot_crash_the_interpreter():
    """The input is copied before the GIL is released: another thread that frees its buffer
    (``resize`` without the reference check) changes nothing. Run in a child process, so that a
    crash is this test's failure rather than the end of the test run."""
    import subprocess
    import sys

    script = f"""
import threading, numpy as np, geomattn
net = geomattn.load({str(fixture("vpt"))!r}, {SPECS["vpt"]!r}, dtype="float64")
z = np.random.default_rng(0).uniform(-1, 1, (400_000, 3, 3))
expected = net.forward(z.copy())
stop = threading.Event()
def resize():
    while not stop.is_set():
        z.resize((5, 3, 3), refcheck=False)
        z.resize((400_000, 3, 3), refcheck=False)
for _ in range(3):
    victim = z
    thread = threading.Thread(target=resize)
    thread.start()
    try:
        out = net.forward(victim)
    finally:
        stop.set()
        thread.join()
        stop.clear()
    assert out.shape[1:] == (3, 3)
print("survived")
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert child.returncode == 0 and "survived" in child.stdout, (child.returncode, child.stderr[-2000:])
