"""The Kunlun bridge: PaConvert's torch -> Paddle rows, the kernels each Paddle API calls (read from the
paddlepaddle wheel's sources, never run), the legacy op names of Paddle's XPU lists, and the verdicts they give."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from migrator.maps.coverage import api_coverage, api_ops
from migrator.maps.load import load_target
from migrator.mapsbuild.vendors import kunlun_bridge, paddle_source

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "operator_maps" / "upstream"

FAKE_PADDLE = {
    "paddle/__init__.py": "from .nn.functional.activation import relu\nfrom . import nn\n",
    "paddle/nn/__init__.py": "from .layer.activation import ReLU\n",
    "paddle/nn/functional/__init__.py": "from .activation import relu\n",
    "paddle/nn/functional/activation.py": (
        "import paddle\nfrom paddle import _C_ops\n"
        "def relu(x, name=None):\n"
        "    if paddle.is_compiled_with_cuda():\n        return _C_ops.cudnn_relu(x)\n"
        "    else:\n        return _C_ops.relu(x)\n"),
    "paddle/nn/layer/activation.py": (
        "import paddle.nn.functional as F\nfrom .layers import Layer\n"
        "class ReLU(Layer):\n    def forward(self, x):\n        return F.relu(x)\n"
        "class ReLU6(ReLU):\n    pass\n"),
    "paddle/nn/layer/layers.py": "class Layer:\n    pass\n",
    "paddle/tensor/__init__.py": "tensor_method_func = ['relu']\nfrom ..nn.functional.activation import relu\n",
    "paddle/broken.py": "def f(:\n",
}


def _wheel(tmp_path: Path) -> Path:
    path = tmp_path / "paddlepaddle-0.0.0-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in FAKE_PADDLE.items():
            archive.writestr(name, text)
    path.write_bytes(buffer.getvalue())
    return path


def test_the_extractor_reads_kernels_calls_bases_and_reexports_without_running_anything(tmp_path):
    data = paddle_source.extract(_wheel(tmp_path))
    functions, exports = data["functions"], data["exports"]
    # the CUDA build's branch is left out: a Kunlun build never takes it
    assert functions["paddle.nn.functional.activation.relu"]["ops"] == ["relu"]
    assert functions["paddle.nn.layer.activation.ReLU"] == {
        "ops": [], "calls": ["paddle.nn.functional.relu"], "bases": ["paddle.nn.layer.layers.Layer"],
        "entry": "forward"}
    assert functions["paddle.nn.layer.activation.ReLU6"]["entry"] is None
    assert exports["paddle.nn"]["ReLU"] == "paddle.nn.layer.activation.ReLU"
    assert data["tensor_methods"] == ["relu"]
    assert not any(name.startswith("paddle.broken") for name in functions)  # a file that does not parse


@pytest.mark.parametrize("torch_api, status, kernel", [
    pytest.param("torch.nn.ReLU", "supported", "relu", id="layer-through-forward"),
    pytest.param("torch.add", "supported", "add (elementwise_add)", id="legacy-name-in-the-list"),
    pytest.param("torch.matmul", "supported", "matmul", id="api-is-the-kernel-binding"),
    pytest.param("torch.Tensor.max", "supported", "max (reduce_max)", id="tensor-method"),
    pytest.param("torch.svd", "fallback", "svd", id="kernel-not-in-the-list"),
    pytest.param("torch.nn.functional.interpolate", "partial", "bicubic_interp", id="some-modes-not-listed"),
])
def test_bridge_rows_on_the_vendored_data(torch_api, status, kernel):
    rows = json.loads((ROOT / "operator_maps" / "api_support" / "kunlun-bridge-kl3.json").read_text())["apis"]
    row = rows[torch_api]
    assert row["status"] == status and kernel in row["kernels"]
    assert row["paconvert"].startswith(torch_api + " -> ")
    assert (status == "supported") == (row["unlisted"] == [])


def test_a_paddle_name_resolves_through_reexports_and_tensor_methods():
    assert kunlun_bridge.resolve(UPSTREAM, "paddle.nn.ReLU") == "paddle.nn.layer.activation.ReLU"
    assert kunlun_bridge.resolve(UPSTREAM, "paddle.Tensor.add") == "paddle.tensor.math.add"
    assert kunlun_bridge.resolve(UPSTREAM, "paddle.no.such.thing") is None
    assert "elementwise_add" in kunlun_bridge.legacy_names(UPSTREAM)["add"]


def test_kunlun_verdicts_name_the_bridge_and_stay_substitute():
    target = load_target("kunlun", "kl3")
    interpolate = api_coverage(target, "torch.nn.functional.interpolate").verdict
    assert interpolate.status.value == "partial" and "bicubic_interp" in interpolate.message
    assert "PaConvert maps" in interpolate.message and "substitute data" in interpolate.message
    assert "api_mapping.paconvert-73e14f0a.json" in interpolate.source and "xpu3_op_list" in interpolate.source
    # no PaConvert row, no reviewed aten row: the data still cannot say
    assert api_coverage(target, "torch.Tensor.index").verdict.status.value == "unknown"


def test_an_aten_op_with_no_reviewed_row_is_judged_by_its_torch_functions_bridge_row():
    ops = load_target("kunlun", "kl3").op_map()["ops"]
    assert ops["aten::erf"] == "kunlun-bridged-unlisted"  # torch.erf -> paddle.erf -> erf, not in XPU3's list
    assert ops["aten::relu"] == "kunlun-listed"  # the reviewed table comes first


def test_another_spelling_of_a_traced_api_gets_its_row():
    assert api_ops("torch.nn.modules.loss.MSELoss") == api_ops("torch.nn.MSELoss") != ((), None)
    assert api_ops("torch.functional.einsum") == api_ops("torch.einsum")
