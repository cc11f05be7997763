"""`migrator memory`: parameter counts, the ZeRO arithmetic, fit verdicts, card overrides, real models."""
import json
import sys

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.memory.cards import Card, CardError, load_cards
from migrator.memory.fit import HEADROOM, fit_card
from migrator.memory.measure import Activations, ModelFacts
from migrator.memory.states import per_card

from .conftest import write_tree

GB = 1e9


# ----------------------------------------------------------------------------- the ZeRO arithmetic

@pytest.mark.parametrize("strategy, expected_gb", [
    # ZeRO paper (Rajbhandari et al. 2020), figure 1: 7.5B parameters, 64 GPUs, mixed-precision Adam (K = 12)
    pytest.param("ddp", 120.0, id="baseline-120GB"),
    pytest.param("zero1", 31.4, id="optimizer-sharded-31.4GB"),
    pytest.param("zero2", 16.6, id="gradients-too-16.6GB"),
    pytest.param("zero3", 1.9, id="parameters-too-1.9GB"),
])
def test_model_states_match_the_zero_paper(strategy, expected_gb):
    states = per_card(7_500_000_000, 0, "bf16", "adamw", strategy, 64)
    assert states.total / GB == pytest.approx(expected_gb, abs=0.05)


@pytest.mark.parametrize("dtype, optimizer, per_param", [
    pytest.param("fp32", "adamw", 16, id="fp32-adamw"),
    pytest.param("bf16", "adamw", 16, id="bf16-adamw-with-master"),
    pytest.param("bf16", "sgd", 8, id="bf16-sgd-master-only"),
    pytest.param("fp32", "sgd-momentum", 12, id="fp32-sgd-momentum"),
])
def test_bytes_per_parameter_on_one_card(dtype, optimizer, per_param):
    assert per_card(1000, 10, dtype, optimizer, "ddp", 1).total == per_param * 1000


def test_zero3_gathers_the_largest_layer_only_when_sharded():
    assert per_card(1000, 100, "bf16", "adamw", "zero3", 1).gathered == 0
    assert per_card(1000, 100, "bf16", "adamw", "zero3", 4).gathered == 2 * 100 * 2


# ----------------------------------------------------------------------------- the fit verdict

FACTS = ModelFacts(params=1_000_000_000, trainable=1_000_000_000, largest_layer=50_000_000, blocks="layers: 24 x Block",
                   input="token ids")
ACTS = Activations(bytes=20 * GB, checkpointed=4 * GB)


def _card(memory_gb):
    return Card(id="test-card", name="test card", memory_gb=memory_gb, source="test", dtypes={"bf16": True})


def test_fit_at_the_boundary_of_the_headroom():
    ddp_total = 16 * GB + 20 * GB  # 1B params x 16 bytes + measured activations
    exact = ddp_total / (1 - HEADROOM) / GB
    assert fit_card(_card(exact), FACTS, ACTS, "bf16", "adamw", 8).smallest.name == "DDP"
    below = fit_card(_card(exact * 0.999), FACTS, ACTS, "bf16", "adamw", 8)
    assert below.smallest.name == "ZeRO-1"  # the same compute and communication as DDP, no recomputation
    alone = fit_card(_card(exact * 0.999), FACTS, ACTS, "bf16", "adamw", 1)
    assert alone.smallest.name == "DDP + activation checkpointing"  # one card: nothing to shard


@pytest.mark.parametrize("memory_gb, cards, plan", [
    # issue 46: DDP + checkpointing was advised where ZeRO-1/2 fits without recomputing anything
    pytest.param(32, 8, "ZeRO-1", id="zero1-before-checkpointing"),
    pytest.param(31, 8, "ZeRO-2", id="zero2-before-checkpointing"),
    pytest.param(29, 8, "ZeRO-3 / FSDP full shard", id="zero3-before-checkpointing"),
    pytest.param(22, 2, "ZeRO-1 + activation checkpointing", id="checkpointing-before-offload"),
    pytest.param(8, 2, "ZeRO-3 + parameter and optimizer offload + activation checkpointing", id="offload-last"),
])
def test_the_cheapest_plan_that_fits_comes_first(memory_gb, cards, plan):
    fit = fit_card(_card(memory_gb), FACTS, ACTS, "bf16", "adamw", cards)
    assert fit.smallest.name == plan
    costs = [c.cost for c in fit.configurations]
    assert costs == sorted(costs)
    assert all(c.total > fit.usable for c in fit.configurations[:fit.configurations.index(fit.smallest)])


def test_offload_keeps_the_optimizer_on_the_host():
    from migrator.memory.states import per_card

    plain, offloaded = (per_card(1000, 100, "bf16", "adamw", s, 4) for s in ("zero2", "zero2-offload"))
    assert offloaded.optimizer == 0 and offloaded.host == 1000 * 16 / 4 and offloaded.total < plain.total
    assert per_card(1000, 100, "bf16", "adamw", "zero3-offload", 4).total == 2 * 100 * 2


def test_a_card_too_small_for_the_given_cards_says_how_many_it_needs():
    fit = fit_card(_card(8), FACTS, ACTS, "bf16", "adamw", 2)
    assert fit.smallest.offloaded  # only offloading fits on two cards
    n = fit.cards_needed
    usable = 8 * GB * (1 - HEADROOM)
    def at(cards):
        return per_card(FACTS.trainable, FACTS.largest_layer, "bf16", "adamw", "zero3", cards).total + 4 * GB

    assert at(n) <= usable < at(n - 1)
    assert f"{n} card(s) suffice" in _text(fit)


def _text(fit):
    import io

    from migrator.memory.fit import MemoryEstimate, estimate_assumptions
    from migrator.memory.render import render_text

    out = io.StringIO()
    render_text(MemoryEstimate(model="m:f", facts=FACTS, batch=1, seq=8, dtype="bf16", optimizer="adamw", cards=2,
                               activations=ACTS, fits=(fit,), assumptions=estimate_assumptions("bf16", "adamw")), out)
    return out.getvalue()


def test_no_number_of_cards_helps_when_one_batch_does_not_fit():
    fit = fit_card(_card(4), FACTS, ACTS, "bf16", "adamw", 8)
    assert fit.cards_needed is None and "any number of cards" in fit.reason


# ----------------------------------------------------------------------------- cards and overrides

def test_every_shipped_card_cites_a_source_and_the_baseline_is_the_h100():
    cards = load_cards()
    assert all(c.source for c in cards)
    assert [c.id for c in cards if c.baseline] == ["h100-sxm"]
    assert {c.target for c in cards if c.target} == {"cann", "neuware", "kunlun"}


def test_config_overrides_and_adds_cards(tmp_path):
    from migrator.gate.config import load_config

    write_tree(tmp_path, {"pyproject.toml": '[tool.migrator.cards.ascend-910b]\nmemory_gb = 32\n\n'
                                            '[tool.migrator.cards.lab-card]\nmemory_gb = 24\ntarget = "cann"\n'})
    cards = {c.id: c for c in load_cards(load_config([tmp_path]).cards)}
    assert cards["ascend-910b"].memory_gb == 32 and "overridden in [tool.migrator.cards]" in cards["ascend-910b"].source
    assert cards["lab-card"].memory_gb == 24 and cards["lab-card"].source.startswith("[tool.migrator.cards]")
    with pytest.raises(CardError, match="memory_gb"):
        load_cards([("broken", {"name": "no memory"})])


# ----------------------------------------------------------------------------- real models (torch)

GPT = '''
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=8000, d=256, heads=8, layers=4, ctx=512):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def build():
    return GPT()
'''

RESNET = '''
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(x + self.bn2(self.conv2(out)))


def resnet(classes=100, width=64, blocks=4):
    return nn.Sequential(nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(width),
                         nn.ReLU(inplace=True), nn.Sequential(*[BasicBlock(width) for _ in range(blocks)]),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, classes))
'''


@pytest.fixture
def models(tmp_path, monkeypatch):
    pytest.importorskip("torch", reason="torch==2.13.0 is not installed (.ci/run installs it)")
    write_tree(tmp_path, {"zoo/__init__.py": "", "zoo/gpt.py": GPT, "zoo/resnet.py": RESNET})
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "zoo" or m.startswith("zoo.")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


@pytest.mark.parametrize("spec", ["zoo.gpt:build", "zoo.resnet:resnet"], ids=["gpt-blocks", "resnet"])
def test_parameter_counts_equal_the_real_models(models, spec):
    from migrator.memory.measure import load_factory, model_facts

    factory = load_factory(spec, models)
    facts = model_facts(factory, 2, 64)
    real = factory()  # with weights, on the CPU
    assert facts.params == sum(p.numel() for p in real.parameters()) == facts.trainable
    assert facts.largest_layer == max(sum(p.numel() for p in m.parameters(recurse=False)) for m in real.modules())


@pytest.mark.parametrize("spec, seq, blocks", [
    pytest.param("zoo.gpt:build", 32, True, id="gpt-blocks"),
    pytest.param("zoo.resnet:resnet", 16, True, id="resnet-stage"),
    pytest.param("zoo.deep:build", 8, False, id="linear-stack-no-blocks"),
])
def test_activations_grow_with_the_batch_and_checkpointing_never_adds(models, spec, seq, blocks):
    from migrator.memory.measure import load_factory, measure_activations

    (models / "zoo" / "deep.py").write_text(DEEP, encoding="utf-8")
    factory = load_factory(spec, models)
    steps = [measure_activations(factory, batch, seq, "bf16") for batch in (1, 2, 4)]
    assert steps[0].bytes < steps[1].bytes < steps[2].bytes
    # linear in the batch: from 2 to 4 it grows twice what it grew from 1 to 2 (a constant part, as the
    # 16-bit weight gradient autocast makes before accumulating it in fp32, cancels out)
    assert 1.6 < (steps[2].bytes - steps[1].bytes) / (steps[1].bytes - steps[0].bytes) < 2.4
    assert all(step.checkpointed <= step.bytes for step in steps)
    if blocks:
        assert all(step.checkpointed < 0.8 * step.bytes for step in steps[1:])
        assert steps[2].recompute > 1.0  # the recomputed forward, measured in FLOPs
    else:
        assert all(step.checkpointed == step.bytes and "no repeated blocks" in step.note for step in steps)


def test_memory_command_reports_every_target_card_and_the_baseline(models):
    result = CliRunner().invoke(main, ["memory", "--model", "zoo.gpt:build", "--root", str(models), "--batch", "2",
                                       "--seq", "128", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert [f["card"]["id"] for f in document["fits"]][0] == "h100-sxm"
    assert {f["card"]["target"] for f in document["fits"][1:]} == {"cann", "neuware", "kunlun"}
    assert all(f["fits"] for f in document["fits"])  # a 4-layer toy fits everywhere
    assert document["assumptions"] and document["facts"]["blocks"] == "blocks: 4 x Block"
    acts = document["activations"]  # issue 46's fields, added beside the old ones
    assert acts["weight_copies"] > 0 and acts["with_copies"] >= acts["bytes"] >= acts["checkpointed"]
    assert document["formula"]["bytes_per_param"] == 16 and document["seq"] == 128
    plans = document["fits"][0]["configurations"]
    assert plans[0]["name"] == "DDP" and plans[-1]["offloaded"] and plans[-1]["checkpointing"]
    assert [p["compute"] for p in plans if not p["offloaded"]] == sorted(p["compute"] for p in plans
                                                                         if not p["offloaded"])


def test_memory_without_torch_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    result = CliRunner().invoke(main, ["memory", "--model", "x:y", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "pip install torch==2.13.0" in result.output


def test_a_factory_that_prints_leaves_the_json_report_whole(models):
    """nanoGPT's constructor prints its parameter count: the report on stdout must still be one JSON document."""
    (models / "zoo" / "chatty.py").write_text(
        "from zoo.gpt import build as _build\n\n\ndef build():\n    print('number of parameters: 1.23M')\n"
        "    return _build()\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["memory", "--model", "zoo.chatty:build", "--root", str(models), "--batch", "2",
                                       "--seq", "128", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model"] == "zoo.chatty:build"
    assert "number of parameters" in result.stderr


VIT = """\
import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, img_size=32, patch=8, d=32):
        super().__init__()
        self.img_size = img_size
        self.proj = nn.Conv2d(3, d, patch, stride=patch)

    def forward(self, x):
        assert x.shape[-1] == self.img_size, "input size does not match the model's"  # as timm's PatchEmbed
        return self.proj(x).flatten(2).transpose(1, 2)


class Block(nn.Module):
    def __init__(self, d, drop_path):
        super().__init__()
        self.drop_path = drop_path
        self.norm = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class ViT(nn.Module):
    def __init__(self, depth=3, d=32):
        super().__init__()
        self.patch_embed = PatchEmbed(d=d)
        rates = [x.item() for x in torch.linspace(0, 0.1, depth)]  # timm's ViT reads values while built
        self.blocks = nn.Sequential(*[Block(d, r) for r in rates])
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        return self.head(self.blocks(self.patch_embed(x)).mean(1))


class Routed(ViT):
    def forward(self, x):
        if self.patch_embed(x).mean().item() > 0:  # a branch on a value: no step without values takes it
            return self.head(self.blocks(self.patch_embed(x)).mean(1))
        return self.head(self.patch_embed(x).mean(1))


def build():
    return ViT()


def routed():
    return Routed()
"""


def test_a_model_that_reads_a_value_while_built_is_estimated_with_empty_weights(models):
    """timm's ViT calls `.item()` in its constructor and asserts its input size: it was 'cannot estimate'
    (issue 46); it is built with empty weights (parameters on the meta device, the rest on the CPU) and
    measured at the image size it declares."""
    from migrator.memory.measure import load_factory, measure_activations, model_facts

    (models / "zoo" / "vit.py").write_text(VIT, encoding="utf-8")
    factory = load_factory("zoo.vit:build", models)
    facts = model_facts(factory, 2, None)
    assert facts.params == sum(p.numel() for p in factory().parameters())
    assert facts.counted_on.startswith("empty weights (the meta build failed")
    assert facts.input.startswith("images (2, 3, 32, 32) (the size the model declares)")
    activations = measure_activations(factory, 2, None, "fp32")
    assert activations.bytes > 2 * 3 * 32 * 32 * 4 and activations.checkpointed < activations.bytes


def test_a_forward_that_reads_a_value_cannot_be_estimated_and_says_where(models):
    from migrator.memory.measure import FactoryError, load_factory, measure_activations

    (models / "zoo" / "vit.py").write_text(VIT, encoding="utf-8")
    with pytest.raises(FactoryError, match=r"cannot estimate, because the forward reads a tensor's value at "
                                           r"vit\.py:\d+ \(if self\.patch_embed\(x\)\.mean\(\)\.item\(\) > 0"):
        measure_activations(load_factory("zoo.vit:routed", models), 2, None, "fp32")
    result = CliRunner().invoke(main, ["memory", "--model", "zoo.vit:routed", "--root", str(models)])
    assert result.exit_code == 1 and "cannot estimate, because" in result.output
    assert "Traceback" not in result.output


DEEP = """\
import torch.nn as nn


def build():  # weights dominate: 4 x 1M parameters against a few hundred kB of activations
    return nn.Sequential(*[nn.Linear(1024, 1024, bias=False) for _ in range(4)])
"""


@pytest.mark.parametrize("dtype, copies", [pytest.param("fp32", 0, id="fp32-no-copies"),
                                           pytest.param("bf16", 4 * 1024 * 1024 * 2, id="bf16-one-copy-a-weight")])
def test_activations_are_the_steps_maximum_and_weight_copies_their_own_line(models, dtype, copies):
    """Issue 46: activations read when the total peaks (late in the backward, when the gradients dominate)
    were a fraction of what the forward holds. At the end of the forward autograd holds the input and the
    four layers' outputs (each 2 x 8 x 1024 elements); autocast's copies of the four weights are a line apart."""
    from migrator.memory.measure import load_factory, measure_activations

    (models / "zoo" / "deep.py").write_text(DEEP, encoding="utf-8")
    activations = measure_activations(load_factory("zoo.deep:build", models), 2, 8, dtype)
    width = 2 if dtype == "bf16" else 4
    assert activations.bytes >= 2 * 8 * 1024 * 4 + 4 * 2 * 8 * 1024 * width
    assert activations.bytes < 4 * 1024 * 1024  # no weight, copy or gradient counted among them
    assert activations.weight_copies == copies
    assert activations.with_copies <= activations.bytes + activations.weight_copies


STAGED = '''
import torch.nn as nn

from zoo.resnet import BasicBlock


class ResNet(nn.Module):
    """torchvision's layout: a stem, then four stages (layer1..layer4) of repeated blocks."""

    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        for n in range(1, 5):
            setattr(self, f"layer{n}", nn.Sequential(*[BasicBlock(width) for _ in range(2)]))
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.stem(x)
        for n in range(1, 5):
            x = getattr(self, f"layer{n}")(x)
        return self.fc(x.mean((2, 3)))


def build():
    return ResNet()
'''

TARGETED = GPT.replace("    def forward(self, idx):", "    def forward(self, idx, targets=None):").replace(
    "        return self.head(x)",
    "        if targets is None:  # nanoGPT: without targets, only the last position's logits\n"
    "            return self.head(x[:, [-1], :]), None\n"
    "        logits = self.head(x)\n"
    "        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())").replace(
    "import torch.nn as nn\n", "import torch.nn as nn\nimport torch.nn.functional as F\n", 1)


def test_every_stage_of_a_resnet_is_checkpointed(models):
    """Checkpointing wrapped the blocks of one container (ResNet's last stage); it wraps every stage's blocks."""
    from migrator.memory.measure import _repeated_blocks, load_factory, measure_activations, model_facts

    write_tree(models, {"zoo/staged.py": STAGED})
    factory = load_factory("zoo.staged:build", models)
    names, blocks = _repeated_blocks(factory())
    assert names == ["layer1", "layer2", "layer3", "layer4"] and len(blocks) == 8
    assert model_facts(factory, 2, 32).blocks == "layer1, layer2, layer3, layer4: 8 x BasicBlock"
    activations = measure_activations(factory, 4, 32, "fp32")
    assert activations.checkpointed < 0.5 * activations.bytes


def test_the_default_input_is_a_training_step_with_the_models_targets(models):
    """nanoGPT computes the full logits only when given targets: the default step passes them (a training
    step), and the report says which input it used."""
    from migrator.memory.measure import load_factory, measure_activations, model_facts

    write_tree(models, {"zoo/targeted.py": TARGETED})
    with_targets = load_factory("zoo.targeted:build", models)
    facts = model_facts(with_targets, 2, 128)
    assert "with targets of the same shape (a training step)" in facts.input
    plain = load_factory("zoo.gpt:build", models)  # the same model, whose forward always makes every logit
    assert "takes no targets" in model_facts(plain, 2, 128).input
    ratio = measure_activations(with_targets, 2, 128, "fp32").bytes / measure_activations(plain, 2, 128, "fp32").bytes
    assert ratio > 0.9  # the loss adds a little; without targets it was a fraction (the last position only)
