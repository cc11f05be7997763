"""`torch.version.cuda` judged by what the target's runtime installs (curated/targets.yaml `torch_version_cuda`,
each with its source): a test on it is never true where the vendor installs the CPU torch wheel."""
import pytest

from migrator.maps.load import resolve_targets, runtime
from migrator.model import Status
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree


@pytest.mark.parametrize("target, line, unset", [
    ("cann", "2.1", True), ("cann", "2.13", True),
    ("neuware", "2.4", True),
    ("neuware", "2.1", False),  # Cambricon ships its own torch wheel for 2.1 / 2.3: no source says
    ("kunlun", None, False),  # torch_xmlir presents itself as CUDA; no source says what its build reports
])
def test_each_runtime_says_only_what_a_source_says(target, line, unset):
    facts = runtime(target).version_cuda_unset(line)
    assert (facts is not None) == unset
    if facts is not None:
        assert "download.pytorch.org/whl/cpu" in facts.quote and "@" in facts.source


def _verdicts(tmp_path, code):
    write_tree(tmp_path, {"train.py": code})
    report = scan(ScanRequest(tmp_path, resolve_targets(None), jobs=1))
    active = {(f.rule, f.span.line) for f in report.findings}
    return {(f.rule, f.span.line): {t: v.status for t, v in f.verdicts.items()} for f in report.judged}, active


def test_a_fused_path_is_off_and_a_cuda_only_path_is_skipped(tmp_path):
    found, active = _verdicts(tmp_path, (
        "import torch\nimport torch.nn.functional as F\n\n"
        "def attend(q, k, v):\n"
        "    if torch.version.cuda is not None:\n"  # line 5: flash_attn has a twin on cann: silently off
        "        from flash_attn import flash_attn_func\n"
        "        return flash_attn_func(q, k, v)\n"
        "    return F.scaled_dot_product_attention(q, k, v)\n\n"
        "def measure():\n"
        "    if torch.version.cuda:\n"  # line 11: only measures the CUDA device: skipping it loses nothing
        "        print(torch.cuda.max_memory_allocated())\n\n"
        "print('built with', torch.version.cuda)\n\n"  # line 14: a read, not a test
        "def make(params):\n    kw = {}\n"
        "    if torch.version.cuda is not None:\n"  # line 18: a flag no data judges: off, to validate
        "        kw['fused'] = True\n    return torch.optim.AdamW(params, **kw)\n"))
    assert found[("version-cuda", 5)]["cann"] == Status.REWRITE
    assert found[("version-cuda", 11)]["cann"] == Status.SUPPORTED
    assert found[("version-cuda", 14)]["cann"] == Status.PARTIAL
    assert found[("version-cuda", 18)]["cann"] == Status.REWRITE
    assert {found[("version-cuda", n)]["kunlun"] for n in (5, 11, 14, 18)} == {Status.UNKNOWN}
    # the flash path has a twin on cann (proof: work); the flag's worth no data says (a note: to validate)
    assert ("version-cuda", 5) in active and ("version-cuda", 18) not in active


def test_a_version_string_test_is_not_the_build_test(tmp_path):
    """The trap: `torch.__version__` and a project's own `cfg.version.cuda` are not torch's build."""
    found, _ = _verdicts(tmp_path, "import torch\n\ndef f(cfg):\n    if cfg.version.cuda:\n        return 1\n"
                                "    return torch.__version__\n")
    assert not [key for key in found if key[0] == "version-cuda"]
