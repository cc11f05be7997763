"""What a file's rules read of the project index: every question is noted with its answer, and the findings
stand for another index exactly when it answers the same."""
import pytest

from migrator.model import ExtensionBuild, Span, Value
from migrator.rules.base import ProjectIndex, backend_in
from migrator.pipeline.reads import Answers, recording

NCCL = Value("str", "nccl")
BUILD = ExtensionBuild(name="pkg._ext", api="torch.utils.cpp_extension.CUDAExtension", path="setup.py",
                       span=Span(1), sources=("k.cu",))
INDEX = ProjectIndex(constants={"cfg.BACKEND": NCCL}, extensions={"pkg._ext": BUILD},
                     extension_aliases={"_ext": "pkg._ext"}, modules=frozenset({"pkg", "pkg.train"}),
                     triton_kernels=frozenset({"pkg.kernels.add"}))


@pytest.mark.parametrize("ask", [
    pytest.param(lambda index: backend_in(Value("ref", ref="cfg.BACKEND"), index), id="a-constant-through-a-rule"),
    pytest.param(lambda index: index.extension_of("pkg._ext.fused"), id="an-extension"),
    pytest.param(lambda index: index.extension_of("other._ext.fused"), id="an-extension-by-its-last-name"),
    pytest.param(lambda index: index.is_repo_module("pkg.train.step"), id="a-repo-module"),
    pytest.param(lambda index: "pkg.kernels.add" in index.triton_kernels, id="a-triton-kernel"),
    pytest.param(lambda index: sorted(index.library_namespaces), id="a-whole-collection"),
    pytest.param(lambda index: dict(index.constants.items()), id="a-whole-mapping"),
])
def test_a_recorded_index_answers_as_the_index_and_notes_what_it_was_asked(ask):
    recorded, answers = recording(INDEX)
    assert ask(recorded) == ask(INDEX)
    assert answers.reads and Answers(INDEX).hold(answers.reads)


@pytest.mark.parametrize("ask, other, holds", [
    pytest.param(lambda index: backend_in(Value("ref", ref="cfg.BACKEND"), index),
                 ProjectIndex(constants={"cfg.BACKEND": NCCL, "cfg.LR": Value("str", "0.1")}), True,
                 id="another-constant-added"),
    pytest.param(lambda index: backend_in(Value("ref", ref="cfg.BACKEND"), index),
                 ProjectIndex(constants={"cfg.BACKEND": Value("str", "gloo")}), False, id="the-constant-changed"),
    pytest.param(lambda index: backend_in(Value("ref", ref="cfg.BACKEND"), index), ProjectIndex(), False,
                 id="the-constant-gone"),
    pytest.param(lambda index: index.extension_of("torch.nn.functional.relu"), ProjectIndex(), True,
                 id="an-extension-the-api-is-not-gone"),  # the answer, not the index's shortcut, is noted
    pytest.param(lambda index: index.extension_of("pkg._ext.fused"), ProjectIndex(), False,
                 id="the-extension-the-api-is-gone"),
    pytest.param(lambda index: index.is_repo_module("pkg.train.step"),
                 ProjectIndex(modules=frozenset({"pkg", "pkg.train", "pkg.eval"})), True, id="another-module-added"),
    pytest.param(lambda index: "pkg.kernels.add" in index.triton_kernels, ProjectIndex(), False,
                 id="the-kernel-gone"),
])
def test_findings_stand_for_an_index_that_answers_the_same(ask, other, holds):
    recorded, answers = recording(INDEX)
    ask(recorded)
    assert Answers(other).hold(answers.reads) is holds


def test_each_question_is_noted_once():
    recorded, answers = recording(INDEX)
    for _ in range(3):
        recorded.extension_of("torch.nn.functional.relu")
    assert answers.reads == (("extension_of", "call", "torch.nn.functional.relu", None),)


def test_a_question_the_record_does_not_know_is_an_error_not_a_silent_read():
    recorded, _ = recording(INDEX)
    with pytest.raises(AttributeError):
        recorded.constants.setdefault("cfg.LR", NCCL)
