"""The ``tune`` findings: what runs but stalls the device, on the training step only (``rules/tune.py``).

Each case is a small but whole project: a model, a training loop that reaches it from an entry point, and the
same pattern somewhere the step does not run, which must stay quiet."""
import ast
import json

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.maps.coverage import op_verdict
from migrator.maps.load import resolve_targets
from migrator.model import Category, Status, TuneKind
from migrator.pipeline.tune import computes_a_loss
from migrator.plan import TUNE_PHASE, migration_plans
from migrator.selection import Selection
from migrator.sources.step import step_facts
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

TARGETS = resolve_targets(None)

POOLER = '''
import torch
from torch import nn


class BoxHead(nn.Module):
    """A Mask R-CNN-style box head: scores, filtered proposals, per-class boxes."""

    def __init__(self, dim=256, classes=81):
        super().__init__()
        self.cls = nn.Linear(dim, classes)
        self.box = nn.Linear(dim, classes * 4)

    def forward(self, feats, proposals, labels):
        scores = self.cls(feats).softmax(-1)
        fg = labels > 0
        fg_boxes = proposals[fg]
        fg_inds = torch.nonzero(fg).squeeze(1)
        deltas = self.box(feats).view(-1, scores.shape[1], 4)[fg_inds, labels[fg_inds]]
        loss = (deltas - fg_boxes).abs().mean()
        if self.training:
            return loss
        keep = scores.max(-1).values > 0.05
        return proposals[keep]
'''

TRAIN = '''
import torch

from heads import BoxHead


def train(loader, steps):
    model = BoxHead().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step, (feats, proposals, labels) in enumerate(loader):
        loss = model(feats.cuda(), proposals.cuda(), labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")
        if step % 100 == 0:
            print(f"lr {optimizer.param_groups[0]['lr']} loss {loss.item():.4f}")


if __name__ == "__main__":
    train([], 10)
'''

EVALUATE = '''
import torch


def evaluate(model, loader):
    """Accuracy on a held-out set: no backward, the host reads every batch by design."""
    correct = 0
    for feats, proposals, labels in loader:
        keep = labels > 0
        correct += (proposals[keep].sum(-1) > 0).sum().item()
    return correct


if __name__ == "__main__":
    evaluate(None, [])
'''


def _tune(report, rule=None):
    return [f for f in report.judged if f.category == Category.TUNE and (rule is None or f.rule == rule)]


def _line(code: str, text: str) -> int:
    return next(i for i, line in enumerate(code.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def detector(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("detector"),
                      {"heads.py": POOLER, "train.py": TRAIN, "tools/evaluate.py": EVALUATE})
    return root, scan(ScanRequest(root, TARGETS, jobs=1))


def test_a_box_heads_boolean_masks_on_the_training_step_are_data_dependent_shapes(detector):
    _, report = detector
    shapes = {(f.path, f.span.line): f for f in _tune(report, "tune-dynamic-shape")}
    assert set(shapes) == {("heads.py", _line(POOLER, "fg_boxes = proposals[fg]")),
                           ("heads.py", _line(POOLER, "fg_inds = torch.nonzero(fg)"))}
    masked = shapes["heads.py", _line(POOLER, "fg_boxes = proposals[fg]")]
    assert masked.api == "torch.Tensor.__getitem__" and masked.snippet == "proposals[fg]"
    cann = masked.verdicts["cann"]
    assert cann.status == Status.PARTIAL and "BoxHead.forward" in cann.message and "compile" in cann.message
    assert "hiascend.com" in cann.source and cann.suggestion and "torch.where" in cann.suggestion
    # Cambricon documents no recompilation: the host still waits for the size, as PyTorch's guide says
    neuware = masked.verdicts["neuware"]
    assert neuware.status == Status.PARTIAL and "does not name this pitfall" in neuware.message
    assert "pytorch.org/tutorials" in neuware.source


def test_the_eval_only_branch_and_the_evaluation_script_stay_quiet(detector):
    _, report = detector
    lines = {(f.path, f.span.line) for f in _tune(report)}
    assert ("heads.py", _line(POOLER, "return proposals[keep]")) not in lines  # under `if self.training: ... `
    assert not [f for f in _tune(report) if f.path == "tools/evaluate.py"]


def test_a_loss_logged_every_step_is_a_host_sync_and_every_hundred_steps_is_not(detector):
    _, report = detector
    syncs = _tune(report, "tune-host-sync")
    assert [(f.path, f.span.line, f.api) for f in syncs] == [
        ("train.py", _line(TRAIN, 'print(f"step {step} loss'), "torch.Tensor.item")]
    message = syncs[0].verdicts["cann"].message
    assert "inside the training loop at train.py:" in message and "host waits" in message


def test_tune_findings_never_change_readiness_counts_or_effort(detector):
    root, report = detector
    without = scan(ScanRequest(root, TARGETS, jobs=1, selection=Selection.parse(ignore=["tune"])))
    assert _tune(report) and not _tune(without)
    for before, after in zip(report.targets, without.targets):
        assert (before.readiness, dict(before.counts), before.effort) == (after.readiness, dict(after.counts),
                                                                          after.effort)
        assert [b.key for b in before.blockers] == [b.key for b in after.blockers]


def test_the_plan_ends_with_a_tune_phase_grouped_by_module(detector):
    _, report = detector
    for plan in migration_plans(report):
        tune = plan.phases[-1]
        assert (tune.number, tune.title) == TUNE_PHASE[:2]
        assert [item.key for item in tune.items] == ["heads.py", "train.py"]  # the model's head has the most
        assert tune.items[0].message.startswith("2 data-dependent shapes")
        assert tune.hours == 0.0 and tune.readiness_after == plan.phases[-2].readiness_after


def test_text_hides_tune_findings_behind_one_line_and_lists_them_on_request(detector):
    root, _ = detector
    summary = CliRunner().invoke(main, ["scan", str(root), "--color", "never", "--no-cache"])
    assert summary.exit_code == 0, summary.output
    # the box head's masks, its loss logged each step, and the SGD the training script builds (fused on both)
    assert "4 tuning points on the training step" in summary.output and "proposals[fg]" not in summary.output
    listed = CliRunner().invoke(main, ["scan", str(root), "--color", "never", "--no-cache", "--show", "tune"])
    assert "tune-dynamic-shape  proposals[fg]" in listed.output and "tune-host-sync  loss.item()" in listed.output


def test_a_fallback_op_in_the_forward_is_tuned_per_target_and_not_outside_the_step(tmp_path):
    forward = POOLER.replace("loss = (deltas - fg_boxes).abs().mean()",
                             "loss = (deltas - fg_boxes).abs().mean() + torch.special.zeta(feats, scores).mean()")
    report_script = ("import torch\n\n\ndef spread(a, b):\n    return torch.special.zeta(a, b)\n\n\n"
                     "if __name__ == \"__main__\":\n    spread(torch.ones(2), torch.ones(2))\n")
    root = write_tree(tmp_path, {"heads.py": forward, "train.py": TRAIN, "report.py": report_script})
    report = scan(ScanRequest(root, TARGETS, jobs=1))
    (tuned,) = _tune(report, "tune-cpu-fallback")
    assert (tuned.path, tuned.api) == ("heads.py", "torch.special.zeta")
    original = next(f for f in report.judged if f.rule != tuned.rule and (f.path, f.span.line) == ("heads.py",
                                                                                                 tuned.span.line))
    for target in TARGETS:
        falls = original.verdicts[target.id].status == Status.FALLBACK
        assert (tuned.verdicts[target.id].status == Status.PARTIAL) == falls, target.id
    assert any(original.verdicts[t.id].status == Status.FALLBACK for t in TARGETS)
    assert any(op_verdict(t, op).status == Status.FALLBACK for t in TARGETS for op in tuned.ops)


EMA = '''
import torch


class Ema:
    def __init__(self, model, decay=0.999):
        self.shadow = [p.detach().clone() for p in model.parameters()]
        self.decay = decay

    def update(self, model):
        for shadow, p in zip(self.shadow, model.parameters()):
            shadow.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def train(model, loader, optimizer):
    model = model.cuda()
    ema = Ema(model)
    torch.backends.cudnn.benchmark = True
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        labelled = y[y >= 0]  # a data-dependent shape: what Ascend's compile mode is for
        loss = torch.nn.functional.cross_entropy(model(x[y >= 0]), labelled)
        if torch.isnan(loss):
            continue
        loss.backward()
        optimizer.step()
        ema.update(model)


if __name__ == "__main__":
    train(torch.nn.Linear(2, 2), [], None)
'''


def test_a_per_parameter_ema_and_a_tensor_branch_on_the_step(tmp_path):
    """With data-dependent shapes on its step, the project's `cudnn.benchmark` gets Ascend's compile mode as the
    switch that stands for it (`test_cudnn_benchmark_with_static_shapes_asks_nothing`: without, nothing)."""
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": EMA}), TARGETS, jobs=1))
    found = {(f.rule, f.span.line) for f in _tune(report)}
    assert found == {("tune-parameter-loop", _line(EMA, "for shadow, p in zip")),
                     ("tune-host-sync", _line(EMA, "if torch.isnan(loss)")),
                     ("tune-cuda-switch", _line(EMA, "cudnn.benchmark")),
                     ("tune-dynamic-shape", _line(EMA, "labelled = y[y >= 0]")),
                     ("tune-dynamic-shape", _line(EMA, "model(x[y >= 0])"))}
    loop = next(f for f in _tune(report) if f.rule == "tune-parameter-loop")
    assert "NpuFused" in loop.verdicts["cann"].suggestion and "FusedAdam" in loop.verdicts["neuware"].suggestion
    assert loop.verdicts["kunlun"].status == Status.UNKNOWN
    switch = next(f for f in _tune(report) if f.rule == "tune-cuda-switch")
    assert "set_compile_mode" in switch.verdicts["cann"].suggestion


def test_a_notebook_training_loop_is_a_step_with_cell_positions(tmp_path):
    cells = ["import torch\nmodel = torch.nn.Linear(4, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
             "for x in [torch.ones(4)] * 3:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n"
             "    print(loss.item())\n"]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
                          for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    report = scan(ScanRequest(write_tree(tmp_path, {"train.ipynb": json.dumps(notebook)}), TARGETS, jobs=1))
    (sync,) = _tune(report, "tune-host-sync")
    assert (sync.span.cell, sync.span.line) == (1, 5)


@pytest.mark.parametrize("code, kind, detail", [
    pytest.param("def f(x, s):\n    keep = s > 0.5\n    return x[keep]\n", TuneKind.MASK_INDEX, "keep", id="mask-name"),
    pytest.param("def f(x):\n    return x[x > 0]\n", TuneKind.MASK_INDEX, "x > 0", id="mask-inline"),
    pytest.param("def f(x, m):\n    return x[~m.bool(), :]\n", TuneKind.MASK_INDEX, "~m.bool()", id="mask-tuple"),
    pytest.param("import torch\ndef f(x):\n    if torch.isinf(x).any():\n        pass\n", TuneKind.TENSOR_BRANCH,
                 "torch.isinf(x).any()", id="branch-any"),
    pytest.param("import torch\ndef f(x):\n    t = x.sum()\n    print('total', t)\n", TuneKind.TENSOR_PRINT, "t",
                 id="print-reduction"),
    pytest.param("def f(m):\n    for p in m.parameters():\n        p.data.mul_(0.9)\n", TuneKind.PARAMETER_LOOP,
                 "m.parameters()", id="param-loop"),
])
def test_step_reader_finds(code, kind, detail):
    facts = step_facts(ast.parse(code), "m")
    assert [(s.kind, s.detail) for s in facts.sites] == [(kind, detail)]


@pytest.mark.parametrize("code", [
    pytest.param("def f(x, m):\n    x[m > 0] = 0\n    return x\n", id="mask-write-keeps-the-shape"),
    pytest.param("def f(xs, n):\n    return xs[len(xs) > n]\n", id="python-bool-index"),
    pytest.param("def f(d):\n    return d['key' == 'key']\n", id="constant-compare"),
    pytest.param("def f(step, x):\n    if step > 3:\n        print(step, x.shape)\n", id="int-branch-and-shape"),
    pytest.param("def f(loss):\n    if loss is None:\n        return\n", id="is-none"),
    pytest.param("def f(m):\n    for p in m.parameters():\n        p.requires_grad_(False)\n", id="freeze-loop"),
    pytest.param("import numpy as np\ndef f(a):\n    if np.isnan(a).any():\n        pass\n", id="numpy-branch"),
])
def test_step_reader_leaves_alone(code):
    facts = step_facts(ast.parse(code), "m")
    assert facts is None or facts.sites == ()


@pytest.mark.parametrize("code, loop_line, steps", [
    pytest.param("def train(l, m, o):\n    for x in l:\n        m(x).backward()\n        o.step()\n", 2, (),
                 id="plain-loop"),
    pytest.param("def train(l, m, o):\n    for batch in l:\n        for micro in batch:\n"
                 "            m(micro).backward()\n        o.step()\n", 2, (), id="accumulation-widens-to-the-step"),
    pytest.param("class T:\n    def run_step(self, x):\n        self.model(x).backward()\n", None, ("m.T.run_step",),
                 id="step-function"),
    pytest.param("def fit(s, o):\n    while True:\n        s.scale(o.loss()).backward()\n", 2, (), id="while-loop"),
])
def test_step_reader_finds_the_training_loop(code, loop_line, steps):
    facts = step_facts(ast.parse(code), "m")
    assert [loop.span.line for loop in facts.loops] == ([loop_line] if loop_line else [])
    assert facts.steps == steps


TRACED = '''
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 1)

    def forward(self, x):
        keep = x[:, 0] > 0
        return self.fc(x[keep]).mean()


def main():
    torch.manual_seed(0)
    model = Head().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        loss = model(torch.randn(64, 8, device="cuda"))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
'''


def test_a_traced_run_ranks_and_confirms_the_tune_findings(tmp_path):
    pytest.importorskip("torch", reason="torch==2.13.0 is not installed (.ci/run installs it)")
    import sys

    from migrator.trace.run import trace_command

    root = write_tree(tmp_path, {"train.py": TRACED})
    document = trace_command([sys.executable, "train.py"], root, steps=3, limit=120).document
    report = scan(ScanRequest(root, TARGETS, jobs=1, trace=(document, "trace.json")))
    found = {f.snippet: f for f in _tune(report)}
    mask, item = found["x[keep]"], found["loss.item()"]
    for finding in (mask, item):
        assert finding.confidence.value == "traced" and finding.measured is not None
    assert item.measured.host_transfers >= 1 and item.measured.calls_per_step == pytest.approx(1.0, abs=0.5)
    assert mask.measured.shapes >= 2  # a random mask selects a different number of rows each step
    listed = CliRunner().invoke(main, ["scan", str(root), "--trace", str(_write(tmp_path, document)), "--no-cache",
                                       "--color", "never", "--show", "tune"])
    assert "calls/step" in listed.output, listed.output


def _write(tmp_path, document):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_speed_switch_is_one_piece_of_advice_the_tuning_finding_gives(tmp_path):
    code = "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": code}), TARGETS, jobs=1))
    (switch,) = _tune(report, "tune-cuda-switch")
    (flag,) = [f for f in report.judged if f.rule == "device-call"]
    # a plain flag every torch build has: set and unread on the MLU, nothing breaks; the MLU's own switch is advice
    assert flag.verdicts["neuware"].status == Status.SUPPORTED and flag not in report.findings
    assert switch.verdicts["neuware"].status == Status.PARTIAL and "mlu" in switch.verdicts["neuware"].suggestion
    assert switch.verdicts["cann"].status == Status.PARTIAL and "allow_hf32" in switch.verdicts["cann"].suggestion



# timm's optim_factory (the Ascend port swaps its SGD for NpuFusedSGD) and a plain AdamW, as training code builds them
OPTIMIZERS = """import torch
from torch import optim


def build(model, opt_args, kind):
    if kind == "sgd":
        return optim.SGD(model.parameters(), momentum=0.9, nesterov=True, **opt_args)
    if kind == "plain":
        return optim.SGD(model.parameters(), momentum=0.9)
    if kind == "lbfgs":
        return optim.LBFGS(model.parameters())
    return torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)


if __name__ == "__main__":
    build(torch.nn.Linear(2, 2), {}, "sgd")
"""


@pytest.mark.parametrize("line, suggestion, said", [
    pytest.param(7, "torch_npu.optim.NpuFusedSGD(model.parameters(), momentum=0.9, nesterov=True, **opt_args)",
                 "the keywords in `**opt_args` must be among those", id="sgd-kwargs-to-check"),
    pytest.param(9, "torch_npu.optim.NpuFusedSGD(model.parameters(), momentum=0.9)",
                 "NpuFusedSGD has no default learning rate: pass lr", id="sgd-without-lr"),
    pytest.param(12, "torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-3)",
                 "drop `foreach=`: NpuFusedAdamW has no such argument", id="adamw-drops-foreach"),
])
def test_an_optimizer_the_target_ships_fused_is_suggested_with_its_arguments_mapped(tmp_path, line, suggestion,
                                                                                  said):
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": OPTIMIZERS}), TARGETS, jobs=1))
    found = {f.span.line: f for f in _tune(report, "tune-unfused-optimizer")}
    assert set(found) == {7, 9, 12}  # not LBFGS, which no vendor fuses
    cann = found[line].verdicts["cann"]
    assert cann.status == Status.PARTIAL and cann.suggestion == suggestion and said in cann.message
    assert found[line].verdicts["neuware"].status == Status.PARTIAL  # torch_mlu.optimizers: no mapping of its own


WRAPPERS = '''
import torch


def nonzero_tuple(x):
    """detectron2's: a scriptable ``x.nonzero(as_tuple=True)``."""
    return x.nonzero().unbind(1)
'''

SAMPLED_HEAD = '''
import torch

from wrappers import nonzero_tuple


class Head(torch.nn.Module):
    def forward(self, labels, deltas):
        fg_inds = nonzero_tuple(labels > 0)[0]
        return deltas[fg_inds].abs().mean()


def train(loader):
    model = Head().cuda()
    for labels, deltas in loader:
        model(labels.cuda(), deltas.cuda()).backward()


if __name__ == "__main__":
    train([])
'''


def test_a_call_of_the_projects_own_nonzero_helper_is_a_data_dependent_shape_where_it_is_called(tmp_path):
    report = scan(ScanRequest(write_tree(tmp_path, {"wrappers.py": WRAPPERS, "train.py": SAMPLED_HEAD}), TARGETS,
                              jobs=1))
    shapes = {(f.path, f.span.line): f for f in _tune(report, "tune-dynamic-shape")}
    site = shapes["train.py", _line(SAMPLED_HEAD, "fg_inds = nonzero_tuple")]
    assert site.api == "wrappers.nonzero_tuple" and "`nonzero_tuple` does" in site.verdicts["cann"].message
    assert ("wrappers.py", _line(WRAPPERS, "return x.nonzero()")) in shapes  # the cause, on the step through it


def test_an_expression_too_deep_for_the_step_reader_leaves_the_rest_of_the_file_and_the_scan(tmp_path):
    deep = " & ".join(["(a > 0)"] * 400)  # libcst reads it; the step reader's recursion does not
    code = f"import torch\n\n\ndef f(a, x):\n    m = {deep}\n    return x[m].cuda()\n"
    report = scan(ScanRequest(write_tree(tmp_path, {"deep.py": code, "train.py": EMA}), TARGETS, jobs=1))
    (deep_file,) = [r for r in report.files if r.file.rel == "deep.py"]
    assert deep_file.status.value == "ok" and "training-step reading left out" in deep_file.reason
    assert [f.api for f in report.findings if f.path == "deep.py"] == ["torch.Tensor.cuda"]
    assert _tune(report, "tune-parameter-loop")  # the other file's step is read


def test_a_project_rule_that_raises_costs_its_findings_not_the_scan(tmp_path, monkeypatch):
    from migrator.rules.tune.host_sync import HostSync

    def broken(self, *args):
        raise KeyError("a bug")

    monkeypatch.setattr(HostSync, "findings", broken)
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": EMA}), TARGETS, jobs=1))
    assert report.rule_errors == ("rule tune-host-sync failed: KeyError: 'a bug'",)
    assert _tune(report, "tune-parameter-loop") and not _tune(report, "tune-host-sync")
    listed = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-cache", "--color", "never"])
    assert listed.exit_code == 0 and "Rules that failed" in listed.output


FAIRSEQ_LIKE = {
    "trainer.py": '''
import torch


class Trainer:
    def __init__(self, task, optimizer):
        self.task = task
        self.optimizer = optimizer

    def train_step(self, sample):
        loss = self.task.train_step(sample, self.optimizer)
        self.optimizer.clip_grad_norm(1.0)
        self.optimizer.step()
        return loss
''',
    "task.py": '''
import torch


class Task:
    def train_step(self, sample, optimizer):
        loss = sample.sum()
        optimizer.backward(loss)
        return loss
''',
    "optim.py": '''
import torch


class Scaler:
    def check_overflow(self, grad_norm):
        if grad_norm == float("inf") or grad_norm != grad_norm:
            raise OverflowError


class FP16Optimizer:
    def __init__(self):
        self.scaler = Scaler()

    def backward(self, loss):
        loss.backward()

    def clip_grad_norm(self, max_norm):
        grad_norm = torch.nn.utils.clip_grad_norm_([], max_norm)
        self.scaler.check_overflow(grad_norm)
''',
    "train.py": '''
from optim import FP16Optimizer
from task import Task
from trainer import Trainer


def main(batches):
    trainer = Trainer(Task(), FP16Optimizer())
    for sample in batches:
        trainer.train_step(sample)


if __name__ == "__main__":
    main([])
''',
}


def test_a_trainers_step_reaches_the_overflow_check_behind_attributes_the_graph_cannot_type(tmp_path):
    """fairseq's shape: the loop calls Trainer.train_step, which calls its task's train_step (the backward) and
    its optimizer's clip_grad_norm, which asks its scaler whether the norm overflowed: a tensor read back."""
    report = scan(ScanRequest(write_tree(tmp_path, FAIRSEQ_LIKE), TARGETS, jobs=1))
    (check,) = [f for f in _tune(report, "tune-host-sync") if f.path == "optim.py"]
    assert check.snippet == "grad_norm == float('inf') or grad_norm != grad_norm"
    assert "Trainer.train_step" in check.verdicts["cann"].message


def test_cudnn_benchmark_with_static_shapes_asks_nothing(tmp_path):
    masked = "        labelled = y[y >= 0]  # a data-dependent shape: what Ascend's compile mode is for\n"
    static = EMA.replace(masked, "")
    tree = write_tree(tmp_path, {"train.py": static.replace("model(x[y >= 0]), labelled", "model(x), y")})
    report = scan(ScanRequest(tree, TARGETS, jobs=1))
    assert not _tune(report, "tune-dynamic-shape") and not _tune(report, "tune-cuda-switch")
    (ported,) = [f for f in report.judged if f.api == "torch.backends.cudnn.benchmark"]
    assert ported.rule == "device-call"  # the porting finding stands; the tuning one had nothing to ask


@pytest.mark.parametrize("code, loop_line", [
    pytest.param("def fit(m, l, o, s):\n    for epoch in range(3):\n        s.step()\n        for x in l:\n"
                 "            m(x).backward()\n            o.step()\n", 4, id="epoch-loop-stepping-a-scheduler"),
    pytest.param("def fit(m, l, env):\n    while True:\n        env.step(0)\n        for x in l:\n"
                 "            m(x).backward()\n", 4, id="rl-loop-stepping-an-env"),
])
def test_an_epoch_loop_that_steps_no_optimizer_is_not_the_step(code, loop_line):
    facts = step_facts(ast.parse(code), "m")
    assert [loop.span.line for loop in facts.loops] == [loop_line]


@pytest.mark.parametrize("code", [
    pytest.param("def f(x, compute_aux_loss=False):\n    if compute_aux_loss:\n        pass\n", id="flag-parameter"),
    pytest.param("def f(m):\n    n = m.sum().item()\n    n = m.sum()\n    if n > 0:\n        pass\n",
                 id="read-back-name"),
])
def test_a_python_value_named_like_a_tensor_is_no_branch_on_the_device(code):
    facts = step_facts(ast.parse(code), "m")
    assert facts is None or not [s for s in facts.sites if s.kind == TuneKind.TENSOR_BRANCH]


PATTERNS = '''
import time

import torch


def train(model, loader, optimizer):
    model = model.cuda()
    losses = []
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        start = time.perf_counter()
        loss = model(x).sub(y).abs().mean()
        if torch.isnan(loss).any():
            continue
        loss.backward()
        optimizer.step()
        count = (y > 0).sum().item()
        scale = loss.detach() / max(count, 1)
        losses.append(loss.item())
        pad = torch.zeros(2, 2)
        sizes = pad[0].tolist()
        torch.cuda.synchronize()
        print("step took", time.perf_counter() - start, scale, sizes)
    try:
        optimizer.step()
    except RuntimeError:
        print(loss.item())


if __name__ == "__main__":
    train(torch.nn.Linear(2, 2), [], None)
'''


def test_each_host_sync_pattern_gets_its_own_advice_and_a_host_tensor_none(tmp_path):
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": PATTERNS}), TARGETS, jobs=1))
    advice = {f.snippet: f.verdicts["cann"].suggestion for f in _tune(report, "tune-host-sync")}
    assert "torch.where" in advice["torch.isnan(loss).any()"]  # a branch: decide on the device
    assert "n.clamp(min=1)" in advice["(y > 0).sum().item()"]  # a value the math goes on with
    assert "accumulate" in advice["loss.item()"]  # kept for the log
    assert "Event(enable_timing=True)" in advice["torch.cuda.synchronize()"]  # timing
    assert "pad[0].tolist()" not in advice  # a tensor made on the host: nothing to wait for
    handler = _line(PATTERNS, "print(loss.item())")  # an except handler runs when a step fails, not each step
    assert not [f for f in _tune(report) if f.span.line == handler]


def test_a_cpu_only_script_has_no_host_syncs(tmp_path):
    cpu = PATTERNS.replace("    model = model.cuda()\n", "").replace("        x, y = x.cuda(), y.cuda()\n", "") \
        .replace("        torch.cuda.synchronize()\n", "")
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": cpu}), TARGETS, jobs=1))
    assert not _tune(report)


def test_a_numpy_array_read_back_and_a_torchscript_branch_cost_nothing(tmp_path):
    code = PATTERNS.replace("        pad = torch.zeros(2, 2)\n",
                            '        pad = np.frombuffer(b"1234", dtype=np.uint8).reshape(2, 2)\n') \
        .replace("import torch\n", "import numpy as np\nimport torch\n", 1) \
        .replace("        scale = loss.detach() / max(count, 1)\n",
                 "        scale = loss.detach() / max(count, 1)\n        if torch.jit.is_scripting():\n"
                 "            scale = scale.double()\n")
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": code}), TARGETS, jobs=1))
    assert not [f for f in _tune(report) if "pad" in f.snippet or f.rule == "tune-float64"]
    assert _tune(report, "tune-host-sync")


SELF_STEP = '''
import torch


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model.cuda()
        self.optimizer = optimizer

    def train_step(self, batch):
        loss = self.model(batch.cuda()).mean()
        self.update(loss)
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        if not torch.isfinite(grad_norm):
            return None
        self.optimizer.step()
        return loss

    def update(self, loss):
        self.optimizer.zero_grad()
        loss.backward()

    def evaluate(self, loader):
        return [self.model(batch.cuda()).argmax(-1).tolist() for batch in loader]

    def fit(self, loader):
        for batch in loader:
            self.train_step(batch)
        self.evaluate(loader)


if __name__ == "__main__":
    Trainer(torch.nn.Linear(2, 2), None).fit([])
'''


def test_a_trainers_own_step_called_on_self_is_the_step_and_its_evaluation_is_not(tmp_path):
    report = scan(ScanRequest(write_tree(tmp_path, {"train.py": SELF_STEP}), TARGETS, jobs=1))
    (check,) = _tune(report)
    assert check.snippet == "not torch.isfinite(grad_norm)" and "Trainer.train_step" in check.verdicts["cann"].message


@pytest.mark.parametrize("text, moves", [
    pytest.param("x = x.to(device)\n", True, id="device-argument"),
    pytest.param("model.cuda()\n", True, id="cuda-call"),
    pytest.param("torch.npu.synchronize()\n", True, id="npu-word"),
    pytest.param("fabric = Fabric()\n", True, id="lightning-fabric"),
    pytest.param("if torch.backends.mps.is_available(): pass\n", True, id="mps-word"),
    pytest.param("subdevice = 1\nrunmps = 2\nxmlu = 3\n", False, id="words-only-inside-others"),
    pytest.param("loss = (x - y).pow(2).mean()\n", False, id="host-only"),
])
def test_a_module_moves_to_a_device_as_its_device_words_say(text, moves):
    """``moves_to_a_device`` searches the plain words with ``str`` and the word-start ones with a regular
    expression: together, exactly what the one expression ``_DEVICE_WORDS`` says."""
    from migrator.sources.step import _DEVICE_WORDS, moves_to_a_device

    assert moves_to_a_device(text) is moves
    assert moves is (_DEVICE_WORDS.search(text) is not None)


@pytest.mark.parametrize("scope, loss", [
    ("pkg.losses.focal_loss", True),
    ("pkg.losses.HuberQLoss.__call__", True),
    # pyro's distributions and inference: what a probabilistic model's loss is made of
    ("pkg.dist.Gamma.log_prob", True),
    ("pkg.infer.trace_elbo_loss", True),
    ("pkg.heads.nll", True),
    # a word inside another word is not it
    ("pkg.cluster.plot_elbow", False),
    ("pkg.io.unlloaded", False),
    ("pkg.models.Net.forward", False),
])
def test_a_function_named_for_a_loss_computes_every_step(scope, loss):
    assert computes_a_loss(scope) == loss
