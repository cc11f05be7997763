"""A function or method nothing in the project refers to runs in no run of it (``project/unreferenced.py``): its
findings are tooling, where the project trains; a library's public function is its users'."""

from __future__ import annotations

import pytest

from migrator.model import Context

_ANCHORS = """
import torch


class AnchorGenerator:
    def grid_priors(self, sizes, device="cuda"):
        return [torch.zeros(s, device=device) for s in sizes]

    def sparse_priors(self, index, device="cuda"):
        \"\"\"The priors at ``index``: ``gen.sparse_priors([0, 1])``.\"\"\"
        return torch.zeros(len(index), device=device)
"""

_HEAD = """
from pkg.anchors import AnchorGenerator


class Head:
    def __init__(self):
        self.prior_generator = AnchorGenerator()

    def loss(self, feats):
        return self.prior_generator.grid_priors([f.shape[0] for f in feats], device=feats[0].device)
"""

_TRAIN = """
import torch
from pkg.head import Head


def main():
    head = Head()
    for _ in range(3):
        loss = sum(p.sum() for p in head.loss([torch.ones(2)]))
        loss.backward()


if __name__ == "__main__":
    main()
"""

_PROJECT = {"pkg/__init__.py": "", "pkg/anchors.py": _ANCHORS, "pkg/head.py": _HEAD, "tools/train.py": _TRAIN}


def _context(report, method):
    found = {f.context for f in report.judged if f.path == "pkg/anchors.py" and f.scope.endswith(method)}
    assert len(found) == 1, found
    return found.pop()


@pytest.mark.parametrize("change, sparse", [
    # mmdet's ``sparse_priors``: no line of the project calls it (its own docstring's example is no call)
    ({}, Context.TOOLING),
    ({"configs/retina.yaml": "prior_generator:\n  type: AnchorGenerator\n  method: sparse_priors\n"},
     Context.TRAINING),  # a configuration may name it
    # an nn.Module's own method: torch calls only what nn.Module itself has (rl-games' ``train_on_batch``)
    ({"pkg/anchors.py": _ANCHORS.replace("class AnchorGenerator:", "class AnchorGenerator(torch.nn.Module):")},
     Context.TOOLING),
    # ... and an override of one of those, which torch does call
    ({"pkg/anchors.py": _ANCHORS.replace("class AnchorGenerator:", "class AnchorGenerator(torch.nn.Module):")
      .replace("def sparse_priors(self, index,", "def _load_from_state_dict(self, index,")}, Context.TRAINING),
    # another framework's class: it may call a method by a protocol of its own
    ({"pkg/anchors.py": "import lightning\n" + _ANCHORS.replace(
        "class AnchorGenerator:", "class AnchorGenerator(lightning.LightningModule):")}, Context.TRAINING),
    ({"pkg/anchors.py": _ANCHORS + "\n    def priors(self, how, *args):\n        return getattr(self, how)(*args)\n"},
     Context.TRAINING),  # the class finds its own methods by a name it is handed
    ({"tools/train.py": ""}, Context.TRAINING),  # no entry point trains: a library's public method is its users'
    # NAFNet's arch_util: the only call commented out; a '#' in a string before a real one is no comment
    ({"pkg/head.py": _HEAD + "\n# priors = self.prior_generator.sparse_priors([0])\n"}, Context.TOOLING),
    ({"pkg/head.py": _HEAD + "\n    def tag(self):\n        return '#', self.prior_generator.sparse_priors([0])\n"},
     Context.TRAINING),
], ids=["nothing-refers-to-it", "a-config-names-it", "an-nn-module-method", "an-nn-module-override",
        "another-frameworks-class", "looked-up-by-name", "a-library", "a-call-commented-out", "a-hash-in-a-string"])
def test_a_method_nothing_refers_to_is_tooling_where_the_project_trains(scan_tree, change, sparse):
    report = scan_tree({**_PROJECT, **change})
    method = "_load_from_state_dict" if "_load_from_state_dict" in change.get("pkg/anchors.py", "") \
        else "sparse_priors"
    assert _context(report, method) == sparse
    assert _context(report, "grid_priors") == Context.TRAINING  # the head calls it


def test_a_librarys_private_function_nothing_calls_is_tooling(scan_tree):
    helpers = ("import torch\n\n\ndef _sync_all():\n    torch.cuda.synchronize()\n\n\n"
               "def sync_all():\n    torch.cuda.synchronize()\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/helpers.py": helpers})
    contexts = {f.scope.rpartition(".")[2]: f.context for f in report.judged if f.path == "pkg/helpers.py"}
    assert contexts == {"_sync_all": Context.TOOLING, "sync_all": Context.TRAINING}


_SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension


def make_cuda_ext(name, sources):
    return CUDAExtension(name=name, sources=sources)


setup(name="pkg", ext_modules={modules}, cmdclass={{"build_ext": BuildExtension}})
"""


@pytest.mark.parametrize("modules, built", [
    ("[]", False),  # mmdet's and mmagic's setup.py keep the helper and build nothing with it
    ("[make_cuda_ext('pkg._ext', ['pkg/ext.cu'])]", True),
], ids=["helper-never-called", "helper-builds-the-extension"])
def test_an_extension_build_nothing_calls_builds_nothing(scan_tree, modules, built):
    report = scan_tree({**_PROJECT, "setup.py": _SETUP.format(modules=modules)})
    builds = [f for f in report.judged if f.path == "setup.py" and f.rule == "extension-build"]
    assert builds and any(f.context == Context.TRAINING for f in builds) == built


def test_the_module_protocol_is_what_torch_has():
    """The methods an ``nn.Module`` subclass may have called by torch are ``nn.Module``'s own, as the installed
    torch has them."""
    torch = pytest.importorskip("torch")
    from migrator.project.unreferenced import _MODULE_PROTOCOL

    own = {name for name in dir(torch.nn.Module) if not (name.startswith("__") and name.endswith("__"))}
    assert own <= _MODULE_PROTOCOL, sorted(own - _MODULE_PROTOCOL)


# stable-diffusion's ldm/modules/encoders/modules.py: encoders a config names by their dotted path, one no config
# names, no code builds and no class derives from
_ENCODERS = """
import torch


class AbstractEncoder(torch.nn.Module):
    def encode(self, x):
        return self(x)


class TransformerEmbedder(AbstractEncoder):
    def __init__(self, n_embed, device="cuda"):
        super().__init__()
        self.device = device
"""


@pytest.mark.parametrize("change, context", [
    pytest.param({}, Context.TOOLING, id="a-class-nothing-builds-names-or-derives-from"),
    pytest.param({"configs/ldm.yaml": "cond_stage_config:\n  target: pkg.encoders.TransformerEmbedder\n"},
                 Context.TRAINING, id="a-config-names-it"),
    pytest.param({"pkg/bert.py": "from pkg.encoders import TransformerEmbedder\n\n\n"
                                 "class BERTEmbedder(TransformerEmbedder):\n    pass\n",
                  "tools/train.py": _TRAIN.replace("from pkg.head import Head\n",
                                                   "from pkg.head import Head\nfrom pkg.bert import BERTEmbedder\n")
                  .replace("    head = Head()\n", "    head = Head()\n    BERTEmbedder(8)\n")},
                 Context.TRAINING, id="a-class-derives-from-it"),
])
def test_what_constructing_a_class_nothing_builds_runs_is_in_no_run(scan_tree, change, context):
    head = _HEAD.replace("from pkg.anchors import AnchorGenerator\n",
                         "from pkg.anchors import AnchorGenerator\nfrom pkg.encoders import AbstractEncoder\n")
    report = scan_tree({**_PROJECT, "pkg/head.py": head, "pkg/encoders.py": _ENCODERS, **change})
    found = {f.context for f in report.judged if f.path == "pkg/encoders.py" and f.scope.endswith("__init__")}
    assert found == {context}


# TimeSformer's timesformer/utils/distributed.py: its own init_process_group, which nothing calls, beside torch's
_DIST = "import torch\n\n\ndef init_process_group(rank, backend='nccl'):\n    torch.cuda.set_device(rank)\n"


@pytest.mark.parametrize("user, context", [
    pytest.param("import torch.distributed as dist\n\n\ndef setup():\n    dist.init_process_group('gloo')\n",
                 Context.TOOLING, id="only-torchs-namesake-is-called"),
    pytest.param("import torch\n\n\ndef setup():\n    torch.distributed.init_process_group('gloo')\n",
                 Context.TOOLING, id="torchs-namesake-by-its-full-name"),
    pytest.param("import pkg.dist as du\n\n\ndef setup():\n    du.init_process_group(0)\n", Context.TRAINING,
                 id="the-projects-own-is-called"),
])
def test_a_name_read_off_a_module_outside_the_project_is_no_reference(scan_tree, user, context):
    train = _TRAIN.replace("from pkg.head import Head\n", "from pkg.head import Head\nfrom pkg.launch import setup\n")
    report = scan_tree({**_PROJECT, "pkg/dist.py": _DIST, "pkg/launch.py": user, "tools/train.py": train,
                        "pkg/head.py": _HEAD.replace("from pkg.anchors", "import pkg.dist\nfrom pkg.anchors")})
    found = {f.context for f in report.judged if f.path == "pkg/dist.py" and f.api == "torch.cuda.set_device"}
    assert found == {context}


# mmcv-style hooks: registered by a decorator, built by the runner where a configuration names the type
_HOOKS = """
import torch
from mmcv.runner import HOOKS, Hook


@HOOKS.register_module()
class SyncCudaHook(Hook):
    def after_train_iter(self, runner):
        torch.cuda.synchronize()
"""


@pytest.mark.parametrize("config, context", [
    pytest.param({}, Context.TOOLING, id="registered-and-named-by-no-configuration"),
    pytest.param({"configs/run.py": "custom_hooks = [dict(type='SyncCudaHook')]\n"}, Context.TRAINING,
                 id="a-configuration-names-its-type"),
])
def test_a_class_only_a_registry_holds_runs_where_a_configuration_names_it(scan_tree, config, context):
    head = _HEAD.replace("from pkg.anchors import AnchorGenerator\n",
                         "from pkg.anchors import AnchorGenerator\nimport pkg.hooks\n")
    report = scan_tree({**_PROJECT, "pkg/head.py": head, "pkg/hooks.py": _HOOKS, **config})
    assert {f.context for f in report.judged if f.path == "pkg/hooks.py"} == {context}
