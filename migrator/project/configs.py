"""Configuration files read in their project: a value of a configuration file is a finding only when something
reads the file. A file is read when code names it (a string literal ``"configs/ds.json"``, Hydra's
``config_path``, ``OmegaConf.load("x.yaml")``), a launch script names it (``--deepspeed ds.json``,
``--config_file accelerate.yaml``), a configuration file already read names it (accelerate's
``deepspeed_config_file``), or a framework the project runs reads it by its name (DeepSpeed's launcher and
``.deepspeed_env``). A ``device: cuda`` in a YAML nothing names is not work, and is not reported.

A framework's setting in a generic configuration file (``trainer.accelerator: gpu`` in a Hydra YAML) is that
framework's only where the project imports it. Each finding kept says which file reads its file, and where.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..model import FileKind, FileResult, FileStatus, Finding, Status, Verdict
from ..sources.config import NAMED_CONFIGS, resolve_name

#: the frameworks whose settings a generic configuration file carries only for a project that imports them
_IMPORTED = frozenset({"lightning", "transformers"})


class ConfigReads:
    """Which configuration files the project reads, and the first place that names each."""

    def __init__(self, results: Sequence[FileResult]):
        configs = [r.file.rel for r in results if r.file.kind == FileKind.TRAINING_CONFIG]
        self.configs = frozenset(configs)
        self.frameworks: Set[str] = set()
        self.read_by: Dict[str, Tuple[str, int]] = {}
        by_config = {r.file.rel: r for r in results if r.file.kind == FileKind.TRAINING_CONFIG}
        pending: List[str] = []
        for result in results:
            refs = result.config_refs
            if refs is None or result.file.kind == FileKind.TRAINING_CONFIG:
                continue
            self.frameworks.update(refs.frameworks)
            for name in refs.names:
                for rel in resolve_name(name, result.file.rel, configs):
                    if rel not in self.read_by:
                        self.read_by[rel] = (result.file.rel, name.line)
                        pending.append(rel)
        if "deepspeed" in self.frameworks:
            for rel in configs:
                if rel.rsplit("/", 1)[-1] in NAMED_CONFIGS and rel not in self.read_by:
                    self.read_by[rel] = ("deepspeed", 0)
        while pending:  # a configuration file read names another: accelerate's deepspeed_config_file
            rel = pending.pop()
            refs = by_config[rel].config_refs if rel in by_config else None
            for name in refs.names if refs is not None else ():
                for other in resolve_name(name, rel, configs):
                    if other not in self.read_by:
                        self.read_by[other] = (rel, name.line)
                        pending.append(other)

    def reader(self, rel: str) -> Optional[str]:
        """Who reads the configuration file ``rel`` (``train.py:5``, ``the deepspeed launcher``), or ``None``."""
        found = self.read_by.get(rel)
        if found is None:
            return None
        path, line = found
        return "the deepspeed launcher (read by its name)" if path == "deepspeed" else f"{path}:{line}"

    def unread(self) -> List[str]:
        return sorted(self.configs - set(self.read_by))


def with_config_reads(findings: Sequence[Finding], results: Sequence[FileResult]) -> Tuple[List[Finding], ConfigReads]:
    """``findings`` without those of configuration files nothing reads (and without a framework's setting the
    project does not import), each kept one saying which file reads its file."""
    reads = ConfigReads(results)
    if not reads.configs:
        return list(findings), reads
    kept: List[Finding] = []
    for finding in findings:
        if finding.path not in reads.configs:
            kept.append(finding)
            continue
        reader = reads.reader(finding.path)
        if reader is None:
            continue
        if finding.rule == "config-setting":
            from ..rules.framework.config_setting import framework_of

            frameworks = set(framework_of(finding.api))
            if frameworks and frameworks <= _IMPORTED and not frameworks & reads.frameworks:
                continue
        said = f"; read by {reader}"
        verdicts = {t: replace(v, message=v.message + said) for t, v in finding.verdicts.items()}
        kept.append(replace(finding, verdicts=verdicts))
    return kept, reads


def with_unread_noted(files: Sequence[FileResult], reads: ConfigReads) -> Tuple[FileResult, ...]:
    """Each configuration file nothing reads says so in the report's file list (its values were not judged)."""
    unread = set(reads.unread())
    if not unread:
        return tuple(files)
    why = "not named by any code, launch script or configuration file read: its values are not findings"
    return tuple(replace(r, reason=r.reason or why) if r.file.rel in unread and r.status == FileStatus.OK else r
                 for r in files)


#: the code findings a configuration value can be the cause of: a device or backend literal the code compares the
#: value with or defaults it to, and what already points at one of those
_VALUE_RULES = frozenset({"device-string", "collective-backend", "device-argument"})


def with_config_roots(findings: Sequence[Finding], reads: ConfigReads) -> List[Finding]:
    """One choice, one item: where the code compares a configuration value with CUDA's spelling or defaults it
    to it (``if cfg.device == "cuda":``, ``cfg.get("device", "cuda")``, ``add_argument("--backend",
    default="nccl")`` over a YAML that sets ``backend``), its finding is a site of the finding at the line of the
    read configuration file that sets that key (``Finding.config_key``, matched by its dotted tail), and so is
    everything already pointing at it. The configuration line is the item; the code's use keeps its verdicts
    (``fix`` still edits it) and says where the value is chosen."""
    by_key: Dict[str, List[Finding]] = {}
    for finding in findings:
        if finding.path in reads.read_by and finding.config_key and finding.rule != "config-setting":
            by_key.setdefault(finding.config_key.split(".")[-1], []).append(finding)
    if not by_key:
        return list(findings)
    roots: Dict[str, str] = {}
    said: Dict[str, str] = {}
    restored: Dict[str, Dict[str, Verdict]] = {}
    for finding in findings:
        if finding.path in reads.configs or not finding.config_key \
                or (finding.rule not in _VALUE_RULES and finding.unguarded is None):
            continue
        cause = _setting_of(finding, by_key.get(finding.config_key.split(".")[-1], ()), reads)
        if cause is None or cause.id == finding.id:
            continue
        roots[finding.id] = cause.id
        said[finding.id] = f"; the value is chosen at {cause.path}:{cause.span.line} (`{cause.snippet}`)"
        if finding.unguarded is not None:  # ``if cfg.device == "cuda":``: taken once the file names the target
            restored[finding.id] = {t: replace(v, message=v.message + f"; the test reads `{cause.snippet}` "
                                               f"({cause.path}:{cause.span.line}), which changes to the target's "
                                               "device: the branch runs there and changes with it")
                                    for t, v in finding.unguarded.items()
                                    if t in cause.verdicts and cause.verdicts[t].status != Status.SUPPORTED}
    if not roots:
        return list(findings)
    for finding in findings:  # what pointed at a use now points at the configuration line
        if finding.root in roots and finding.id not in roots:
            roots[finding.id] = roots[finding.root]
    out = []
    for finding in findings:
        if finding.id not in roots:
            out.append(finding)
            continue
        extra = said.get(finding.id, "")
        verdicts = {t: replace(v, message=v.message + extra) for t, v in finding.verdicts.items()} if extra \
            else dict(finding.verdicts)
        verdicts.update(restored.get(finding.id, {}))
        out.append(replace(finding, root=roots[finding.id], verdicts=verdicts))
    return out


def _setting_of(finding: Finding, candidates: Sequence[Finding], reads: ConfigReads) -> Optional[Finding]:
    """The configuration finding that sets the key ``finding`` reads, of the same kind of value (a device for a
    device, a backend for a backend): one in the same part of the project (a training file's value is not set
    by a test's configuration), the longest matching key, then one read by ``finding``'s own file."""
    key = finding.config_key or ""
    kind = _kind(finding)
    matches = [c for c in candidates if _kind(c) == kind and _same_key(key, c.config_key or "")]
    if not matches:
        return None
    return max(matches, key=lambda c: (c.context == finding.context, len((c.config_key or "").split(".")),
                                       reads.read_by.get(c.path, ("", 0))[0] == finding.path, -len(c.path)))


def _same_key(code: str, written: str) -> bool:
    """``trainer.device`` read as ``cfg.trainer.device`` (``trainer.device``) or as ``device`` under a node the
    code holds (``trainer_cfg.device``): one dotted path ends with the other."""
    return code == written or code.endswith("." + written) or written.endswith("." + code)


def _kind(finding: Finding) -> str:
    api = finding.api
    return "backend" if "Backend" in api or "backend" in api or finding.rule == "collective-backend" else "device"
