"""GML's networks at sizes no compiled type has: they load and run on the
run-time engine (the same maths as the compiled layers, sizes read from the file). The numbers
are checked against CONVENTIONS.md's formulas in the Rust suite (tests/tests/engine.rs); here,
what Python sees: shapes, dtypes, batches against single windows, rollouts against forward
passes, the two precisions, the structure check."""

from pathlib import Path

import numpy as np
import pytest

import geomattn

# A seeded network in GML's layout (fixtures/synthetic/README.md): dim 5, seq 6, n_linear 2,
# sigmoid, beyond the sizes of GML's rigid-body tutorial.
PATH = Path(__file__).resolve().parents[2] / "fixtures" / "synthetic" / "vpt_dim5_seq6_sigmoid.h5"
SPEC = "vpt(dim=5, seq=6, n_blocks=1, n_linear=2, L=1, activation=sigmoid, skew_sym=false)"
GML_CALL = (
    "VolumePreservingTransformer(5, 6; n_blocks = 1, n_linear = 2, L = 1, activation = sigmoid)"
)


def windows(dtype, count=40):
    return np.random.default_rng(3).uniform(-0.5, 0.5, (count, 5, 6)).astype(dtype)


def test_a_network_of_another_size_runs_in_both_precisions(dtype):
    net = geomattn.load(PATH, SPEC, dtype=dtype)
    assert (net.dim, net.seq) == (5, 6)
    z = windows(dtype)
    batch = net.forward(z)
    assert batch.shape == z.shape and batch.dtype == np.dtype(dtype)
    assert np.isfinite(batch).all() and not np.array_equal(batch, z)
    exact = net.forward(z, exact=True)
    for k in (0, 13, 39):
        np.testing.assert_array_equal(net.forward(z[k]), batch[k])
        np.testing.assert_array_equal(net.forward(z[k], exact=True), exact[k])
    if dtype == "float64" or not geomattn.LANES:
        np.testing.assert_array_equal(exact, batch)
    else:
        # float32 by default: the sigmoid through the vectorised `exp`, within the documented
        # bound of the exact result (tests/tests/engine_lanes.rs measures it against float64).
        eps = np.finfo(np.float32).eps
        assert np.abs(batch - exact).max() <= 32 * eps * max(1.0, np.abs(exact).max())
    np.testing.assert_array_equal(net(z.transpose(0, 2, 1).copy().transpose(0, 2, 1)), batch)


def test_its_rollout_applies_the_network_to_each_whole_window(dtype):
    net = geomattn.load(PATH, SPEC, dtype=dtype)
    z0 = windows(dtype)[0]
    trajectory = net.rollout(z0, 17)
    assert trajectory.shape == (5, 18)
    np.testing.assert_array_equal(trajectory[:, :6], z0)
    first = net.forward(z0)
    np.testing.assert_array_equal(trajectory[:, 6:12], first)
    np.testing.assert_array_equal(trajectory[:, 12:18], net.forward(first))
    batch = net.rollout(windows(dtype, 3), 17)
    np.testing.assert_array_equal(batch[0], trajectory)


def test_float32_is_float64_to_its_rounding():
    wide = geomattn.load(PATH, SPEC, dtype="float64").forward(windows("float64"))
    single = geomattn.load(PATH, SPEC, dtype="float32").forward(windows("float32"))
    assert np.abs(single - wide).max() < 1e-5 * max(1.0, np.abs(wide).max())


def test_gmls_constructor_call_loads_it_and_inspect_names_it():
    by_call = geomattn.load(PATH, GML_CALL)
    z = windows("float32")
    np.testing.assert_array_equal(by_call.forward(z), geomattn.load(PATH, SPEC).forward(z))
    found = geomattn.inspect(PATH)
    # The sequence length is what the file cannot say.
    assert any(m["gml"].startswith("VolumePreservingTransformer(5, ?;") for m in found["matches"])


def test_its_structure_is_checked():
    measurements = geomattn.load(PATH, SPEC).check(samples=3)
    assert [m.promised for m in measurements] == [True, True, False]
    assert all(m.passes for m in measurements), measurements
    assert measurements[2].property.startswith("|det J − 1| of the whole map of R^{5×6}")


def test_a_spec_the_file_is_not_is_refused():
    wrong = SPEC.replace("n_linear=2", "n_linear=1")
    with pytest.raises(ValueError, match="does not load as"):
        geomattn.load(PATH, wrong)


# GML's own standard transformer integrator (its symplectic-autoencoder tutorial,
# fixtures/gml/README.md): transformer_dim 20 with Dense maps up and down, 5 heads.
INTEGRATOR = Path(__file__).resolve().parents[2] / "fixtures" / "gml" / "integrator_parameters.h5"
# The window length is the one keyword GML's call does not have (its `iterate` takes it).
INTEGRATOR_CALL = (
    "StandardTransformerIntegrator(2; seq = {seq}, transformer_dim = 20, n_heads = 5, "
    "n_blocks = 3, L = 3, upscaling_activation = tanh)"
)


@pytest.mark.parametrize("seq", [1, 4, 7])
def test_gmls_tutorial_integrator_runs_at_any_window_length(dtype, seq):
    net = geomattn.load(INTEGRATOR, INTEGRATOR_CALL.format(seq=seq), dtype=dtype)
    assert (net.dim, net.seq) == (2, seq)
    z = np.random.default_rng(seq).uniform(-1, 1, (25, 2, seq)).astype(dtype)
    batch = net.forward(z)
    assert batch.shape == z.shape and np.isfinite(batch).all()
    for k in (0, 24):
        np.testing.assert_array_equal(net.forward(z[k]), batch[k])
    trajectory = net.rollout(z[0], 3 * seq)
    np.testing.assert_array_equal(trajectory[:, seq : 2 * seq], batch[0])
    # It promises no structure: nothing to measure, and the file is the spec's.
    assert net.check(samples=2) == []


def test_the_integrator_in_float32_is_float64_to_its_rounding():
    z = np.random.default_rng(5).uniform(-1, 1, (30, 2, 4))
    call = INTEGRATOR_CALL.format(seq=4)
    wide = geomattn.load(INTEGRATOR, call, dtype="float64").forward(z)
    single = geomattn.load(INTEGRATOR, call, dtype="float32").forward(z.astype("float32"))
    assert np.abs(single - wide).max() < 1e-5 * max(1.0, np.abs(wide).max())


# A seeded symplectic transformer (fixtures/synthetic/README.md) with transformer_dim 8 ≠ dim 4:
# PSDLayers up and down, which no compiled type has.
SYMPLECTIC = PATH.parent / "sympt_dim4_psd8_seq5.h5"
SYMPLECTIC_CALL = (
    "SymplecticTransformer(4; seq = 5, transformer_dim = 8, n_sympnet = 2, L = 2, "
    "sympnet_activation = sigmoid, attention_activation = VectorSoftmax(), symmetric = false)"
)


def test_a_symplectic_transformer_with_psd_layers_runs(dtype):
    net = geomattn.load(SYMPLECTIC, SYMPLECTIC_CALL, dtype=dtype)
    assert (net.dim, net.seq) == (4, 5)
    z = np.random.default_rng(5).uniform(-0.5, 0.5, (7, 4, 5)).astype(dtype)
    batch = net.forward(z)
    assert batch.shape == z.shape and np.isfinite(batch).all()
    for k in (0, 6):
        np.testing.assert_array_equal(net.forward(z[k]), batch[k])
    trajectory = net.rollout(z[0], 9)
    np.testing.assert_array_equal(trajectory[:, 5:10], batch[0])


def test_its_check_promises_the_blocks_and_reports_the_whole_map():
    measured = geomattn.load(SYMPLECTIC, SYMPLECTIC_CALL).check(samples=3)
    assert [m.promised for m in measured] == [True, True, False]
    assert "ΦᵀΦ" in measured[0].property and "blocks' map" in measured[1].property
    assert measured[0].passes and measured[1].passes, measured


def test_its_batches_are_the_same_numbers_on_every_thread(dtype):
    # Batches split across geomattn's threads, each part in lanes of 8 (f32) or 4 (f64) windows:
    # 1001 windows leave partial groups wherever the split falls.
    net = geomattn.load(PATH, SPEC, dtype=dtype)
    z = windows(dtype, 1001)
    try:
        geomattn.set_num_threads(1)
        one, trajectories = net.forward(z), net.rollout(z, 13)
        geomattn.set_num_threads(3)
        np.testing.assert_array_equal(net.forward(z), one)
        np.testing.assert_array_equal(net.rollout(z, 13), trajectories)
    finally:
        geomattn.set_num_threads(None)


def test_it_pickles_as_its_load_call_and_runs_on_a_dask_cluster():
    import pickle

    from dask.distributed import Client, LocalCluster

    from geomattn.ensemble import rollout_blocks

    net = geomattn.load(PATH, SPEC, dtype="float32")
    again = pickle.loads(pickle.dumps(net))
    z = windows("float32", 300)
    np.testing.assert_array_equal(again.forward(z), net.forward(z))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            result = rollout_blocks(str(PATH), SPEC, z, steps=7, block=100).compute()
    np.testing.assert_array_equal(result, net.rollout(z, 7))
