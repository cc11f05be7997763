"""`migrator trace`: real runs of realistic scripts under the tracer, checked against what PyTorch dispatches."""
import json
import sys

import pytest
from click.testing import CliRunner

from migrator.cli import main

from .conftest import REPO, write_tree

torch = pytest.importorskip("torch", reason="torch==2.13.0 is not installed (.ci/run installs it)")

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from migrator.evidence import active  # noqa: E402
from migrator.maps.coverage import op_verdict  # noqa: E402
from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.model import Status  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402
from migrator.trace.recorder import op_name  # noqa: E402
from migrator.trace.run import trace_command  # noqa: E402

PYTHON = sys.executable


class Dispatched(TorchDispatchMode):
    """The reference: every aten overload PyTorch dispatches inside the block, with the line of ``watch``
    (a file) that was running when it did, found by walking the stack (independently of the recorder)."""

    def __init__(self, watch=None):
        super().__init__()
        self.watch = str(watch) if watch else None
        self.ops = set()
        self.at = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(op_name(func))
        frame = sys._getframe(1)
        while frame is not None and self.watch:
            if frame.f_code.co_filename == self.watch:
                self.at.add((op_name(func), frame.f_lineno))
                break
            frame = frame.f_back
        return func(*args, **(kwargs or {}))


MODEL = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaledSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return F.silu(x) * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad * ctx.scale * (s * (1 + x * (1 - s))), None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.norm = nn.LayerNorm(64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        h = ScaledSiLU.apply(self.norm(self.fc1(x)), 0.5)
        return self.fc2(h)


def one_step(model, optimizer, device, amp_dtype):
    x = torch.randn(16, 32, device=device)
    y = torch.randint(0, 10, (16,), device=device)
    with torch.autocast(device_type=device if isinstance(device, str) else device.type, dtype=amp_dtype):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss
'''

DDP_TRAIN = '''
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from net import Net, one_step


def main():
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(Net().cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        loss = one_step(model, optimizer, "cuda", torch.bfloat16)
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.3f} on {torch.cuda.get_device_name()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''


def _trace(root, *argv, **options):
    return trace_command([PYTHON, *argv], root, **options).document


@pytest.fixture(scope="module")
def ddp_project(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("ddp"), {"net.py": MODEL, "train.py": DDP_TRAIN})
    return root, _trace(root, "train.py", steps=2, limit=120)


def test_a_cuda_ddp_amp_script_runs_two_steps_on_the_cpu(ddp_project):
    root, document = ddp_project
    assert document["stopped"]["reason"] == "steps" and document["steps"] == 2
    redirected = {r["api"] for r in document["redirects"]}
    assert {"torch.Tensor.cuda", "torch.cuda.set_device", "torch.cuda.synchronize",
            "torch.distributed.init_process_group(backend='nccl')", "DistributedDataParallel(device_ids=...)",
            "torch.autocast(device_type='cuda')"} <= redirected
    sync = next(r for r in document["redirects"] if r["api"] == "torch.cuda.synchronize")
    assert (sync["path"], sync["line"]) == ("train.py", DDP_TRAIN.splitlines().index(
        "        torch.cuda.synchronize()") + 1)


def test_traced_ops_are_what_pytorch_dispatches_for_the_same_step(ddp_project, monkeypatch):
    root, document = ddp_project
    monkeypatch.syspath_prepend(str(root))
    import net

    model = net.Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with Dispatched(watch=root / "net.py") as reference:
        net.one_step(model, optimizer, "cpu", torch.bfloat16)
    lines = MODEL.splitlines()
    construction = range(lines.index("    def __init__(self):") + 1, lines.index("    def forward(self, x):") + 1)
    model_lines = set(range(lines.index("class ScaledSiLU(torch.autograd.Function):") + 1,
                            lines.index("def one_step(model, optimizer, device, amp_dtype):") + 1)) - set(construction)
    traced = {(op["op"], site["line"]) for op in document["ops"] for site in op["sites"]
              if site["path"] == "net.py" and site["line"] in model_lines}
    expected = {(op, line) for op, line in reference.at if line in model_lines}
    assert expected and traced == expected  # the model's own lines, under DDP and the redirection alike
    assert reference.ops - {"aten::_foreach_add_.List"} <= {op["op"] for op in document["ops"]}


def test_backward_and_autograd_function_ops_carry_their_phase_and_line(ddp_project):
    _, document = ddp_project
    sigmoid = next(op for op in document["ops"] if op["op"] == "aten::sigmoid")
    assert set(sigmoid["phases"]) == {"backward"}  # only the custom Function's backward calls it
    line = MODEL.splitlines().index("        s = torch.sigmoid(x)") + 1
    # two steps, the same shapes each time: one shape at the line (a second would be a recompile on Ascend)
    # (both on the device: the model was moved there, so its activations and gradients are the device's)
    # (the engine ran it: no call of that line's own, `direct`)
    assert {"path": "net.py", "line": line, "calls": 2, "shapes": 1, "device": 2, "direct": {},
            "phases": {"backward": 2}} in sigmoid["sites"]
    assert sigmoid["where"] == {"device": 2}
    silu = next(op for op in document["ops"] if op["op"] == "aten::silu")
    assert silu["phases"] == {"forward": 2}
    assert "bfloat16" in next(op for op in document["ops"] if op["op"] == "aten::addmm")["dtypes"]


def test_the_trace_document_validates_against_its_schema(ddp_project):
    import jsonschema

    schema = json.loads((REPO / "reports" / "schema" / "trace.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(ddp_project[1], schema)


CRASH = '''
import torch
x = torch.ones(3, device="cuda")
y = (x * 2).exp()
raise RuntimeError("dataset shard missing")
'''

NEVER_STEPS = '''
import torch
x = torch.ones(64, 64)
while True:
    x = torch.tanh(x @ x)
'''


@pytest.mark.parametrize("script, options, reason, op", [
    pytest.param(CRASH, {}, "error", "aten::exp", id="crash-midway-keeps-what-ran"),
    pytest.param(NEVER_STEPS, {"limit": 3}, "limit", "aten::tanh", id="never-steps-ends-at-the-limit"),
])
def test_runs_that_end_early_keep_the_ops_seen(tmp_path, script, options, reason, op):
    write_tree(tmp_path, {"job.py": script})
    document = _trace(tmp_path, "job.py", **options)
    assert document["stopped"]["reason"] == reason, document["stopped"]
    assert op in {o["op"] for o in document["ops"]}
    if reason == "error":
        assert document["stopped"]["site"] == {"path": "job.py", "line": 5}
        assert "dataset shard missing" in document["stopped"]["detail"]


def test_the_example_project_traces_end_to_end_with_the_extension_fallback(tmp_path):
    root = REPO / "examples" / "llm_trainer"
    out = tmp_path / "trace.json"
    # one sample a batch: the CPU multiplies float16 (the script's autocast) on its slow reference GEMM, and the
    # ops the step dispatches do not depend on the batch's size
    result = CliRunner().invoke(main, ["trace", "--root", str(root), "-o", str(out), "--steps", "1", "--",
                                       "python", str(root / "train.py"), "--steps", "3", "--batch-size", "1"])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["stopped"]["reason"] == "steps" and document["command"][0] == "python"
    calls = [e for e in document["extensions"] if e["kind"] == "call"]
    assert {e["function"] for e in calls} >= {"forward", "backward"}
    assert {e["fallback"] for e in calls} == {"rms_norm"}
    report = scan(ScanRequest(root, resolve_targets(["cann"]), jobs=1, trace=(document, str(out))))
    assert report.trace.not_redirected and "rms_norm PyTorch fallback" in report.trace.not_redirected[0]
    # the CPU ran F.scaled_dot_product_attention as a fused flash kernel the static table does not list;
    # a target that registers the composite itself runs its own kernel and never reaches the fused one
    flash = next(op for op in document["ops"] if "flash_attention" in op["op"] and "backward" not in op["op"])
    assert "scaled_dot_product_attention" in flash["apis"]
    registers = resolve_targets(["cann"])[0].op_map()["ops"].get("aten::scaled_dot_product_attention") == "registered"
    added = [f for f in report.findings if f.rule == "traced-op" and "flash_attention" in f.api]
    assert bool(added) != registers


def test_trace_without_torch_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    result = CliRunner().invoke(main, ["trace", "--root", str(tmp_path), "--", "python", "-c", "pass"])
    assert result.exit_code == 2 and "pip install torch==2.13.0" in result.output


def test_scan_refuses_a_file_that_is_not_a_trace(tmp_path):
    bogus = tmp_path / "trace.json"
    bogus.write_text(json.dumps({"schema": "migrator.report/1"}), encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--trace", str(bogus)])
    assert result.exit_code == 2 and "not a migrator.trace/1 document" in result.output


PLAIN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 10)).cuda()
opt = torch.optim.AdamW(model.parameters())
for step in range(10):
    x = torch.randn(16, 32, device="cuda")
    logits = model(x)
    loss = F.cross_entropy(logits, torch.randint(0, 10, (16,)).cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
'''


def test_the_meta_device_records_the_model_ops_the_cpu_runs(tmp_path):
    write_tree(tmp_path, {"train.py": PLAIN})
    documents = {device: _trace(tmp_path, "train.py", device=device, steps=1, limit=60) for device in ("cpu", "meta")}
    line = PLAIN.splitlines().index("    logits = model(x)") + 1

    def at_line(document):
        return {op["op"] for op in document["ops"] if any(s["line"] == line for s in op["sites"])}
    assert documents["meta"]["stopped"]["reason"] == "steps"
    assert at_line(documents["meta"]) == at_line(documents["cpu"]) >= {"aten::addmm", "aten::gelu"}


def test_trace_exits_1_when_the_traced_command_fails_and_keeps_what_ran(tmp_path):
    """A crash is not a successful trace (it exited 0): the document is written, and the exit code says so."""
    pytest.importorskip("torch")
    write_tree(tmp_path, {"job.py": CRASH})
    out = tmp_path / "trace.json"
    result = CliRunner().invoke(main, ["trace", "--root", str(tmp_path), "-o", str(out), "--", "python", "job.py"])
    assert result.exit_code == 1, result.output
    assert "the command failed" in result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["stopped"]["reason"] == "error" and "aten::exp" in {o["op"] for o in document["ops"]}


DATA_PARALLEL = '''
import torch
import torch.nn as nn

model = nn.DataParallel(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(4, 8).cuda()
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def test_a_data_parallel_script_runs_its_module_on_the_cpu(tmp_path):
    """imagenet's default path wraps the model in nn.DataParallel: on the redirected machine there is no GPU
    to scatter to, so the module runs as is (it crashed at the first forward), and the log says so."""
    write_tree(tmp_path, {"job.py": DATA_PARALLEL})
    document = _trace(tmp_path, "job.py", steps=2, limit=120)
    assert document["stopped"]["reason"] == "steps" and document["steps"] == 2, document["stopped"]
    assert "aten::addmm" in {o["op"] for o in document["ops"]}
    assert any(r["api"] == "torch.nn.DataParallel(...)" for r in document["redirects"])


SPAWNED_DDP = '''
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.cuda.set_device(rank)
    model = DDP(nn.Linear(8, 2).cuda(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x = torch.randn(4, 8).cuda(rank)
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    mp.spawn(worker, args=(1, free), nprocs=1)
'''


def test_steps_stop_an_mp_spawn_ddp_job_as_steps_not_as_a_crash(tmp_path):
    """imagenet's one-process DDP path runs its training in an `mp.spawn` worker: `--steps 2` stops that worker
    after two steps, which its parent reads as a worker that finished (it printed a traceback and exited 1),
    and the document says it stopped after 2 steps (it said "the command ended")."""
    write_tree(tmp_path, {"job.py": SPAWNED_DDP})
    run = trace_command([PYTHON, "job.py"], tmp_path, steps=2, limit=120)
    document = run.document
    assert run.returncode == 0
    assert document["stopped"] == {"reason": "steps", "detail": "stopped after 2 optimizer steps"}
    assert document["steps"] == 2 and [p["steps"] for p in document["processes"] if p["steps"]] == [2]
    assert any(r["api"].startswith("torch.distributed.init_process_group") for r in document["redirects"])


AMP_STEP = '''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 2)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.cuda.amp.GradScaler()
for step in range(5):
    x = torch.randn(4, 8, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    if torch.isnan(loss).any():
        raise FloatingPointError(f"loss {loss.item():.3f} at step {step}")
    print(f"step {step}: loss {loss.item():.3f}")
'''


def test_the_meta_device_runs_an_autocast_and_grad_scaler_step(tmp_path):
    """`--device meta` crashed at `autocast('meta')` and at the scaler's inf check (an `.item()`): the step now
    runs with the CPU's autocast context (it casts nothing on meta) and a disabled scaler, and the log says so.
    The script's own `.item()` (a meta tensor has no value) is answered and counted as a data-dependent step."""
    write_tree(tmp_path, {"job.py": AMP_STEP})
    document = _trace(tmp_path, "job.py", device="meta", steps=2, limit=120)
    assert document["stopped"]["reason"] == "steps" and document["steps"] == 2, document["stopped"]
    reads = {(r["line"], r["calls"]) for r in document["data_dependent"] if r["path"] == "job.py"}
    # read once each: the second optimizer step ends the run before the second read
    assert reads == {(_line(AMP_STEP, "    if torch.isnan(loss).any():"), 1),
                     (_line(AMP_STEP, '    print(f"step {step}: loss {loss.item():.3f}")'), 1)}
    assert "aten::addmm" in {o["op"] for o in document["ops"]}
    became = {r["api"]: r["became"] for r in document["redirects"]}
    assert "no autocast on meta" in became["torch.autocast(device_type='cuda')"]
    assert "enabled=False" in became["torch.cuda.amp.GradScaler"]


REDIRECTED = '''
import torch
import torch.nn as nn


def main():
    model = nn.Linear(8, 4)
    model = model.cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        x = torch.randn(2, 8)
        x = x.cuda()
        loss = model(x).sum()
        loss.backward()
        opt.step()


main()
'''


def test_the_redirect_log_confirms_rewrites_and_ops_confirm_by_op_not_by_line(tmp_path):
    """`.cuda()` dispatches nothing on the CPU, so by ops alone its rewrite stayed inferred: the run redirected
    it there, which is the evidence. A layer built on a line that ran is reachable, but its matmul ran where the
    layer is called, so the construction line is not confirmed by it."""
    write_tree(tmp_path, {"train.py": REDIRECTED})
    lines = REDIRECTED.splitlines()
    document = _trace(tmp_path, "train.py", steps=2, limit=60)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1, trace=(document, "trace.json")))
    moves = [f for f in report.judged if f.rule == "device-move"]
    assert {f.span.line for f in moves} == {lines.index("    model = model.cuda()") + 1,
                                           lines.index("        x = x.cuda()") + 1}
    assert all(f.confidence.value == "traced" and f.verdicts["cann"].status == Status.REWRITE for f in moves)
    assert report.trace.confirmed_by_redirects >= 2
    [layer] = [f for f in report.judged if f.api == "torch.nn.Linear"]
    assert layer.reachable is True and layer.confidence.value != "traced"


LSTM_TAGGER = '''
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(16, 32, batch_first=True)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)


model = Tagger().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(4, 10, 16).cuda()
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def test_a_cpu_only_lstm_kernel_is_judged_by_the_overload_the_device_runs(tmp_path):
    """On the CPU, nn.LSTM runs oneDNN's `aten::mkldnn_rnn_layer`, which no vendor registers; the device runs
    `aten::lstm.input`, which Ascend and Cambricon register: no `fallback` finding for the CPU's kernel."""
    write_tree(tmp_path, {"train.py": LSTM_TAGGER})
    document = _trace(tmp_path, "train.py", steps=2, limit=120)
    assert "aten::mkldnn_rnn_layer" in {o["op"] for o in document["ops"]}  # what the CPU ran
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann", "neuware"]), jobs=1, trace=(document, "trace.json")))
    assert not [f for f in report.judged if "mkldnn" in f.api]
    from migrator.pipeline.trace_join import _verdict

    [cann] = resolve_targets(["cann"])
    verdict = _verdict(cann, "aten::mkldnn_rnn_layer", ("lstm",), stand_in=True)
    assert verdict.status == Status.SUPPORTED and "aten::lstm.input" in verdict.message



SCALED_WITH_A_DOUBLE = AMP_STEP + '''
weights = torch.linspace(0, 1, 8, dtype=torch.float64).cuda()
print(float(weights.sum()))
'''


def test_grad_scalers_own_float64_is_not_the_users_and_the_users_is(tmp_path):
    """GradScaler inverts its scale in float64 inside torch: that is not a float64 the project computes in, and
    it was pinned to the user's `scaler.step()` line. A float64 tensor the script makes is still found, there."""
    write_tree(tmp_path, {"job.py": SCALED_WITH_A_DOUBLE})
    document = _trace(tmp_path, "job.py", limit=120)
    report = scan(ScanRequest(tmp_path, resolve_targets(["cann"]), jobs=1, trace=(document, "trace.json")))
    [double] = [f for f in report.judged if f.rule == "traced-dtype"]  # one finding, at its busiest line
    lines = SCALED_WITH_A_DOUBLE.splitlines()
    users = {lines.index("weights = torch.linspace(0, 1, 8, dtype=torch.float64).cuda()") + 1,
             lines.index("print(float(weights.sum()))") + 1}
    assert double.api == "torch.float64" and double.span.line in users


HOST_AND_DEVICE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Jittered(Dataset):
    def __init__(self, n):
        self.x, self.y = torch.randn(n, 16), torch.randint(0, 4, (n,))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        keep = torch.empty(16).bernoulli_(0.9)
        return self.x[i] * keep, self.y[i]


ACTIVATION = "special." + "i0e"


def lookup(name):
    fn = torch
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.drop, self.fc2 = nn.Linear(16, 32), nn.Dropout(0.1), nn.Linear(32, 4)
        self.squash = lookup(ACTIVATION)

    def forward(self, x):
        return self.fc2(self.drop(self.squash(self.fc1(x))))


act = getattr(torch, "cumsum")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x, y in DataLoader(Jittered(64), batch_size=8, shuffle=True):
    x, y = x.to(device), y.to(device)
    loss = F.nll_loss(act(model(x), dim=1).softmax(-1).log(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def _line(source, text):
    return source.splitlines().index(text) + 1


def _traced_uses(report):
    """Every finding and counted use `scan --trace` made from the run's ops and dtypes."""
    return [f for f in report.judged if f.rule in ("traced-op", "traced-dtype")]


@pytest.fixture(scope="module")
def host_and_device(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("host_and_device"), {"train.py": HOST_AND_DEVICE})
    return root, _trace(root, "train.py", steps=2, limit=120)


def test_every_op_says_where_its_tensors_lived_and_in_which_phase(host_and_device):
    """A DataLoader's sampling and a dataset's mask run on the host while a batch loads; the same mask op on a
    moved activation (dropout) runs on the device; an optimizer's step counters are CPU tensors beside its
    device parameters."""
    _, document = host_and_device
    ops = {op["op"]: op for op in document["ops"]}
    assert ops["aten::randperm.generator"]["phases"] == {"data": 1} and set(ops["aten::randperm.generator"]["where"]) \
        == {"host"}
    masks = {site["line"]: site for site in ops["aten::bernoulli_.float"]["sites"]}
    dataset = masks[_line(HOST_AND_DEVICE, "        keep = torch.empty(16).bernoulli_(0.9)")]
    dropout = masks[_line(HOST_AND_DEVICE, "        return self.fc2(self.drop(self.squash(self.fc1(x))))")]
    assert dataset["calls"] == 16 and dataset["device"] == 0  # 2 batches of 8, on the host
    assert dropout["calls"] == 2 and dropout["device"] == 2
    [step] = ops["aten::add_.Tensor"]["sites"]
    assert step["line"] == _line(HOST_AND_DEVICE, "    opt.step()") and 0 < step["device"] < step["calls"]
    assert ops["aten::addmm"]["where"] == {"device": 4} and set(ops["aten::addmm"]["phases"]) == {"forward"}
    import jsonschema

    jsonschema.validate(document, json.loads((REPO / "reports" / "schema" / "trace.schema.json").read_text()))


def test_an_op_reached_only_through_getattr_becomes_a_traced_finding(host_and_device):
    root, document = host_and_device
    with Dispatched() as reference:
        torch.special.i0e(torch.rand(4))
    (op,) = reference.ops - {"aten::rand"}
    static = scan(ScanRequest(root, resolve_targets(None), jobs=1))
    line = _line(HOST_AND_DEVICE, "        return self.fc2(self.drop(self.squash(self.fc1(x))))")
    assert not any(op in f.ops for f in static.judged)  # the static scan cannot see through getattr
    report = scan(ScanRequest(root, resolve_targets(None), jobs=1, trace=(document, "trace.json")))
    (found,) = [f for f in report.judged if f.rule == "traced-op" and f.api == op]
    assert (found.path, found.span.line, found.confidence.value, found.reachable) == ("train.py", line, "traced", True)
    for target in resolve_targets(None):
        assert found.verdicts[target.id].status == op_verdict(target, op).status
    confirmed = [f for f in report.judged if f.confidence.value == "traced" and f.rule != "traced-op"
                 and f.category.value != "tune"]  # (a tune finding is confirmed by its measurement)
    assert confirmed and report.trace.confirmed == len(confirmed)


def test_scan_trace_adds_nothing_from_host_work_and_counts_a_getattr_op(host_and_device):
    root, document = host_and_device
    report = scan(ScanRequest(root, resolve_targets(None), jobs=1, trace=(document, "trace.json")))
    device_lines = {(op["op"], s["line"]) for op in document["ops"] for s in op["sites"] if s["device"]}
    # new on the worklist: only ops the run showed on the device at their line (the host's are no evidence); AdamW's
    # `lerp_`, which only Kunlun's substitute data (Paddle's kernels) says falls back, is no work however often the
    # run measured it
    plain = scan(ScanRequest(root, resolve_targets(None), jobs=1))
    added = [f for f in report.findings if f.id not in {f.id for f in plain.findings}]
    assert added and all(any((op, f.span.line) in device_lines for op in (f.api, *f.ops)) for f in added)
    assert not [f for f in report.judged if f.rule == "tune-cpu-fallback" and f.api == "aten::lerp_.Scalar"
                and any(active(v) for v in f.verdicts.values())]  # measured, yet only substitute data says it falls
    assert _traced_uses(report) and all((f.api, f.span.line) in device_lines for f in _traced_uses(report)
                                        if f.rule == "traced-op")
    dataset = {_line(HOST_AND_DEVICE, "        keep = torch.empty(16).bernoulli_(0.9)"),
               _line(HOST_AND_DEVICE, "        return self.x[i] * keep, self.y[i]")}
    assert not [f for f in _traced_uses(report) if f.span.line in dataset]
    assert {"aten::randperm.generator", "aten::random_"} <= set(report.trace.host_ops)
    assert report.trace.host_calls > 0 and report.trace.device_calls > 0
    # torch.cumsum reached through getattr, on a line of four calls: every target runs it, so a counted use
    # (its backward's cumsum runs under `loss.backward()`: the engine's, not a call of that line)
    [cumsum] = [f for f in report.covered if f.rule == "traced-op" and f.api == "aten::cumsum"]
    called = "    loss = F.nll_loss(act(model(x), dim=1).softmax(-1).log(), y)"
    assert cumsum.span.line == _line(HOST_AND_DEVICE, called)


CPU_ONLY = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.randn(32, 16), torch.randint(0, 4, (32,))), batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 4)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"loss {loss.item():.3f}")
'''


def test_a_cpu_only_script_is_host_work_and_adds_nothing(tmp_path):
    """The recorder in this process on a script that never asks for CUDA: every op is the host's, so the merged
    report is the static one (before, its dropout's `bernoulli_` and the optimizer's ops were findings)."""
    import runpy

    from migrator.trace.document import merge, process_document
    from migrator.trace.session import Session

    write_tree(tmp_path, {"train.py": CPU_ONLY})
    session = Session({"root": str(tmp_path), "device": "cpu", "out_dir": str(tmp_path)})
    with session.recorder.api_mode(), session.recorder.mode():
        runpy.run_path(str(tmp_path / "train.py"), run_name="__main__")
    document = merge([process_document(session, 0.0)], ["python", "train.py"], str(tmp_path), "cpu", 0)
    ops = {op["op"]: op for op in document["ops"]}
    assert {"aten::bernoulli_.float", "aten::addmm", "aten::randperm.generator"} <= set(ops)
    assert all(set(op["where"]) == {"host"} for op in document["ops"])
    targets = resolve_targets(None)
    plain = scan(ScanRequest(tmp_path, targets, jobs=1))
    report = scan(ScanRequest(tmp_path, targets, jobs=1, trace=(document, "trace.json")))
    assert {f.id for f in report.judged} == {f.id for f in plain.judged}
    assert {f.id for f in report.findings} == {f.id for f in plain.findings}
    # its `.item()` is a tune pattern; a host read stalls no device, so the run measures nothing there
    assert [f for f in report.judged if f.rule == "tune-host-sync"] and not [f for f in report.judged if f.measured]
    assert report.trace.device_calls == 0 and "aten::bernoulli_.float" in report.trace.host_ops
    # read as a trace from before the host was told apart, the same run made the host's ops device evidence
    legacy = json.loads(json.dumps(document))
    for op in legacy["ops"]:
        for site in op["sites"]:
            del site["device"]
    assert _traced_uses(scan(ScanRequest(tmp_path, targets, jobs=1, trace=(legacy, "trace.json"))))


def test_a_failed_spawn_worker_is_named_in_the_merged_status(tmp_path):
    """`mp.spawn` catches its worker's error (for the parent, which raises `ProcessRaisedException`): the worker's
    own document now says what failed where, and the merged status names that worker, not the parent's report
    of it nor a sibling's clean stop."""
    from migrator.trace.document import merge, process_document
    from migrator.trace.session import Session

    job = write_tree(tmp_path, {"job.py": "def worker(rank):\n    raise RuntimeError(f'shard {rank} missing')\n"})
    config = {"root": str(job), "device": "cpu", "out_dir": str(tmp_path)}
    parent, sibling, failing = Session(config), Session(config), Session(config)
    namespace: dict = {}
    exec(compile((job / "job.py").read_text(), str(job / "job.py"), "exec"), namespace)
    with pytest.raises(RuntimeError):
        failing.spawned_worker(namespace["worker"], 1)(1)
    sibling.spawned_worker(lambda rank: None, 0)(0)
    parent.stopped = {"reason": "error", "detail": "ProcessRaisedException: -- Process 1 terminated", "site": None}
    documents = [dict(process_document(s, 1.0), pid=pid) for s, pid in ((parent, 100), (sibling, 101), (failing, 102))]
    documents[1]["ops"] = [{"op": "aten::addmm", "calls": 9, "dtypes": [], "shape": None, "phases": {}, "sites": []}]
    merged = merge(documents, ["python", "job.py"], str(job), "cpu", 1)
    assert merged["stopped"]["detail"] == "spawn worker 1 (pid 102) failed: RuntimeError: shard 1 missing"
    assert merged["stopped"]["site"] == {"path": "job.py", "line": 2} and merged["stopped"]["pid"] == 102
    assert [p["worker"] for p in merged["processes"]] == [None, 0, 1]


SLEEPER = '''
import os
import subprocess
import sys
import time

helper = subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(120)"])
with open("pids.tmp", "w") as out:
    out.write(f"{os.getpid()} {helper.pid}")
os.replace("pids.tmp", "pids")
time.sleep(120)
'''


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find what is left running")
@pytest.mark.parametrize("signum", [pytest.param(15, id="SIGTERM")])
def test_a_signal_to_trace_reaches_the_commands_processes_and_removes_its_folder(tmp_path, signum):
    """SIGTERM to `migrator trace` killed it alone: the training script and its workers ran on as orphans and the
    temporary folder stayed. It is forwarded to the command's process group, the folder goes, the exit is 128+N."""
    import os
    import subprocess
    import time

    write_tree(tmp_path, {"sleeper.py": SLEEPER})
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(REPO)}
    # `-S`: no sitecustomize, so the command starts fast (no torch); the parent is the real `migrator trace`
    tracer = subprocess.Popen([PYTHON, "-m", "migrator", "trace", "--device", "cuda", "--root", str(tmp_path),
                               "-o", str(tmp_path / "trace.json"), "--", PYTHON, "-S", "sleeper.py"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "pids").exists() and time.monotonic() < deadline and tracer.poll() is None:
            time.sleep(0.05)
        pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
        assert list(temp.glob("migrator-trace-*"))
        tracer.send_signal(signum)
        output = tracer.communicate(timeout=30)[0].decode()
    finally:
        if tracer.poll() is None:
            tracer.kill()
    assert tracer.returncode == 128 + signum, output
    assert "stopped by SIGTERM" in output and not (tmp_path / "trace.json").exists()
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if _running(pid)], "the traced command outlived the signal"
    assert not list(temp.glob("migrator-trace-*")), "the temporary folder is still there"
