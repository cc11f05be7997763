"""Usages every target runs as written are coverage, not findings: counted in readiness, listed per API."""

from __future__ import annotations

import io
import json

from migrator.report import json as json_report
from migrator.report import text as text_report

TRAIN = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


def main():
    model = Net().cuda()
    x = torch.randn(8, 16).cuda()
    loss = model(x).sum()
    loss.backward()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
"""


def test_a_use_every_target_runs_is_coverage_and_still_counts_in_readiness(scan_tree):
    report = scan_tree({"train.py": TRAIN}, ["cann", "neuware"])
    listed = {f.api for f in report.findings}
    covered = {f.api for f in report.covered}
    assert "torch.nn.Linear" in covered and "torch.nn.Linear" not in listed
    assert {"torch.nn.Module.cuda", "torch.cuda.synchronize"} <= listed  # what must change stays
    assert not covered & listed
    for target in report.targets:
        inputs = target.effort["readiness_inputs"]
        on_path_covered = [f for f in report.covered if f.reachable is not False and f.root is None]
        assert inputs["covered"] == len(on_path_covered) > 0
        assert inputs["runs"] >= inputs["covered"]  # they run: the formula counts them
        assert target.counts["supported"] >= inputs["covered"]


def test_the_json_lists_coverage_per_api_with_every_site(scan_tree):
    report = scan_tree({"train.py": TRAIN, "eval.py": TRAIN.replace("Net", "Head")}, ["cann", "neuware"])
    out = io.StringIO()
    json_report.render(report, out)
    document = json.loads(out.getvalue())
    coverage = document["coverage"]
    assert coverage["usages"] == len(report.covered) == sum(row["uses"] for row in coverage["apis"])
    (linear,) = [row for row in coverage["apis"] if row["api"] == "torch.nn.Linear"]
    assert linear["uses"] == 2 and {s["path"] for s in linear["sites"]} == {"train.py", "eval.py"}
    assert set(linear["sources"]) == {"cann", "neuware"} and all(linear["sources"].values())
    assert {f["id"] for f in document["findings"]}.isdisjoint(s["id"] for row in coverage["apis"]
                                                              for s in row["sites"])


def test_a_target_that_judges_otherwise_keeps_the_finding(scan_tree):
    """``nn.Linear`` under bf16 is partial on cann (its docs list fp16/fp32, a note tied to the project's bf16
    cast, not to the layer's own input): with cann chosen it is to validate, with neuware alone it runs as
    written."""
    bf16 = TRAIN.replace("model = Net().cuda()", "model = Net().cuda().bfloat16()")
    both = scan_tree({"train.py": bf16}, ["cann", "neuware"])
    assert "torch.nn.Linear" in {f.api for f in both.validate}
    assert "torch.nn.Linear" not in {f.api for f in both.covered}
    neuware = scan_tree({"train.py": bf16}, ["neuware"])
    assert "torch.nn.Linear" in {f.api for f in neuware.covered}


def test_a_cause_stays_listed_while_a_target_needs_its_sites_changed(scan_tree):
    """On kunlun ``'cuda'`` is the device's own name: with kunlun alone the device variable and its uses all
    run as written (coverage, the sites still naming their cause); with cann too they are findings, the
    uses sites of the one cause."""
    code = ("import torch\nDEVICE = 'cuda'\n\n\ndef main(model):\n    model.to(DEVICE)\n"
            "    x = torch.zeros(3, device=DEVICE)\n    return x\n")
    both = scan_tree({"train.py": code}, ["kunlun", "cann"])
    (cause,) = [f for f in both.findings if f.span.line == 2]
    sites = [f for f in both.findings if f.root is not None]
    assert [f.span.line for f in sites] == [6, 7] and {f.root for f in sites} == {cause.id}
    assert cause.verdicts["kunlun"].status.value == "supported" != cause.verdicts["cann"].status.value
    alone = scan_tree({"train.py": code}, ["kunlun"])
    assert alone.findings == ()
    by_line = {f.span.line: f for f in alone.covered}
    assert {by_line[6].root, by_line[7].root} == {by_line[2].id}


def test_the_text_report_counts_what_runs_as_written(scan_tree):
    report = scan_tree({"train.py": TRAIN}, ["cann"])
    out = io.StringIO()
    text_report.render(report, out)
    head = out.getvalue().splitlines()[0]
    tuning = [f for f in report.findings if f.category.value == "tune"]  # counted on a line of their own
    assert f"{len(report.findings) - len(tuning)} findings" in head
    in_training = [f for f in report.covered if f.context.value == "training" and f.root is None]
    assert f"{len(in_training)} more uses in training code run as written on every target" in head


def test_a_use_that_runs_but_has_a_vendor_path_to_suggest_stays_a_finding(scan_tree):
    """timm's optional apex: without apex the fallback runs, so every target runs it; the vendors' own
    ports still install Ascend's apex build there, which the verdict suggests: something to act on."""
    code = ("import torch\n\ntry:\n    from apex import amp\n    has_apex = True\nexcept ImportError:\n"
            "    has_apex = False\n\n\ndef main(model, optimizer, use_apex):\n    if use_apex and has_apex:\n"
            "        model, optimizer = amp.initialize(model, optimizer, opt_level='O1')\n"
            "    return model, optimizer\n")
    report = scan_tree({"train.py": code}, ["cann", "neuware"])
    (initialize,) = [f for f in report.findings if f.api == "apex.amp.initialize"]
    assert {v.status.value for v in initialize.verdicts.values()} == {"supported"}
    assert "combine_grad=True" in initialize.verdicts["cann"].suggestion
    assert not [f for f in report.covered if f.api.startswith("apex")]
