"""One vocabulary of counts (issue 45): the scan counts the shared numbers once (``vocabulary.py``) and the
text, the page, the JSON and SARIF all say the same ones."""

import io
import json
import re

import pytest

from migrator.maps.load import resolve_targets
from migrator.pipeline import ScanRequest, scan
from migrator.report import View, html, sarif, text
from migrator.report import json as json_format

from .conftest import REPO, write_tree

#: the page's per-target keys and where the JSON summary keeps each
_TARGET_KEYS = {"readiness": ("readiness",), "readiness_after_fix": ("readiness_after_fix",), "hours": ("hours",),
                "days": ("days",), "blockers_on_path": ("blockers", "on_path"),
                "blockers_off_path": ("blockers", "off_path"), "ports_on_path": ("ports", "on_path"),
                "ports_off_path": ("ports", "off_path"), "certain": ("certain",), "substitute": ("substitute",),
                "to_validate": ("to_validate",), "data_gaps": ("data_gaps",), "automatic": ("automatic",),
                "manual": ("manual",), "readiness_before_ports": ("before_ports", "readiness"),
                "hours_before_ports": ("before_ports", "hours")}


def _views(report):
    out = {}
    for name, module in (("text", text), ("html", html), ("json", json_format), ("sarif", sarif)):
        buffer = io.StringIO()
        module.render(report, buffer, View())
        out[name] = buffer.getvalue()
    return out


def _flat(summary):
    """The JSON summary under the keys the page's ``<data>`` elements carry."""
    flat = {key: summary[key] for key in ("files_scanned", "findings", "at_cause", "on_path", "off_path", "tuning",
                                          "runs_as_written", "to_validate", "data_gaps")}
    flat["closest"] = summary["closest"]["target"] if summary["closest"] else None
    for target in summary["targets"]:
        for key, path in _TARGET_KEYS.items():
            value = target
            for part in path:
                value = value[part]
            flat[f"{target['id']}.{key}"] = value
    return flat


def _page_numbers(page):
    numbers = {}
    for key, value in re.findall(r'<data class="n" data-key="([^"]+)" value="([^"]*)">', page):
        parsed = None if value == "null" else json.loads(value) if re.fullmatch(r"-?[\d.]+", value) else value
        assert numbers.setdefault(key, parsed) == parsed, key  # the page says each number one way
    return numbers


def test_text_page_json_and_sarif_say_the_same_numbers_of_a_real_project():
    report = scan(ScanRequest(REPO / "examples" / "llm_trainer", resolve_targets(None), jobs=1, cache=None))
    views = _views(report)
    document, log = json.loads(views["json"]), json.loads(views["sarif"])
    summary = document["summary"]
    assert log["runs"][0]["properties"]["migrator"] == summary
    # the JSON's own lists agree with its summary
    assert summary["runs_as_written"] == document["coverage"]["counted"]
    assert summary["to_validate"] == sum(r["counted"] for r in document["validate"] if r["category"] != "tune")
    assert summary["data_gaps"] == sum(r["counted"] for r in document["data_gaps"] if r["category"] != "tune")
    for target, said, plan in zip(document["targets"], summary["targets"], document["plan"]):
        assert target["readiness"] == said["readiness"] == plan["readiness_now"]
        assert target["effort"]["total_hours"] == said["hours"]
        on = [b for b in target["blockers"] if b["reachable"] is not False]
        assert (len(on), len(target["blockers"]) - len(on)) == (said["blockers"]["on_path"],
                                                                said["blockers"]["off_path"])
        assert said["phases"][-1]["cumulative_hours"] == pytest.approx(said["hours"], abs=0.06)
    # the page: every number it marks is the summary's, and it marks all but the conditional ones
    flat, page = _flat(summary), _page_numbers(views["html"])
    assert page.items() <= flat.items()
    assert set(flat) - set(page) <= {f"{t['id']}.{key}" for t in summary["targets"]
                                     for key in ("readiness_before_ports", "hours_before_ports")}
    # the text
    said = views["text"]
    head = re.search(r"(\d+) files scanned, (\d+) findings \((\d+) in training code at their cause", said)
    assert head and tuple(map(int, head.groups())) == (summary["files_scanned"], summary["findings"],
                                                       summary["at_cause"])
    assert f"{summary['runs_as_written']} more uses in training code run as written" in said
    for target in summary["targets"]:
        block = said[said.index(f"\n{target['id']}@"):]
        assert re.match(rf"\n{target['id']}@[^\n]*?\): readiness {target['readiness']}%", block)
        blockers = re.search(r"blockers: (\d+) on the training path, (\d+) off it \((\d+) ports? on it, (\d+) off",
                             block)
        assert blockers and tuple(map(int, blockers.groups())) == (
            target["blockers"]["on_path"], target["blockers"]["off_path"], target["ports"]["on_path"],
            target["ports"]["off_path"])
    assert f"Closest runtime: {summary['closest']['target']}: {summary['closest']['why']}" in said


@pytest.mark.parametrize("files", [
    pytest.param({}, id="empty-folder"),
    pytest.param({"tools/fmt.py": "import json\n\n\ndef main():\n    print(json.dumps({'a': 1}))\n"}, id="torch-free"),
])
def test_nothing_to_assess_is_null_readiness_in_every_view(tmp_path, files):
    write_tree(tmp_path, files)
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1, cache=None))
    views = _views(report)
    document = json.loads(views["json"])
    assert [t["readiness"] for t in document["targets"]] == [None] * 3
    assert [t["readiness"] for t in document["summary"]["targets"]] == [None] * 3
    assert document["summary"]["closest"] is None and [p["readiness_now"] for p in document["plan"]] == [None] * 3
    assert json.loads(views["sarif"])["runs"][0]["properties"]["migrator"]["closest"] is None
    assert views["text"].count("nothing to assess") == 3 and "None%" not in views["text"]
    assert "<strong>Nothing to assess</strong>" in views["html"] and "None%" not in views["html"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json.loads((REPO / "reports" / "schema" / "report.schema.json").read_text()))


def test_the_closest_runtime_weighs_substitute_evidence_and_says_why(scan_tree):
    """Kunlun runs `.cuda()` as written and reads 100% ready, but its op verdicts rest on Paddle's kernel list:
    the closest runtime is one judged on its own data, and the reason names what was passed over."""
    report = scan_tree({"train.py": (
        "import torch\nimport torch.nn.functional as F\n\n\ndef step(model, batch):\n"
        "    x = batch.cuda()\n    h = F.gelu(model(x))\n    h = F.layer_norm(h, h.shape[-1:])\n"
        "    h = torch.softmax(h, dim=-1)\n    h = torch.cumsum(F.silu(h), dim=0)\n"
        "    loss = F.cross_entropy(h, batch)\n    loss.backward()\n    return loss\n\n\n"
        "if __name__ == '__main__':\n    step(torch.nn.Linear(4, 4), torch.ones(4, 4))\n")})
    numbers = report.tally
    kunlun = next(t for t in numbers.targets if t.id == "kunlun")
    assert kunlun.readiness == max(t.readiness for t in numbers.targets) and kunlun.uncertain_share > 0.5
    assert kunlun.substitute > 0 and numbers.closest in ("cann", "neuware")
    assert "kunlun reads" in numbers.closest_why and "substitute data" in numbers.closest_why


#: what the flow derives for the views (``pipeline/finish.py``), apart from what the stages judged
_CARRIED = ("tally", "plans", "coverage", "validate_by_api", "gaps_by_api", "tuning", "at_cause", "notes_said", "rules",
            "base")


def test_a_report_made_by_hand_renders_once_finished_as_the_flow_finishes_it(example_report):
    """The views derive nothing (``tests/test_layers.py`` keeps them from importing what computes): a report made
    by hand with only what the stages judged is refused by every view until ``pipeline.finish`` derives what they
    say; then every format is, byte for byte, the flow's."""
    from dataclasses import fields

    from migrator.model import Report
    from migrator.pipeline.finish import finish

    assert example_report.plans and example_report.coverage and example_report.tuning and example_report.notes_said
    made = Report(**{f.name: getattr(example_report, f.name) for f in fields(Report) if f.name not in _CARRIED})
    for module in (text, html, json_format, sarif):
        with pytest.raises(ValueError, match="finish"):
            module.render(made, io.StringIO(), View())
    finished = finish(made)
    assert _views(finished) == _views(example_report)
    for show in ("all", "tune"):
        said, flows = io.StringIO(), io.StringIO()
        text.render(finished, said, View(show=show))
        text.render(example_report, flows, View(show=show))
        assert said.getvalue() == flows.getvalue()
