"""A function only CUDA's branches call: its device findings are sites of the test it is called under
(``graph/cuda_callers.py``), the way a use in the test's own body is; one called anywhere else keeps its own."""

from __future__ import annotations

import ast
import textwrap

import pytest

from migrator.assess import counted
from migrator.sources.outline import outline_of

_HELPER = """
import torch


def _capability():
    return torch.cuda.get_device_capability()
"""

#: (id, the caller's body, whether the helper's finding is a site of the caller's test)
_CALLERS = [
    ("in-is-available-body", """
def precision():
    if torch.cuda.is_available():
        return "bf16" if _capability()[0] >= 8 else "fp16"
    return "fp32"
""", True),
    ("after-a-raise-off-cuda", """
def precision():
    if not torch.cuda.is_available():
        raise RuntimeError("the batch-size probe needs CUDA")
    return _capability()
""", True),
    ("in-else-of-a-negated-test", """
def precision():
    if not torch.cuda.is_available():
        return "fp32"
    else:
        return _capability()
""", True),
    ("in-a-cuda-tensors-branch", """
def precision(x):
    if x.is_cuda:
        return _capability()
    return None
""", True),
    ("through-a-cuda-only-helper", """
def _native():
    return _capability()[0] >= 8


def precision():
    if torch.cuda.is_available():
        return "bf16" if _native() else "fp16"
    return "fp32"
""", True),
    ("after-an-and-with-the-test", """
def precision():
    if torch.cuda.is_available() and _capability()[0] < 8:
        return "fp16"
    return "fp32"
""", True),
    # stylegan3's ``_filtered_lrelu_cuda()``: the autograd Function it builds calls it again in ``backward``
    ("called-again-from-what-it-defines", """
def _fused(x):
    class Fused(torch.autograd.Function):
        @staticmethod
        def forward(ctx, y):
            return y * _capability()[0]

        @staticmethod
        def backward(ctx, g):
            return _fused(g).apply(g)
    return Fused


def precision(x):
    if x.is_cuda:
        return _fused(x).apply(x)
    return x
""", True),
    ("also-called-unguarded", """
def precision():
    if torch.cuda.is_available():
        _capability()
    return _capability()
""", False),
    ("in-the-else-branch", """
def precision():
    if torch.cuda.is_available():
        return "fp16"
    else:
        return _capability()
""", False),
    ("after-a-test-that-does-not-leave", """
def precision():
    if not torch.cuda.is_available():
        print("no CUDA")
    return _capability()
""", False),
]

_TRAIN = """
from pkg.helpers import precision


def main():
    print(precision())


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("caller, site", [c[1:] for c in _CALLERS], ids=[c[0] for c in _CALLERS])
def test_a_helper_only_cuda_branches_call_is_a_site_of_their_test(scan_tree, caller, site):
    report = scan_tree({"pkg/__init__.py": "", "pkg/helpers.py": _HELPER + caller, "train.py": _TRAIN})
    capability = next(f for f in report.judged if f.api == "torch.cuda.get_device_capability")
    if not site:
        assert capability.root is None
        assert capability in counted(report.judged)
        return
    test = next(f for f in report.judged if f.id == capability.root)
    assert test.path == "pkg/helpers.py" and test.api in ("torch.cuda.is_available", "torch.Tensor.is_cuda")
    assert test.scope.endswith("precision")
    assert capability not in counted(report.judged)


_PREDICATES = """
import torch


def fused_available():
    return HAVE_KERNELS and torch.cuda.is_available()


def sm120_available():
    if not torch.cuda.is_available():
        return False
    return torch.cuda.get_device_capability()[0] == 12


def kernels_enabled():
    return HAVE_KERNELS


def use_custom_op(x):
    if x.device.type != "cuda":
        return False
    return HAVE_KERNELS
"""


@pytest.mark.parametrize("test, site", [
    # axolotl's SinkGD step: `if fused_available() and p.is_cuda: fused_sinkgd_step(p)`, the predicate in another
    # module
    pytest.param("fused_available() and x.numel() > 0", True, id="a-predicate-returning-the-test"),
    pytest.param("sm120_available()", True, id="a-predicate-that-returns-false-off-cuda"),
    pytest.param("kernels_enabled()", False, id="a-predicate-that-asks-no-cuda-question"),
    # stylegan3's conv2d_gradfix: ``if _should_use_custom_op(input):``, False for a tensor off CUDA
    pytest.param("use_custom_op(x)", True, id="a-predicate-over-a-tensor"),
])
def test_a_helper_called_under_another_modules_cuda_predicate_is_a_site_of_its_question(scan_tree, test, site):
    caller = (f"from pkg.predicates import fused_available, kernels_enabled, sm120_available, use_custom_op\n"
              f"from pkg.helpers import _capability\n\n\ndef step(x):\n    if {test}:\n        return _capability()\n"
              "    return x\n")
    train = _TRAIN.replace("from pkg.helpers import precision", "from pkg.step import step as precision")
    report = scan_tree({"pkg/__init__.py": "", "pkg/helpers.py": _HELPER, "pkg/predicates.py": _PREDICATES,
                        "pkg/step.py": caller, "train.py": train.replace("precision()", "precision(1)")})
    capability = next(f for f in report.judged if f.api == "torch.cuda.get_device_capability"
                      and f.path == "pkg/helpers.py")
    if not site:
        assert capability.root is None
        return
    question = next(f for f in report.judged if f.id == capability.root)
    assert question.path == "pkg/predicates.py"
    assert question.api == ("torch.device" if "use_custom_op" in test else "torch.cuda.is_available")


def test_an_operator_in_a_cuda_only_helper_keeps_its_own_verdict(scan_tree):
    """A runtime that keeps CUDA's names takes the branch and runs the operator: its verdict is its own."""
    helpers = """
import torch


def _reference(x):
    torch.cuda.synchronize()
    return torch.nextafter(x, x + 1)


def step(x):
    if x.is_cuda:
        return _reference(x)
    return x
"""
    report = scan_tree({"pkg/__init__.py": "", "pkg/helpers.py": helpers,
                        "train.py": "from pkg.helpers import step\n\nif __name__ == '__main__':\n    step(None)\n"})
    synchronize = next(f for f in report.judged if f.api == "torch.cuda.synchronize")
    assert synchronize.root is not None
    operator = [f for f in report.judged if f.api == "torch.nextafter"]
    assert operator and all(f.root is None for f in operator)


@pytest.mark.parametrize("code, lines", [
    ("if torch.cuda.is_available():\n    f()\ng()\n", {"f": 1, "g": 0}),
    ("if x.device.type == 'cuda' and ok:\n    f()\nelse:\n    g()\n", {"f": 1, "g": 0}),
    ("if x.device.type != 'cuda':\n    return g()\nf()\n", {"f": 1, "g": 0}),
    ("if not torch.cuda.is_available():\n    g()\nf()\n", {"f": 0, "g": 0}),
    ("if not torch.cuda.is_available() or x.device.type != 'cuda':\n    raise RuntimeError(g())\nf()\n",
     {"f": 1, "g": 0}),
    ("if torch.cuda.is_available() or other:\n    g()\n", {"g": 0}),
    ("is_cuda = x.is_cuda\nif is_cuda:\n    f()\ng()\n", {"f": 1, "g": 0}),
    ("is_cuda = x.is_cuda\nis_cuda = ok\nif is_cuda:\n    f()\n", {"f": 0}),
    ("if x.is_cuda:\n    fn = f\nelse:\n    fn = g\nfn()\n", {"f": 1, "g": 0}),
    ("fn = g\nif x.is_cuda:\n    fn = f\nfn = g\nfn()\n", {"g": 0}),
], ids=["body", "and-with-a-device-type", "after-leaving-off-cuda", "negated-not-leaving", "raise-on-either-negation",
     "or-is-no-cuda-test", "a-flag-bound-to-the-test", "a-flag-rebound", "an-alias-bound-in-the-branch",
     "an-alias-rebound-after-the-branch"])
def test_the_outline_says_which_calls_a_cuda_test_makes(code, lines):
    source = "import torch\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n\n\ndef run(x, ok, other):\n" \
        + textwrap.indent(code, "    ")
    outline = outline_of(ast.parse(source), "mod", False)
    made: dict = {}
    for call in outline.calls:  # a name called at several places: the largest test line (0 when none is)
        if hasattr(call.target, "name"):
            name = call.target.name.rpartition(".")[2]
            made[name] = max(made.get(name, 0), call.cuda_test)
    assert {name: made[name] for name in lines} == {name: (13 if line == 1 else line) for name, line in lines.items()}


def test_a_predicates_branch_is_the_same_from_a_saved_graph(tmp_path):
    """The predicates travel with the saved graph: a scan that takes the graph from the cache (lines moved)
    roots the helper's finding at the predicate's question, as a scan without a cache does."""
    from migrator.engine.cache import open_cache
    from migrator.maps.load import resolve_targets
    from migrator.pipeline import ScanRequest, scan

    from .conftest import write_tree

    caller = ("from pkg.predicates import fused_available\nfrom pkg.helpers import _capability\n\n\n"
              "def step(x):\n    if fused_available():\n        return _capability()\n    return x\n")
    train = _TRAIN.replace("from pkg.helpers import precision", "from pkg.step import step as precision")
    src = write_tree(tmp_path / "src", {"pkg/__init__.py": "", "pkg/helpers.py": _HELPER,
                                        "pkg/predicates.py": _PREDICATES, "pkg/step.py": caller,
                                        "train.py": train.replace("precision()", "precision(1)")})
    cache, cann = open_cache(tmp_path / "cache"), resolve_targets(["cann"])
    scan(ScanRequest(src, cann, jobs=1, cache=cache))
    (src / "pkg/step.py").write_text("# moved\n" + caller)
    warm = scan(ScanRequest(src, cann, jobs=1, cache=cache))
    assert warm == scan(ScanRequest(src, cann, jobs=1, cache=None))
    capability = next(f for f in warm.findings if f.api == "torch.cuda.get_device_capability"
                      and f.path == "pkg/helpers.py")
    assert next(f for f in warm.findings if f.id == capability.root).path == "pkg/predicates.py"


#: NeMo's RNN-T losses: the kernel chosen by name in the CUDA branch, the other branch refusing the rest
_LOSS = """
import torch
from pkg import kernels


class TDTLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, acts):
        is_cuda = acts.is_cuda
        if is_cuda:
            loss_func = kernels.tdt_loss_gpu
        else:
            raise ValueError("TDT is not yet implemented for non CUDA computation.")
        costs = torch.zeros(acts.shape[0], device=acts.device)
        loss_func(acts, costs)
        return costs
"""

_KERNELS = """
import torch


def tdt_loss_gpu(acts, costs):
    stream = torch.cuda.current_stream(acts.device)
    return costs
"""


@pytest.mark.parametrize("other, refuses", [
    ('raise ValueError("TDT is not yet implemented for non CUDA computation.")', True),
    ("loss_func = kernels.tdt_loss_reference", False),
], ids=["else-raises", "else-has-a-reference"])
def test_a_kernel_chosen_in_a_cuda_branch_is_a_site_of_its_test_and_a_refusing_else_is_work(scan_tree, other,
                                                                                          refuses):
    loss = _LOSS.replace('raise ValueError("TDT is not yet implemented for non CUDA computation.")', other)
    kernels = _KERNELS + "\n\ndef tdt_loss_reference(acts, costs):\n    return costs\n"
    report = scan_tree({"pkg/__init__.py": "", "pkg/loss.py": loss, "pkg/kernels.py": kernels,
                        "train.py": "import torch\nfrom pkg.loss import TDTLoss\n\nif __name__ == '__main__':\n"
                                    "    TDTLoss.apply(torch.ones(2)).sum().backward()\n"})
    stream = next(f for f in report.judged if f.api == "torch.cuda.current_stream")
    test = next(f for f in report.judged if f.api == "torch.Tensor.is_cuda")
    assert stream.root == test.id and stream not in counted(report.judged)
    assert (test.verdicts["cann"].status.value != "supported") is refuses  # the way the target takes raises


#: di-engine's timers: the CUDA one is a class defined inside the function the CUDA branch calls; the test that
#: calls it sits in a branch an implementation's name already keeps for CUDA (so it is no work itself)
_TIMERS = """
import torch


def get_cuda_time_wrapper():
    class TimeWrapperCuda:
        start_record = torch.cuda.Event(enable_timing=True)

        @classmethod
        def start_time(cls):
            torch.cuda.synchronize()
            cls.start_record.record()

    return TimeWrapperCuda


class TimeWrapperTime:
    @classmethod
    def start_time(cls):
        pass


def build_time_helper(wrapper_type):
    if wrapper_type == "time":
        return TimeWrapperTime
    elif wrapper_type == "cuda":
        if torch.cuda.is_available():
            return get_cuda_time_wrapper()
        else:
            return TimeWrapperTime
    raise KeyError(wrapper_type)
"""


@pytest.mark.parametrize("runs", [False, True], ids=["a-test-that-is-no-work", "a-test-that-is-work"])
def test_what_a_cuda_only_function_defines_runs_only_in_cuda_branches_too(scan_tree, runs):
    timers = _TIMERS if not runs else _TIMERS.replace('    if wrapper_type == "time":\n        return TimeWrapperTime\n'
                                                      '    elif wrapper_type == "cuda":\n', "    if True:\n")
    report = scan_tree({"pkg/__init__.py": "", "pkg/timers.py": timers,
                        "train.py": "from pkg.timers import build_time_helper\n\nif __name__ == '__main__':\n"
                                    "    build_time_helper('cuda').start_time()\n"})
    inside = [f for f in report.judged if f.api in ("torch.cuda.Event", "torch.cuda.synchronize")]
    assert len(inside) == 2 and not any(f in counted(report.judged) for f in inside)
    for finding in inside:  # on cann: a site of the test, or (no test to be a site of) not run at all
        cause = next((f for f in report.judged if f.id == finding.root), finding)
        assert (cause.verdicts["cann"].status.value != "supported") is runs
