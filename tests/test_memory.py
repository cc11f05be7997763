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
    assert below.smallest.name == "DDP + activation checkpointing"


def test_a_card_too_small_for_the_given_cards_says_how_many_it_needs():
    fit = fit_card(_card(8), FACTS, ACTS, "bf16", "adamw", 2)
    assert not fit.fits
    n = fit.cards_needed
    usable = 8 * GB * (1 - HEADROOM)
    def at(cards):
        return per_card(FACTS.trainable, FACTS.largest_layer, "bf16", "adamw", "zero3", cards).total + 4 * GB

    assert at(n) <= usable < at(n - 1)
    assert "needs" in fit.reason and str(n) in fit.reason


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


def test_activations_grow_with_the_batch_and_shrink_with_checkpointing(models):
    from migrator.memory.measure import load_factory, measure_activations

    factory = load_factory("zoo.gpt:build", models)
    small, large = (measure_activations(factory, batch, 128, "bf16") for batch in (2, 4))
    assert 1.6 < large.bytes / small.bytes < 2.4
    assert small.checkpointed < 0.7 * small.bytes


def test_memory_command_reports_every_target_card_and_the_baseline(models):
    result = CliRunner().invoke(main, ["memory", "--model", "zoo.gpt:build", "--root", str(models), "--batch", "2",
                                       "--seq", "128", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert [f["card"]["id"] for f in document["fits"]][0] == "h100-sxm"
    assert {f["card"]["target"] for f in document["fits"][1:]} == {"cann", "neuware", "kunlun"}
    assert all(f["fits"] for f in document["fits"])  # a 4-layer toy fits everywhere
    assert document["assumptions"] and document["facts"]["blocks"] == "blocks: 4 x Block"


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


READS_A_VALUE = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.scale = float(torch.ones(1).sum().item())  # reads a value while it is built (timm does)

    def forward(self, x):
        return self.fc(x) * self.scale


def build():
    return Net()
"""


def test_a_model_that_reads_a_value_while_built_is_counted_on_the_cpu_and_fails_cleanly(models):
    """timm's vit_large calls `.item()` in its constructor: the meta build cannot, so the parameters are
    counted from a real build on the CPU (and the report says so); the fake-tensor step cannot either, which
    is an error naming the cause, not a traceback."""
    from migrator.memory.measure import FactoryError, load_factory, measure_activations, model_facts

    (models / "zoo" / "reads.py").write_text(READS_A_VALUE, encoding="utf-8")
    factory = load_factory("zoo.reads:build", models)
    facts = model_facts(factory, 2, 16)
    assert facts.params == 16 * 16 + 16 and facts.counted_on.startswith("cpu (the meta build failed")
    with pytest.raises(FactoryError, match="building the model under fake tensors"):
        measure_activations(factory, 2, 16, "bf16")
    result = CliRunner().invoke(main, ["memory", "--model", "zoo.reads:build", "--root", str(models)])
    assert result.exit_code == 1 and "building the model under fake tensors" in result.output
    assert "Traceback" not in result.output


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
