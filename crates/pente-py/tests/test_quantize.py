"""`python -m pente.quantize`: the int8 network follows the float one, and
`pente` runs its file on ONNX Runtime for that network only."""

import json
import os
import shutil

import pytest

from conftest import REPO

if os.environ.get("PENTE_REQUIRE_ORT"):
    import onnx  # noqa: F401  (CI: a missing quantizer is a failure, not a skip)
    import onnxruntime  # noqa: F401
else:
    pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")

from pente import quantize  # noqa: E402

SAMPLES = REPO / "data" / "sample-samples" / "samples.bin"


@pytest.fixture
def model_dir(tmp_path):
    """The shipped network's model.json and model.onnx."""
    for name in ("model.json", "model.onnx"):
        shutil.copy(REPO / "data" / "models" / "campaign" / name, tmp_path / name)
    return tmp_path


def test_the_int8_network_follows_the_float_one_and_pente_runs_it(model_dir, cli):
    out, report = quantize.quantize(model_dir, [SAMPLES], positions=256, held_out=256)
    assert out == model_dir / quantize.OUT_FILE and out.is_file()
    assert not list(model_dir.glob("*.tmp")) and not list(model_dir.glob("*.prepared"))
    # Measured on the shipped network: 90 % of the best moves kept, the
    # value within 0.04 on average; far worse would mean a broken graph.
    assert report["positions"] == 256
    assert report["policy_top1_agreement"] > 0.8, report
    assert report["value_mean_abs_diff"] < 0.1, report
    model_id = json.loads((model_dir / "model.json").read_text())["id"]
    props = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert props[quantize.MODEL_ID_KEY] == model_id
    assert "256 positions" in props["pente.calibration"]

    shown = cli("bench", "nn", "--model", str(out), "--backend", "ort", "--threads", "1", "--batch", "1", "--seconds", "0.1")
    assert f"network {model_id}/model.int8.onnx" in shown

    # Another network in the directory: the old int8 file is refused.
    info = json.loads((model_dir / "model.json").read_text())
    (model_dir / "model.json").write_text(json.dumps({**info, "id": "another"}))
    with pytest.raises(AssertionError, match=f"made from network `{model_id}`"):
        cli("bench", "nn", "--model", str(out), "--backend", "ort", "--threads", "1", "--batch", "1", "--seconds", "0.1")


def test_samples_of_another_size_are_a_clear_error(model_dir):
    with pytest.raises(SystemExit, match="no samples of a 7x7 board"):
        quantize.quantize(model_dir, [SAMPLES], size=7)
