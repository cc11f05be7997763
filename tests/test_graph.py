"""Call graph, reachability and the readiness built on it, on small repositories worked out by hand."""

import ast
import json

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.graph import build_graph
from migrator.model import (AttributeMethod, InstanceCall, NamedTarget, SelfMethod, SuperMethod,
                            UnknownReceiver)
from migrator.maps.load import resolve_targets
from migrator.pipeline.pool import analyze_all
from migrator.pipeline import ScanRequest, scan
from migrator.discover import discover
from migrator.sources.outline import outline_of

from .conftest import write_tree

# Two entry points (a __main__ block and a console script), dead code, a legacy module that is imported but
# whose function is never called, and a test file that calls the dead helper.
TWO_ENTRIES = {
    "pkg/__init__.py": "",
    "pkg/models.py": (
        "import torch\nfrom torch import nn\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.head = Head()\n\n"
        "    def forward(self, x):\n        return self.head(x)\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x):\n        torch.cuda.synchronize()\n        return x\n\n\n"
        "def unused_helper():\n    return torch.cuda.current_device()\n"
    ),
    "pkg/legacy.py": "import torch\n\n\ndef old_train():\n    torch.cuda.set_device(0)\n",
    "pkg/cli.py": (
        "import torch\n\nfrom pkg.models import Net\n\n\n"
        "def main():\n    model = Net().cuda()\n    helper()\n    return model\n\n\n"
        "def helper():\n    torch.backends.cudnn.benchmark = True\n"
    ),
    "train.py": (
        "import torch\n\nfrom pkg import legacy\nfrom pkg.models import Net\n\n\n"
        "def main():\n    torch.cuda.set_device(0)\n    net = Net()\n    return net\n\n\n"
        "if __name__ == \"__main__\":\n    main()\n"
    ),
    "tests/test_models.py": (
        "import torch\n\nfrom pkg.models import unused_helper\n\n\n"
        "def test_helper():\n    assert unused_helper() >= 0\n    torch.cuda.synchronize()\n\n\n"
        "if __name__ == \"__main__\":\n    test_helper()\n"
    ),
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "0.1"\n\n[project.scripts]\npkg-cli = "pkg.cli:main"\n',
}


@pytest.fixture
def two_entries(tmp_path):
    write_tree(tmp_path, TWO_ENTRIES)
    return scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))


def _by_line(report):
    return {(f.path, f.span.line): f for f in report.judged}


def test_entry_points_are_main_blocks_and_console_scripts_never_tests(two_entries):
    assert [(e.node, e.kind) for e in two_entries.graph.entries] == [
        ("pkg.cli.main", "console-script"), ("train.<main>", "main-block")]


@pytest.mark.parametrize("where, reachable", [
    pytest.param(("pkg/models.py", 16), True, id="forward-of-a-submodule-through-self-attribute"),
    pytest.param(("pkg/cli.py", 13), True, id="helper-defined-after-its-caller"),
    pytest.param(("train.py", 8), True, id="called-from-main-block"),
    pytest.param(("pkg/models.py", 21), False, id="dead-helper-only-tests-call"),
    pytest.param(("pkg/legacy.py", 5), False, id="imported-module-uncalled-function"),
    pytest.param(("tests/test_models.py", 8), False, id="test-file"),
])
def test_reachability(two_entries, where, reachable):
    assert _by_line(two_entries)[where].reachable is reachable


def test_a_module_loaded_by_a_computed_name_is_reached(scan_tree):
    """deepxde's backend: ``importlib.import_module(".%s" % name, __name__)`` loads one of the package's modules,
    chosen at run time; each of them is reached (the graph reaches more, never less)."""
    loader = ("import importlib\n\n\ndef load_backend(name):\n"
              "    return importlib.import_module('.%s' % name, __name__)\n\n\nbackend = load_backend('pytorch')\n")
    report = scan_tree({"pkg/__init__.py": "from . import backend\n", "pkg/backend/__init__.py": loader,
                        "pkg/backend/pytorch.py": "import torch\n\nif torch.cuda.is_available():\n"
                                                  "    torch.set_default_device('cuda')\n",
                        "train.py": "import torch\nimport pkg\n\nif __name__ == '__main__':\n"
                                    "    print(pkg.backend.backend)\n"})
    (test,) = [f for f in report.judged if f.path == "pkg/backend/pytorch.py" and f.span.line == 3]
    assert test.reachable is True


def test_reach_counts_entries_and_paths(two_entries):
    # Head.forward: from train.<main> and from pkg.cli.main, each through Net -> Net.forward -> self.head
    # and through Net -> Net.__init__ -> Head (constructed) -> Head.forward: 2 entries, 4 paths.
    reach = two_entries.graph.reach["pkg.models.Head.forward"]
    assert (reach.entries, reach.paths) == (2, 4)
    assert reach.path[0] in ("pkg.cli.main", "train.<main>") and reach.path[-1] == "pkg.models.Head.forward"


def test_blockers_rank_by_reach_and_dead_code_last(two_entries):
    cann = two_entries.targets[0]
    assert [b.title for b in cann.blockers] == [
        "torch.cuda.synchronize",  # 2 entry points
        "torch.cuda.set_device",  # 1 entry point, 1 path (the legacy copy is dead)
        "torch.nn.Module.cuda",  # 1 entry point, 1 path, same effort: ordered by key (``Net().cuda()``: a module)
        "torch.cuda.current_device",  # unreachable
    ]  # tests/test_models.py's synchronize is a test finding: not a blocker of the training path
    assert [f.context.value for f in two_entries.findings if f.path.startswith("tests/")] == ["test"]
    assert [b.reachable for b in cann.blockers] == [True, True, True, False]
    sync = cann.blockers[0]
    assert sorted(p[0] for p in sync.call_paths) == ["pkg.cli.main", "train.<main>"]  # one path per entry point
    assert all(p[-1] == "pkg.models.Head.forward" for p in sync.call_paths)
    assert cann.blockers[-1].call_paths == ()  # dead code has no path


def test_readiness_counts_the_training_path_only(two_entries):
    cann = two_entries.targets[0]
    # On the path: cudnn.benchmark (partial: runs) and three automatic rewrites (synchronize, set_device,
    # .cuda()); dead code and tests are left out: 100 * 1 / (1 + 3 * 1) = 25.0
    inputs = cann.effort["readiness_inputs"]
    assert (inputs["runs"], inputs["automatic"], inputs["on_training_path"], inputs["all"]) == (1, 3, 4, 7)
    assert cann.readiness == 25.0


def test_a_ready_repository_reads_100_and_a_kernel_on_the_path_cannot(tmp_path):
    ready = write_tree(tmp_path / "ready", {"train.py": (
        "import torch\n\n\ndef main():\n    return torch.ones(3).sum()\n\n\nif __name__ == '__main__':\n    main()\n")})
    assert scan(ScanRequest(ready, resolve_targets(["kunlun"]), jobs=1)).targets[0].readiness == 100.0
    kernel = write_tree(tmp_path / "kernel", {
        "train.py": ("from torch.utils.cpp_extension import load\n\n"
                     "ext = load(name='fused', sources=['fused.cu'])\n\n\n"
                     "def main():\n    return ext.run()\n\n\nif __name__ == '__main__':\n    main()\n"),
        "fused.cu": "__global__ void run_kernel(float* x) { x[0] = 1; }\n",
    })
    cann = scan(ScanRequest(kernel, resolve_targets(["cann"]), jobs=1)).targets[0]
    assert cann.effort["readiness_inputs"]["ports"] == 1
    assert cann.readiness < 100.0
    assert cann.blockers[0].status.value == "port" and cann.blockers[0].reachable


def test_without_entry_points_reachability_is_not_judged(tmp_path):
    write_tree(tmp_path, {"lib/ops.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    assert [f.reachable for f in report.findings] == [None]
    assert report.targets[0].effort["readiness_inputs"]["reachability_judged"] is False
    with_entry = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1, entries=["lib.ops:f"]))
    assert [f.reachable for f in with_entry.findings] == [True]


def _edges(code_by_module, **kw):
    """Resolved call edges between repo definitions, for small multi-module snippets."""
    return {(a, b) for a, b, d in _graph(code_by_module).graph.edges(data=True) if d["kind"] != "imports"}


def _graph(files):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        root = write_tree(Path(tmp), files)
        return build_graph(root, analyze_all(discover(root).files, jobs=1))


@pytest.mark.parametrize("files, edge", [
    pytest.param({"a.py": "import b as bee\ndef f():\n    bee.g()\n", "b.py": "def g(): pass\n"},
                 ("a.f", "b.g"), id="module-alias"),
    pytest.param({"p/__init__.py": "from .impl import g\n", "p/impl.py": "def g(): pass\n",
                  "a.py": "from p import g\ndef f():\n    g()\n"}, ("a.f", "p.impl.g"), id="re-export"),
    pytest.param({"a.py": "class B:\n    def run(self):\n        self.step()\n    def step(self): pass\n"
                          "class C(B):\n    def step(self): pass\n"}, ("a.B.run", "a.C.step"),
                 id="override-in-subclass"),
    pytest.param({"a.py": "class B:\n    def __init__(self): pass\nclass C(B):\n    def __init__(self):\n"
                          "        super().__init__()\n"}, ("a.C.__init__", "a.B.__init__"), id="super"),
    pytest.param({"a.py": "import torch.multiprocessing as mp\ndef worker(rank): pass\n"
                          "def main():\n    mp.spawn(worker, nprocs=2)\n"}, ("a.main", "a.worker"),
                 id="callback-argument"),
    pytest.param({"a.py": "import click\n@click.group()\ndef cli(): pass\n@cli.command()\ndef train(): pass\n"},
                 ("a.cli", "a.train"), id="decorator-root"),
    pytest.param({"a.py": "import torch\nclass Fn(torch.autograd.Function):\n    @staticmethod\n"
                          "    def forward(ctx, x): return x\n"
                          "def f(x):\n    return Fn.apply(x)\n"}, ("a.f", "a.Fn.forward"), id="autograd-apply"),
    pytest.param({"a.py": "class Trainer:\n    def fit(self): pass\n"
                          "def main():\n    t = Trainer()\n    t.fit()\n"}, ("a.main", "a.Trainer.fit"),
                 id="typed-local"),
    pytest.param({"reg.py": "_models = {}\ndef register_model(fn):\n    _models[fn.__name__] = fn\n    return fn\n",
                  "nets.py": "from reg import register_model\n@register_model\ndef resnet(): pass\n"},
                 ("reg.register_model", "nets.resnet"), id="registering-decorator"),
    pytest.param({"registry.py": "from mmengine import Registry\nMODELS = Registry('model')\n",
                  "heads.py": "from registry import MODELS\n@MODELS.register_module()\nclass Head:\n"
                              "    def forward(self, x): pass\n",
                  "build.py": "from registry import MODELS\ndef build(cfg):\n    return MODELS.build(cfg)\n"},
                 ("registry.MODELS", "heads.Head"), id="registry-object-registers"),
    pytest.param({"registry.py": "from mmengine import Registry\nMODELS = Registry('model')\n",
                  "heads.py": "from registry import MODELS\n@MODELS.register_module()\nclass Head: pass\n",
                  "build.py": "from registry import MODELS\ndef build(cfg):\n    return MODELS.build(cfg)\n"},
                 ("build.build", "registry.MODELS"), id="registry-object-builds"),
    pytest.param({"a.py": "def f():\n    pass\n", "p/__init__.py": "", "p/q.py": "X = 1\n"},
                 ("a.f", "a"), id="a-function-runs-after-its-module"),
])
def test_call_resolution(files, edge):
    assert edge in _edges(files)


def test_a_tensor_method_on_an_unknown_receiver_is_not_joined_to_repo_code():
    edges = _edges({"a.py": "import torch\nclass Fn(torch.autograd.Function):\n"
                            "    @staticmethod\n    def backward(ctx, g): return g\n"
                            "def train(loss):\n    loss.backward()\n"})
    assert ("a.train", "a.Fn.backward") not in edges


def test_outline_records_the_main_block_lines():
    tree = ast.parse("import sys\n\ndef main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    outline = outline_of(tree, "tool", False)
    assert outline.main_lines == (6, 7)
    assert [(c.scope, c.target) for c in outline.calls] == [("<main>", NamedTarget("tool.main"))]


OUTLINE_CLASS = """
import torch.nn as nn
from .blocks import Block

class Net(Base):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        x = self.block.run(x)
        y = self.norm(x)
        head = Block()
        return head(y).mean()
"""


def test_outline_call_targets_are_tagged_by_what_the_graph_must_resolve():
    outline = outline_of(ast.parse(OUTLINE_CLASS), "pkg.net", False)
    targets = {c.target for c in outline.calls if c.scope == "Net.forward"}
    assert targets == {AttributeMethod("pkg.net.Net", "block", "run"), SelfMethod("pkg.net.Net", "norm"),
                       NamedTarget("pkg.blocks.Block"), InstanceCall("pkg.blocks.Block"), UnknownReceiver("mean")}
    assert {c.target for c in outline.calls if c.scope == "Net.__init__"} == {
        SuperMethod("pkg.net.Net", "__init__"), NamedTarget("pkg.blocks.Block")}


def test_graph_command_exports_json_and_dot(tmp_path):
    write_tree(tmp_path, TWO_ENTRIES)
    result = CliRunner().invoke(main, ["graph", str(tmp_path), "--no-cache", "--target", "cann"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    nodes = {n["id"]: n for n in document["nodes"]}
    assert nodes["pkg.models.unused_helper"]["reachable"] is False
    assert nodes["pkg.models.Head.forward"]["findings"] == {"rewrite": 1}
    assert {"source": "pkg.models.Net", "target": "pkg.models.Net.forward", "kind": "constructs"} in document["edges"]
    dot = CliRunner().invoke(main, ["graph", str(tmp_path), "--no-cache", "--format", "dot"])
    assert dot.output.startswith("digraph migrator {")
    assert '"train.<main>" [label="train.<main>", shape=doubleoctagon' in dot.output


def test_imports_resolve_from_the_script_directory_when_scanning_above_it(tmp_path):
    # `python proj/train.py` puts proj/ on sys.path: `from model import Net` is proj/model.py, even though the
    # scan started one level up (where module names are proj.train, proj.model)
    write_tree(tmp_path, {
        "proj/train.py": "from model import Net\n\n\nif __name__ == '__main__':\n    Net()(1)\n",
        "proj/model.py": "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
                         "        torch.cuda.synchronize()\n        return x\n",
        "proj/unused.py": "import torch\n\n\ndef old():\n    torch.cuda.synchronize()\n",
    })
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    by_path = {f.path: f.reachable for f in report.findings}
    assert by_path == {"proj/model.py": True, "proj/unused.py": False}


# ----------------------------------------------------------------------------- aliases (mmcv / detectron2 style)

OPS_EXT = '''
import torch
from torch.autograd import Function
from . import _ext


class _RoIAlign(Function):
    @staticmethod
    def forward(ctx, features, rois, out_size):
        return _ext.roi_align_forward(features, rois, out_size)


class _DeformConv(Function):
    @staticmethod
    def forward(ctx, x, offset, weight):
        return _ext.deform_conv_forward(x, offset, weight)


def _nms_impl(boxes, scores, iou, _ext_fn=None):
    return _ext.nms(boxes, scores, iou)


roi_align = _RoIAlign.apply
try:
    import apex  # noqa: F401
    deform_conv = apex.contrib.deform_conv
except ImportError:
    deform_conv = _DeformConv.apply
'''

OPS_USE = '''
import functools

import torch
from .ext import _nms_impl, roi_align
from . import ext

nms = functools.partial(_nms_impl, iou=0.5)


class RoIHead(torch.nn.Module):
    def forward(self, feats, rois):
        pooled = roi_align(feats, rois, (7, 7))
        keep = nms(rois[:, 1:], rois[:, 0])
        return ext.deform_conv(pooled, pooled, pooled), keep
'''

OPS_CU = r"""
#include <torch/extension.h>
__global__ void roi_align_kernel(float* out) { out[threadIdx.x] = 0.f; }
torch::Tensor roi_align_forward(torch::Tensor f, torch::Tensor r, int s) {
  roi_align_kernel<<<1, 32>>>(f.data_ptr<float>()); return f; }
torch::Tensor deform_conv_forward(torch::Tensor x, torch::Tensor o, torch::Tensor w) { return x; }
torch::Tensor nms(torch::Tensor b, torch::Tensor s, double iou) { return b; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("roi_align_forward", &roi_align_forward);
  m.def("deform_conv_forward", &deform_conv_forward);
  m.def("nms", &nms);
}
"""

OPS_SETUP = '''
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(name="det", ext_modules=[CUDAExtension("det.ops._ext", ["csrc/ops.cu"])], cmdclass={"build_ext": BuildExtension})
'''

TRAIN_HEAD = '''
import torch
from det.ops.head import RoIHead


def main():
    head = RoIHead()
    out = head(torch.randn(2, 8, 16, 16), torch.rand(4, 5))
    print(out)


if __name__ == "__main__":
    main()
'''


def test_custom_op_calls_behind_aliases_are_on_the_training_path(tmp_path):
    write_tree(tmp_path, {"det/__init__.py": "", "det/ops/__init__.py": "", "det/ops/ext.py": OPS_EXT,
                          "det/ops/head.py": OPS_USE, "tools/train.py": TRAIN_HEAD, "csrc/ops.cu": OPS_CU,
                          "setup.py": OPS_SETUP})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    calls = {f.api.rsplit(".", 1)[-1]: f.reachable for f in report.findings
             if f.rule == "extension-call" and f.path == "det/ops/ext.py" and f.scope != "<module>"}
    # Fn.apply bound to a name, a conditional alias (except-branch) and functools.partial of a function
    assert calls == {"roi_align_forward": True, "deform_conv_forward": True, "nms": True}


@pytest.mark.parametrize("code, alias, target", [
    pytest.param("class F:\n    pass\nf = F.apply\n", "f", "m.F.apply", id="fn-apply"),
    pytest.param("import functools\ndef g(x, y):\n    pass\nh = functools.partial(g, 1)\n", "h", "m.g", id="partial"),
    pytest.param("def gelu(x):\n    pass\nact = gelu\n", "act", "m.gelu", id="plain-function"),
    pytest.param("import apex\nclass N:\n    pass\nNorm = apex.FusedNorm if apex else N\n", "Norm", "m.N",
                 id="conditional-first-repo-branch"),
    pytest.param("import torch.nn.functional as F\nact = F.gelu\n", "act", None, id="library-name-not-bound"),
])
def test_alias_bindings_in_the_outline(code, alias, target):
    outline = outline_of(ast.parse(code), "m", False)
    assert dict(outline.bindings).get(alias) == target


@pytest.mark.parametrize("code, folders", [
    pytest.param("import sys\nsys.path.append('core')\n", ("core",), id="raft-append"),
    pytest.param("import sys\nsys.path.insert(0, '../lib')\n", ("../lib",), id="insert-above"),
    pytest.param("import os, sys\nsys.path.append(os.path.join(os.path.dirname(__file__), 'third_party', 'x'))\n",
                 ("third_party/x",), id="joined-to-the-files-folder"),
    pytest.param("import sys\nsys.path.append(ROOT)\n", (), id="a-computed-folder"),
    pytest.param("import sys\nsys.path.append('/opt/lib')\n", (), id="an-absolute-folder"),
])
def test_the_folders_a_module_puts_on_sys_path(code, folders):
    assert outline_of(ast.parse(code), "train", False).path_folders == folders


def test_a_script_reaches_a_module_of_the_folder_it_puts_on_sys_path(tmp_path):
    """RAFT: ``train.py`` appends ``core`` (no package) and imports ``from raft import RAFT``."""
    files = {"train.py": "import sys\nsys.path.append('core')\nfrom raft import RAFT\n\nRAFT().cuda()\n",
             "core/raft.py": "import torch\n\n\nclass RAFT(torch.nn.Module):\n    def forward(self, x):\n"
                             "        with torch.cuda.amp.autocast():\n            return x\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1, call_graph=True))
    amp = [f for f in report.judged if f.path == "core/raft.py" and f.rule == "cuda-amp"]
    assert amp and all(f.reachable for f in amp)


@pytest.mark.parametrize("module, written, loads", [
    # BasicSR's models/__init__.py: its own package, spelled from the top
    pytest.param("basicsr.models", "f'basicsr.models.{file_name}'", True, id="own-package"),
    # Depth-Anything: metric_depth/zoedepth/trainers/builder.py, run from metric_depth/ as zoedepth.trainers
    pytest.param("metric_depth.zoedepth.trainers.builder", "f'zoedepth.trainers.{config.trainer}_trainer'", True,
                 id="as-a-script-beside-its-top-package-spells-it"),
    pytest.param("metric_depth.zoedepth.trainers.builder", "f'zoedepth.models.{name}'", False, id="another-package"),
    pytest.param("pkg.loader", "f'{name}.plugin'", False, id="no-package-spelled"),
])
def test_a_module_importing_its_packages_modules_by_a_built_name(module, written, loads):
    code = f"import importlib\n\n\ndef load(config, name, file_name):\n    return importlib.import_module({written})\n"
    package = module == "basicsr.models"  # models/__init__.py
    assert outline_of(ast.parse(code), module, package).loads_submodules == loads


@pytest.mark.parametrize("code, reaches", [
    # BigGAN's train_fns: the factory returns the step it defines, which its caller's loop calls by a local name
    pytest.param("def factory(G):\n    def train(x):\n        return G(x)\n    return train\n", True,
                 id="returned-closure"),
    pytest.param("def factory(G):\n    def train(x):\n        return G(x)\n    return G\n", False,
                 id="defined-not-returned"),
    pytest.param("def train(x):\n    return x\n\n\ndef factory():\n    return train\n", False,
                 id="a-module-function-returned-is-no-closure"),
])
def test_a_factory_reaches_the_closure_it_returns(code, reaches):
    outline = outline_of(ast.parse(code), "m", False)
    calls = {(c.scope, c.target) for c in outline.calls}
    assert (("factory", NamedTarget("m.factory.train")) in calls) == reaches


LAUNCH = '''
import torch
import torch.multiprocessing as mp

from proj.utils import init_dist


def worker(rank, world_size):
    init_dist("pytorch", backend="nccl")


def main():
    world_size = torch.cuda.device_count()
    if world_size > 1:
        mp.spawn(worker, args=(world_size,), nprocs=world_size)
    else:
        worker(0, 1)


if __name__ == "__main__":
    main()
'''

DIST_UTILS = '''
import os
import torch
import torch.distributed as dist


def init_dist(launcher, backend="nccl", **kwargs):
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank % torch.cuda.device_count())
    dist.init_process_group(backend=backend, **kwargs)
'''


def test_a_launch_helper_and_a_dist_utils_behind_a_package_init(tmp_path):
    write_tree(tmp_path, {"tools/launch.py": LAUNCH, "proj/__init__.py": "",
                          "proj/utils/__init__.py": "from .dist_utils import init_dist\n",
                          "proj/utils/dist_utils.py": DIST_UTILS})
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    found = {(f.path, f.span.line, f.rule): f for f in report.findings}
    launch_count = found[("tools/launch.py", 13, "device-call")]
    init_call = found[("tools/launch.py", 9, "collective-backend")]  # backend='nccl' handed to the repo's helper
    set_device = found[("proj/utils/dist_utils.py", 9, "device-call")]
    for finding in (launch_count, init_call, set_device):
        assert finding.reachable is True and finding.verdicts["cann"].status.value == "rewrite"
    assert "hccl" in init_call.verdicts["cann"].message


def _builds(monkeypatch):
    """The graph builds a scan runs (a cached graph is not built)."""
    import migrator.graph as graph_package

    built = []
    real = graph_package.build_graph
    monkeypatch.setattr(graph_package, "build_graph", lambda *a, **k: built.append(1) or real(*a, **k))
    return built


def test_an_edit_that_moves_lines_takes_the_graph_from_the_cache_with_the_new_lines(tmp_path, monkeypatch):
    """The graph is a function of imports, definitions and calls, not of lines: after lines move, the
    cached graph serves, and every line it reports (findings, entry points, ``__main__`` blocks) is where
    the code now is, as a scan without a cache finds it."""
    from migrator.engine.cache import open_cache

    src = write_tree(tmp_path / "src", TWO_ENTRIES)
    cache = open_cache(tmp_path / "cache")
    cann = resolve_targets(["cann"])
    built = _builds(monkeypatch)
    scan(ScanRequest(src, cann, jobs=1, cache=cache))
    for rel in ("train.py", "pkg/models.py"):
        (src / rel).write_text("# a header\n# of three\n# lines\n" + (src / rel).read_text())
    moved = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert len(built) == 1  # the first scan's graph served the second
    fresh = scan(ScanRequest(src, cann, jobs=1, cache=None))
    assert moved == fresh
    main_block = next(e for e in moved.graph.entries if e.kind == "main-block")
    assert (main_block.path, main_block.line) == ("train.py", 16)
    head = next(f for f in moved.findings if f.path == "pkg/models.py" and "synchronize" in f.api)
    assert head.span.line == 19 and head.reachable


def test_an_edit_that_adds_a_call_builds_the_graph_again(tmp_path, monkeypatch):
    from migrator.engine.cache import open_cache

    src = write_tree(tmp_path / "src", TWO_ENTRIES)
    cache = open_cache(tmp_path / "cache")
    cann = resolve_targets(["cann"])
    built = _builds(monkeypatch)
    before = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    dead = next(f for f in before.findings if f.path == "pkg/legacy.py")
    assert dead.reachable is False
    train = src / "train.py"
    train.write_text(train.read_text().replace("    net = Net()\n", "    net = Net()\n    legacy.old_train()\n"))
    after = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert len(built) == 2
    assert next(f for f in after.findings if f.path == "pkg/legacy.py").reachable is True
    assert after == scan(ScanRequest(src, cann, jobs=1, cache=None))


def test_a_saved_graph_keeps_the_order_of_successors_and_of_predecessors():
    """Call paths and the report's picture walk predecessors in the order the build added them; a graph
    rebuilt edge by edge in the order of its sources (``graph.edges``) would reorder them (here: d's callers)."""
    import networkx as nx

    from migrator.graph.build import ProjectGraph
    from migrator.graph.saved import restored, snapshot_of
    from migrator.model import EntryPoint

    graph = nx.DiGraph()
    graph.add_nodes_from((n, {"kind": "function", "path": "m.py", "line": 1}) for n in "abcd")
    added = [("c", "d"), ("a", "b"), ("b", "d"), ("a", "d"), ("a", "c")]
    for a, b in added:
        graph.add_edge(a, b, kind="calls")
    project = ProjectGraph(graph=graph, entries=(EntryPoint("a", "cli", "m.py", 1),),
                           added=(tuple(a for a, _ in added), tuple(b for _, b in added)))
    again, _ = restored(snapshot_of(project, {}), [])
    assert list(again.graph.nodes(data=True)) == list(graph.nodes(data=True))
    for node in graph:
        assert list(again.graph.successors(node)) == list(graph.successors(node))
        assert list(again.graph.predecessors(node)) == list(graph.predecessors(node))
    assert [list(graph.predecessors("d"))] == [["c", "b", "a"]]


LIBRARY = {
    "setup.py": "from setuptools import setup\nsetup(name='lib', packages=['lib'])\n",
    "lib/__init__.py": "from ._factory import create\n",
    "lib/_factory.py": ("import torch\nfrom ._kernels import KERNELS\n\n\ndef create(kind):\n"
                        "    torch.cuda.synchronize()\n    return Net(KERNELS[kind])\n\n\n"
                        "class Net(torch.nn.Module):\n    def __init__(self, fn):\n        super().__init__()\n"
                        "        self.fn = fn\n        self.apply(self._init_weights)\n\n"
                        "    def _init_weights(self, m):\n        torch.cuda.manual_seed(0)\n"),
    "lib/_kernels.py": ("import torch\n\n\ndef _dct(x):\n    return torch.cuda.current_stream()\n\n\n"
                        "KERNELS = {'dct': _dct}\n"),
    "lib/_unused.py": "import torch\n\n\ndef _dead():\n    torch.cuda.current_device()\n",
}


def test_a_library_with_only_its_packaging_starts_at_its_public_api(scan_tree):
    """Its users call what it exports (timm's sdist has no script and no __main__): one `lib.<public api>`
    entry reaches the re-exported factory and what it calls, functions kept in a table and methods passed
    as callbacks; only code nothing names stays off the path."""
    report = scan_tree(LIBRARY, ["cann"])
    assert [e.node for e in report.graph.entries] == ["lib.<public api>", "setup"]  # pip runs setup.py too
    reach = {f.api: f.reachable for f in report.findings}
    assert reach["torch.cuda.synchronize"] is True  # the re-exported factory
    assert reach["torch.cuda.current_stream"] is True  # in a table of functions
    assert reach["torch.cuda.manual_seed"] is True  # self.apply(self._init_weights)
    assert reach["torch.cuda.current_device"] is False  # nothing names it
    (target,) = report.targets
    assert target.readiness < 100.0  # the training path is judged, and it needs rewrites


@pytest.mark.parametrize("passes", [
    "retry_call(trainer.train, tries=3)",  # stylegan2's cli: a bound method of an instance it made
    "Runner().launch()",  # a member's bound method handed to an executor: ``pool.submit(self.trainer.train)``
], ids=["a-local-instances-method", "a-members-method"])
def test_a_bound_method_passed_as_an_argument_is_called_by_the_scope_that_passes_it(scan_tree, passes):
    trainer = ("import torch\n\n\nclass Trainer:\n    def train(self):\n        x = torch.zeros(2).cuda(0)\n"
               "        return x\n")
    cli = ("from concurrent.futures import ThreadPoolExecutor\nfrom retry.api import retry_call\n"
           "from pkg.trainer import Trainer\n\n\nclass Runner:\n    def __init__(self):\n"
           "        self.trainer = Trainer()\n\n    def launch(self):\n"
           "        with ThreadPoolExecutor() as pool:\n            pool.submit(self.trainer.train)\n\n\n"
           "def main():\n    trainer = Trainer()\n    " + passes + "\n\n\nif __name__ == '__main__':\n    main()\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/trainer.py": trainer, "cli.py": cli}, ["cann"])
    (move,) = [f for f in report.findings if f.api == "torch.Tensor.cuda"]
    assert move.reachable is True


@pytest.mark.parametrize("stores", [
    "LlamaAttention.forward = forward",  # FastChat's and LLaVA's attention patches
    "ATTENTION['flash'] = forward",  # a table slot filled at run time
], ids=["a-monkey-patch", "a-registry-slot"])
def test_a_function_stored_where_others_call_it_is_called_by_the_scope_that_stores_it(scan_tree, stores):
    patch = ("import torch\nfrom transformers.models.llama.modeling_llama import LlamaAttention\n\nATTENTION = {}\n\n\n"
             "def forward(self, hidden_states):\n    return hidden_states.cuda()\n\n\n"
             "def replace_attention():\n    " + stores + "\n")
    train = ("from patch import replace_attention\n\n\ndef main():\n    replace_attention()\n\n\n"
             "if __name__ == '__main__':\n    main()\n")
    report = scan_tree({"patch.py": patch, "train.py": train}, ["cann"])
    (move,) = [f for f in report.findings if f.api == "torch.Tensor.cuda"]
    assert move.reachable is True


def test_the_picture_is_the_call_paths_to_the_top_blockers_only(scan_tree):
    """The page's drawing follows the call path from an entry point to each top blocker, and draws only the
    calls along it: not every caller of every finding's function (DeepSpeed's picture had 250 boxes)."""
    helpers = "".join(f"\ndef helper_{i}(x):\n    return sync()\n" for i in range(8))
    calls = "".join(f"    helper_{i}(1)\n" for i in range(8))
    report = scan_tree({
        "train.py": ("import torch\nfrom util import sync\n" + helpers + "\n\ndef main():\n" + calls
                     + "\n\nif __name__ == '__main__':\n    main()\n"),
        "util.py": "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n",
    }, ["cann"])
    nodes, edges = report.graph.picture
    names = [n[0] for n in nodes]
    assert len(names) == 4 and names[0] == "train.<main>" and names[-1] == "util.sync", names
    assert sum(name.startswith("train.helper_") for name in names) == 1  # one path, not the eight callers
    assert len(edges) == 3 and all((a, b) in set(zip(names, names[1:])) for a, b in edges)


@pytest.mark.parametrize("trial, public", [
    # deepod's dev modules: a package module's own ``__main__`` block is its author's trial
    pytest.param({"lib/_trial.py": "from lib import create\n\nif __name__ == '__main__':\n    create('dct')\n"},
                 True, id="a-main-block-inside-the-package"),
    pytest.param({"train.py": "from lib import create\n\nif __name__ == '__main__':\n    create('dct')\n"},
                 False, id="a-script-beside-the-package"),
])
def test_a_librarys_own_main_blocks_leave_it_a_library(scan_tree, trial, public):
    extras = {"lib/extras.py": "import torch\n\n\ndef pick():\n    torch.cuda.set_device(0)\n"}
    report = scan_tree({**LIBRARY, **extras, **trial}, ["cann"])
    entries = [e.node for e in report.graph.entries]
    assert ("lib.<public api>" in entries) == public, entries
    reach = {f.api: f.reachable for f in report.findings}
    assert reach["torch.cuda.synchronize"] is True
    assert reach["torch.cuda.set_device"] is public  # reached only from what the package exports


def test_a_librarys_public_api_entry_is_kept_in_the_saved_graph(tmp_path):
    """The `<public api>` node's edges are recorded like every other edge, so the graph can be saved and the
    scan after an edit restores it instead of building it again (it could not, and timm's edited scan took
    4 points of a cold scan more)."""
    from migrator.graph import reach
    from migrator.graph.saved import snapshot_of
    from migrator.pipeline import ScanRequest, scan_with_graph

    from .conftest import write_tree

    write_tree(tmp_path, LIBRARY)
    _, project = scan_with_graph(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    snapshot = snapshot_of(project, reach(project))
    assert snapshot is not None and "lib.<public api>" in snapshot.nodes
    assert ("lib.<public api>", "lib._factory.create") in set(zip(snapshot.sources, snapshot.targets))
