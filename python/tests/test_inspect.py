"""``geomattn.inspect``: a GML file's layers and the architectures whose chain it is, with GML's
constructor call; the suggestion, filled in, loads the file."""

from pathlib import Path

import pytest

import geomattn

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "gml"


def test_the_rigid_body_transformer_is_found_and_its_suggestion_loads():
    found = geomattn.inspect(FIXTURES / "transformer_rigid_body_nn_vpt.h5")
    assert [layer["name"] for layer in found["layers"]] == [f"L{k}" for k in range(1, 34)]
    assert found["layers"][0]["parameters"] == [
        {"name": "A", "kind": "dense matrix", "shape": "3×3", "storage": "Float32"}
    ]
    (match,) = found["matches"]
    assert match["spec"] == (
        "vpt(dim=3, seq=?, n_blocks=2, n_linear=1, L=3, activation=?, skew_sym=false)"
    )
    assert match["gml"] == (
        "VolumePreservingTransformer(3, ?; n_blocks = 2, n_linear = 1, L = 3, activation = ?, "
        "init_upper = false, skew_sym = false)"
    )
    assert [u.split(" ")[0] for u in match["unknown"]] == ["seq", "activation"]
    spec = match["spec"].replace("seq=?", "seq=3").replace("activation=?", "activation=tanh")
    assert geomattn.load(FIXTURES / "transformer_rigid_body_nn_vpt.h5", spec).dim == 3


def test_gmls_standard_transformers_with_an_up_projection_are_found():
    for name, dim in [("integrator_parameters.h5", 2), ("integrator_parameters_psd.h5", 8)]:
        (match,) = geomattn.inspect(str(FIXTURES / name))["matches"]
        assert match["gml"].startswith(
            f"StandardTransformerIntegrator({dim}; transformer_dim = 20, n_heads = 5, n_blocks = 3, L = 3"
        )
        assert "upscaling_activation" in " ".join(match["unknown"])


def test_a_missing_file_is_the_operating_systems_error():
    with pytest.raises(FileNotFoundError):
        geomattn.inspect("no-such-file.h5")


def test_a_file_that_is_not_hdf5_is_an_os_error(tmp_path):
    path = tmp_path / "text.h5"
    path.write_text("not an HDF5 file")
    with pytest.raises(OSError):
        geomattn.inspect(path)
