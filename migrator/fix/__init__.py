"""``migrator fix``: apply the exact rewrites (``Verdict.edit``) for one target, with libcst.

Planning (``plan``) takes each finding's edit for the target: safe ones (``fixable``) by default, the rest
with ``unsafe=True`` (a rename the vendor notes behaves otherwise, a string of no known role). Applying
(``fix_text``) finds each edit's node by position in a fresh parse (``PositionProvider``), lets
``together`` check that every group of code gets all its device spellings rewritten or none, and applies
the edits bottom-up so nested ones compose; comments and formatting are untouched because only the edited
leaves change. A bare name is renamed at its use only where an import binds it: an assigned name is edited
where it is bound. A file that gets an edit also gets the plugin import the target needs (``import
torch_npu`` / ``import torch_mlu``) after its ``import torch``. Notebooks are edited cell by cell (IPython
lines are kept as they were), and only the edited cells' ``source`` values are rewritten in the file's
text: every other byte stays. Each file's result carries its change log (``Change``: one per changed line).

Writing (``write_fixes``) is a transaction: every new text goes to a temporary file beside its file, and
they are renamed one by one only when every one is written, each after its bytes are checked once more
(a file an editor saved meanwhile is left alone); a failed rename or an interrupt puts back the files
already replaced. Running ``fix`` twice changes nothing the second time.
``fix/shim.py`` is ``--shim``; ``fix/log.py`` renders the change log.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

from .. import evidence
from ..discover import base_dir, read_source
from ..gitcheck import GitUnavailable, repository_marker, uncommitted
from ..maps.accelerator import device_forms
from ..maps.load import TargetMap
from ..model import Edit, EditKind, Report, SourceFile, Span, Status, Unsafe
from ..resolve.dotted import dotted
from ..rules.device.device_call import device_twin
from ..sources.config import is_config_name, reads_back
from ..sources.notebook import python_lines
from ..sources.python import ParseFailure, parse_python
from .own_outputs import without_own_outputs
from .protocols import CUDA_BUILDS, Kept, hold, library_calls, reaching
from .unknown_reach import Repository
from .style import (PORTABLE, VENDOR, Styled, keyword_calls, not_portable, portable_edit, portable_forms,
                    written_portable)
from .together import decide

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
#: the statuses whose findings stay in the file `fix` writes (a port or an unsupported call is not rewritten)
_STAYS = (Status.PORT, Status.UNSUPPORTED)


@dataclass(frozen=True)
class PlannedEdit:
    finding: str  # finding id
    rule: str
    edit: Edit
    at: Span
    api: str = ""  # the API of the finding (for the reasons a guard is held back)
    #: the other findings this very edit fixes (a constant reported at its definition and at a use)
    also: Tuple[str, ...] = ()


@dataclass(frozen=True)
class FilePlan:
    """One file's edits, and the positions ``(cell, line, column)`` of the findings that judged a spelling to
    stay (``settled``: not a rewrite on the target) or to change by an edit this run leaves out (``pending``)."""

    edits: Tuple[PlannedEdit, ...]
    settled: FrozenSet[Tuple[Optional[int], Optional[int], Optional[int]]] = frozenset()
    pending: FrozenSet[Tuple[Optional[int], Optional[int], Optional[int]]] = frozenset()
    #: the calls that stay as written and do not run on the target: ``(cell, line, column, api, why)``; a guard
    #: whose branches hold one is not flipped (``protocols``)
    kept: FrozenSet[Tuple[Optional[int], Optional[int], Optional[int], str, str]] = frozenset()
    #: the repository's callables that run a kept call (``protocols.reaching``), and this file's path
    reach: Mapping[str, str] = field(default_factory=dict)
    path: str = ""
    #: the repository's files, read on demand to follow what a guard's branches call (``unknown_reach``)
    repository: Optional[Repository] = None
    #: the safe rewrites the scan found ``fix`` holds back on this tree (``Unsafe.held``), reported as skipped
    held: Tuple["Skipped", ...] = ()
    #: calls that run as written (a cache flush, a memory counter: a no-op without CUDA) whose device twin is
    #: written only when the file gets the vendor's names anyway (``_fix_python``): the file's device is then the
    #: target's, and the call flushes or measures that one, as it did CUDA's
    follows: Tuple[PlannedEdit, ...] = ()

    def by_cell(self) -> Dict[Optional[int], "FilePlan"]:
        """The plan of each notebook cell, split in one pass (a notebook of 15,000 cells is no 15,000 passes)."""
        parts: Dict[Optional[int], Dict[str, list]] = {}

        def part(cell: Optional[int]) -> Dict[str, list]:
            return parts.setdefault(cell, {"edits": [], "settled": [], "pending": [], "kept": [], "held": [],
                                           "follows": []})
        for edit in self.edits:
            part(edit.at.cell)["edits"].append(edit)
        for key, items in (("settled", self.settled), ("pending", self.pending), ("kept", self.kept)):
            for item in items:
                part(item[0])[key].append(item)
        for skipped in self.held:
            part(skipped.cell)["held"].append(skipped)
        for follow in self.follows:
            part(follow.at.cell)["follows"].append(follow)
        return {cell: FilePlan(tuple(p["edits"]), frozenset(p["settled"]), frozenset(p["pending"]),
                               frozenset(p["kept"]), self.reach, self.path, self.repository, tuple(p["held"]),
                               tuple(p["follows"])) for cell, p in parts.items()}


@dataclass(frozen=True)
class Skipped:
    finding: str
    rule: str
    line: Optional[int]
    reason: str
    cell: Optional[int] = None


@dataclass(frozen=True)
class Change:
    """One changed line, for the change log: where (``cell`` for a notebook), by which rules, before and after.
    A line ``fix`` inserted (the plugin import) has an empty ``before``."""

    line: int
    rules: Tuple[str, ...]
    before: str
    after: str
    cell: Optional[int] = None

    def where(self, path: str) -> str:
        return f"{path}:{self.line}" if self.cell is None else f"{path}:cell {self.cell}:{self.line}"


@dataclass(frozen=True)
class FileFix:
    """The outcome for one file: its new text (``None`` when unchanged), what applied and what did not."""

    path: str
    old: str
    new: Optional[str]
    applied: Tuple[str, ...] = ()  # ids of the findings whose edits applied
    skipped: Tuple[Skipped, ...] = ()
    changes: Tuple[Change, ...] = ()  # the change log: one entry per changed line
    error: Optional[str] = None
    #: the sha256 of the bytes ``old`` was read from: ``write_fixes`` writes only over those same bytes
    read_digest: Optional[str] = None
    bom: bool = False  # the file starts with a UTF-8 byte order mark (kept on writing)
    #: the style the file was written in (``fix/style``: ``portable`` or ``vendor``; ``None`` when unchanged),
    #: and why it is the vendor style when the portable one was asked for
    style: Optional[str] = None
    style_note: Optional[str] = None

    def diff(self) -> str:
        if self.new is None:
            return ""
        return "".join(difflib.unified_diff(self.old.splitlines(keepends=True), self.new.splitlines(keepends=True),
                                            f"a/{self.path}", f"b/{self.path}"))


@dataclass(frozen=True)
class FixReport:
    target: str
    files: Tuple[FileFix, ...] = field(default_factory=tuple)
    not_offered: int = 0  # findings with a suggestion but no exact edit (manual rewrites, ports)

    @property
    def changed(self) -> Tuple[FileFix, ...]:
        return tuple(f for f in self.files if f.new is not None)


# ------------------------------------------------------------------------------------------ planning


def _left_to_their_cause(edits: Dict[str, List[tuple]], seen: Dict[tuple, "PlannedEdit"],
                         by_hand: Dict[str, set], held_back: Dict[str, List[Skipped]]) -> None:
    """A use's edit at the literal it came through (``x.to(device)`` -> the ``"cuda"`` of ``device = "cuda" if
    x.is_cuda else "cpu"``) is not applied where the finding at that literal is a change by hand: the cause's own
    verdict says what the line needs (``x.device``), and the renamed string would send CUDA's run to the target's
    device."""
    for path, keys in edits.items():
        causes = by_hand.get(path)
        if not causes:
            continue
        for key in [k for k in keys if (k[1], k[2], k[3]) in causes]:
            keys.remove(key)
            planned = seen.pop(key)
            held_back.setdefault(path, []).append(Skipped(planned.finding, planned.rule, planned.at.line,
                                                          "the line it came through needs a change by hand",
                                                          planned.at.cell))


def plan(report: Report, target: str, unsafe: bool = False) -> Tuple[Dict[str, FilePlan], int]:
    """What to do per file (relative path) for ``target``; and how many rewrites have no exact edit.

    Besides the edits, each file's plan holds where its findings judged a device spelling to stay (a guard's
    test) and where they want one changed by an edit this mode does not apply: ``together`` reads both."""
    edits: Dict[str, List[tuple]] = {}  # per file: the keys of its edits in `seen`, in order
    settled: Dict[str, set] = {}
    pending: Dict[str, set] = {}
    kept: Dict[str, set] = {}
    held_back: Dict[str, List[Skipped]] = {}
    by_hand: Dict[str, set] = {}  # per file: where a finding is a change by hand (no exact edit)
    through: List[Tuple[str, tuple, Optional[Tuple[Optional[int], str, str]]]] = []  # rewrites not applied
    seen: Dict[tuple, PlannedEdit] = {}
    not_offered = 0
    for finding in report.judged:  # a usage that runs as written settles its device spelling too
        verdict = finding.verdicts.get(target)
        if verdict is None:
            continue
        start = (finding.span.cell, finding.span.line, finding.span.col)
        status = verdict.status
        if status != Status.REWRITE:
            settled.setdefault(finding.path, set()).add(start)
            if status in _STAYS and evidence.active(verdict):
                kept.setdefault(finding.path, set()).add((*start, finding.api, f"{status.value} on {target}"))
            elif finding.api in CUDA_BUILDS:  # runs as written, and builds what runs on CUDA only
                kept.setdefault(finding.path, set()).add((*start, finding.api, CUDA_BUILDS[finding.api]))
            continue
        if verdict.edit is None or not (verdict.fixable or unsafe):
            reason = verdict.fix.held if isinstance(verdict.fix, Unsafe) else None
            if reason is not None:  # a safe rewrite the scan found fix holds back here: said as held, with why
                held_back.setdefault(finding.path, []).append(
                    Skipped(finding.id, finding.rule, finding.span.line, reason, finding.span.cell))
            else:
                not_offered += 1
            if evidence.active(verdict):
                why = "no exact rewrite" if verdict.edit is None else "its rewrite is not a safe one (--unsafe)"
                edit = verdict.edit
                through.append((finding.path, (*start, finding.api, why), None if edit is None or edit.at is None
                                else (edit.at.line, edit.old, edit.new)))
            held = pending.setdefault(finding.path, set())
            held.add(start)
            if verdict.edit is None:
                by_hand.setdefault(finding.path, set()).add(start)
            if verdict.edit is not None and verdict.edit.at is not None:
                held.add((verdict.edit.at.cell, verdict.edit.at.line, verdict.edit.at.col))
            continue
        at = verdict.edit.at or finding.span
        edit = verdict.edit
        key = (finding.path, at.cell, at.line, at.col, edit.kind, edit.old, edit.new)
        if key in seen:  # a constant reported at its definition and at a use: one edit, which fixes both
            seen[key] = replace(seen[key], also=(*seen[key].also, finding.id))
            continue
        seen[key] = PlannedEdit(finding.id, finding.rule, verdict.edit, at, finding.api)
        edits.setdefault(finding.path, []).append(key)
    _left_to_their_cause(edits, seen, by_hand, held_back)
    # a use through a name (``x.to(device)``) whose literal an edit of this run rewrites where it is set is not
    # kept: the edit at its origin changes it (``device = torch.device("cuda")`` two lines up)
    written = {(path, key[2], key[5], key[6]) for path, keys in edits.items() for key in keys}
    for path, entry, set_at in through:
        if set_at is None or (path, *set_at) not in written:
            kept.setdefault(path, set()).add(entry)
    plans = {path: FilePlan(tuple(seen[key] for key in edits.get(path, ())), frozenset(settled.get(path, ())),
                            frozenset(pending.get(path, ())), frozenset(kept.get(path, ())),
                            held=tuple(held_back.get(path, ())))
             for path in {*edits, *held_back}}
    return plans, not_offered


# ------------------------------------------------------------------------------------------ applying


def fix_report(root: Path, report: Report, target: TargetMap, unsafe: bool = False,
               scanned: Optional[Mapping[str, str]] = None, style: str = PORTABLE,
               decisions_only: bool = False, only: Optional[Set[str]] = None) -> FixReport:
    """The edits of ``report`` applied to each file's text as it is now. ``scanned``: the sha256 of each file's
    bytes when the scan read them (``file_digests`` before the scan): a file changed since is left alone, as
    the report's positions belong to another text. Line endings and a byte order mark are kept.
    ``decisions_only``: only which edits apply and which are held (``applied``, ``skipped``), for the scan
    (``fix/settle.py``): a Python file's new text is not generated (``new`` stays ``None``); ``only``: the
    files to decide (what the others keep is still read, for the guards that reach it)."""
    planned, not_offered = plan(report, target.id, unsafe)
    reach = reaching(base_dir(root), _unguarded_kept(report, target.id, unsafe)) if planned else {}
    follows = device_twins(report, target)
    repository = Repository(base_dir(root))
    files = []
    for rel, file_plan in sorted(planned.items()):
        if only is not None and rel not in only:
            continue
        file_plan = replace(file_plan, reach=reach, path=rel, follows=follows.get(rel, ()), repository=repository)
        read = read_for_fix(root, rel, scanned)
        if isinstance(read, FileFix):
            files.append(read)
            continue
        text, digest, bom = read
        try:
            fixed = fix_text(rel, text, file_plan, target, style, decisions_only)
        except RecursionError:  # libcst parses deeper than its visitors can walk: the file is left, said so
            fixed = FileFix(rel, text, None, error="nested too deeply for the rewriter to walk: left as it is")
        files.append(replace(fixed, read_digest=digest, bom=bom))
    return FixReport(target.id, tuple(files), not_offered)


def device_twins(report: Report, target: TargetMap) -> Dict[str, Tuple[PlannedEdit, ...]]:
    """Per file, the renames of the calls that run as written because they are no-ops without CUDA (a cache
    flush, a memory counter called with no argument) to their device twin (``device_call.device_twin``); not
    under a CUDA test of their own (which stays, so what it decides stays CUDA's). ``_fix_python`` writes them
    in a file it gives the vendor's names."""
    out: Dict[str, List[PlannedEdit]] = {}
    for finding in report.judged:
        verdict = finding.verdicts.get(target.id)
        if verdict is None or verdict.status != Status.SUPPORTED or finding.rule != "device-call" \
                or finding.guard is not None:
            continue
        twin = device_twin(target, finding.api)
        if twin is not None:
            out.setdefault(finding.path, []).append(PlannedEdit(finding.id, finding.rule,
                                                                Edit(EditKind.NAME, finding.api, twin),
                                                                finding.span, finding.api))
    return {path: tuple(edits) for path, edits in out.items()}


def _unguarded_kept(report: Report, target: str, unsafe: bool) -> Dict[str, List[Tuple[int, str]]]:
    """Per file, the lines and APIs of the calls that stay as written, do not run on ``target`` and are not
    under a CUDA test of their own (which decides them): what a guard's branch may reach in another function."""
    kept: Dict[str, List[Tuple[int, str]]] = {}
    for finding in report.judged:
        verdict = finding.verdicts.get(target)
        if verdict is None or finding.guard is not None or finding.span.line is None or finding.span.cell is not None:
            continue
        status = verdict.status
        stays = status in _STAYS or (
            status == Status.REWRITE and (verdict.edit is None or not (verdict.fixable or unsafe)))
        if stays and evidence.active(verdict):
            kept.setdefault(finding.path, []).append((finding.span.line, finding.api))
    return kept


def read_for_fix(root: Path, rel: str, scanned: Optional[Mapping[str, str]]) -> Union[FileFix, Tuple[str, str, bool]]:
    """A file's text to edit (without its byte order mark), the sha256 of its bytes and whether it had a mark;
    or a ``FileFix`` that says why it is left alone: outside ``root``, unreadable, or changed since the scan."""
    path = base_dir(root) / rel
    if not _inside(path, root):
        return FileFix(rel, "", None, error="outside the path given to fix: left alone")
    try:
        data = read_source(str(path))
        text = data.decode("utf-8")  # no newline translation: a CRLF file stays CRLF
    except (OSError, UnicodeDecodeError) as exc:
        return FileFix(rel, "", None, error=f"cannot read: {exc}")
    digest = hashlib.sha256(data).hexdigest()
    if scanned is not None and scanned.get(rel) not in (None, digest):
        return FileFix(rel, "", None, error="changed since the scan read it: not fixed (run again)")
    bom = text.startswith("\ufeff")
    return (text[1:] if bom else text), digest, bom


def file_digests(root: Path, files: Sequence[SourceFile]) -> Dict[str, str]:
    """The sha256 of each file's bytes, taken before a scan so that ``fix_report`` can tell a file that changed
    between the scan and the edit."""
    digests = {}
    for source in files:
        try:
            digests[source.rel] = hashlib.sha256(read_source(source.path)).hexdigest()
        except OSError:
            continue
    return digests


def fix_text(rel: str, text: str, file_plan: FilePlan, target: TargetMap, style: str = PORTABLE,
             decisions_only: bool = False) -> FileFix:
    """Apply a file's planned edits to its text (Python, notebook, or a script / Dockerfile / requirements file).
    ``style``: ``fix/style``'s portable or vendor names for a Python file (notebooks and other files: vendor).
    The safe rewrites the scan found held back here come first among the skipped, with their reasons."""
    fixed = _fix_text(rel, text, file_plan, target, style, decisions_only)
    return replace(fixed, skipped=(*file_plan.held, *fixed.skipped)) if file_plan.held else fixed


def _fix_text(rel: str, text: str, file_plan: FilePlan, target: TargetMap, style: str,
              decisions_only: bool) -> FileFix:
    styled = Styled(VENDOR)
    if rel.endswith(NOTEBOOK_SUFFIX):
        return _fix_notebook(rel, text, file_plan, target)
    if rel.endswith(PYTHON_SUFFIXES):
        new, done, skipped, styled = _fix_python(text, file_plan, target, style=style, decisions_only=decisions_only)
        if decisions_only:
            return FileFix(rel, text, None, _ids(done), tuple(skipped))
    else:
        new, done, skipped = _fix_lines(text, file_plan.edits)
        if new != text and is_config_name(rel.rsplit("/", 1)[-1]) and not reads_back(text, new, rel):
            skipped = [*skipped, *(Skipped(p.finding, p.rule, p.at.line, "the edited file would not read back "
                                            "with the same keys: left as it is") for p in done)]
            new, done = text, []
    if new == text:
        return FileFix(rel, text, None, _ids(done), tuple(skipped))
    return FileFix(rel, text, new, _ids(done), tuple(skipped), line_changes(text, new, done), style=styled.style,
                   style_note=styled.why if style == PORTABLE else None)


def _ids(done: Sequence[PlannedEdit]) -> Tuple[str, ...]:
    """The findings the applied edits fix: each edit's own, and the others it fixes too (``also``)."""
    return tuple(dict.fromkeys(i for p in done for i in (p.finding, *p.also)))


def line_changes(old: str, new: str, done: Sequence[PlannedEdit], cell: Optional[int] = None) -> Tuple[Change, ...]:
    """The change log of one text: each line that changed, with the rules of the edits on it, and each line
    that was inserted (the plugin import). Edits keep the line count, so old and new lines pair up."""
    rules: Dict[int, List[str]] = {}
    for planned in done:
        rules.setdefault(planned.at.line or 0, []).append(planned.rule)
    old_lines, new_lines = old.splitlines(), new.splitlines()
    changes: List[Change] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "insert":
            changes.extend(Change(j + 1, ("plugin-import",), "", new_lines[j].strip(), cell) for j in range(j1, j2))
        elif tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                number = i1 + k + 1
                changes.append(Change(number, tuple(dict.fromkeys(rules.get(number, ()))) or ("fix",),
                                      old_lines[i1 + k].strip(), new_lines[j1 + k].strip(), cell))
        elif tag != "equal":  # not expected from these edits; logged as a block so nothing goes unsaid
            changes.append(Change(i1 + 1, ("fix",), " / ".join(line.strip() for line in old_lines[i1:i2]),
                                  " / ".join(line.strip() for line in new_lines[j1:j2]), cell))
    return tuple(changes)


@dataclass(frozen=True)
class WriteResult:
    """What ``write_fixes`` did: the files replaced, the files left alone because they changed under the run
    (``left``), one line per problem, and whether the write failed as a whole (``failed``: every file is as
    it was, the ones already replaced restored from their originals)."""

    written: Tuple[str, ...] = ()
    left: Tuple[str, ...] = ()
    problems: Tuple[str, ...] = ()
    failed: bool = False


#: ``os.replace`` for the renames of ``write_fixes`` (a name tests can fail at a chosen file).
_replace = os.replace


def write_fixes(root: Path, fixes: Sequence[FileFix]) -> WriteResult:
    """Write every changed file as one transaction.

    1. Each new text goes to a temporary file beside its real file (a symbolic link keeps pointing at it). A
       file whose bytes are no longer those its edits were made on is left out; a temporary that cannot be
       written stops everything before any file changed.
    2. For each file in turn: its original is kept beside it (a hard link, else a copy), its bytes are
       compared with the ones its edits were made on *immediately before its own rename*, and only then is
       the temporary renamed over it. A file saved by an editor meanwhile is left alone and reported.
    3. A rename that fails half-way puts back the files already replaced, from their kept originals.
    SIGINT and SIGTERM during all this roll back the same way, remove every temporary and re-raise
    ``KeyboardInterrupt``. Temporaries and kept originals are removed on every way out."""
    base = base_dir(root)
    staged: List[Tuple[str, str, str, Optional[str]]] = []  # (path, temporary, real path, digest read)
    replaced: List[Tuple[str, str]] = []  # (kept original, real path) of the files already replaced
    kept: List[str] = []  # every kept original not yet put back or removed
    written: List[str] = []
    left: List[str] = []
    problems: List[str] = []
    with _interrupts_raise():
        try:
            for fix in fixes:
                if fix.new is None:
                    continue
                real = os.path.realpath(base / fix.path)
                try:
                    if fix.read_digest is not None and _digest(real) != fix.read_digest:
                        left.append(fix.path)
                        problems.append(f"{fix.path}: changed while migrator worked on it: not written (run again)")
                        continue
                    with _signals_held():  # an interrupt waits until the temporary is listed for removal
                        staged.append((fix.path, _stage(real, ("\ufeff" if fix.bom else "") + fix.new), real,
                                       fix.read_digest))
                except OSError as exc:
                    problems.append(f"{fix.path}: cannot write: {exc.strerror or exc}; no file was changed")
                    return WriteResult(problems=tuple(problems), failed=True)
            for rel, temporary, real, digest in staged:
                try:
                    # one file at a time with interrupts held: one arriving meanwhile is handled between files,
                    # when every kept original is listed and every replaced file can be put back
                    with _signals_held():
                        original = _keep_original(real)
                        kept.append(original)
                        if digest is not None and _digest(real) != digest:  # an editor saved it since staging
                            left.append(rel)
                            problems.append(f"{rel}: changed while migrator worked on it: not written (run again)")
                            continue
                        replaced.append((original, real))
                        _replace(temporary, real)
                except OSError as exc:
                    with _signals_held():
                        restored = _roll_back(replaced, kept)
                    problems.append(f"{rel}: cannot replace: {exc.strerror or exc}; {restored}no file was changed")
                    return WriteResult(problems=tuple(problems), failed=True)
                written.append(rel)
            replaced = []
            return WriteResult(tuple(written), tuple(left), tuple(problems))
        except BaseException:  # an interrupt: the files already replaced go back to their originals
            with _signals_held():
                _roll_back(replaced, kept)
            raise
        finally:
            with _signals_held():
                for path in [temporary for _, temporary, _, _ in staged] + kept:
                    try:
                        os.unlink(path)
                    except FileNotFoundError:
                        pass


def _digest(path: str) -> str:
    return hashlib.sha256(read_source(path)).hexdigest()


def _keep_original(real: str) -> str:
    """A second name beside ``real`` for its current bytes: a hard link (no copy, and it is the very file the
    digest is then taken of), or a copy with its mode where the file system has no hard links."""
    folder, name = os.path.split(real)
    for _ in range(16):
        original = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.migrator-orig")
        try:
            os.link(real, original, follow_symlinks=False)
            return original
        except FileExistsError:
            continue
        except OSError:
            break
    handle, original = tempfile.mkstemp(prefix=f".{name}.", suffix=".migrator-orig", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out, open(real, "rb") as source:
            shutil.copyfileobj(source, out)
        shutil.copymode(real, original)
    except BaseException:
        os.unlink(original)
        raise
    return original


def _roll_back(replaced: List[Tuple[str, str]], kept: List[str]) -> str:
    """Put each replaced file's kept original back, last first; what could not be put back stays where it is
    kept (and is named in the returned text, which otherwise says the files were restored)."""
    stuck = []
    while replaced:
        original, real = replaced.pop()
        if original in kept:
            kept.remove(original)  # put back, or else left where it is: it may be the only copy of the original
        try:
            os.replace(original, real)
            if os.path.lexists(original):  # both names were the same file (not replaced yet): rename did nothing
                os.unlink(original)
        except OSError:
            stuck.append(f"{real} (its original is {original})")
    if stuck:
        return f"could not restore {', '.join(stuck)}; the other files were restored: "
    return "the files already replaced were restored: "


@contextmanager
def _interrupts_raise() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``KeyboardInterrupt`` inside the block (main thread only: elsewhere signals
    cannot be handled), so ``write_fixes`` can roll back; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while a rollback or the clean-up runs (delivered after it). In the main
    thread each is noted by a handler of its own and handed to the previous handler after the block: a mask
    holds back only what reaches this thread, and in a process with other threads (a test runner's worker,
    an IDE's) the kernel may hand the signal to one of those, whose Python handler then runs here at once."""
    held = (signal.SIGINT, signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread():
        blocked = hasattr(signal, "pthread_sigmask")
        if blocked:
            signal.pthread_sigmask(signal.SIG_BLOCK, set(held))
        try:
            yield
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, set(held))
        return
    arrived: List[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: arrived.append(signum)) for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum in arrived[:1]:  # delivered as it would have been, once the block is done
            signal.raise_signal(signum)


def _stage(real: str, text: str) -> str:
    """``text`` in a new temporary file beside ``real``, with ``real``'s permission bits; its path."""
    mode = os.stat(real).st_mode
    folder, name = os.path.split(real)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".migrator-tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temporary, mode & 0o7777)
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


@dataclass(frozen=True)
class TreeState:
    """What git says of the tree ``fix`` would write into: the paths with uncommitted changes, or why git could
    not be asked (``error``; ``fix`` refuses then, as for a dirty tree, unless ``--force``)."""

    dirty: Tuple[str, ...] = ()
    error: Optional[str] = None

    @property
    def writable(self) -> bool:
        return not self.dirty and self.error is None


def tree_state(root: Path) -> TreeState:
    """Uncommitted changes under ``root`` per git, but for the files migrator wrote itself (``own_outputs``: a
    report page, a JSON report, a baseline, a change log); clean when there is no ``.git`` at or above it. git
    runs as an untrusted program (``gitcheck``): nothing the repository configures can run, fetch or prompt; when a
    repository is there and git cannot be asked about it, that is an ``error``, never "no repository"."""
    try:
        dirty = uncommitted(base_dir(root), root)
    except GitUnavailable as exc:
        return TreeState(error=str(exc) or type(exc).__name__)
    marker = repository_marker(base_dir(root))
    if not dirty or marker is None:
        return TreeState()
    return TreeState(without_own_outputs(marker.parent, dirty))  # a report or baseline migrator wrote is no change


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(base_dir(root.resolve()))
    except ValueError:
        return False
    return path.resolve() == root.resolve() or root.is_dir()


# ------------------------------------------------------------------------------------------ Python


def _fix_python(text: str, file_plan: FilePlan, target: TargetMap, insert_import: bool = True,
                bound_elsewhere: Optional[Dict[str, str]] = None, style: str = VENDOR, decisions_only: bool = False,
                ) -> Tuple[str, List[PlannedEdit], List[Skipped], Styled]:
    """Apply a file's edits to Python source; a notebook cell passes the names its other cells import. In the
    portable ``style`` the file is written with ``torch.accelerator`` where ``fix/style`` allows it, else with
    the vendor's names (the returned ``Styled`` says which, and why)."""
    edits = file_plan.edits
    module = parse_python(text)  # within libcst's budgets (sources/python.parse_budget), or why not
    if isinstance(module, ParseFailure):
        return text, [], [Skipped(e.finding, e.rule, e.at.line, f"does not parse: {module.reason}")
                          for e in edits], Styled(VENDOR)
    tail = _dropped_tail(text, module)
    if tail is None:
        return text, [], [Skipped(e.finding, e.rule, e.at.line, "libcst does not write this file back as it reads "
                                  "it: left as it is") for e in edits], Styled(VENDOR)
    bound = {**(bound_elsewhere or {}), **_top_level_names(module)}
    import_first = target.import_first
    plugin = import_first.split()[-1] if import_first else None
    ready: List[PlannedEdit] = []
    skipped: List[Skipped] = []
    for planned in edits:
        problem = _unbound_root(planned.edit, bound, plugin)
        if problem:
            skipped.append(Skipped(planned.finding, planned.rule, planned.at.line, problem))
        else:
            ready.append(planned)
    own = _top_level_names(module)
    unready = [Kept((p.at.line or 0, p.at.col or 0), p.api or p.edit.old, "its rewrite cannot apply here")
               for p in edits if p not in ready]
    unready.extend(library_calls(module, target.id, text))  # a CUDA-only library's calls stay as written
    imported = _imported_names(module)
    changed, done, held = _apply_all(module, ready, file_plan, target.device_to, imported, unready, target.backend_to)
    styled = Styled(VENDOR)
    if decisions_only:  # which edits apply: the style renames them, never changes which
        return text, done, [*skipped, *held], styled
    if style == PORTABLE and done:
        why = not_portable(target, [(p.edit.kind, p.edit.old, (p.at.line or 0, p.at.col or 0), p.api) for p in done],
                           keyword_calls(module), bound.get("torch") == "torch")
        if why is None:  # the same edits at the same places, written with the portable names
            again, done_again, held_again = _apply_all(module, _restyled(ready, target), file_plan,
                                                       target.device_to, imported, unready, target.backend_to)
            written = written_portable(again, device_forms(target))
            if [p.finding for p in done_again] != [p.finding for p in done]:
                why = "the portable names would not apply to the same calls as the vendor's"
            elif written is None:
                why = ("a CUDA AMP call cannot take its portable form here (it is not called where it is named, or "
                       "passes more positional arguments than the form names)")
            else:
                changed, done, held, styled = written, done_again, held_again, Styled(PORTABLE)
        if styled.style != PORTABLE:
            styled = Styled(VENDOR, why)
    if done and styled.style == VENDOR and file_plan.follows:
        changed, done, held = _with_follows(module, ready, done, held, file_plan, target, bound, plugin, imported,
                                            unready, changed)
    skipped.extend(held)
    if insert_import:  # a notebook cell's imports may serve other cells: left as they are
        changed = _without_unused_imports(changed, own, {p.edit.old for p in done if p.edit.kind == EditKind.NAME})
    new = changed.code + tail
    if done and plugin and plugin not in bound and insert_import and styled.style == VENDOR:
        new = _insert_import(new, import_first or "")
    return new, done, skipped, styled


def _restyled(ready: Sequence[PlannedEdit], target: TargetMap) -> List[PlannedEdit]:
    """The edits of a file ``not_portable`` passed, with their portable names: a ``torch.accelerator`` rename, or
    a marked call or value ``written_portable`` writes in its device form."""
    forms, calls = portable_forms(target), device_forms(target)
    out = []
    for planned in ready:
        if planned.edit.kind == EditKind.NAME and planned.edit.old in forms:
            out.append(replace(planned, edit=replace(planned.edit, new=forms[planned.edit.old].portable)))
            continue
        edit = portable_edit(planned.edit, planned.api, calls)
        out.append(planned if edit is None else replace(planned, edit=replace(edit, at=planned.edit.at)))
    return out


def _with_follows(module: cst.Module, ready: List[PlannedEdit], done: List[PlannedEdit], held: List[Skipped],
                  file_plan: FilePlan, target: TargetMap, bound: Dict[str, str], plugin: Optional[str],
                  imported: Set[str], unready: Sequence[Kept], changed: cst.Module,
                  ) -> Tuple[cst.Module, List[PlannedEdit], List[Skipped]]:
    """The file's edits again with the device twins of the calls that ran as written (``FilePlan.follows``),
    kept only when every edit that applied without them still applies."""
    follows = [f for f in file_plan.follows if not _unbound_root(f.edit, bound, plugin)]
    if not follows:
        return changed, done, held
    again, done_again, held_again = _apply_all(module, [*ready, *follows], file_plan, target.device_to, imported,
                                               unready, target.backend_to)
    if {p.finding for p in done} - {p.finding for p in done_again}:
        return changed, done, held
    follow_ids = {f.finding for f in follows}
    return again, done_again, [s for s in held_again if s.finding not in follow_ids]


def _dropped_tail(text: str, module: cst.Module) -> Optional[str]:
    """What libcst's code generation leaves off the end of ``text`` ("" when nothing), or ``None`` when what it
    writes back differs elsewhere. libcst 1.0 drops the whitespace-only lines (``x = 1\\n  \\n``) and an indented
    comment (``x = 1\\n  # note\\n``) ending a module: a fix wrote every file ending so without them."""
    written = module.code
    if written == text:
        return ""
    return text[len(written):] if text.startswith(written) else None


def _without_unused_imports(module: cst.Module, bound: Mapping[str, str], renamed: Set[str]) -> cst.Module:
    """``module`` without the top-level imports of renamed APIs that nothing uses any more (``from
    torch.cuda.amp import autocast as ac`` once every ``ac()`` became ``torch_npu.npu.amp.autocast()``);
    LibCST's ``RemoveImportsVisitor`` removes a name only where no reference to it is left."""
    gone = [(name, api) for name, api in bound.items() if api in renamed and "." in api and name != api]
    if not gone:
        return module
    wrapper = MetadataWrapper(module)
    context = CodemodContext(wrapper=wrapper)
    for name, api in gone:
        where, obj = api.rsplit(".", 1)
        RemoveImportsVisitor.remove_unused_import(context, where, obj, name if name != obj else None)
    return wrapper.visit(RemoveImportsVisitor(context))


def _unbound_root(edit: Edit, bound: Dict[str, str], plugin: Optional[str]) -> Optional[str]:
    """A renamed API must be reachable by its new name: its root module imported (or the plugin we add)."""
    if edit.kind != EditKind.NAME:
        return None
    root = edit.new.split(".")[0]
    if root == plugin or bound.get(root) == root:
        return None
    return f"`{edit.new}` needs `import {root}` in this file, which binds `{root}` to something else or not at all"


@dataclass(frozen=True)
class Imported:
    """One name an import statement binds: ``import torch.cuda as tc`` binds ``tc`` to ``torch.cuda``; ``import
    torch.cuda`` binds ``torch`` to ``torch`` (and names the module ``torch.cuda``); ``from torch.cuda import
    amp`` binds ``amp`` to ``torch.cuda.amp``."""

    name: str  # the name bound
    means: str  # what it is bound to
    module: str  # the module (or module member) the statement names


def imports_in(module: cst.Module, anywhere: bool) -> Iterator[Imported]:
    """The names the module's imports bind: its top-level statements only, or (``anywhere``) every scope.
    Relative and star imports bind nothing a rename could need."""
    nodes = _walk(module) if anywhere else (small for statement in module.body
                                             if isinstance(statement, cst.SimpleStatementLine)
                                             for small in statement.body)
    for node in nodes:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    yield Imported(alias.asname.name.value, full, full)
                else:
                    yield Imported(full.split(".")[0], full.split(".")[0], full)
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative \
                and not isinstance(node.names, cst.ImportStar):
            base = dotted(node.module)
            for alias in node.names:
                name = alias.asname.name if alias.asname else alias.name
                if isinstance(name, cst.Name):
                    yield Imported(name.value, f"{base}.{dotted(alias.name)}", f"{base}.{dotted(alias.name)}")


def _top_level_names(module: cst.Module) -> Dict[str, str]:
    """Names bound by top-level imports -> what they name (``import torch as T``: T -> torch;
    ``from torch import cuda``: cuda -> torch.cuda)."""
    return {imported.name: imported.means for imported in imports_in(module, anywhere=False)}


def _apply_all(module: cst.Module, edits: Sequence[PlannedEdit], file_plan: FilePlan, device_to: str,
               imported: Set[str], unready: Sequence[Kept] = (), backend_to: str = "nccl",
               ) -> Tuple[cst.Module, List[PlannedEdit], List[Skipped]]:
    """Apply every edit in four steps: positions find each edit's node in the original tree; ``together``
    checks that each group of code gets all its device spellings rewritten (adding the ones no finding names,
    holding back a group that cannot); ``protocols`` holds back each flipped guard whose branches keep a call
    that does not run on the target, with the edits in those branches (and, in turn, the groups that then
    cannot change together); then one transformer applies the edits bottom-up to the updated nodes, so
    nested edits compose (``x.cuda(device='cuda')`` gets both its method and its string changed)."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    finder = _Finder(edits, imported)
    wrapper.visit(finder)
    base = list(edits)

    def positions(cells):
        return {(line, col) for _, line, col in cells if line is not None and col is not None}

    kept = [Kept((k[1], k[2]), k[3], k[4]) for k in file_plan.kept if k[1] is not None and k[2] is not None]
    kept.extend(unready)
    settled, pending = positions(file_plan.settled), positions(file_plan.pending)
    guarded: Dict[int, str] = {}  # edit index -> why a guard holds it back
    reasons: Dict[Tuple[int, int], str] = {}  # position of a spelling a guard holds -> why
    while True:  # each round holds more back; it ends when a round holds nothing new
        found = {node: [i for i in indices if i not in guarded] for node, indices in finder.found.items()}
        found = {node: indices for node, indices in found.items() if indices}
        renames = {node for node, indices in found.items() if any(base[i].edit.kind == EditKind.NAME for i in indices)}
        decision = decide(wrapper, found, renames, {i: e.edit.kind for i, e in enumerate(base)},
                          ("cuda", device_to), settled, pending | set(reasons), reasons, ("nccl", backend_to))
        edits = list(base)
        found = {node: [i for i in indices if i not in decision.held] for node, indices in found.items()}
        for node, joined in decision.added:
            position = wrapper.resolve(PositionProvider)[node]
            found.setdefault(id(node), []).append(len(edits))
            edits.append(PlannedEdit(edits[joined].finding, "device-together",
                                     _device_edit(node, {"cuda": device_to, "nccl": backend_to}),
                                     Span(position.start.line, position.start.column)))
        held_kept = [Kept((base[i].at.line or 0, base[i].at.col or 0), base[i].api or base[i].edit.old,
                          "held back with its group") for i in decision.held]
        # a guard already held still decides its branches: what ``together`` adds there is held with them
        judged = {node: sorted({*indices, *(i for i in finder.found.get(node, ()) if i in guarded)})
                  for node, indices in {**{n: [] for n in finder.found}, **found}.items()}
        protocol = hold(wrapper, judged, edits, kept + held_kept, device_to, file_plan.reach, file_plan.path,
                        file_plan.repository)
        fresh = {i: why for i, why in protocol.items() if i < len(base) and i not in guarded}
        added = {(edits[i].at.line or 0, edits[i].at.col or 0): why for i, why in protocol.items()
                 if i >= len(base)}  # a spelling ``together`` added: its group cannot change whole now
        if not fresh and not set(added) - set(reasons):
            break
        guarded.update(fresh)
        for index, why in fresh.items():  # a comparison a guard holds: its group cannot change whole either
            if base[index].edit.kind in (EditKind.STRING, EditKind.FSTRING):
                reasons.setdefault((base[index].at.line or 0, base[index].at.col or 0), why)
        for at, why in added.items():
            reasons.setdefault(at, why)
    held = {**guarded, **decision.held}
    skipped = [Skipped(base[i].finding, base[i].rule, base[i].at.line, why) for i, why in held.items()]
    # a spelling ``together`` added inside what a held guard decides stays too (fairseq's `torch.device("cuda")`
    # under `if self.cuda:` came back as the group's own edit once the finding's was held)
    held_added = {i for i in protocol if i >= len(base)}
    found = {node: [i for i in indices if i not in held and i not in held_added] for node, indices in found.items()}
    applier = _Apply(found, {i: e.edit for i, e in enumerate(edits)})
    changed = wrapper.module.visit(applier)
    applied = [e for i, e in enumerate(edits) if i in applier.applied]
    for index, planned in enumerate(edits):
        if index in applier.applied or index in held:
            continue
        name = finder.at_a_binding.get(index)
        skipped.append(Skipped(planned.finding, planned.rule, planned.at.line,
                               f"`{name}` is a variable an assignment binds: rewritten where it is bound, not "
                               "where it is used (the binding may hold another value too)" if name else
                               "the code at this position no longer matches the finding"))
    return changed, applied, skipped


def _device_edit(node: cst.CSTNode, spellings_to: Mapping[str, str]) -> Edit:
    """The edit that rewrites a CUDA device (or NCCL backend) spelling ``together`` adds to its group."""
    if isinstance(node, cst.FormattedString):
        text = "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
        old = next((o for o in spellings_to if text.startswith(o)), "cuda")
        return Edit(EditKind.FSTRING, old, spellings_to[old])
    value = node.evaluated_value  # type: ignore[attr-defined]
    old = next((o for o in spellings_to if value.startswith(o)), "cuda")
    return Edit(EditKind.STRING, value, spellings_to[old] + value[len(old):])


def _imported_names(module: cst.Module) -> Set[str]:
    """Every name an import binds, in any scope: a bare name renamed at its use must be one of them. A name
    an assignment binds (``amp_autocast = torch.cuda.amp.autocast if use_amp else suppress``) is edited where
    it is bound; putting the API's new name at its uses would drop the other value."""
    return {imported.name for imported in imports_in(module, anywhere=True)}


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under ``node``, without recursion (a deeply nested file must not overflow the stack)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(reversed(current.children))


class _Apply(cst.CSTTransformer):
    def __init__(self, found: Dict[int, List[int]], edits: Dict[int, Edit]) -> None:
        self.found = found  # id(original node) -> indices of the edits that apply there
        self.edit_of = edits
        self.applied: set = set()

    def on_leave(self, original_node, updated_node):
        for index in self.found.get(id(original_node), ()):
            edit = self.edit_of[index]
            new = _edited(updated_node, edit)
            if new is not None:
                updated_node = new
                self.applied.add(index)
        return updated_node


class _Finder(cst.CSTVisitor):
    """For each edit, the first node (outermost first) at or inside its span that the edit applies to."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, edits: Sequence[PlannedEdit], imported: Set[str]):
        self.edits = list(edits)
        self.imported = imported
        self.at_a_binding: Dict[int, str] = {}  # edit index -> the assigned name it met instead of its cause
        self.spans = [_bounds(e.at) for e in self.edits]
        self.found: Dict[int, List[int]] = {}
        self.taken: set = set()
        # the edits whose span covers each line: a node is looked at against those of its lines alone, so the
        # walk is linear in the edits (2,000 edits in one file: 20 s when every node met every edit)
        self.covering: Dict[int, List[int]] = {}
        for index, (first, last, line) in enumerate(self.spans):
            for number in range(first[0], (last[0] if last is not None else line) + 1):
                self.covering.setdefault(number, []).append(index)

    def on_visit(self, node: cst.CSTNode) -> bool:
        position = self.get_metadata(PositionProvider, node, None)
        if position is None:
            return True
        start = (position.start.line, position.start.column)
        end = (position.end.line, position.end.column)
        # only statements have ranges that cover all they hold (a Param's range leaves out its default, a
        # decorated definition starts at `def`): prune on those alone
        prunable = isinstance(node, (cst.BaseStatement, cst.BaseSuite)) and not (
            isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.decorators)
        for index in self.covering.get(start[0], ()):  # an edit holds the node: it covers the node's first line
            first, last, _ = self.spans[index]
            if index in self.taken or start < first or (last is not None and end > last):
                continue
            if _edited(node, self.edits[index].edit) is None:
                continue
            if not self._at_its_cause(node, index):
                self.at_a_binding[index] = node.value  # type: ignore[attr-defined]
                continue
            self.found.setdefault(id(node), []).append(index)
            self.taken.add(index)
        if len(self.taken) == len(self.edits):
            return False
        if not prunable:
            return True
        return any(i not in self.taken for number in range(start[0], end[0] + 1)
                   for i in self.covering.get(number, ()))

    def _at_its_cause(self, node: cst.CSTNode, index: int) -> bool:
        """A ``name`` edit on a bare name (``ac()``) applies only where an import binds that name; for a name
        an assignment binds, the edit belongs at the binding, which has its own finding."""
        edit = self.edits[index].edit
        if edit.kind != EditKind.NAME or not isinstance(node, cst.Name) or node.value == edit.old.split(".")[0]:
            return True
        return node.value in self.imported


def _bounds(span: Span) -> Tuple[Tuple[int, int], Optional[Tuple[int, int]], int]:
    first = (span.line or 0, span.col or 0)
    last = (span.end_line, span.end_col) if span.end_line is not None and span.end_col is not None else None
    return first, last, span.line or 0


def _edited(node: cst.CSTNode, edit: Edit) -> Optional[cst.CSTNode]:
    if edit.kind == EditKind.STRING and isinstance(node, cst.SimpleString):
        if node.evaluated_value != edit.old or "\\" in edit.new or node.quote in edit.new:
            return None
        return node.with_changes(value=f"{node.prefix}{node.quote}{edit.new}{node.quote}")
    if edit.kind == EditKind.FSTRING and isinstance(node, cst.SimpleString) \
            and str(node.evaluated_value).startswith(f"{edit.old}:") and node.quote not in edit.new \
            and "\\" not in node.value:
        # ``"cuda:" + str(rank)``: the string that starts the device the expression spells
        value = str(node.evaluated_value)
        return node.with_changes(value=f"{node.prefix}{node.quote}{edit.new}{value[len(edit.old):]}{node.quote}")
    if edit.kind == EditKind.FSTRING and isinstance(node, cst.FormattedString):
        parts = list(node.parts)
        for index, part in enumerate(parts):
            if isinstance(part, cst.FormattedStringText) and edit.old in part.value:
                parts[index] = part.with_changes(value=part.value.replace(edit.old, edit.new, 1))
                return node.with_changes(parts=parts)
        return None
    if edit.kind == EditKind.NAME and isinstance(node, (cst.Attribute, cst.Name)):
        written = dotted(node).split(".")
        old = edit.old.split(".")
        if not written[0] or len(written) > len(old):
            return None
        # ``torch.cuda.x``, ``T.cuda.x``, ``cuda.x`` (from torch import cuda) or a bare alias (``ac`` for
        # ``from torch.cuda.amp import autocast as ac``): all but the root must be the tail of the API's name
        if len(written) > 1 and (written[-1] != old[-1] or written[1:] != old[len(old) - len(written) + 1:]):
            return None
        return cst.parse_expression(edit.new)
    if edit.kind == EditKind.METHOD and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value == edit.old:
        return node.with_changes(func=node.func.with_changes(attr=cst.Name(edit.new)))
    if edit.kind == EditKind.ARGUMENT and isinstance(node, cst.Call) and not any(a.keyword is None and a.star == ""
                                                                            for a in node.args):
        first = cst.Arg(cst.parse_expression(edit.new),
                        comma=cst.MaybeSentinel.DEFAULT if not node.args
                        else cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return node.with_changes(args=[first, *node.args])
    return None


def _insert_import(text: str, import_first: str) -> str:
    """``import_first`` (one line, or several separated by newlines) at ``_import_position``, in the file's own
    line ending."""
    lines = text.splitlines(keepends=True)
    after = _import_position(text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if after and after <= len(lines) and not lines[after - 1].endswith(("\n", "\r")):
        lines[after - 1] += newline
    lines[after:after] = [line + newline for line in import_first.split("\n")]
    return "".join(lines)


def _import_position(text: str) -> int:
    """How many lines precede the plugin import: it goes right after the first top-level ``import torch``,
    else after the module docstring and ``__future__`` imports, and never above a shebang or an encoding line
    (PEP 263: they only work on the first two lines)."""
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    after = _header_lines(text)
    for index, statement in enumerate(wrapper.module.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            break
        small = statement.body[0]
        is_doc = index == 0 and isinstance(small, cst.Expr) and \
            isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        is_future = isinstance(small, cst.ImportFrom) and small.module is not None \
            and dotted(small.module) == "__future__"
        imports_torch = (isinstance(small, cst.Import) and any(dotted(a.name).split(".")[0] == "torch"
                                                                for a in small.names)) or \
            (isinstance(small, cst.ImportFrom) and small.module is not None
             and dotted(small.module).split(".")[0] == "torch")
        if imports_torch:
            return positions[statement].end.line
        if is_doc or is_future:
            after = positions[statement].end.line
        elif not isinstance(small, (cst.Import, cst.ImportFrom)):
            break  # the import block ended without torch: after the docstring and __future__ imports
    return after


_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def _header_lines(text: str) -> int:
    """How many of the first lines are a shebang (line 1) or an encoding declaration (line 1 or 2)."""
    count = 0
    for number, line in enumerate(text.splitlines()[:2], 1):
        if (number == 1 and line.startswith("#!")) or _CODING.match(line):
            count = number
        else:
            break
    return count


# ------------------------------------------------------------------------------------------ notebooks


def _fix_notebook(rel: str, text: str, file_plan: FilePlan, target: TargetMap) -> FileFix:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return FileFix(rel, text, None, error=f"not a valid notebook: {exc.msg}")
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return FileFix(rel, text, None, error="not an nbformat 4 notebook: left alone")
    by_cell: Dict[int, List[PlannedEdit]] = {}
    for planned in file_plan.edits:
        if planned.at.cell is not None:
            by_cell.setdefault(planned.at.cell, []).append(planned)
    applied: List[PlannedEdit] = []
    changes: List[Change] = []
    skipped: List[Skipped] = []
    import_first = target.import_first
    plugin = import_first.split()[-1] if import_first else None
    cell_names = _cell_import_names(cells)
    notebook_names = {name: module for names in cell_names.values() for name, module in names.items()}
    not_text = {i for i, c in enumerate(cells) if isinstance(c, dict) and _lone_surrogate(_source(c))}
    torch_cell = next((i for i, names in sorted(cell_names.items()) if i not in not_text
                       and any(m == "torch" or m.startswith("torch.") for m in names.values())), None)
    changed = False
    originals = {i: list(c["source"]) if isinstance(c.get("source"), list) else c.get("source")
                 for i, c in enumerate(cells) if isinstance(c, dict)}
    plans = file_plan.by_cell()
    for index, cell_edits in sorted(by_cell.items()):
        cell = cells[index] if 0 <= index < len(cells) else None
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            skipped.extend(Skipped(e.finding, e.rule, e.at.line, "no such code cell") for e in cell_edits)
            continue
        if index in not_text:  # a line the parse blanked (a magic, a shell escape) holds one: no text to write
            reason = (f"cell {index} holds a lone surrogate ({_lone_surrogate(_source(cell))}), which is not "
                      "text: the cell is left as it is")
            skipped.extend(Skipped(e.finding, e.rule, e.at.line, reason, index) for e in cell_edits)
            continue
        source = _source(cell)
        blanked, _ = python_lines(source)
        cell_plan = plans.get(index) or FilePlan((), reach=file_plan.reach, path=file_plan.path,
                                                 repository=file_plan.repository)
        new, done, missed, _ = _fix_python("\n".join(blanked) + "\n", cell_plan, target,
                                        insert_import=False, bound_elsewhere=notebook_names)
        applied.extend(done)
        skipped.extend(missed)
        if done:
            cell["source"] = _cell_source(source, _merge_ipython(source, blanked, new.split("\n")), cell.get("source"))
            changes.extend(line_changes(source, _source(cell), done, cell=index))
            changed = True
    if applied and plugin and plugin not in notebook_names:
        if torch_cell is None:
            torch_cell = min(i for i in by_cell if i not in not_text)
        changes.append(_with_plugin_import(cells[torch_cell], torch_cell, import_first or ""))
        changed = True
    if not changed:
        return FileFix(rel, text, None, _ids(applied), tuple(skipped))
    new_text = _with_sources(text, {i: c["source"] for i, c in enumerate(cells)
                                    if isinstance(c, dict) and c.get("source") != originals.get(i)})
    if new_text is None:
        return FileFix(rel, text, None, error="the notebook's cells cannot be found in its text to edit them in "
                                              "place: left alone")
    changes.sort(key=lambda c: (c.cell or 0, c.line))
    return FileFix(rel, text, new_text, _ids(applied), tuple(skipped), tuple(changes), style=VENDOR)


def _cell_import_names(cells: List[object]) -> Dict[int, Dict[str, str]]:
    """Per code cell that parses (by its index): the names its top-level imports bind."""
    cell_names: Dict[int, Dict[str, str]] = {}
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell_module = parse_python("\n".join(python_lines(_source(cell))[0]) + "\n")
            if not isinstance(cell_module, ParseFailure):
                cell_names[index] = _top_level_names(cell_module)
    return cell_names


def _with_plugin_import(cell: Dict[str, object], index: int, import_first: str) -> Change:
    """The cell (the first that imports torch) with the vendor's plugin import put after its imports; the change."""
    source = _source(cell)
    blanked, _ = python_lines(source)
    lines = _merge_ipython(source, blanked, blanked)
    position = _import_position("\n".join(blanked) + "\n")
    lines.insert(position, import_first)
    cell["source"] = _cell_source(source, lines, cell.get("source"))
    return Change(position + 1, ("plugin-import",), "", import_first, index)


def _with_sources(text: str, sources: Mapping[int, object]) -> Optional[str]:
    """``text`` with the ``source`` of each cell in ``sources`` replaced, and not one other byte changed: the
    other cells, outputs and metadata keep their spelling (``1.0``, ``1e3``, escapes, U+2028). An unchanged
    line of an edited cell keeps its spelling too. ``None`` when the cells' sources cannot be located."""
    try:
        places = _source_places(text)
    except (ValueError, RecursionError):
        return None
    if places is None or any(index not in places for index in sources):
        return None
    pieces = []
    for index in sorted(sources, key=lambda i: places[i][0], reverse=True):
        start, end, items = places[index]
        pieces.append((start, end, _source_text(text[start:end], [(a - start, b - start) for a, b in items],
                                                sources[index])))
    for start, end, replacement in pieces:  # from the end: earlier positions stay valid
        text = text[:start] + replacement + text[end:]
    return text


_WHITESPACE = " \t\n\r"


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _members(text: str, at: int, decoder: json.JSONDecoder) -> Iterator[Tuple[str, int, int]]:
    """``(key, value start, value end)`` of the object starting at ``at`` (``{``)."""
    if text[at:at + 1] != "{":
        raise ValueError("not an object")
    at = _skip(text, at + 1)
    if text[at:at + 1] == "}":
        return
    while True:
        if text[at:at + 1] != '"':
            raise ValueError("a key expected")
        key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        at = _skip(text, at)
        if text[at:at + 1] != ":":
            raise ValueError("':' expected")
        start = _skip(text, at + 1)
        _, end = decoder.raw_decode(text, start)
        yield key, start, end
        at = _skip(text, end)
        if text[at:at + 1] == "}":
            return
        if text[at:at + 1] != ",":
            raise ValueError("',' expected")
        at = _skip(text, at + 1)


def _elements(text: str, at: int, decoder: json.JSONDecoder) -> List[Tuple[int, int]]:
    """``(start, end)`` of each element of the array starting at ``at`` (``[``)."""
    if text[at:at + 1] != "[":
        raise ValueError("not an array")
    spans: List[Tuple[int, int]] = []
    at = _skip(text, at + 1)
    if text[at:at + 1] == "]":
        return spans
    while True:
        _, end = decoder.raw_decode(text, at)
        spans.append((at, end))
        at = _skip(text, end)
        if text[at:at + 1] == "]":
            return spans
        if text[at:at + 1] != ",":
            raise ValueError("',' expected")
        at = _skip(text, at + 1)


def _source_places(text: str) -> Optional[Dict[int, Tuple[int, int, List[Tuple[int, int]]]]]:
    """Per cell index: where its ``source`` value lies in ``text`` and, for a list, where each line lies. For a
    key given twice the last one counts, as for ``json.loads``."""
    decoder = json.JSONDecoder()
    cells_at = None
    for key, start, _ in _members(text, _skip(text, 0), decoder):
        if key == "cells":
            cells_at = start
    if cells_at is None:
        return None
    places = {}
    for index, (start, _) in enumerate(_elements(text, cells_at, decoder)):
        if text[start:start + 1] != "{":
            continue
        for key, value_start, value_end in _members(text, start, decoder):
            if key == "source":
                items = _elements(text, value_start, decoder) if text[value_start] == "[" else []
                places[index] = (value_start, value_end, items)
    return places


def _source_text(old: str, items: List[Tuple[int, int]], new: object) -> str:
    """The JSON for a cell's new ``source``, laid out like ``old`` (the value's text; ``items``: each line's
    place in it): the same brackets, separators and indentation, and each unchanged line in its old spelling."""
    if not isinstance(new, list) or not old.startswith("[") or not items:
        return _json(new)
    if not new:
        return "[]"
    spelled: Dict[str, str] = {}
    for start, end in items:
        raw = old[start:end]
        line = json.loads(raw)
        if isinstance(line, str):
            spelled.setdefault(line, raw)
    lines = [spelled[line] if isinstance(line, str) and line in spelled else _json(line) for line in new]
    prefix, suffix = old[:items[0][0]], old[items[-1][1]:]
    separator = old[items[0][1]:items[1][0]] if len(items) > 1 else "," + prefix[1:]
    return prefix + separator.join(lines) + suffix


def _json(value: object) -> str:
    """``value`` as JSON, non-ASCII kept as is (as nbformat writes), escaped only where UTF-8 cannot carry it
    (a lone surrogate a cell held as ``\\ud800``)."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def _lone_surrogate(text: str) -> Optional[str]:
    """The first lone surrogate in ``text`` (JSON's ``\\ud800``, which no UTF-8 text can hold), as ``U+D800``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # UTF-8 refuses nothing else
        return f"U+{ord(error.object[error.start]):04X}"
    return None


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _merge_ipython(original: str, blanked: List[str], python: List[str]) -> List[str]:
    """Python lines of a cell with its IPython lines (magics, shell escapes, blanked in ``blanked``) put back, and
    the magic of a line that runs code (``%time y = ...``, read as ``0;    y = ...``, column for column) kept in
    front of its code, edited or not."""
    merged = []
    for orig, blank, new in zip(original.splitlines() or [""], blanked, python):
        if blank == "" and orig.strip():
            merged.append(orig)
        elif blank != orig and len(blank) == len(orig):
            code = len(orig)
            while code > 0 and orig[code - 1] == blank[code - 1]:
                code -= 1
            code = min(code + len(blank[code:]) - len(blank[code:].lstrip()), len(orig))
            merged.append(orig[:code] + new[code:] if new[:code] == blank[:code] else orig)
        else:
            merged.append(new)
    return merged


def _cell_source(original: str, lines: List[str], raw: object) -> object:
    """The new cell source, as a string or a list of lines like the notebook had it."""
    text = "\n".join(lines) + ("\n" if original.endswith("\n") else "")
    return text.splitlines(keepends=True) if isinstance(raw, list) else text


# ------------------------------------------------------------------------------------------ other files


def _fix_lines(text: str, edits: Sequence[PlannedEdit]) -> Tuple[str, List[PlannedEdit], List[Skipped]]:
    lines = text.splitlines(keepends=True)
    applied: List[PlannedEdit] = []
    skipped: List[Skipped] = []
    for planned in edits:
        line = planned.at.line
        if planned.edit.kind not in (EditKind.STRING, EditKind.TEXT) or not line or line > len(lines) \
                or planned.edit.old not in lines[line - 1]:
            skipped.append(Skipped(planned.finding, planned.rule, line, "the line no longer holds the finding"))
            continue
        text, col = lines[line - 1], planned.at.col
        if col is not None and text.startswith(planned.edit.old, col):  # at the value itself (a configuration
            # file's `cuda_device: cuda`), else the first on the line
            lines[line - 1] = text[:col] + planned.edit.new + text[col + len(planned.edit.old):]
        else:
            lines[line - 1] = text.replace(planned.edit.old, planned.edit.new, 1)
        applied.append(planned)
    return "".join(lines), applied, skipped

