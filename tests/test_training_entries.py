"""Code that only entry points that never train reach is tooling (``project/training_entries.py``); what a
training entry point reaches as well stays training."""

from __future__ import annotations

import pytest

from migrator.model import Context, EntryKind

_SHARED = """
import torch


def load_vocoder(device="cuda"):
    return torch.nn.Linear(2, 2).to(device)
"""

_EVAL_UTILS = """
import torch


def load_asr(rank):
    torch.cuda.set_device(rank)
    return torch.nn.Linear(2, 2).cuda()
"""

_LOOP = """
import torch
from pkg.shared import load_vocoder


def main():
    model = torch.nn.Linear(2, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    vocoder = load_vocoder()
    for _ in range(3):
        loss = model(torch.ones(2, device="cuda")).sum()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"""

_FIT = """
import lightning.pytorch as pl
from pkg.shared import load_vocoder
from pkg.module import Net


def main():
    load_vocoder()
    trainer = pl.Trainer(max_epochs=1)
    trainer.fit(Net())


if __name__ == "__main__":
    main()
"""

_MODULE = """
import lightning.pytorch as pl
import torch


class Net(pl.LightningModule):
    def forward(self, x):
        return x
"""

_EVAL = """
from pkg.eval_utils import load_asr
from pkg.shared import load_vocoder


def main():
    asr = load_asr(0)
    vocoder = load_vocoder()


if __name__ == "__main__":
    main()
"""


# LLaVA's train.py: a module-level ``train()`` runs a transformers Trainer subclass's ``train()``
_TRAIN_FUNCTION = """
import transformers
from pkg.shared import load_vocoder


class ProjectTrainer(transformers.Trainer):
    pass


def train():
    load_vocoder()
    trainer = ProjectTrainer(model=None)
    trainer.train()


if __name__ == "__main__":
    train()
"""


def _contexts(report, path):
    return {f.api: f.context for f in report.judged if f.path == path}


@pytest.mark.parametrize("train", [_LOOP, _FIT, _TRAIN_FUNCTION],
                         ids=["own-training-loop", "a-trainers-fit", "a-train-function-running-a-trainer"])
def test_what_only_an_evaluation_script_reaches_is_tooling(scan_tree, train):
    report = scan_tree({"pkg/__init__.py": "", "pkg/shared.py": _SHARED, "pkg/eval_utils.py": _EVAL_UTILS,
                        "pkg/module.py": _MODULE, "train.py": train, "evaluate_tts.py": _EVAL})
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}
    assert set(_contexts(report, "evaluate_tts.py").values()) <= {Context.TOOLING}
    shared = _contexts(report, "pkg/shared.py")
    assert shared and set(shared.values()) == {Context.TRAINING}  # the trainer loads the vocoder too


def test_without_an_entry_point_that_trains_nothing_moves(scan_tree):
    """Two scripts, neither trains (a library's examples that only run a model): the scan cannot tell them
    apart, so every finding keeps its context."""
    report = scan_tree({"pkg/__init__.py": "", "pkg/shared.py": _SHARED, "pkg/eval_utils.py": _EVAL_UTILS,
                        "evaluate_tts.py": _EVAL, "synthesise.py": _EVAL.replace("load_asr(0)", "None")})
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TRAINING}


_SCRIPT = """
import torch


def main():
    model = torch.nn.Linear(2, 2)
    print(model(torch.ones(2)))


if __name__ == "__main__":
    main()


def profile():
    model = torch.nn.Linear(2, 2).to("cuda")
    torch.cuda.synchronize()
"""


@pytest.mark.parametrize("files, expected", [
    ({"examples/tetris.py": _SCRIPT}, Context.TOOLING),
    ({"examples/tetris.py": "import fire\n" + _SCRIPT}, Context.TRAINING),  # ``fire.Fire()`` runs it by its name
    ({"pkg/__init__.py": "", "pkg/tetris.py": _SCRIPT.split("if __name__")[0] + _SCRIPT.split("main()\n")[-1]},
     Context.TRAINING),  # a library's function: its users call it
], ids=["a-scripts-uncalled-function", "a-script-with-a-cli-library", "a-librarys-function"])
def test_a_scripts_function_nothing_calls_is_tooling(scan_tree, files, expected):
    report = scan_tree(files)
    (path,) = [p for p in files if p.endswith("tetris.py")]
    profile = [f for f in report.judged if f.path == path and f.scope.endswith("profile")]
    assert profile and {f.context for f in profile} == {expected}


_DEMO = """\
import torch
from pkg.models import Potential

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Potential().to(device)
coords = torch.ones(5, 3, device=device, requires_grad=True)
"""
_DEMO_TRAINS = _DEMO + """opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    loss = model(coords).sum()
    loss.backward()
    opt.step()
"""
_DEMO_LIBRARY = {"pkg/__init__.py": "", "pkg/models.py": "import torch\n\n\nclass Potential(torch.nn.Module):\n"
                 "    def forward(self, x):\n        return x.sum(-1)\n"}


@pytest.mark.parametrize("script, beside, expected", [
    # torchani's examples/dispersion_potential.py: top-level code that computes one molecule's energy, beside
    # examples/training.py
    pytest.param(_DEMO + "print(model(coords))\n", _DEMO_TRAINS, Context.TOOLING, id="a-script-that-never-trains"),
    # its examples/training.py: the same top-level set-up, then a loop that trains
    pytest.param(_DEMO_TRAINS, _DEMO_TRAINS, Context.TRAINING, id="a-script-that-trains"),
    # nothing in the project trains where the scan can see it: the script may be how it is run
    pytest.param(_DEMO + "print(model(coords))\n", None, Context.TRAINING, id="no-training-seen"),
])
def test_a_top_level_script_that_never_trains_is_tooling(scan_tree, script, beside, expected):
    others = {"examples/training.py": beside} if beside else {}
    report = scan_tree({**_DEMO_LIBRARY, **others, "examples/energy.py": script})
    picked = [f for f in report.judged if f.path == "examples/energy.py" and f.span.line == 4]
    assert picked and {f.context for f in picked} == {expected}, [(f.rule, f.context) for f in picked]


_CONTAINERS = """\
import torch


class Ensemble(torch.nn.Module):
    def __init__(self, members):
        super().__init__()
        self.members = torch.nn.ModuleList(members)

    def forward(self, x):
        return sum(m(x) for m in self.members)

    def {method}(self):
        return BmmEnsemble(self)


class BmmEnsemble(torch.nn.Module):
    def __init__(self, ensemble):
        super().__init__()
        self.ensemble = ensemble

    def forward(self, x):
        torch.cuda.nvtx.range_push("bmm")
        return self.ensemble(x)
"""
_TRAINS_AN_ENSEMBLE = """\
import torch
from pkg.containers import Ensemble


def main():
    model = Ensemble([torch.nn.Linear(2, 1)])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        model(torch.ones(2)).sum().backward()
        opt.step()


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("method, expected", [
    # torchani's ``to_infer_model()``: the batched container a trained ensemble becomes for inference
    pytest.param("to_infer_model", Context.TOOLING, id="built-only-for-inference"),
    pytest.param("to_export", Context.TOOLING, id="built-only-for-export"),
    # evaluation runs between a training run's epochs: what it builds is the run's
    pytest.param("for_evaluation", Context.TRAINING, id="built-for-evaluation"),
    pytest.param("batched", Context.TRAINING, id="built-by-a-method-named-for-nothing-else"),
])
def test_a_class_built_only_for_inference_is_tooling(scan_tree, method, expected):
    report = scan_tree({"pkg/__init__.py": "", "pkg/containers.py": _CONTAINERS.format(method=method),
                        "train.py": _TRAINS_AN_ENSEMBLE})
    marks = [f for f in report.judged if f.api == "torch.cuda.nvtx.range_push"]
    assert marks and {f.context for f in marks} == {expected}, [(f.scope, f.context) for f in marks]


def test_a_custom_operators_build_stays_training_though_only_setup_py_reaches_it(scan_tree):
    """pip runs ``setup.py`` (an entry point that never trains); the CUDA extension it builds is what training
    calls: the bundled example's port phase."""
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
             "setup(name='fused', ext_modules=[CUDAExtension('fused_cuda', ['fused.cu'])],"
             " cmdclass={'build_ext': BuildExtension})\n")
    report = scan_tree({"setup.py": setup, "pkg/__init__.py": "", "pkg/shared.py": _SHARED,
                        "pkg/eval_utils.py": _EVAL_UTILS, "train.py": _LOOP, "evaluate_tts.py": _EVAL})
    (build,) = [f for f in report.judged if f.rule == "extension-build"]
    assert build.context == Context.TRAINING
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}  # the split is made


@pytest.mark.parametrize("test", ["torch.onnx.is_in_onnx_export()", "torch.jit.is_scripting()"],
                         ids=["onnx-export", "torchscript"])
def test_a_branch_taken_only_while_exporting_is_tooling(scan_code, test):
    """gliner's pooling: ``if torch.onnx.is_in_onnx_export(): <scatter_reduce_ for the exporter>`` else the eager
    way: what the export branch runs is not the training step."""
    code = ("import torch\n\n\nclass Pool(torch.nn.Module):\n    def forward(self, x, idx, out):\n"
            f"        if {test}:\n            return out.scatter_reduce_(0, idx, x, reduce='mean')\n"
            "        return out.index_add_(0, idx, x)\n")
    findings = scan_code(code, ["cann"])
    exported = [f for f in findings if f.api.endswith("scatter_reduce_")]
    assert exported and {f.context for f in exported} == {Context.TOOLING}


def test_what_follows_leaving_unless_exporting_is_the_exports(scan_code):
    """PyG's ``scatter``: ``if not is_in_onnx_export(): return <eager scatter_reduce_>``, then the exporter's way
    (its own wrapper, called by the bare name): what follows runs only while exporting; the eager call stays."""
    code = ("import torch\nfrom pkg import is_in_onnx_export\n\n\ndef scatter(src, index, out):\n"
            "    if not is_in_onnx_export():\n        return out.scatter_reduce_(0, index, src, reduce='amax')\n"
            "    fill = torch.full((1,), 0.0).expand_as(src)\n"
            "    return out.scatter_reduce_(0, index, fill, reduce='amax', include_self=True)\n")
    findings = [f for f in scan_code(code, ["cann"]) if f.api.endswith("scatter_reduce_")]
    assert sorted((f.span.line, f.context) for f in findings) == [(7, Context.TRAINING), (9, Context.TOOLING)]


def test_a_model_module_with_a_demo_main_block_stays_training(scan_tree):
    """vit_pytorch's model files end in a ``__main__`` demo that builds the model and runs it once: an entry point
    that never trains, beside one that does; the model's ``forward`` runs each training step all the same."""
    model = ("import torch\nfrom torch import nn\n\n\nclass Rotary(nn.Module):\n"
             "    @torch.amp.autocast('cuda', enabled=False)\n    def forward(self, x):\n        return x.float()\n"
             "\n\nif __name__ == '__main__':\n    print(Rotary()(torch.ones(2)))\n")
    train = _LOOP.replace("from pkg.shared import load_vocoder\n",
                          "from pkg.shared import load_vocoder\nfrom pkg.rotary import Rotary\n")
    train = train.replace("    vocoder = load_vocoder()\n", "    vocoder = load_vocoder()\n    rot = Rotary()\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/shared.py": _SHARED, "pkg/rotary.py": model,
                        "pkg/other.py": model.replace("Rotary", "Other"), "train.py": train, "evaluate_tts.py": _EVAL,
                        "pkg/eval_utils.py": _EVAL_UTILS})
    autocasts = [f for f in report.judged if f.api == "torch.amp.autocast"]
    assert {f.path for f in autocasts} == {"pkg/rotary.py", "pkg/other.py"}
    assert {f.context for f in autocasts} == {Context.TRAINING}  # Other: no training entry reaches it, a model
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}


def test_an_autograd_functions_backward_does_not_make_every_model_user_train(scan_tree):
    """The bundled example: a fused RMSNorm's ``autograd.Function.backward`` is reached by whatever builds the
    model, the evaluation notebook too; it is a pass of the model, not a training step."""
    norm = ("import torch\nimport _fused\n\n\nclass Fused(torch.autograd.Function):\n    @staticmethod\n"
            "    def forward(ctx, x):\n        return _fused.forward(x)\n\n    @staticmethod\n"
            "    def backward(ctx, grad):\n        return _fused.backward(grad.contiguous())\n")
    shared = _SHARED.replace("import torch\n", "import torch\nfrom pkg.norm import Fused\n") \
        + "\n\ndef norm(x):\n    return Fused.apply(x)\n"
    evaluate = _EVAL.replace("from pkg.shared import load_vocoder\n", "from pkg.shared import load_vocoder, norm\n") \
        .replace("    vocoder = load_vocoder()\n", "    vocoder = load_vocoder()\n    norm(asr)\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/norm.py": norm, "pkg/shared.py": shared,
                        "pkg/eval_utils.py": _EVAL_UTILS, "train.py": _LOOP, "evaluate_tts.py": evaluate})
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}


_PARSER = "def wrap():\n    def decorate(fn):\n        return fn\n    return decorate\n"
_TOKENIZER = """
import torch


class Tokenizer(torch.nn.Module):
    def train_step(self, x, y):
        loss = (self(x) - y).pow(2).mean()
        loss.backward()

    @staticmethod
    def load(path):
        return Tokenizer()


def auto_train(pairs):
    model = Tokenizer.load("t.pth")  # the graph cannot follow a static method's result: joined by the name
    for x, y in pairs:
        model.train_step(x, y)
"""
_REWARD = """
import torch


class Reward(torch.nn.Module):
    def train(self, mode=True):
        super().train(mode)
        self.head.train(mode)
        return self

    def eval(self):
        return self.train(False)
"""


_FREEZING = """
import torch


class Net(torch.nn.Module):
    def freeze_bn(self, enable=False):
        for module in self.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.train() if enable else module.eval()
"""
_VALIDATION = """
import torch


def validate(net):
    net.eval()
    with torch.no_grad():
        score = 0.0
    net.train()
    return score
"""


@pytest.mark.parametrize("files, script", [
    # lerobot: every script is decorated with ``@parser.wrap()``; importing the parser runs none of them
    pytest.param({"pkg/parser.py": _PARSER,
                  "train.py": "from pkg import parser\n" + _LOOP.replace("def main():", "@parser.wrap()\ndef main():")},
                 "from pkg import parser\n\n\n@parser.wrap()\ndef annotate():\n    return load_asr(0)\n",
                 id="a-decorator-shared-with-the-training-script"),
    # coqui's synthesiser loads a checkpoint of a class whose own ``train_step`` trains it elsewhere
    pytest.param({"pkg/tokenizer.py": _TOKENIZER, "train.py": _LOOP},
                 "from pkg.tokenizer import Tokenizer\n\n\ndef annotate():\n    Tokenizer.load('t.pth')\n"
                 "    return load_asr(0)\n", id="builds-a-class-with-a-step-method"),
    # lerobot's reward model: ``eval()`` is ``train(False)``, which switches its submodules' mode
    pytest.param({"pkg/reward.py": _REWARD, "train.py": _LOOP},
                 "from pkg.reward import Reward\n\n\ndef annotate():\n    model = Reward()\n    model.eval()\n"
                 "    return load_asr(0)\n", id="a-modules-own-train-mode-switch"),
    # yolact: the model's ``freeze_bn`` sets each BatchNorm's mode (``module.train() if enable else module.eval()``)
    pytest.param({"pkg/net.py": _FREEZING, "train.py": _LOOP},
                 "from pkg.net import Net\n\n\ndef annotate():\n    Net().freeze_bn()\n    return load_asr(0)\n",
                 id="a-models-method-switching-its-layers-modes"),
    # ... and the training script's validation, which the evaluation script shares, switches back at its end
    pytest.param({"pkg/validation.py": _VALIDATION, "train.py": _LOOP},
                 "from pkg.validation import validate\n\n\ndef annotate():\n    validate(None)\n"
                 "    return load_asr(0)\n", id="a-validation-that-switches-back-to-training-mode"),
])
def test_a_script_that_only_shares_code_with_training_does_not_train(scan_tree, files, script):
    annotate = "from pkg.eval_utils import load_asr\n" + script + "\n\nif __name__ == '__main__':\n    annotate()\n"
    report = scan_tree({"pkg/__init__.py": "", "pkg/shared.py": _SHARED, "pkg/eval_utils.py": _EVAL_UTILS,
                        **files, "annotate.py": annotate})
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}
    assert set(_contexts(report, "pkg/shared.py").values()) == {Context.TRAINING}


def test_what_every_entry_reaches_only_through_a_decorator_keeps_its_context(scan_tree):
    """pl_bolts marks its classes ``@under_review()``: every entry point reaches the decorator, and through its
    ``registers`` edge the class it wraps; that is no run of the class by either kind of entry point."""
    loader = ("import torch\nfrom pkg.stability import under_review\n\n\n@under_review()\nclass AsyncLoader:\n"
              "    def __init__(self, data, device=torch.device('cuda', 0)):\n        self.device = device\n")
    stability = _PARSER.replace("def wrap", "def under_review")
    report = scan_tree({"pkg/__init__.py": "from pkg.loader import AsyncLoader\n", "pkg/stability.py": stability,
                        "pkg/loader.py": loader, "pkg/shared.py": _SHARED, "pkg/eval_utils.py": _EVAL_UTILS,
                        "train.py": "import pkg\n" + _LOOP, "evaluate_tts.py": "import pkg\n" + _EVAL})
    assert set(_contexts(report, "pkg/loader.py").values()) == {Context.TRAINING}
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TOOLING}  # the split is made


def test_a_class_whose_step_only_a_framework_calls_trains_where_it_is_built(scan_tree):
    """espnet's chainer updater: ``update_core`` calls ``backward`` and only chainer's ``trainer.run()`` calls it;
    the script that builds the updater trains."""
    updater = ("import torch\n\n\nclass Updater:\n    def __init__(self, model):\n        self.model = model\n\n"
               "    def update_core(self, x):\n        loss = self.model(x).sum()\n        loss.backward()\n\n"
               "    def update(self, x):\n        self.update_core(x)\n")
    script = ("from pkg.updater import Updater\nfrom pkg.eval_utils import load_asr\n\n\n"
              "def main(trainer):\n    model = load_asr(0)\n    trainer.extend(Updater(model))\n\n\n"
              "if __name__ == '__main__':\n    main(None)\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/updater.py": updater, "pkg/shared.py": _SHARED,
                        "pkg/eval_utils.py": _EVAL_UTILS, "mt_train.py": script, "train.py": _LOOP,
                        "evaluate_tts.py": _EVAL})
    assert set(_contexts(report, "pkg/eval_utils.py").values()) == {Context.TRAINING}


_DATASET = """
import torch
from sklearn.preprocessing import StandardScaler


class SeriesDataset:
    def __init__(self, data):
        self.scaler = StandardScaler()
        self.scaler.fit(data)
        self.data = torch.tensor(self.scaler.transform(data))
"""

_ZERO_SHOT = """
import torch
from pkg.dataset import SeriesDataset


def main():
    data = SeriesDataset([[1.0], [2.0]])
    model = torch.nn.Linear(1, 1).to("cuda")
    with torch.no_grad():
        print(model(data.data.float().to("cuda")))


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("imports, context", [
    # momentfm's datasets fit a scikit-learn scaler: the zero-shot script that builds one trains nothing
    ("", Context.TOOLING),
    # skorch's and Lightning's ``fit`` train a network, whatever else the module imports
    ("import lightning\n", Context.TRAINING),
], ids=["a-scalers-fit", "a-training-frameworks-fit"])
def test_an_estimators_fit_is_no_training_run(scan_tree, imports, context):
    report = scan_tree({"pkg/__init__.py": "", "pkg/dataset.py": imports + _DATASET, "train.py": _LOOP,
                        "pkg/shared.py": _SHARED, "zero_shot.py": _ZERO_SHOT})
    assert set(_contexts(report, "zero_shot.py").values()) == {context}


# FastChat: a package whose own scripts train (``fastchat/train/``) and serve or answer benchmarks
# (``fastchat/llm_judge/``); its public API exports every module, so it reaches both
_ADAPTER = """
import torch


def load_model(path, device="cuda"):
    model = torch.load(path)
    return model.to(device)
"""
_ANSWER = """
from chat.model_adapter import load_model


def run_eval(path):
    return load_model(path).cuda()


if __name__ == "__main__":
    run_eval("m.pt")
"""
_PACKAGE_TRAIN = """
import torch


def train():
    model = torch.nn.Linear(2, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        model(torch.ones(2).cuda()).sum().backward()
        opt.step()


if __name__ == "__main__":
    train()
"""


def test_a_packages_own_scripts_decide_what_trains_not_its_public_api(scan_tree):
    report = scan_tree({"chat/__init__.py": "", "chat/model_adapter.py": _ADAPTER,
                        "chat/llm_judge/__init__.py": "", "chat/llm_judge/gen_answer.py": _ANSWER,
                        "chat/train/__init__.py": "", "chat/train/train.py": _PACKAGE_TRAIN})
    assert any(e.node == "chat.<public api>" for e in report.graph.entries)
    assert set(_contexts(report, "chat/model_adapter.py").values()) == {Context.TOOLING}
    assert set(_contexts(report, "chat/llm_judge/gen_answer.py").values()) == {Context.TOOLING}
    assert set(_contexts(report, "chat/train/train.py").values()) == {Context.TRAINING}


# EDM's fid.py: a click group whose commands compute FID with a trained network, beside its train.py
_FID = """
import click
import torch


def calculate_inception_stats(image_path, device=torch.device('cuda')):
    return torch.zeros(2048, device=device)


@click.group()
def main():
    pass


@main.command()
@click.option('--images', type=str)
def calc(images):
    return calculate_inception_stats(images)


if __name__ == "__main__":
    main()
"""


def test_what_only_a_command_groups_evaluation_commands_reach_is_tooling(scan_tree):
    report = scan_tree({"fid.py": _FID, "train.py": _PACKAGE_TRAIN})
    assert set(_contexts(report, "fid.py").values()) == {Context.TOOLING}
    assert {f.reachable for f in report.judged if f.path == "fid.py"} == {True}  # the group runs its command
    assert set(_contexts(report, "train.py").values()) == {Context.TRAINING}


# LLaVA's llava/train/llama_flash_attn_monkey_patch.py: train_mem.py stopped importing it
_PATCH = """
import torch
from flash_attn.flash_attn_interface import flash_attn_unpadded_qkvpacked_func


def forward(self, hidden_states):
    return flash_attn_unpadded_qkvpacked_func(hidden_states.cuda(), None, 0, 0.0)


def replace_llama_attn_with_flash_attn():
    major, minor = torch.cuda.get_device_capability()
"""


@pytest.mark.parametrize("train, context", [
    pytest.param(_PACKAGE_TRAIN, Context.TOOLING, id="nothing-imports-or-names-it"),
    pytest.param("from pkg.llama_flash_attn_monkey_patch import replace_llama_attn_with_flash_attn\n"
                 "replace_llama_attn_with_flash_attn()\n" + _PACKAGE_TRAIN, Context.TRAINING, id="imported"),
    # a launcher or a config may load it by its name
    pytest.param(_PACKAGE_TRAIN.replace("def train():", "PATCH = 'pkg.llama_flash_attn_monkey_patch'\n\n\n"
                                        "def train():"), Context.TRAINING, id="named-in-a-string"),
    # a project that loads configurations by a path (score-sde's ml_collections, a vendored mmcv's Config.fromfile)
    # loads configurations so, not a module of functions like this one (ControlNet's unused PLMS sampler)
    pytest.param("from ml_collections.config_flags import config_flags\n"
                 "_CONFIG = config_flags.DEFINE_config_file('config', None, 'the config file', lock_config=True)\n"
                 + _PACKAGE_TRAIN, Context.TOOLING, id="a-project-that-loads-configurations-by-path"),
])
def test_a_module_nothing_imports_or_names_is_in_no_run(scan_tree, train, context):
    report = scan_tree({"pkg/__init__.py": "", "pkg/llama_flash_attn_monkey_patch.py": _PATCH,
                        "pkg/train.py": train})
    # ``forward``: the method a patch stores on a model's class, which a function-level check keeps
    assert _contexts(report, "pkg/llama_flash_attn_monkey_patch.py")["torch.Tensor.cuda"] == context


@pytest.mark.parametrize("path, context", [
    pytest.param("pkg/configs/model_cfg.py", Context.TRAINING, id="in-a-configs-folder-it-may-be-loaded-by-path"),
    pytest.param("pkg/samplers/plms.py", Context.TOOLING, id="a-module-of-functions-elsewhere-is-not"),
])
def test_a_project_that_loads_files_by_path_keeps_what_may_be_so_loaded(scan_tree, path, context):
    """mmcv's ``Config.fromfile`` (vendored in ControlNet) loads configuration files by a path given at run time."""
    train = ("from mmcv import Config\n\nCFG = Config.fromfile('pkg/configs/model_cfg.py')\nPLACE = CFG.place\n"
             + _PACKAGE_TRAIN)
    module = "import torch\n\n\ndef place(x):\n    return x.cuda()\n"
    report = scan_tree({"pkg/__init__.py": "", "pkg/configs/__init__.py": "", "pkg/samplers/__init__.py": "",
                        "pkg/train.py": train, path: module})
    assert _contexts(report, path)["torch.Tensor.cuda"] == context


def test_a_script_nothing_imports_is_run_by_its_path(scan_tree):
    """T2T-ViT's transfer_learning.py: code at its top, run as ``python transfer_learning.py``, beside main.py."""
    script = ("import torch\n\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
              "net = torch.nn.Linear(2, 2).to(device)\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
              "for _ in range(3):\n    net(torch.ones(2, device=device)).sum().backward()\n    opt.step()\n")
    report = scan_tree({"transfer_learning.py": script, "main.py": _PACKAGE_TRAIN})
    assert set(_contexts(report, "transfer_learning.py").values()) == {Context.TRAINING}


def test_a_modules_top_that_only_an_untrained_tool_imports_stays_training_in_a_library(scan_tree):
    """mmseg: its train tool runs mmengine's Runner, which builds the heads by a config's names (no edge the graph
    can follow); its analysis tools import the heads' package by name. A head module's top (its import of mmcv's
    ops) runs wherever the package is imported, training too; a function only the tool calls does not."""
    head = ("import torch\nfrom mmcv.ops import CrissCrossAttention\n\n\nclass CCHead(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return CrissCrossAttention(4)(x)\n\n\n"
            "def measure(model):\n    torch.cuda.synchronize()\n    return model\n")
    train = ("from mmengine.runner import Runner\n\n\ndef main():\n    runner = Runner.from_cfg({})\n"
             "    runner.train()\n\n\nif __name__ == '__main__':\n    main()\n")
    tool = ("from seg.models.cc_head import measure\n\n\ndef main():\n    measure(None)\n\n\n"
            "if __name__ == '__main__':\n    main()\n")
    report = scan_tree({"seg/__init__.py": "", "seg/models/__init__.py": "from .cc_head import CCHead\n",
                        "seg/models/cc_head.py": head, "seg/tools/train.py": train,
                        "seg/tools/benchmark_heads.py": tool})
    contexts = {(f.span.line, f.api): f.context for f in report.judged if f.path == "seg/models/cc_head.py"}
    assert contexts[(2, "mmcv.ops.CrissCrossAttention")] == Context.TRAINING, contexts
    assert contexts[(11, "torch.cuda.synchronize")] == Context.TOOLING


# BasicSR's basicsr/ops/upfirdn2d/: a compiled op's wrapper (its JIT build at the top, the prebuilt module imported
# relatively), which only the package's own ``__init__`` imports, and ``setup.py`` and the CUDA sources name
_UPFIRDN2D = """
import os
import torch

try:
    from . import upfirdn2d_ext
except ImportError:
    from torch.utils.cpp_extension import load
    upfirdn2d_ext = load('upfirdn2d', sources=[os.path.join(os.path.dirname(__file__), 'src', 'upfirdn2d.cpp'),
                                             os.path.join(os.path.dirname(__file__), 'src', 'upfirdn2d_kernel.cu')])


def upfirdn2d(x, kernel):
    return upfirdn2d_ext.upfirdn2d(x.cuda(), kernel, 1, 1, 0, 0, 0, 0, 0, 0)
"""
_SR_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension\n"
             "setup(name='sr', ext_modules=[CppExtension('sr.ops.upfirdn2d.upfirdn2d_ext', "
             "['sr/ops/upfirdn2d/src/upfirdn2d.cpp'])], cmdclass={'build_ext': BuildExtension})\n")


@pytest.mark.parametrize("arch, context", [
    pytest.param("import torch\n\n\nclass Net(torch.nn.Linear):\n    pass\n", Context.TOOLING,
                 id="a-package-nothing-imports-takes-its-modules-with-it"),
    pytest.param("import torch\nfrom sr.ops.upfirdn2d import upfirdn2d\n\n\nclass Net(torch.nn.Linear):\n"
                 "    def forward(self, x):\n        return upfirdn2d(x, x)\n", Context.TRAINING,
                 id="an-architecture-imports-the-package"),
    pytest.param("import torch\nimport importlib\n\nOPS = importlib.import_module('sr.ops.upfirdn2d')\n\n\n"
                 "class Net(torch.nn.Linear):\n    pass\n",
                 Context.TRAINING, id="loaded-by-its-dotted-name"),
])
def test_a_compiled_ops_package_only_its_own_init_imports_is_in_no_run(scan_tree, arch, context):
    train = _PACKAGE_TRAIN.replace("import torch\n", "import torch\nfrom sr.archs.net import Net\n", 1)
    report = scan_tree({"sr/__init__.py": "", "sr/archs/__init__.py": "", "sr/archs/net.py": arch,
                        "sr/ops/__init__.py": "", "sr/ops/upfirdn2d/__init__.py": "from .upfirdn2d import upfirdn2d\n",
                        "sr/ops/upfirdn2d/upfirdn2d.py": _UPFIRDN2D,
                        "sr/ops/upfirdn2d/src/upfirdn2d.cpp": "// upfirdn2d\n#include <torch/extension.h>\n",
                        "setup.py": _SR_SETUP, "sr/train.py": train})
    assert _contexts(report, "sr/ops/upfirdn2d/upfirdn2d.py")["torch.Tensor.cuda"] == context
    assert set(_contexts(report, "sr/train.py").values()) == {Context.TRAINING}


# BasicSR's train.py: the model comes from a registry (``build_model(opt)``) and the loop calls its step by name;
# beside it an inference script that never trains
_SR_MODELS = """
import torch


class SRModel:
    def __init__(self, opt):
        self.net = torch.nn.Linear(2, 2).cuda()
        self.optimizer = torch.optim.Adam(self.net.parameters())

    def optimize_parameters(self, it):
        self.optimizer.zero_grad()
        self.net(torch.ones(2).cuda()).sum().backward()
        self.optimizer.step()


REGISTRY = {'SRModel': SRModel}


def build_model(opt):
    return REGISTRY[opt['model_type']](opt)
"""
_SR_TRAIN = """
from sr.models import build_model


def train_pipeline(opt):
    model = build_model(opt)
    for it in range(10):
        model.optimize_parameters(it)


if __name__ == '__main__':
    train_pipeline({'model_type': 'SRModel'})
"""
_SR_INFERENCE = """
import torch

if __name__ == '__main__':
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    net = torch.load('net.pth').to(device)
    print(net(torch.ones(2, device=device)))
"""


def test_a_loop_that_steps_what_a_builder_returns_trains(scan_tree):
    report = scan_tree({"sr/__init__.py": "", "sr/models.py": _SR_MODELS, "sr/train.py": _SR_TRAIN,
                        "scripts/inference_net.py": _SR_INFERENCE})
    models = [f for f in report.judged if f.path == "sr/models.py"]
    assert models and {(f.context, f.reachable) for f in models} == {(Context.TRAINING, True)}
    assert set(_contexts(report, "scripts/inference_net.py").values()) == {Context.TOOLING}


def test_a_registry_that_imports_its_packages_modules_by_a_built_name_reaches_them(scan_tree):
    """BasicSR's ``basicsr/models/__init__.py``: every ``*_model.py`` of the folder, imported as
    ``importlib.import_module(f'basicsr.models.{file_name}')`` so that each registers its class."""
    package = ("import importlib\nimport os\n\n\nclass Registry(dict):\n    def register(self):\n"
               "        def add(cls):\n            self[cls.__name__] = cls\n            return cls\n"
               "        return add\n\n\nREGISTRY = Registry()\n"
               "for name in [f[:-3] for f in os.listdir(os.path.dirname(__file__)) if f.endswith('_model.py')]:\n"
               "    importlib.import_module(f'sr.models.{name}')\n\n\n"
               "def build_model(opt):\n    return REGISTRY[opt['model_type']](opt)\n")
    model = _SR_MODELS.replace("class SRModel:", "@REGISTRY.register()\nclass SRModel:").replace(
        "import torch\n", "import torch\n\nfrom . import REGISTRY\n", 1)
    model = model[:model.index("\n\ndef build_model")] + "\n"
    report = scan_tree({"sr/__init__.py": "", "sr/models/__init__.py": package, "sr/models/sr_model.py": model,
                        "sr/train.py": _SR_TRAIN})
    assert set(_contexts(report, "sr/models/sr_model.py").values()) == {Context.TRAINING}


# ControlNet's gradio_*.py demos and tutorial_train_sd21.py: code at the top of a file outside any package that
# nothing imports, run by its path; a configuration of ``dict(...)`` calls is read by a loader, not run
_DEMO = "import torch\nfrom annotator.mlsd import detect\n\nmodel = torch.nn.Linear(2, 2)\nprint(detect(model))\n"
_MLSD = "import torch\n\n\ndef detect(model):\n    return model(torch.ones(2).cuda())\n"


def test_code_at_the_top_of_a_file_nothing_imports_is_an_entry(scan_tree):
    report = scan_tree({"gradio_hough2image.py": _DEMO, "annotator/__init__.py": "",
                        "annotator/mlsd/__init__.py": "from .utils import detect\n", "annotator/mlsd/utils.py": _MLSD,
                        "tutorial_train_sd21.py": _PACKAGE_TRAIN.replace('if __name__ == "__main__":\n    train()',
                                                                         "train()"),
                        "configs/_base_/model.py": "model = dict(type='UNet', channels=dict(base=64))\n"})
    kinds = {e.path: e.kind for e in report.graph.entries}
    assert kinds.get("gradio_hough2image.py") == EntryKind.SCRIPT
    assert kinds.get("tutorial_train_sd21.py") == EntryKind.SCRIPT and "configs/_base_/model.py" not in kinds
    assert set(_contexts(report, "annotator/mlsd/utils.py").values()) == {Context.TOOLING}  # only the demo's
    assert set(_contexts(report, "tutorial_train_sd21.py").values()) == {Context.TRAINING}


# deep-text-recognition-benchmark: ``train.py`` validates with ``test.py``'s ``validation()`` every few hundred steps
_VALIDATING_TRAIN = """
import torch
from test import validation


def train():
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        model(torch.ones(2)).sum().backward()
        opt.step()
        if step % 2 == 0:
            validation(model)


if __name__ == "__main__":
    train()
"""
_TEST_SCRIPT = """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def validation(model):
    torch.cuda.synchronize()
    return model(torch.ones(2).to(device))


def test_validation():
    assert validation(torch.nn.Linear(2, 2).cuda()) is not None


if __name__ == "__main__":
    validation(torch.nn.Linear(2, 2))
"""


@pytest.mark.parametrize("path, context", [
    pytest.param("test.py", Context.TRAINING, id="a-test-named-script-training-calls"),
    pytest.param("tests/helpers.py", Context.TEST, id="a-tests-folder-stays-tests"),
])
def test_what_training_calls_in_a_file_named_for_tests_is_training(scan_tree, path, context):
    module = path[:-3].replace("/", ".")
    report = scan_tree({"train.py": _VALIDATING_TRAIN.replace("from test import", f"from {module} import"),
                        path: _TEST_SCRIPT, **({"tests/__init__.py": ""} if "/" in path else {})})
    device = [f for f in report.judged if f.path == path and f.span.line == 3 and f.root is None]
    assert device and {f.context for f in device} == {context}
    # ... and so is a call in the function training runs (PyTorch-YOLOv3's pytorchyolo/test.py ``_evaluate``)
    sync = [f for f in report.judged if f.path == path and f.api == "torch.cuda.synchronize"]
    assert sync and {f.context for f in sync} == {context}
    # a test's own function stays a test, whoever runs the file
    assert {f.context for f in report.judged
            if f.path == path and f.scope.endswith("test_validation")} == {Context.TEST}


# BigGAN: ``train.py``'s loop calls the step ``train_fns.GAN_training_function`` builds and returns (and switches
# its models' modes around it: no trainer call)
_STEP_FACTORY = """
import torch


def GAN_training_function(G, optim):
    def train(x):
        optim.zero_grad()
        loss = G(x).sum()
        loss.backward()
        optim.step()
        return {"loss": float(loss)}
    return train
"""
_FACTORY_LOOP = """
import torch
import train_fns

device = "cuda"


def run():
    G = torch.nn.Linear(2, 2).to(device)
    train = train_fns.GAN_training_function(G, torch.optim.SGD(G.parameters(), lr=0.1))
    for step in range(3):
        G.train()
        train(torch.ones(2, device=device))
        G.eval()


if __name__ == "__main__":
    run()
"""
_SAMPLER = """
import torch
import train_fns


def sample():
    return torch.nn.Linear(2, 2).cuda()


if __name__ == "__main__":
    sample()
"""


def test_a_loop_that_calls_the_step_a_factory_returns_trains(scan_tree):
    report = scan_tree({"train_fns.py": _STEP_FACTORY, "train.py": _FACTORY_LOOP, "sample.py": _SAMPLER})
    device = [f for f in report.judged if f.path == "train.py" and f.span.line == 5 and f.root is None]
    assert device and {f.context for f in device} == {Context.TRAINING}
    assert set(_contexts(report, "sample.py").values()) <= {Context.TOOLING}


# Depth-Anything: DINOv2 copied whole under torchhub/ (its licence, its own training script and requirements),
# loaded for its backbone; the project trains with its own script
_COPIED_TRAIN = """
import torch


def setup(rank):
    torch.cuda.set_device(rank)


def main():
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    setup(0)
    for _ in range(3):
        model(torch.ones(2)).sum().backward()
        opt.step()


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("licensed", [True, False], ids=["a-licensed-copy", "a-folder-of-the-project"])
def test_a_copied_projects_own_training_is_not_this_ones(scan_tree, licensed):
    copy = "torchhub/facebookresearch_dinov2_main"
    files = {"train.py": _LOOP, "pkg/__init__.py": "", "pkg/shared.py": _SHARED,
             f"{copy}/dinov2/__init__.py": "", f"{copy}/dinov2/train.py": _COPIED_TRAIN,
             f"{copy}/requirements.txt": "--extra-index-url https://download.pytorch.org/whl/cu117\ntorch==2.0.0\n"}
    if licensed:
        files[f"{copy}/LICENSE"] = "Apache License\n"
    report = scan_tree(files)
    copied = {f.context for f in report.judged if f.path.startswith(copy) and f.root is None
              and f.rule in ("device-call", "cuda-requirement")}
    assert copied == ({Context.TOOLING} if licensed else {Context.TRAINING})
    assert set(_contexts(report, "pkg/shared.py").values()) == {Context.TRAINING}  # the project's own training


# DomainBed: the algorithm is looked up by name, and the script's loop calls its ``update`` step, which thirty
# algorithms define (too many to join the call to by name for reachability)
_ALGORITHMS = "import torch\n\n\ndef get_algorithm_class(name):\n    return globals()[name]\n" + "".join(
    f"\n\nclass Algo{i}(torch.nn.Module):\n    def update(self, x):\n        loss = self(x).sum()\n"
    "        loss.backward()\n        return loss\n" for i in range(8))
_ALGORITHM_TRAIN = """
import torch
import algorithms

if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    algorithm = algorithms.get_algorithm_class("Algo0")().to(device)
    for step in range(3):
        algorithm.update(torch.ones(2, device=device))
"""


def test_a_script_whose_loop_calls_a_step_method_by_name_trains(scan_tree):
    report = scan_tree({"algorithms.py": _ALGORITHMS, "train.py": _ALGORITHM_TRAIN,
                        "collect_results.py": "import torch\n\nif __name__ == '__main__':\n"
                                              "    print(torch.ones(2).cuda())\n"})
    device = [f for f in report.judged if f.path == "train.py" and f.span.line == 6 and f.root is None]
    assert device and {f.context for f in device} == {Context.TRAINING}
    assert set(_contexts(report, "collect_results.py").values()) <= {Context.TOOLING}



# pytorch-vqvae's vae.py: ``test()`` runs after every epoch of the script's own loop
_EPOCH_TEST = """
import torch


def train(model, opt):
    model(torch.ones(2)).sum().backward()
    opt.step()


def test(model):
    with torch.no_grad():
        return model(torch.ones(2).cuda())


def main():
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train(model, opt)
        test(model)


if __name__ == "__main__":
    main()
"""


def test_a_function_named_test_that_the_training_loop_runs_is_training(scan_tree):
    pytest_file = "import torch\n\n\ndef test_cuda():\n    assert torch.ones(2).cuda() is not None\n"
    report = scan_tree({"vae.py": _EPOCH_TEST, "tests/test_vae.py": pytest_file})
    assert {f.context for f in report.judged if f.path == "vae.py" and f.scope.endswith("test")} == {Context.TRAINING}
    assert {f.context for f in report.judged if f.path == "tests/test_vae.py"} == {Context.TEST}
