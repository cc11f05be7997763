"""An API a target's torch line does not have: read from each torch wheel's sources and stubs (never imported),
judged `unsupported` on the targets that run that line, and not said of a substitute target."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from migrator.maps.coverage import api_coverage
from migrator.maps.load import load_target
from migrator.mapsbuild.torch_names import absent, index_wheel

NEW = {
    "torch/__init__.py": "from torch._C import *\nfrom torch import optim as optim\nfrom ._tensor import Tensor\n",
    "torch/_C/__init__.pyi": "class TensorBase:\n    def add(self, other): ...\n    def index(self, p, d): ...\n",
    "torch/_C/_VariableFunctions.pyi": "def add(input, other): ...\ndef hash_tensor(input): ...\n",
    "torch/_tensor.py": "from torch._C import TensorBase\nclass Tensor(TensorBase):\n    def backward(self): ...\n",
    "torch/optim/__init__.py": "from .adam import Adam\nfrom ._adafactor import Adafactor\n",
    "torch/optim/adam.py": "class Adam:\n    def step(self): ...\n",
    "torch/optim/_adafactor.py": "class Adafactor:\n    pass\n",
}
OLD = {name: text for name, text in NEW.items() if "adafactor" not in name}
OLD.update({"torch/optim/__init__.py": "from .adam import Adam\n",
            "torch/_C/_VariableFunctions.pyi": "def add(input, other): ...\n",
            "torch/_C/__init__.pyi": "class TensorBase:\n    def add(self, other): ...\n"})


def _wheel(tmp_path: Path, name: str, files: dict) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    (tmp_path / name).write_bytes(buffer.getvalue())
    return tmp_path / name


def test_names_resolve_through_imports_stubs_and_bases(tmp_path):
    index = index_wheel(_wheel(tmp_path, "new.whl", NEW))
    for api in ("torch.optim.Adafactor", "torch.optim._adafactor.Adafactor", "torch.add", "torch.Tensor.add",
                "torch.Tensor.backward", "torch.optim.Adam.step"):
        assert index.resolves(api), api
    assert not index.resolves("torch.optim.Lion") and not index.resolves("torch.Tensor.frobnicate")


def test_what_a_later_torch_added_is_absent_from_the_older_but_tensor_methods_are_not_said(tmp_path):
    new, old = _wheel(tmp_path, "new.whl", NEW), _wheel(tmp_path, "old.whl", OLD)
    apis = ["torch.optim.Adafactor", "torch.hash_tensor", "torch.add", "torch.Tensor.index", "torch.not.there"]
    # Tensor.index is new too, but a scan names x.index(...) a Tensor method by the type it infers for x
    assert absent(new, old, apis) == ["torch.hash_tensor", "torch.optim.Adafactor"]


@pytest.mark.parametrize("target, status", [
    pytest.param(("neuware", "1.25-2.4"), "unsupported", id="neuware-torch-2.4"),
    pytest.param(("cann", "2.1-8.0"), "unsupported", id="cann-torch-2.1"),
    pytest.param(("cann", "2.12-9.1"), "supported", id="cann-torch-2.12"),
    pytest.param(("kunlun", "kl3"), "unknown", id="kunlun-line-not-known"),
])
def test_adafactor_is_judged_by_the_torch_each_target_runs(target, status):
    verdict = api_coverage(load_target(*target), "torch.optim.Adafactor").verdict
    assert verdict.status.value == status
    if status == "unsupported":
        assert "is not in torch 2." in verdict.message and "absent_apis.torch-" in verdict.source


def test_an_op_a_later_torch_added_backend_agnostically_does_not_decide_an_older_lines_verdict():
    """torch._foreach_lerp's trace (torch 2.13, CPU) names aten::_foreach_lerp.ScalarList, a later torch's
    CompositeExplicitAutograd overload; torch_mlu r2.4 runs torch 2.4, which decomposes the API its own way."""
    target = load_target("neuware", "1.25-2.4")
    assert target.op_map()["ops"]["aten::_foreach_lerp.ScalarList"] == "later-composite-explicit"
    verdict = api_coverage(target, "torch._foreach_lerp").verdict
    assert verdict.status.value == "supported"
    assert "aten::_foreach_lerp.ScalarList is not in torch 2.4" in verdict.message
    # SDPA's trace names aten::_safe_softmax (torch 2.5's) too, but torch_mlu registers SDPA itself
    sdpa = api_coverage(target, "torch.nn.functional.scaled_dot_product_attention").verdict
    assert sdpa.status.value == "supported" and "registers aten::scaled_dot_product_attention itself" in sdpa.message
    # a later op with backend kernels stays out: the verdict still says the data cannot judge it
    assert "aten::_scaled_grouped_mm" not in target.op_map()["ops"]
