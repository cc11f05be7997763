"""A library whose training loop only its users' scripts run (flair's ``ModelTrainer``, tianshou's trainers): its
users start at what the package exports (``public-api``) where its only runs are its packaging and its modules'
own ``__main__`` blocks; else the loop and its module are entry points (``library-training``) when no other entry
point reaches a training root, so
its AMP and device choice sit on the training path; a ``trainer.py`` the package imports is a library's module,
not a script (``graph/entries.py``)."""

from __future__ import annotations

from migrator.model import EntryKind

# flair's layout: the device chosen when the package is imported, a trainer module the package imports, a dataset
# module with a demo ``__main__`` block that never trains
_INIT = """
import torch

from . import trainers

device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
"""

_TRAINERS_INIT = "from .trainer import ModelTrainer\n"

_TRAINER = """
import torch

import lib


class ModelTrainer:
    def __init__(self, model):
        self.model = model

    def train(self, data, epochs=1, use_amp=False):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
        for _ in range(epochs):
            for x in data:
                loss = self.model(x.to(lib.device)).sum()
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
"""

_DATASETS = """
import torch


def download(path):
    return torch.load(path, map_location="cpu")


if __name__ == "__main__":
    download("corpus.pt")
"""

LIBRARY = {"lib/__init__.py": _INIT, "lib/trainers/__init__.py": _TRAINERS_INIT,
           "lib/trainers/trainer.py": _TRAINER, "lib/datasets.py": _DATASETS, "setup.py": "import setuptools\n"}


def _finding(report, path, api):
    return next(f for f in report.findings if f.path == path and f.api == api)


def test_a_librarys_training_loop_is_on_the_path_its_users_start(scan_tree):
    # the dataset's ``__main__`` block is the package's own trial: its users start at what it exports, the trainer
    report = scan_tree(LIBRARY)
    kinds = {e.node: e.kind for e in report.graph.entries}
    assert kinds.get("lib.<public api>") == EntryKind.PUBLIC_API, kinds
    # imported by the package: a library's module, not a ``train*.py`` script of its own
    assert all(kind != EntryKind.SCRIPT_NAME for kind in kinds.values())
    assert _finding(report, "lib/trainers/trainer.py", "torch.cuda.amp.GradScaler").reachable is True
    # the device the loop moves its batches to, chosen where the trainer's module imports the package
    assert _finding(report, "lib/__init__.py", "torch.cuda.is_available").reachable is True
    cann = next(t for t in report.targets if t.id == "cann")
    assert cann.readiness is not None and cann.readiness < 100.0


def test_a_project_whose_script_trains_keeps_its_own_entry_points(scan_tree):
    script = ("import torch\nfrom lib.trainers.trainer import ModelTrainer\n\n"
              "ModelTrainer(torch.nn.Linear(2, 2).cuda()).train([torch.ones(2)])\n")
    report = scan_tree({**LIBRARY, "train.py": script})
    kinds = {e.node: e.kind for e in report.graph.entries}
    assert kinds.get("train") == EntryKind.SCRIPT_NAME  # a script nothing imports
    assert EntryKind.LIBRARY_TRAINING not in kinds.values()
    assert _finding(report, "lib/trainers/trainer.py", "torch.cuda.amp.GradScaler").reachable is True


def test_a_train_module_only_a_test_imports_stays_a_script(scan_tree):
    script = "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\n"
    report = scan_tree({"train.py": script, "tests/test_train.py": "import train\n"})
    assert {e.node: e.kind for e in report.graph.entries}.get("train") == EntryKind.SCRIPT_NAME


# LAVIS's layout: a demo app whose Grad-CAM calls ``backward`` once (a step the app reaches), a task whose inner
# loop trains, called by its ``train_epoch``, which only the users' runner calls
_GRADCAM = """
import torch


def gradcam(model, x):
    out = model(x).sum()
    out.backward()
    return x.grad


if __name__ == "__main__":
    gradcam(torch.nn.Linear(2, 2), torch.ones(2, requires_grad=True))
"""

_TASK = """
import torch


class BaseTask:
    def train_epoch(self, model, loader, optimizer):
        scaler = torch.cuda.amp.GradScaler()
        return self._train_inner_loop(model, loader, optimizer, scaler)

    def _train_inner_loop(self, model, loader, optimizer, scaler):
        for x in loader:
            loss = model(x.cuda()).sum()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
"""


def test_a_librarys_training_loop_and_its_module_are_entry_points_beside_a_script_that_never_trains(scan_tree):
    # flair's layout with its dataset demo as a script of its own beside the package: the loop is no entry's
    demo = _DATASETS.replace("import torch\n", "import torch\nimport lib\n", 1)
    library = {**{k: v for k, v in LIBRARY.items() if k != "lib/datasets.py"}, "download.py": demo}
    report = scan_tree(library)
    kinds = {e.node: e.kind for e in report.graph.entries}
    assert kinds.get("lib.trainers.trainer.ModelTrainer.train") == EntryKind.LIBRARY_TRAINING, kinds
    assert kinds.get("lib.trainers.trainer") == EntryKind.LIBRARY_TRAINING
    assert _finding(report, "lib/trainers/trainer.py", "torch.cuda.amp.GradScaler").reachable is True


def test_a_step_a_demo_reaches_leaves_the_librarys_unreached_loop_to_its_callers(scan_tree):
    report = scan_tree({"app/gradcam.py": _GRADCAM, "lib/__init__.py": "", "lib/tasks.py": _TASK})
    kinds = {e.node: e.kind for e in report.graph.entries}
    assert kinds.get("lib.tasks.BaseTask._train_inner_loop") == EntryKind.LIBRARY_TRAINING, kinds
    assert kinds.get("lib.tasks.BaseTask.train_epoch") == EntryKind.LIBRARY_TRAINING  # its caller nothing calls
    assert _finding(report, "lib/tasks.py", "torch.cuda.amp.GradScaler").reachable is True
