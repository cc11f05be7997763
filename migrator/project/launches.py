"""A shell script's launch judged by what it runs: ``python build_file_list.py ...`` starts a job that needs the
device's runtime environment only when the Python it runs does device work.

``launch-environment`` finds a script's first launch with no environment script sourced before it. A distributed
launcher (``torchrun``, ``deepspeed``, ``python -m torch.distributed.run``) starts a device job whatever it runs;
``python some_file.py`` starts one only when that file, or a project module it imports (directly or through
others), is where the scan found something about the device: a finding of any rule in a Python file. A data
preparation script that decodes videos or writes file lists (mmaction2's ``tools/data/*/*.sh``, 66 of its 70
active findings) needs no runtime environment; its launch is ``supported``, with what it runs named. A script
the scan cannot find (a path built from a variable that matches no file, a file outside the scanned tree) keeps
the finding: what it runs is not known.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..contexts import path_context
from ..model import Context, FileKind, FileResult, Finding, Status, Verdict
from ..sources.environment import launched_scripts
from .reread import read_text

_RULE = "launch-environment"
_SOURCE = "migrator launch analysis"
_PYTHON = (FileKind.PYTHON, FileKind.NOTEBOOK)


def with_launches_judged(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, a launch whose scripts do no device work ``supported`` on every target."""
    launches = [f for f in findings if f.rule == _RULE and any(v.status != Status.SUPPORTED
                                                                 for v in f.verdicts.values())]
    if not launches:
        return list(findings)
    project = _Project(results, findings)
    judged: Dict[str, Finding] = {}
    for finding in launches:
        script = project.scripts_of(finding.path)
        if script is None:
            continue
        runs = [project.resolve(finding.path, written) for written in script]
        if not runs or any(r is None for r in runs):
            continue
        files = [r for r in runs if r is not None]
        if not any(project.device_work_from(rel) for rel in files):
            judged[finding.id] = _no_device_job(finding, files)
    return [judged.get(f.id, f) for f in findings]


def with_launcher_contexts(findings: Sequence[Finding], results: Sequence[FileResult]) -> List[Finding]:
    """``findings``, those of a shell script whose every launch runs a script filed as tooling (BigGAN's
    ``scripts/sample_cifar_ema.sh`` runs ``sample.py``) as tooling too: a launcher is what it launches. One that
    starts a distributed job, or a script the scan cannot find or files as training, keeps its context."""
    scripts = {r.file.rel for r in results if r.file.kind == FileKind.SHELL}
    shells = {f.path for f in findings if f.context == Context.TRAINING and f.path in scripts}
    if not shells:
        return list(findings)
    project = _Project(results, findings)
    tooling: Set[str] = set()
    for path in shells:
        script = project.scripts_of(path)
        runs = [project.resolve(path, written) for written in script or ()]
        if runs and all(r is not None and path_context(r) == Context.TOOLING for r in runs):
            tooling.add(path)
    return [replace(f, context=Context.TOOLING) if f.path in tooling and f.context == Context.TRAINING else f
            for f in findings]



class ModuleIndex:
    """The project's Python modules by the names an import may give them."""

    def __init__(self, results: Sequence[FileResult]) -> None:
        self._module_rel = {r.outline.module: r.file.rel for r in results if r.outline is not None}
        self._by_last: Dict[str, List[str]] = {}
        for module in self._module_rel:
            self._by_last.setdefault(module.rsplit(".", 1)[-1], []).append(module)

    def files_named(self, name: str) -> List[str]:
        """The project files an import may load: the module of that dotted name or one ending with it (a
        script's folder on ``sys.path``), or of the name without its last part (``from pkg.mod import fn``)."""
        for dotted in (name, name.rpartition(".")[0]):
            if not dotted:
                continue
            last = dotted.rsplit(".", 1)[-1]
            found = [self._module_rel[m] for m in self._by_last.get(last, ())
                     if m == dotted or m.endswith("." + dotted)]
            if found:
                return found
        return []


class _Project:
    """The scanned project as a launch is resolved in it: its files, the Python modules' imports, and which
    Python files hold findings."""

    def __init__(self, results: Sequence[FileResult], findings: Sequence[Finding]) -> None:
        self._by_rel = {r.file.rel: r for r in results}
        self._modules = ModuleIndex(results)
        self._with_findings = {f.path for f in findings if f.rule != _RULE}
        self._work: Dict[str, bool] = {}

    def scripts_of(self, rel: str) -> Optional[Tuple[str, ...]]:
        """The Python files the shell script at ``rel`` launches, as written; ``None``: unreadable, or a launcher
        that starts a device job whatever it runs."""
        text = read_text(self._by_rel.get(rel), {})
        return launched_scripts(text) if text is not None else None

    def resolve(self, script_rel: str, written: str) -> Optional[str]:
        """The scanned Python file a launch names, looked up from the script's folder and each folder above it
        (scripts ``cd ..`` before they run), then by its trailing path (``$ROOT/tools/train.py``)."""
        path = written.strip("'\"")
        if "$" in path:
            path = path.rsplit("}", 1)[-1].rsplit(")", 1)[-1].lstrip("/")
            return self._by_suffix(path)
        folder = posixpath.dirname(script_rel)
        while True:
            candidate = posixpath.normpath(posixpath.join(folder, path))
            if self._is_python(candidate):
                return candidate
            if not folder:
                break
            folder = posixpath.dirname(folder)
        return self._by_suffix(posixpath.normpath(path).lstrip("./"))

    def _by_suffix(self, tail: str) -> Optional[str]:
        if not tail.endswith(".py"):
            return None
        hits = sorted(rel for rel in self._by_rel if self._is_python(rel) and (rel == tail or rel.endswith("/" + tail)))
        return hits[0] if len(hits) == 1 else None

    def _is_python(self, rel: str) -> bool:
        result = self._by_rel.get(rel)
        return result is not None and result.file.kind in _PYTHON

    def device_work_from(self, rel: str) -> bool:
        """Whether a finding sits in the file or in a project module it imports, directly or through others."""
        if rel not in self._work:
            self._work[rel] = any(r in self._with_findings for r in self._closure(rel))
        return self._work[rel]

    def _closure(self, rel: str) -> Iterable[str]:
        seen: Set[str] = set()
        stack = [rel]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            yield current
            result = self._by_rel.get(current)
            if result is None or result.outline is None:
                continue
            for name in result.outline.imports:
                stack.extend(self._modules.files_named(name))


def _no_device_job(finding: Finding, files: Sequence[str]) -> Finding:
    named = ", ".join(f"`{rel}`" for rel in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    message = (f"the script runs {named}, where the scan found no device work (nor in the project modules "
               "imported from there): it needs no device runtime's environment")
    verdict = Verdict(Status.SUPPORTED, message, _SOURCE)
    return replace(finding, verdicts={target: verdict for target in finding.verdicts})
