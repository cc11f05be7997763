"""The ``torch-pin`` rule."""

from __future__ import annotations

from typing import Optional

from ...maps.load import paired, pairings, runtime, torch_lines
from ...model import Category, Status, Usage, UsageKind, Verdict, fix_of
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid
from . import _other_line, _pair_pins, _pair_text, _stack


class TorchPin(Rule):
    """A torch pin with no device plugin paired with it.

    ## What it does
    Reads an exact pin of a plain torch build in a requirements file (`torch==2.11.0`) against the vendor's
    pairing table: on Ascend, the torch_npu release built for that torch version (Ascend's compatibility
    table, or the torch a torch_npu wheel requires). A file that already pins that plugin version is left
    alone; a plugin pinned for another torch version is reported. On a runtime with no published pairing
    table, the pin is checked against the torch lines its releases in the data run.

    ## Why is this bad?
    The plugin is built against one torch version: installed beside another, `import torch_npu` fails or
    its kernels do not register. A pin with no plugin beside it installs a machine that has no device.

    ## Example
    `torch==2.11.0` alone becomes `torch==2.11.0` and `torch_npu==2.11.0` (CANN 9.1.0).

    ## Fix safety
    A suggestion, never applied: the CANN toolkit on the machines must match the plugin release too.
    """

    name = "torch-pin"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.REQUIREMENT})
    category = Category.ENVIRONMENT
    summary = "torch pins with no device plugin paired with them"
    examples = (
        Invalid("numpy>=1.24\ntorch==2.11.0\n", path="requirements.txt",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        Invalid("torch==2.11.0\ntorch_npu==2.9.0.post6\n", path="requirements.txt",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        Valid("torch>=2.1\n", path="requirements.txt"),
        Valid("torch==2.1.0+cu121\n", path="requirements.txt"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        if usage.api != "requirement-pin:torch":
            return None
        version = usage.args[0].value.text or ""
        plugins = dict(p.split("==", 1) for p in (usage.args[1].value.text or "").split())
        return per_target(ctx, lambda t: _pin_verdict(t, version, plugins))


def _pin_verdict(target, version: str, plugins) -> Verdict:
    pairing = paired(target.id, version)
    if pairing is not None:
        pinned = plugins.get(pairing.package)
        if pinned is not None and paired_version(target.id, pinned) == pairing.torch:
            return Verdict(Status.SUPPORTED, f"{pairing.package} {pinned} is built for torch {pairing.torch}",
                           pairing.source)
        if pinned is not None:
            return Verdict(Status.REWRITE, f"{pairing.package} {pinned} is not built for torch {version}: pin "
                           f"{_pair_text(pairing)}" + _other_line(target, pairing), pairing.source,
                           fix=fix_of(_pair_pins(pairing)))
        exact = "" if pairing.torch == version else f" (no {pairing.package} release is built for torch {version})"
        return Verdict(Status.REWRITE, f"torch {version} is pinned with no {pairing.package}: pin "
                       f"{_pair_text(pairing)}{exact}" + _other_line(target, pairing), pairing.source,
                       fix=fix_of(_pair_pins(pairing)))
    lines = torch_lines(target.id)
    if runtime(target.id).cuda_names == "kept":
        return Verdict(Status.UNKNOWN, f"no public data says which torch version {target.id}'s plugin "
                       f"({_stack(target)}) is built for", "migrator environment rules")
    line = ".".join(version.split(".")[:2])
    if line in lines:
        return Verdict(Status.SUPPORTED, f"torch {line} is a line {target.id}'s releases run",
                       f"operator_maps/targets/{target.id}/target.json")
    return Verdict(Status.REWRITE, f"torch {version} is not a line {target.id}'s releases in the data run "
                   f"({', '.join(lines)}): pin one of those", f"operator_maps/targets/{target.id}/target.json",
                   fix=fix_of(f"torch=={lines[0]}.*" if lines else None))


def paired_version(target_id: str, plugin_version: str) -> Optional[str]:
    """The torch version a plugin release is built for, by the pairing table."""
    return next((p.torch for p in pairings(target_id) if p.version == plugin_version), None)
