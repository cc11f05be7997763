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

from ..model import FileKind, FileResult, FileStatus, Finding
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
