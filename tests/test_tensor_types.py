"""Legacy CUDA tensor types, as classes or named in strings (nerf-pytorch's
``torch.set_default_tensor_type('torch.cuda.FloatTensor')``): each is a use of the type, and the type a target
takes in ``set_default_tensor_type`` is the one its own API list allows."""

import pytest

from migrator.model import Status

from .conftest import by_rule

SET_DEFAULT_STRING = """import torch

torch.set_default_tensor_type('torch.cuda.FloatTensor')
"""
SET_DEFAULT_CLASS = """import torch

torch.set_default_tensor_type(torch.cuda.HalfTensor)
"""
CAST_BY_NAME = """import torch

def to_half(x):
    return x.type('torch.cuda.HalfTensor')
"""


def _verdicts(scan_code, code, api):
    found = [f for f in by_rule(scan_code(code), "device-call") if f.api == api]
    assert len(found) == 1, [f.api for f in found]
    return found[0].verdicts


@pytest.mark.parametrize("code, api, instead", [
    pytest.param(SET_DEFAULT_STRING, "torch.cuda.FloatTensor", "torch.set_default_device('npu')", id="string"),
    pytest.param(SET_DEFAULT_CLASS, "torch.cuda.HalfTensor",
                 "torch.set_default_device('npu'); torch.set_default_dtype(torch.float16)", id="class-half"),
])
def test_ascend_sets_the_default_device_instead_of_its_own_tensor_type(scan_code, code, api, instead):
    verdicts = _verdicts(scan_code, code, api)
    cann = verdicts["cann"]
    assert cann.status == Status.REWRITE
    assert cann.fix is not None and cann.fix.suggestion == instead
    assert "torch.npu.DtypeTensor" in " ".join(cann.quotes)  # the vendor's own line, quoted
    assert "ignore the default device" in cann.message  # ssd.pytorch's torch.Tensor(...) priors stay on the host
    # Cambricon's list says nothing against its own types there: the renamed type
    assert verdicts["neuware"].status == Status.REWRITE and "torch.mlu." in verdicts["neuware"].message
    assert verdicts["kunlun"].status == Status.SUPPORTED


def test_a_type_named_in_a_cast_is_renamed_to_the_name_the_target_registers(scan_code):
    verdicts = _verdicts(scan_code, CAST_BY_NAME, "torch.cuda.HalfTensor")
    assert verdicts["cann"].status == Status.REWRITE
    # torch_npu registers its types as ``torch.npu.*`` (TensorType.cpp), not under the torch_npu module
    assert verdicts["cann"].fix.suggestion == "'torch.npu.HalfTensor'"
    assert verdicts["neuware"].fix.suggestion == "'torch.mlu.HalfTensor'"


@pytest.mark.parametrize("code", [
    pytest.param("import torch\nx = torch.zeros(2).type('torch.FloatTensor')\n", id="cpu-type"),
    pytest.param("import torch\nprint('set torch.cuda.FloatTensor as the default')\n", id="in-a-message"),
    pytest.param("import torch\nname = f'torch.cuda.{kind}Tensor'\n", id="fstring"),
])
def test_strings_that_name_no_cuda_type_are_no_use(scan_code, code):
    assert not [f for f in by_rule(scan_code(code), "device-call") if "Tensor" in f.api]


def test_the_legacy_constructors_ignore_the_default_device():
    """What the Ascend message says of ``torch.set_default_device``: ``torch.Tensor(...)`` and ``torch.FloatTensor(
    ...)`` keep making host tensors where the factories follow the default (the meta device stands in for the NPU)."""
    torch = pytest.importorskip("torch")
    before = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        assert torch.Tensor([1.0]).device.type == "cpu" and torch.FloatTensor(2).device.type == "cpu"
        assert torch.tensor([1.0]).device.type == "meta"
    finally:
        torch.set_default_device(before)
