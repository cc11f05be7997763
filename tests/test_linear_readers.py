"""Every reader of file content is linear-time on adversarial input (issue 42, "Hangs").

Each input is ~200 KB built to make a backtracking regular expression or a per-item rescan go quadratic: the
code before this took from tens of seconds to minutes on each of them. The bound is generous (a slow, shared
machine passes in well under it), so a failure means the reader went back to rescanning, not a slow machine.
"""
import time

import pytest

from migrator.sources.cuda import read_cuda

SIZE = 200_000
BOUND_SECONDS = 5.0


def _timed(call, *args):
    started = time.perf_counter()
    result = call(*args)
    return result, time.perf_counter() - started


CUDA_INPUTS = {
    "one-word-lines": "a\n" * (SIZE // 2),  # each line start rescanned the file for a function signature
    "unclosed-kernels": "__global__ void k(){\n" * (SIZE // 21),  # each kernel rescanned to the end for its brace
    "unclosed-kernel-parameters": "__global__ void k(\n" * (SIZE // 20),
    "unclosed-signatures": "int f(\n" * (SIZE // 7),
    "unclosed-escaped-quotes": '"\\' * (SIZE // 2),  # each quote rescanned its line
    "blank-lines-before-include": "\n" * SIZE + "#include <cuda.h>\n",  # ``^\s*`` crossed the blank lines
    "unterminated-comments": "/*" * (SIZE // 2),
    "unclosed-registration-blocks": 'PYBIND11_MODULE(a, m) {\nm.def("f", &f);\n' * (SIZE // 40),
}


@pytest.mark.parametrize("text", list(CUDA_INPUTS.values()), ids=list(CUDA_INPUTS))
def test_cuda_reader_is_linear(text):
    facts, seconds = _timed(read_cuda, text)
    assert seconds < BOUND_SECONDS, f"{seconds:.1f} s"
    assert facts.code_lines >= 0


def test_cuda_reader_on_hostile_text_still_reads_what_is_there():
    """The one-pass matching keeps the answers: a closed kernel after a thousand unclosed ones is measured, an
    include after blank lines is found, and a block that is never closed ends where the next one starts."""
    text = ("__global__ void open(\n" * 1000 + ";\n__global__ void k(float* x) {\n  x[0] = 1;\n}\n"
            + "\n" * 5000 + "#include <cublas_v2.h>\n"
            + 'PYBIND11_MODULE(a, m) {\n  m.def("f", &f);\n' + 'PYBIND11_MODULE(b, n) {\n  n.def("g", &g);\n}\n')
    facts = read_cuda(text)
    assert [(k.name, k.lines) for k in facts.kernels] == [("k", 3)]
    assert facts.cuda_includes == ("cublas_v2.h",)
    assert sorted((r.name, r.namespace) for r in facts.registrations) == [("f", "a"), ("g", "b")]
