"""The ``framework-argument`` rule."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ...resolve.values import UNPACKED, from_argparse_default
from ...resolve.vocabulary import Vocabulary
from ...maps.load import FrameworkSetting, framework_settings
from ...model import Category, Status, Usage, UsageKind, ValueKind
from ..base import Claim, Rule, RuleContext, Verdicts, per_target, resolve_value
from ..examples import ByRuntime, Invalid, Valid
from . import setting_verdict

#: closed members this module compares per usage, bound once (an Enum class attribute costs several literals)
_CALL = UsageKind.CALL
_CHOICE = ValueKind.CHOICE
_INT = ValueKind.INT
_OTHER = ValueKind.OTHER
_STR = ValueKind.STR


class FrameworkArgument(Rule):
    """A training framework's device, backend or precision argument.

    ## What it does
    Finds the arguments with which a framework chooses the device, the collective backend or the precision:
    Lightning's `Trainer(accelerator=, precision=, strategy=)` (and pytorch_lightning 1.x's `gpus=`), transformers'
    `TrainingArguments(tf32=, fp16=, ddp_backend=)` (in code, or as the options of a shell launch whose script
    parses them with `HfArgumentParser`: `--tf32 True`), accelerate's `Accelerator(mixed_precision=)`, timm's
    `NativeScaler(device=)` (CUDA's GradScaler where it is not written). Each verdict
    says what the framework's own code does with that value on the target (`operator_maps/curated/frameworks.yaml`,
    quoting the file at a pinned commit).

    ## Why is this bad?
    Some values are CUDA's as written: Lightning resolves `accelerator='gpu'` to CUDA or MPS and raises
    elsewhere, and autocasts a mixed precision flag on `cuda`; transformers raises on `tf32=True` without
    CUDA. Others the framework maps per device itself (accelerate sets `hccl` / `cncl` whatever
    `ddp_backend` says; Lightning's DDP picks the backend torch registers for the device): those are
    reported as running, with the file that shows it, not as work.

    ## Fix safety
    A suggestion, never applied: the replacement (an accelerator instance, a precision plugin) depends on
    the vendor's integration.
    """

    name = "framework-argument"
    claim = Claim.CUDA_API
    kinds = frozenset({UsageKind.CALL})
    #: a subclass's ``super().__init__(accelerator=accelerator)`` passes its own defaults to the framework
    vocabulary = Vocabulary(inherited_calls=frozenset(call for row in framework_settings() for call in row.calls))
    category = Category.DEVICE
    summary = "a training framework's device, backend or precision argument"
    examples = (
        Invalid("import lightning as L\ntrainer = L.Trainer(accelerator='gpu', devices=8)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Invalid("from transformers import TrainingArguments\nargs = TrainingArguments('out', tf32=True)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        # accelerate sets hccl / cncl itself whatever ddp_backend says: runs as written, and the verdict says
        # why (the file read), so the use is coverage, not work
        Invalid("from transformers import TrainingArguments\nargs = TrainingArguments('out', fp16=True, "
                "ddp_backend='nccl')\n", expect=Status.SUPPORTED),
        Invalid("from accelerate import Accelerator\naccelerator = Accelerator(mixed_precision='fp16')\n",
                expect=Status.SUPPORTED),
        Valid("import lightning as L\ntrainer = L.Trainer(accelerator='cpu', precision='bf16-mixed')\n"),
        # FastChat's and LLaVA's launchers: the script parses its TrainingArguments from the command line (its
        # options only HfArgumentParser reads say so), so `--tf32 True` is that call's argument
        Invalid("torchrun --nproc_per_node=8 train_mem.py \\\n    --bf16 True \\\n"
                "    --per_device_train_batch_size 2 \\\n    --gradient_accumulation_steps 16 \\\n    --tf32 True\n",
                path="scripts/train.sh",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.UNKNOWN)),
        Valid("torchrun train_mem.py --per_device_train_batch_size 2 --gradient_accumulation_steps 16 --tf32 False\n",
              path="scripts/train.sh"),
        # a project's own flag of the same name (no option only TrainingArguments has): its own code reads it
        Valid("python train.py --batch-size 64 --epochs 90 --tf32\n", path="scripts/train.sh"),
        # Lightning's DeepSpeed strategy accepts CUDA's accelerator only (lit-llama's multi-device adapter recipes)
        Invalid("import lightning as L\ntrainer = L.Trainer(accelerator='auto', strategy='deepspeed_stage_2')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Invalid("from lightning.fabric.strategies import DeepSpeedStrategy\n"
                "strategy = DeepSpeedStrategy(config={'zero_optimization': {'stage': 2}})\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # lightning-bolts' SwAV: pytorch_lightning 1.x's `gpus` flag is the CUDA accelerator; `gpus=0` the CPU
        Invalid("import argparse\nfrom pytorch_lightning import Trainer\nparser = argparse.ArgumentParser()\n"
                "parser.add_argument('--gpus', default=1, type=int)\nargs = parser.parse_args()\n"
                "trainer = Trainer(gpus=args.gpus, max_epochs=10)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("from pytorch_lightning import Trainer\ntrainer = Trainer(gpus=0, accelerator='cpu', max_epochs=10)\n"),
        # the value comes from elsewhere (a config the code reads): judged where it is written
        Valid("import lightning as L\ndef main(cfg):\n    return L.Trainer(accelerator=cfg.accelerator)\n"),
        # not written: Lightning's default, 'auto' (litgpt's pretrain builds its Fabric so)
        Invalid("import lightning as L\nfabric = L.Fabric(devices=4, strategy='ddp')\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # autogluon's learners: the accelerator chosen between values, in keyword arguments built beforehand
        Invalid("import lightning.pytorch as pl\n\n\ndef fit(num_gpus, config):\n"
                "    trainer_kwargs = dict(accelerator='gpu' if num_gpus > 0 else config.accelerator, max_epochs=3)\n"
                "    return pl.Trainer(**trainer_kwargs)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # a parameter's default is what runs where the caller passes none (matgl's trainer keeps it on `self`;
        # torch-uncertainty's `Trainer` subclass hands its own to `super().__init__`)
        Invalid("import lightning as L\n\n\nclass PotentialTrainer:\n"
                "    def __init__(self, model, accelerator: str = 'auto'):\n"
                "        self.model = model\n"
                "        self.accelerator = accelerator\n\n"
                "    def fit(self, data):\n"
                "        L.Trainer(accelerator=self.accelerator, max_epochs=10).fit(self.model, data)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Invalid("from lightning.pytorch import Trainer\n\n\nclass TUTrainer(Trainer):\n"
                "    def __init__(self, accelerator='auto', devices='auto'):\n"
                "        super().__init__(accelerator=accelerator, devices=devices)\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # scvi-tools' parse_device_args: Lightning's own resolver, called directly
        Invalid("from lightning.pytorch.trainer.connectors.accelerator_connector import _AcceleratorConnector\n"
                "def parse_device_args(accelerator='auto', devices='auto'):\n"
                "    return _AcceleratorConnector(accelerator=accelerator, devices=devices)._accelerator_flag\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        # DeiT's and its followers' loss scaler: CUDA's where no device is written
        Invalid("import torch\nfrom timm.utils import NativeScaler\nloss_scaler = NativeScaler()\n",
                expect=ByRuntime(renamed=Status.REWRITE, kept=Status.SUPPORTED)),
        Valid("import torch\nfrom timm.utils import NativeScaler\nloss_scaler = NativeScaler(device='cpu')\n"),
        Valid("import lightning as L\ndef fit(model, data, accelerator='cpu'):\n"
              "    L.Trainer(accelerator=accelerator).fit(model, data)\n"),
        # ... unless the call may pass it (`**trainer_kwargs`)
        Valid("import lightning as L\ndef main(trainer_kwargs):\n"
              "    return L.Trainer(max_epochs=3, **trainer_kwargs)\n"),
    )

    def check(self, usage: Usage, ctx: RuleContext) -> Optional[Verdicts]:
        rows = matched(usage, ctx)
        if not rows:
            return None
        return per_target(ctx, lambda t: setting_verdict(t, rows))

    def category_for(self, usage: Usage) -> Category:
        rows = matched(usage, None)
        return Category(rows[0][0].category) if rows else self.category


def matched(usage: Usage, ctx: Optional[RuleContext]) -> List[Tuple[FrameworkSetting, str]]:
    """The framework settings this call makes, each with the value written; a Lightning precision flag is a
    setting only where the accelerator is not the CPU's or MPS's (Lightning autocasts on those devices)."""
    if usage.kind != _CALL:
        return []
    rows = [r for r in framework_settings() if usage.api in r.calls]
    if not rows:
        return []
    values = {}
    choices: Dict[str, List[str]] = {}  # ``accelerator="gpu" if num_gpus > 0 else "cpu"``: the values it may take
    defaults: Dict[str, str] = {}  # of ``values``, those a parameter's default gives -> the parameter
    for arg in usage.args:
        if arg.keyword is not None:
            value = resolve_value(arg.value, ctx.project) if ctx is not None else arg.value
            # a script's own default runs unless given, as does a parameter's (``def fit(accelerator="auto")``,
            # ``self.accelerator = accelerator``); keyword arguments built beforehand are written for the call
            written = value.via is None or from_argparse_default(value) or value.via.startswith(UNPACKED) \
                or value.from_default
            if value.kind in (_STR, _INT, _OTHER) and value.text is not None and written:
                values[arg.keyword] = value.text
                if value.from_default and value.via:
                    defaults[arg.keyword] = value.via
            elif value.kind == _CHOICE and written:
                choices[arg.keyword] = [o.text for o in value.options if o.kind in (_STR, _INT) and o.text]
    accelerator = (values.get("accelerator") or "").strip("'\"").lower()
    # ``L.Fabric(devices=4)``: an argument no call writes is the framework's default, where nothing else could
    # pass it (no positional arguments, no ``*args`` or ``**kwargs``)
    could_pass = any(a.keyword is None or a.keyword in ("*", "**") for a in usage.args)
    written_names = {a.keyword for a in usage.args}
    out = []
    for row in rows:
        text = values.get(row.argument) or next((t for t in choices.get(row.argument, ()) if row.matches(t)), None)
        shown = text if row.argument in values or text is None else f"{text} (one of the values the code chooses)"
        if text is not None and row.argument in defaults:
            shown = f"{text} (the default of parameter `{defaults[row.argument]}`, where the caller passes none)"
        if text is None and row.omitted is not None and not could_pass and row.argument not in written_names:
            text, shown = row.omitted, f"{row.omitted} (not written: the default, {row.omitted_source})"
            if row.argument == "accelerator":
                accelerator = row.omitted
        if text is None or shown is None or not row.matches(text):
            continue
        if row.argument == "precision" and accelerator in ("cpu", "mps"):
            continue
        out.append((row, shown))
    return out
