"""One realistic line per item of the scan-core checklist: each must produce its finding."""
import pytest

from migrator.model import Category, Status


@pytest.mark.parametrize("code, rule, api", [
    pytest.param("import torch\ntorch.cuda.set_device(0)\n", "device-call", "torch.cuda.set_device", id="set_device"),
    pytest.param("import torch\nfree, total = torch.cuda.mem_get_info()\n", "device-call", "torch.cuda.mem_get_info",
                 id="memory-query"),
    pytest.param("import torch\ns = torch.cuda.Stream()\n", "device-call", "torch.cuda.Stream", id="stream"),
    pytest.param("import torch\ne = torch.cuda.Event(enable_timing=True)\n", "device-call", "torch.cuda.Event",
                 id="event"),
    pytest.param("import torch\ng = torch.cuda.CUDAGraph()\n", "device-call", "torch.cuda.CUDAGraph", id="graph"),
    pytest.param("import torch\nok = torch.cuda.is_bf16_supported()\n", "device-call",
                 "torch.cuda.is_bf16_supported", id="bf16-check"),
    pytest.param("import torch\np = torch.cuda.get_device_properties(0)\n", "device-call",
                 "torch.cuda.get_device_properties", id="properties"),
    pytest.param("import torch\ntorch.backends.cudnn.deterministic = True\n", "device-call",
                 "torch.backends.cudnn.deterministic", id="cudnn-flag"),
    pytest.param("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", "device-call",
                 "torch.backends.cuda.matmul.allow_tf32", id="tf32-flag"),
    pytest.param("from torch.utils.data import DataLoader\n"
                 "dl = DataLoader([], pin_memory=True, pin_memory_device='cuda')\n", "device-argument",
                 "torch.utils.data.DataLoader", id="pin-memory-device"),
    pytest.param("import torch.distributed as dist\nif dist.is_nccl_available():\n    pass\n", "nccl-api",
                 "torch.distributed.is_nccl_available", id="nccl-check"),
    pytest.param("from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\nm = FSDP(model)\n",
                 "distributed-wrapper", "torch.distributed.fsdp.FullyShardedDataParallel", id="fsdp"),
    pytest.param("from apex import amp\nmodel, opt = amp.initialize(model, opt, opt_level='O1')\n", "cuda-library",
                 "apex.amp.initialize", id="apex-amp"),
    pytest.param("from apex.normalization import FusedLayerNorm\nln = FusedLayerNorm(512)\n", "cuda-library",
                 "apex.normalization.FusedLayerNorm", id="apex-layernorm"),
    pytest.param("import xformers.ops as xops\ny = xops.memory_efficient_attention(q, k, v)\n", "cuda-library",
                 "xformers.ops.memory_efficient_attention", id="xformers"),
    pytest.param("import bitsandbytes as bnb\nopt = bnb.optim.Adam8bit(params)\n", "cuda-library",
                 "bitsandbytes.optim.Adam8bit", id="bitsandbytes"),
    pytest.param("import transformer_engine.pytorch as te\nlayer = te.Linear(8, 8)\n", "cuda-library",
                 "transformer_engine.pytorch.Linear", id="transformer-engine"),
    pytest.param("from deepspeed.ops.adam import FusedAdam\nopt = FusedAdam(params)\n", "cuda-library",
                 "deepspeed.ops.adam.FusedAdam", id="deepspeed-ops"),
    # TinyLlama's lit_gpt: FlashAttention's extensions built apart from flash_attn, imported by their bare names
    pytest.param("import rotary_emb\nrotary_emb.apply_rotary(x1, x2, cos, sin, o1, o2, False)\n", "cuda-library",
                 "rotary_emb.apply_rotary", id="flash-attention-rotary-extension"),
    pytest.param("import dropout_layer_norm\nout = dropout_layer_norm.dropout_add_ln_fwd(x, None, w)\n",
                 "cuda-library", "dropout_layer_norm.dropout_add_ln_fwd", id="flash-attention-layer-norm-extension"),
    # gpt-neox's MoE and Mamba layers
    pytest.param("import megablocks.ops\ny = megablocks.ops.gather(x, idx, bins, 1)\n", "cuda-library",
                 "megablocks.ops.gather", id="megablocks"),
    pytest.param("from mamba_ssm.ops.selective_scan_interface import selective_scan_fn\n"
                 "y = selective_scan_fn(u, delta, A, B, C)\n", "cuda-library",
                 "mamba_ssm.ops.selective_scan_interface.selective_scan_fn", id="mamba-selective-scan"),
    pytest.param("import triton\n@triton.autotune(configs=[], key=['n'])\n@triton.jit\ndef k(x):\n    pass\n",
                 "cuda-library", "triton.autotune", id="triton-autotune"),
    pytest.param("import pynvml\npynvml.nvmlInit()\n", "cuda-library", "pynvml.nvmlInit", id="pynvml"),
    pytest.param("import torch\ntorch.cuda.nvtx.range_push('step')\n", "device-call", "torch.cuda.nvtx.range_push",
                 id="nvtx"),
    pytest.param("import torch\nx = torch.zeros(2, dtype=torch.float8_e4m3fn)\n", "risky-dtype",
                 "torch.float8_e4m3fn", id="fp8"),
    pytest.param("import torch\nz = torch.view_as_complex(torch.ones(2, 2))\n", "risky-dtype",
                 "torch.view_as_complex", id="view-as-complex"),
    pytest.param("import torch\nz = torch.polar(torch.ones(2), torch.ones(2))\n", "risky-dtype", "torch.polar",
                 id="polar"),
])
def test_checklist_item_is_found(scan_code, code, rule, api):
    findings = scan_code(code)
    assert any(f.rule == rule and f.api == api for f in findings), [(f.rule, f.api) for f in findings]


def test_vendor_replacements_for_libraries(scan_code):
    findings = scan_code("from apex.optimizers import FusedAdam\nfrom flash_attn import flash_attn_func\n"
                         "opt = FusedAdam(params, lr=1e-3)\nout = flash_attn_func(q, k, v, causal=True)\n")
    adam = next(f for f in findings if f.api == "apex.optimizers.FusedAdam" and f.span.line == 3).verdicts
    assert adam["neuware"].suggestion.startswith("torch_mlu.optimizers.FusedAdam")
    # the Ascend ports' fused optimizer, with its fp32/fp16 limit and torch's fused AdamW for bf16 beside it
    assert adam["cann"].status == Status.REWRITE
    assert adam["cann"].suggestion.startswith("torch_npu.optim.NpuFusedAdamW(")
    assert "bf16 parameter raises TypeError" in adam["cann"].message and "fused=True" in adam["cann"].message
    # no Kunlunxin optimizer in the data: the plain-PyTorch path, not a port
    assert adam["kunlun"].status == Status.REWRITE and adam["kunlun"].suggestion.startswith("torch.optim.AdamW(")
    flash = next(f for f in findings if f.span.line == 4).verdicts
    assert flash["cann"].suggestion.startswith("torch_npu.npu_fusion_attention")
    assert "op_plugin_functions" in flash["cann"].source
    assert {f.category for f in findings} == {Category.THIRD_PARTY}
    bnb = scan_code("import bitsandbytes as bnb\nopt = bnb.optim.Adam8bit(params)\nimport triton\n")
    assert next(f for f in bnb if f.span.line == 2).verdicts["cann"].suggestion.startswith("torch.optim.AdamW(")
    assert next(f for f in bnb if f.span.line == 3).verdicts["cann"].status == Status.PORT  # no plain path


def test_triton_launch_of_repo_kernel(scan_tree):
    report = scan_tree({
        "kernels.py": "import triton\nimport triton.language as tl\n@triton.jit\ndef add_kernel(x, n):\n    pass\n",
        "ops.py": "import torch\nfrom kernels import add_kernel\ndef add(x):\n    add_kernel[(4,)](x, 4)\n",
    })
    launches = [f for f in report.findings if f.rule == "triton-launch"]
    assert [(f.path, f.span.line) for f in launches] == [("ops.py", 4)]


def test_deepspeeds_own_optimizers_run_as_written_where_its_accelerator_builds_them(scan_code):
    """accelerate's ZeRO-Offload optimizer and gpt-neox's default Adam: DeepSpeed's npu and mlu accelerators build
    ``cpu_adam`` (a host op) and load their own ``FusedAdam`` over the vendor's fused op: DeepSpeed with the
    plugin installed serves both as written (AdamW would move the host optimizer off the host). Kunlunxin has no
    accelerator in DeepSpeed: no row says so, and the use stays work."""
    findings = scan_code("from deepspeed.ops.adam import DeepSpeedCPUAdam, FusedAdam\n"
                         "host = DeepSpeedCPUAdam(params, lr=1e-3)\nfused = FusedAdam(params, lr=1e-3)\n")
    host = next(f for f in findings if f.span.line == 2).verdicts
    fused = next(f for f in findings if f.span.line == 3).verdicts
    for target, builder in (("cann", "npu"), ("neuware", "mlu")):
        assert host[target].status == Status.SUPPORTED, host[target].message
        assert "AdamW" not in (host[target].suggestion or "")
        assert f"op_builder-{builder}-cpu_adam" in host[target].source
        assert fused[target].status == Status.SUPPORTED, fused[target].message
        assert f"op_builder-{builder}-fused_adam" in fused[target].source
    assert host["kunlun"].status != Status.SUPPORTED and fused["kunlun"].status != Status.SUPPORTED
