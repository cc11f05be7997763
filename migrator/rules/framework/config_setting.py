"""The ``config-setting`` rule."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Tuple

from ...maps.load import FrameworkSetting, framework_settings
from ...model import Category, Edit, EditKind, Status, Usage, UsageKind, fix_of
from ...sources.config import FAMILY_FRAMEWORKS, GENERIC
from ..base import Claim, Rule, RuleContext, Verdicts, per_target
from ..examples import ByRuntime, Invalid, Valid
from . import setting_verdict

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_SETTING = UsageKind.SETTING

_HYDRA = "import hydra\nimport lightning as L\n\n@hydra.main(config_path='conf', config_name='config')\n" \
         "def main(cfg):\n    L.Trainer(**cfg.trainer).fit(None)\n"
_DEEPSPEED = "import deepspeed\n\ndef main(model):\n    return deepspeed.initialize(model=model, " \
             "config='ds_config.json')\n"


class ConfigSetting(Rule):
    """A training framework's setting in a configuration file the project reads.

    ## What it does
    Finds the values of configuration files that a framework reads to choose the device, the collective
    backend or the precision: DeepSpeed's JSON (`amp`, `fp16`, `bf16` blocks, a `Lamb` optimizer, the 1-bit
    optimizers' `comm_backend_name`, ZeRO's offload device), accelerate's launch config (`distributed_type`,
    `mixed_precision`, `gpu_ids`), and Lightning's or transformers' settings in a Hydra / OmegaConf / CLI YAML
    (`trainer.accelerator: gpu`, `trainer.precision: 16-mixed`, `tf32: true`). Each verdict says what the
    framework's own code does with that value on the target (`operator_maps/curated/frameworks.yaml`, quoting
    the file at a pinned commit). Only files something reads count: a file that code, a launch script or another
    configuration file read names, or that a framework the project runs reads by its name (`project/configs.py`);
    a YAML nothing names is not reported. (`device: cuda` and `backend: nccl` in those files are
    `device-string`'s and `collective-backend`'s.)

    ## Why is this bad?
    Some values load CUDA-only pieces: DeepSpeed's `amp` block runs NVIDIA apex, its `Lamb` optimizer a fused
    kernel its Ascend and Cambricon op builders lack, the 1-bit optimizers' `nccl` backend cupy; Lightning's
    `accelerator: gpu` raises without CUDA. Others the framework maps per device itself (accelerate's
    `MULTI_GPU`, DeepSpeed's `fp16` block): those are reported as running, with the file that shows it.

    ## Fix safety
    Where the framework's code names the value to write instead (DeepSpeed's `hccl` 1-bit backend on Ascend,
    a CPU offload on Cambricon), `fix` writes it in place of the value, leaving the rest of the file as it is;
    the rest are suggestions.
    """

    name = "config-setting"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.SETTING})
    category = Category.DEVICE
    summary = "a framework's device, backend or precision setting in a configuration file"
    examples = (
        Invalid("{\n  \"train_micro_batch_size_per_gpu\": 4,\n  \"amp\": {\"enabled\": true}\n}\n",
                path="ds_config.json", files={"train.py": _DEEPSPEED},
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        Invalid("{\n  \"zero_optimization\": {\"stage\": 2},\n  \"optimizer\": {\"type\": \"OneBitAdam\", "
                "\"params\": {\"comm_backend_name\": \"nccl\"}}\n}\n",
                path="ds_config.json", files={"train.py": _DEEPSPEED},
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN, neuware=Status.UNSUPPORTED),
                fixed=dict(cann="{\n  \"zero_optimization\": {\"stage\": 2},\n  \"optimizer\": {\"type\": "
                                "\"OneBitAdam\", \"params\": {\"comm_backend_name\": \"hccl\"}}\n}\n")),
        Invalid("defaults:\n  - _self_\n\ntrainer:\n  accelerator: gpu  # Lightning's\n  devices: 8\n",
                path="conf/config.yaml", files={"train.py": _HYDRA},
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # the framework maps it per device itself: runs as written, with the file read as the source
        Invalid("{\n  \"zero_optimization\": {\"stage\": 2},\n  \"fp16\": {\"enabled\": true}\n}\n",
                path="ds_config.json", files={"train.py": _DEEPSPEED}, expect=Status.SUPPORTED),
        # no code or launch script names the file: not read, not reported
        Valid("trainer:\n  accelerator: gpu\n", path="old/config.yaml", files={"train.py": _HYDRA}),
        # Lightning autocasts on the CPU itself
        Valid("trainer:\n  accelerator: cpu\n  precision: bf16-mixed\n", path="conf/config.yaml",
              files={"train.py": _HYDRA}),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        rows = matched(usage)
        if not rows:
            return None
        return per_target(ctx, lambda t: _with_edit(setting_verdict(t, rows), t.id, rows))

    def category_for(self, usage: Usage) -> Category:
        rows = matched(usage)
        return Category(rows[0][0].category) if rows else self.category


def matched(usage: Usage) -> List[Tuple[FrameworkSetting, str]]:
    """The framework rows the setting's key and value match, among those of its file's family (a Lightning
    precision flag only where the same mapping's accelerator is not the CPU's or MPS's)."""
    if usage.kind != _SETTING or not usage.api.startswith("config:") or not usage.args:
        return []
    path, value = usage.api[len("config:"):], usage.args[0].value.text
    frameworks = FAMILY_FRAMEWORKS.get(usage.context or GENERIC, ())
    siblings = {a.keyword: (a.value.text or "").lower() for a in usage.args[1:] if a.keyword}
    out = []
    for row in framework_settings():
        if row.framework not in frameworks or not row.matches(value):
            continue
        if not any(path == key or path.endswith("." + key) for key in row.config):
            continue
        if row.argument == "precision" and siblings.get("accelerator") in ("cpu", "mps"):
            continue
        out.append((row, f"{value}"))
    return out


def _with_edit(verdict, target_id: str, rows: List[Tuple[FrameworkSetting, str]]):
    """A row's verdict that names the value to write (``to``) becomes a fix that writes it at the value."""
    if verdict.status == Status.SUPPORTED or len(rows) != 1:
        return verdict
    row, value = rows[0]
    spec = row.verdicts.get(target_id.split("@", 1)[0]) or {}
    new = spec.get("to")
    if not new:
        return verdict
    return replace(verdict, fix=fix_of(str(new), Edit(EditKind.STRING, value, str(new)), safe=True))


def framework_of(usage_api: str) -> Tuple[str, ...]:
    """The frameworks whose settings a finding at ``config:<key>`` may be (``project/configs.py`` keeps a generic
    file's Lightning or transformers setting only where the project imports that framework)."""
    path = usage_api[len("config:"):]
    return tuple(sorted({row.framework for row in framework_settings()
                         if any(path == key or path.endswith("." + key) for key in row.config)}))
