"""The resolver at its own seam: source text in, usages out, with no rules, maps or scan around it."""
import ast
import gc
import re

import libcst
import pytest

from migrator.resolve import LiteralRole, Vocabulary, resolve_module
from migrator.resolve.modules import absolute_import
from migrator.rules import VOCABULARY
from migrator.sources.outline import outline_of

TENSOR_METHODS = frozenset({"cuda", "to", "float"})


def usages(code, module="pkg.mod", is_package=False, vocabulary=VOCABULARY):
    facts, found = resolve_module(libcst.parse_module(code), module, is_package, TENSOR_METHODS, vocabulary,
                                  source=code)
    return facts, [(u.api, u.kind) for u in found], found


@pytest.mark.parametrize("code, expected", [
    pytest.param("import torch\ntorch.cuda.synchronize()\n", ("torch.cuda.synchronize", "call"), id="call"),
    pytest.param("import torch as T\nx = T.cuda.is_available\n", ("torch.cuda.is_available", "attribute"),
                 id="attribute-through-alias"),
    pytest.param("from .ops import nms\nnms(1)\n", ("pkg.ops.nms", "call"), id="relative-import"),
    pytest.param("from apex import amp\n", ("apex.amp", "import"), id="third-party-import"),
    # a module's own override of ``cuda`` stays the torch method it overrides where another class calls it
    pytest.param("import torch\nclass Net(torch.nn.Module):\n    def go(self):\n        return self.cuda()\n",
                 ("torch.nn.Module.cuda", "method"), id="a-modules-inherited-cuda"),
    pytest.param("import torch\nclass F(torch.autograd.Function):\n    pass\n",
                 ("torch.autograd.Function", "subclass"), id="autograd-subclass"),
    pytest.param("import torch\ndef f(x):\n    return x.cuda()\n", ("torch.Tensor.cuda", "method"),
                 id="tensor-method"),
    pytest.param("import torch\nclass M(torch.nn.Module):\n    def f(self):\n        self.cuda()\n",
                 ("torch.nn.Module.cuda", "method"), id="module-method-on-self"),
    # allennlp's trainer: `model: Model`, a class another module defines
    pytest.param("import torch\nfrom .models import Model\ndef fit(model: Model, d: int):\n    return model.cuda(d)\n",
                 ("torch.nn.Module.cuda", "method"), id="cuda-on-an-object-of-another-modules-class"),
    pytest.param("import os\nos.environ['NCCL_DEBUG'] = 'INFO'\n", ("os.environ", "env"), id="environment-write"),
    pytest.param("import os\nv = os.getenv('CUDA_HOME')\n", ("os.environ", "env-read"), id="environment-read"),
    pytest.param("import torch\nDEVICE = 'cuda:0'\n", ("torch.device", "literal"), id="device-literal"),
    pytest.param("import triton\n@triton.jit\ndef k(p):\n    pass\n", ("triton.jit", "decorator"), id="decorator"),
    pytest.param("import torch\nlib = torch.library.Library('ns', 'IMPL')\n"
                 "def setup():\n    lib.impl('f', g, 'CUDA')\n",
                 ("torch.library.Library.impl", "call"), id="method-of-an-instance-built-here"),
    pytest.param("import torch\nclass Ops:\n    def __init__(self):\n        self.lib = torch.library.Library('ns', "
                 "'DEF')\n"
                 "    def add(self):\n        self.lib.impl('f', g, 'CUDA')\n",
                 ("torch.library.Library.impl", "call"), id="method-of-an-instance-on-self"),
    pytest.param("import torch\ndef f(x):\n    return x.is_cuda\n", ("torch.Tensor.is_cuda", "attribute"),
                 id="tensor-attribute-on-an-unknown-receiver"),
    pytest.param("import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
                 "        self.w = torch.nn.Parameter(torch.ones(1))\n"
                 "    def f(self):\n        return self.w.is_cuda\n",
                 ("torch.Tensor.is_cuda", "attribute"), id="a-parameter-is-a-tensor"),
    pytest.param("import torch\nclass T(torch.Tensor):\n    def f(self):\n        return self.is_cuda\n",
                 ("torch.Tensor.is_cuda", "attribute"), id="self-in-a-tensor-subclass"),
])
def test_usage_recorded(code, expected):
    assert expected in usages(code)[1]


@pytest.mark.parametrize("code, api", [
    pytest.param("import torch\nclass Cfg:\n    def to(self, d):\n        pass\nc = Cfg()\nc.to('cpu')\n",
                 "torch.Tensor.to", id="method-on-a-repo-class-is-not-a-tensor"),
    pytest.param("import torch\n'''Runs on cuda.'''\n", "torch.device", id="docstring-is-not-a-device"),
    pytest.param("import torch\nx = 'cuda'.upper()\n", "torch.Tensor.upper", id="method-on-a-literal"),
    pytest.param("import os\nv = os.getenv('HOME')\n", "os.environ", id="unwatched-variable"),
    pytest.param("import numpy as np\nnp.zeros(3)\n", "numpy.zeros", id="quiet-library"),
    pytest.param("from ...far import thing\nthing()\n", "far.thing", id="relative-import-above-the-root"),
    pytest.param("import torch\nlib = make_library()\nlib.impl('f', g, 'CUDA')\n", "torch.library.Library.impl",
                 id="method-of-an-object-of-unknown-class"),
    pytest.param("import torch\nclass Sampler:\n    def __init__(self, gpu):\n        self.is_cuda = gpu\n"
                 "    def f(self):\n        return self.is_cuda\n", "torch.Tensor.is_cuda",
                 id="an-objects-own-is-cuda-flag"),
    pytest.param("import torch\nclass M(torch.nn.Module):\n    def f(self):\n        return self.is_cuda\n",
                 "torch.Tensor.is_cuda", id="a-module-has-no-tensor-attributes"),
    pytest.param("import torch\ndef f(state, gpu):\n    state.is_cuda = gpu\n", "torch.Tensor.is_cuda",
                 id="an-attribute-written-is-not-a-tensors-read-only-property"),
    pytest.param("import typing as tp\nimport torch\nclass S:\n    def __init__(self):\n"
                 "        self.scaler: tp.Optional[torch.cuda.amp.GradScaler] = None\n",
                 "torch.cuda.amp.GradScaler", id="an-annotation-names-a-type-and-calls-nothing"),
    pytest.param("import torch\ndef f(x: torch.cuda.FloatTensor) -> torch.cuda.FloatTensor:\n    return x\n",
                 "torch.cuda.FloatTensor", id="parameter-and-return-annotations"),
    # torchdrug's Graph (an object whose base another module defines) has its own ``cuda``, which ``to`` calls
    pytest.param("import torch\nfrom .core import Container\nclass Graph(Container):\n    def cuda(self, d):\n"
                 "        return self\n    def to(self, d):\n        return self.cuda(d)\n", "torch.nn.Module.cuda",
                 id="a-classs-own-cuda-method"),
    pytest.param("import torch\nfrom .core import Container\nclass Graph(Container):\n    def cuda(self, d):\n"
                 "        return self\nclass Packed(Graph):\n    def to(self, d):\n        return self.cuda(d)\n",
                 "torch.nn.Module.cuda", id="a-cuda-method-its-base-defines"),
])
def test_usage_not_recorded(code, api):
    assert api not in [a for a, _ in usages(code)[1]]


@pytest.mark.parametrize("code, recorded", [
    pytest.param("import torch\ndef free(p):\n    p.data.storage().resize_(0)\n", False,
                 id="a-storages-method-is-no-tensors"),
    pytest.param("import torch\ndef free(p):\n    p.data.resize_(0)\n", True, id="a-tensors-own"),
])
def test_a_method_of_a_tensors_storage_is_not_the_tensors(code, recorded):
    _, found = resolve_module(libcst.parse_module(code), "pkg.mod", False, frozenset({"resize_"}), VOCABULARY,
                              source=code)
    assert ("torch.Tensor.resize_" in [u.api for u in found]) == recorded


def test_values_keep_where_they_were_set():
    code = "import torch\nDEV = 'cuda'\ndef f(x, d=DEV):\n    return x.to(d)\n"
    facts, _, found = usages(code)
    to = next(u for u in found if u.api == "torch.Tensor.to")
    value = to.args[0].value
    assert (value.kind, value.text, value.via, value.origin.line) == ("str", "cuda", "DEV", 2)  # where it is written
    assert facts.constants["DEV"].text == "cuda" and facts.constants["DEV"].origin.line == 2


def test_literal_role_and_confidence_come_from_where_it_sits():
    code = "import torch\ndef f(x, device='cuda'):\n    return x.to(device)\nok = x.device.type == 'cuda'\n"
    found = [u for u in usages(code)[2] if u.kind == "literal"]
    assert [(u.span.line, u.context, u.confidence.value) for u in found] == [
        (2, "default of parameter device", "heuristic"), (4, "compared with x.device.type", "resolved")]


@pytest.mark.parametrize("code, devices", [
    pytest.param("v = versions[release]['cuda']\n", 0, id="a-subscript-key"),
    pytest.param("torch.cuda.set_rng_state_all(states['cuda'])\n", 0, id="a-saved-states-key"),
    pytest.param("v = data.get('cuda', {}).get('version')\n", 0, id="a-get-key"),
    pytest.param("d = cfg.get('device', 'cuda')\n", 1, id="a-get-default-is-a-device"),
    pytest.param("V = {'2.10.0': {'torchvision': '0.25.0', 'cuda': ('12.6', '12.8')}}\n", 0, id="a-record-key"),
    pytest.param("torch.save({'cpu': torch.get_rng_state(), 'cuda': torch.cuda.get_rng_state_all(), 'numpy': n}, f)\n",
                 0, id="a-record-of-states"),
    pytest.param("BACKENDS = {'cuda': 'nccl', 'cpu': 'gloo'}\n", 1, id="a-per-device-table"),
    pytest.param("DEVICES = {'cuda': 1, 'mps': 2}\n", 1, id="a-table-of-devices"),
])
def test_a_key_that_names_a_field_is_no_device(code, devices):
    """``"cuda"`` as a table's index, a ``get`` key, or a key among field names labels an entry; the keys of a
    table of devices (and a ``get``'s default) are devices."""
    found = usages("import torch\n" + code)[2]
    assert sum(1 for u in found if u.api == "torch.device" and u.kind == "literal") == devices


def test_guarded_import_is_marked():
    code = "try:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n    flash_attn_func = None\n"
    found = [u for u in usages(code)[2] if u.kind == "import"]
    assert [(u.api, u.guarded) for u in found] == [("flash_attn.flash_attn_func", True)]


def test_the_vocabulary_decides_what_a_literal_is():
    code = "X = 'ascend:0'\nY = 'cuda:0'\n"
    only_ascend = Vocabulary(literals=(LiteralRole("my.ascend", re.compile(r"^ascend:\d$")),))
    assert [a for a, kind in usages(code, vocabulary=only_ascend)[1] if kind == "literal"] == ["my.ascend"]
    assert [a for a, kind in usages(code)[1] if kind == "literal"] == ["torch.device"]


@pytest.mark.parametrize("module, is_package, level, name, expected", [
    pytest.param("pkg.sub.mod", False, 1, "ops", "pkg.sub.ops", id="sibling"),
    pytest.param("pkg.sub.mod", False, 2, "ops", "pkg.ops", id="parent"),
    pytest.param("pkg.sub", True, 1, None, "pkg.sub", id="package-itself"),
    pytest.param("pkg.mod", False, 3, "x", None, id="above-the-root"),
    pytest.param("pkg.mod", False, 0, "torch", "torch", id="absolute"),
])
def test_relative_imports(module, is_package, level, name, expected):
    assert absolute_import(module, is_package, level, name) == expected


@pytest.mark.parametrize("code", [
    pytest.param("from ..ops import nms\nnms(1)\n", id="two-levels"),
    pytest.param("from ....far import thing\nthing()\n", id="above-the-root"),
])
def test_resolver_and_outline_agree_on_relative_imports(code):
    resolved = {a for a, kind in usages(code, module="pkg.sub.mod")[1] if kind == "call"}
    outline = outline_of(ast.parse(code), "pkg.sub.mod", False)
    assert resolved == {c.target.name for c in outline.calls}


def test_the_pass_leaves_no_cycle_that_holds_the_syntax_tree():
    """A worker frees each file's tree as the pass returns; a cycle through it (a visitor's callable that
    captures the visitor, a bound method kept on the walker) would leave every tree for the collector."""
    code = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, x, device='cuda'):\n"
            "        if x.device.type == 'cuda':\n            return torch.device('cuda', 0)\n"
            "        return x.to(f'cuda:{device}')\n")
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        facts, found = resolve_module(libcst.parse_module(code), "pkg.mod", False, TENSOR_METHODS, VOCABULARY,
                                      source=code, tree=ast.parse(code))
        assert found  # the pass did its work
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if isinstance(o, libcst.CSTNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


def test_a_name_that_labels_something_is_not_the_binding_it_spells():
    """``weight.dtype``, the keyword in ``dtype=dtype`` and ``def forward`` are labels, not references: only
    the value ``dtype`` is the ``torch.float64`` this module bound (timm's tests flagged ``weight.dtype``)."""
    code = ("import torch\ndtype = torch.float64\n\n\ndef forward(weight):\n"
            "    return weight.dtype, torch.ones(1, dtype=dtype)\n")
    _, _, found = usages(code)
    value_col = code.splitlines()[5].index("=dtype") + 1
    assert [(u.span.line, u.span.col) for u in found if u.api == "torch.float64"] == [(2, 8), (6, value_col)]
    assert not [u for u in found if u.api == "pkg.mod.forward"]


class _CompoundStatements(libcst.CSTVisitor):
    """What libcst's own walk reaches when it skips expressions: the reference ``compound_statements`` keeps."""

    def __init__(self) -> None:
        self.found = []

    def on_visit(self, node):
        if isinstance(node, libcst.BaseCompoundStatement):
            self.found.append(node)
        return not isinstance(node, libcst.BaseExpression)


@pytest.mark.parametrize("path", ["migrator/resolve/scope.py", "migrator/fix/protocols.py",
                                  "migrator/mapsbuild/torch_names.py"], ids=lambda p: p.rsplit("/", 1)[-1])
def test_compound_statements_reach_what_libcsts_walk_reaches(path):
    from pathlib import Path

    from migrator.resolve.scope import compound_statements
    module = libcst.parse_module(Path(__file__).resolve().parent.parent.joinpath(path).read_text())
    reference = _CompoundStatements()
    module.visit(reference)
    assert len(reference.found) > 30
    assert [id(s) for s in compound_statements(module.body)] == [id(s) for s in reference.found]


def test_compound_statements_reach_every_clause():
    from migrator.resolve.scope import compound_statements
    code = ("try:\n    if a: pass\nexcept ImportError:\n    if b: pass\nelse:\n    while c: pass\nfinally:\n"
            "    with d: pass\nmatch e:\n    case 1:\n        for f in g: pass\n")
    module = libcst.parse_module(code)
    assert [type(s).__name__ for s in compound_statements(module.body)] == [
        "Try", "If", "If", "While", "With", "Match", "For"]
