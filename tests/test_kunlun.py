"""Kunlunxin verdicts from what Kunlunxin's own engineers change (FlagPerf's adaptations for R300, filed under
kl2; DeepSpeed's KLXPU accelerator, kl3), on top of the shim that keeps CUDA names."""

from __future__ import annotations

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets
from migrator.mapsbuild.upstream import MapsBuildError
from migrator.mapsbuild.vendors.kunlun import adaptations
from migrator.evidence import active
from migrator.model import Status

#: (code, API, status on kl2, status on kl3, what the kl2/kl3 verdict cites)
CASES = [
    pytest.param("import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
                 "torch.distributed.init_process_group", Status.PARTIAL, Status.SUPPORTED, "flagperf",
                 id="nccl-backend-is-xccl-on-r300"),
    pytest.param("import torch\nscaler = torch.cuda.amp.GradScaler()\n",
                 "torch.cuda.amp.GradScaler", Status.PARTIAL, Status.SUPPORTED, "flagperf", id="grad-scaler"),
    pytest.param("import torch\ndef step(model, x):\n    with torch.cuda.amp.autocast():\n        return model(x)\n",
                 "torch.cuda.amp.autocast", Status.PARTIAL, Status.SUPPORTED, "flagperf", id="autocast"),
    pytest.param("import torch\ndef convert(model):\n    return torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)\n",
                 # the vendor drops the conversion, which its shared config has off anyway: it avoids SyncBatchNorm,
                 # and no source says whether it runs (the row says so; it is not "partial", which would claim it runs)
                 "torch.nn.SyncBatchNorm.convert_sync_batchnorm", Status.UNKNOWN, None, "flagperf",
                 id="sync-batchnorm"),
    pytest.param("import torch\nstart = torch.cuda.Event(enable_timing=True)\n",
                 "torch.cuda.Event", Status.SUPPORTED, Status.PARTIAL, "klxpu_accelerator", id="event-timer-on-kl3"),
    pytest.param("import torch\ntorch.cuda.nvtx.range_push('step')\n",
                 "torch.cuda.nvtx.range_push", Status.PARTIAL, Status.PARTIAL, "klxpu_accelerator", id="nvtx"),
]


@pytest.mark.parametrize("code, api, on_kl2, on_kl3, cited", CASES)
def test_what_kunlunxin_changes_is_judged_per_generation(scan_code, code, api, on_kl2, on_kl3, cited):
    for version, expected in (("kl2", on_kl2), ("kl3", on_kl3)):
        judged = [f for f in scan_code(code, [f"kunlun@{version}"]) if f.api == api and f.rule != "dtype-limits"]
        if expected is None:
            assert all(f.verdicts["kunlun"].status != Status.PARTIAL for f in judged)
            continue
        [finding] = judged
        verdict = finding.verdicts["kunlun"]
        assert verdict.status == expected, (version, verdict.message)
        if expected != Status.SUPPORTED:
            assert cited in verdict.source.lower() and not verdict.fixable


@pytest.mark.parametrize("code, api, says", [
    # bert's shared code imports apex in a try/except with a way on: a use the shim alone would call supported
    pytest.param("try:\n    from apex.optimizers import FusedLAMB\nexcept ImportError:\n    HAS_APEX = False\n"
                 "def build(params):\n    return FusedLAMB(params, lr=1e-3)\n",
                 "apex.optimizers.FusedLAMB", "bert adaptation for R300 builds torch_xmlir's FusedLAMB",
                 id="bert-fused-lamb"),
    pytest.param("from apex.optimizers import FusedAdam as Adam\ndef build(params):\n"
                 "    return Adam(params, lr=1e-3)\n",
                 "apex.optimizers.FusedAdam", "cpm adaptation builds torch.optim.Adam", id="cpm-fused-adam"),
    pytest.param("from apex.parallel import DistributedDataParallel as DDP\ndef wrap(model):\n    return DDP(model)\n",
                 "apex.parallel.DistributedDataParallel", "DDP(model, device_ids=[config.local_rank])",
                 id="bert-apex-ddp"),
])
def test_the_vendors_swap_is_what_the_finding_says_on_r300(scan_code, code, api, says):
    """Where a FlagPerf adaptation swaps an apex class, the kl2 finding at the use names the vendor's replacement."""
    [finding] = [f for f in scan_code(code, ["kunlun@kl2"]) if f.api == api and f.rule == "cuda-library"
                 and "import" not in f.snippet]  # the use, not the import
    verdict = finding.verdicts["kunlun"]
    assert verdict.status == Status.PARTIAL and says in (verdict.message + (verdict.suggestion or "")), verdict.message


def test_the_xccl_backend_is_suggested_where_the_constant_is_set_and_never_applied(tmp_path, scan_tree):
    """21 of FlagPerf's 22 Kunlunxin configs write `xccl`; faster_rcnn keeps `nccl` and still runs on 8 cards:
    the vendor's name is suggested where the constant is set, and `fix` leaves code that runs alone."""
    code = "import torch.distributed as dist\nBACKEND = 'nccl'\ndef setup():\n    dist.init_process_group(BACKEND)\n"
    report = scan_tree({"train.py": code}, ["kunlun@kl2"])
    [cause] = [f for f in report.findings if f.rule == "collective-backend" and f.root is None]
    verdict = cause.verdicts["kunlun"]
    assert cause.span.line == 2 and verdict.status == Status.PARTIAL and verdict.suggestion == "'xccl'"
    assert "faster_rcnn" in verdict.source and "runs through the shim" in verdict.message
    [target] = resolve_targets(["kunlun@kl2"])
    assert fix_report(tmp_path, report, target, unsafe=True).changed == ()


def test_the_projects_fp16_choice_is_one_finding_where_the_vendor_trains_in_fp32(scan_tree):
    """Most of Kunlunxin's own R300 ports switch fp16 off: on kl2 the place the project chooses fp16 is one
    finding, its casts elsewhere are not; kl3 and cann have no such evidence."""
    report = scan_tree({
        "train.py": "import torch\nfrom model import Net\n\ndef main():\n    model = Net().half()\n"
                    "    x = torch.ones(2, 4).half()\n    return model(x)\n\nif __name__ == '__main__':\n    main()\n",
        "model.py": "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.fc = torch.nn.Linear(4, 4)\n\n    def forward(self, x):\n        return self.fc(x)\n",
    }, ["kunlun@kl2", "cann"])
    [choice] = [f for f in report.judged if f.rule == "dtype-limits"]
    assert (choice.path, choice.span.line) == ("train.py", 5)
    assert choice.verdicts["kunlun"].status == Status.PARTIAL and "fp32" in choice.verdicts["kunlun"].message
    assert "flagperf" in choice.verdicts["kunlun"].source
    assert choice.verdicts["cann"].status == Status.SUPPORTED
    # the vendor's own ports training in fp32 is how it trains, not proof that fp16 breaks: to validate
    assert choice in report.validate and not active(choice.verdicts["kunlun"])
    kl3 = scan_tree({}, ["kunlun@kl3"])  # the same files
    assert not [f for f in kl3.judged if f.rule == "dtype-limits"]


@pytest.mark.parametrize("code, api, replacement", [
    pytest.param("from apex.optimizers import FusedLAMB\nopt = FusedLAMB(params, lr=1e-3)\n",
                 "apex.optimizers.FusedLAMB", "torch_xmlir.optimizer.FusedLAMB", id="fused-lamb"),
])
def test_apex_fused_lamb_is_swapped_the_way_kunlunxin_swaps_it(scan_code, code, api, replacement):
    [use] = [f for f in scan_code(code, ["kunlun"]) if f.api == api and f.snippet.startswith("FusedLAMB(")]
    verdict = use.verdicts["kunlun"]
    assert verdict.status == Status.REWRITE and replacement in (verdict.suggestion or "")
    assert "flagperf-kunlunxin-bert-trainer_adapter" in verdict.source


def test_apex_the_vendor_runs_unchanged_is_partial_not_a_port(scan_code):
    """FlagPerf's transformer imports apex unconditionally and reports an 8-card R300 result: on kl2 that
    outweighs "no vendor file names apex"; kl3 has no such run, so apex stays to port or replace there."""
    code = "from apex.optimizers.fused_adam import FusedAdam\n\ndef build(params):\n    return FusedAdam(params)\n"
    on = {v: {f.api: f.verdicts["kunlun"] for f in scan_code(code, [f"kunlun@{v}"])} for v in ("kl2", "kl3")}
    kl2 = on["kl2"]["apex.optimizers.fused_adam.FusedAdam"]
    assert kl2.status == Status.PARTIAL and "flagperf-kunlunxin-transformer-README" in kl2.source
    assert on["kl3"]["apex.optimizers.fused_adam.FusedAdam"].status in (Status.PORT, Status.REWRITE)


def test_apex_the_vendor_only_imports_is_importable_not_shown_to_run(scan_code):
    """The transformer imports FusedLayerNorm but its config never builds it (fuse_layer_norm = False): the
    import is partial on kl2, a use of the class is judged as before (the plain nn.LayerNorm path)."""
    code = ("from apex.normalization.fused_layer_norm import FusedLayerNorm\n\n"
            "def norm(d):\n    return FusedLayerNorm(d)\n")
    judged = {f.snippet.startswith("from"): f.verdicts["kunlun"]
              for f in scan_code(code, ["kunlun@kl2"]) if "FusedLayerNorm" in f.api}
    imported, used = judged[True], judged[False]
    assert imported.status == Status.PARTIAL and "fuse_layer_norm = False" in imported.message
    assert used.status == Status.REWRITE and (used.suggestion or "").startswith("torch.nn.LayerNorm(")


def test_cuda_visible_devices_is_xpu_visible_devices_in_kunlunxin_launches(scan_tree):
    report = scan_tree({"run.sh": "export CUDA_VISIBLE_DEVICES=0,1\ntorchrun --nproc_per_node=2 train.py\n"},
                       ["kunlun"])
    [variable] = [f for f in report.findings if f.rule == "environment-variable"]
    verdict = variable.verdicts["kunlun"]
    assert verdict.status == Status.REWRITE and "XPU_VISIBLE_DEVICES" in verdict.suggestion
    assert not verdict.fixable  # whether the shim also reads CUDA_VISIBLE_DEVICES is not in the data


def test_an_nccl_variable_names_the_bkcl_family_on_kunlun(scan_tree):
    report = scan_tree({"run.sh": "export NCCL_IB_DISABLE=1\ntorchrun --nproc_per_node=8 train.py\n"},
                       ["kunlun", "cann"])
    [variable] = [f for f in report.validate if f.rule == "environment-variable"]  # no data says: a data gap
    kunlun = variable.verdicts["kunlun"]
    assert kunlun.status == Status.UNKNOWN and "BKCL_*" in kunlun.message and "environment.yaml" in kunlun.source
    assert "BKCL" not in variable.verdicts["cann"].message


def test_an_adaptation_row_must_cite_its_source(tmp_path):
    rows = {"torch.cuda.amp.GradScaler": {"generations": ["kl2"], "status": "partial", "note": "said by no one"}}
    with pytest.raises(MapsBuildError, match="cites no evidence"):
        adaptations(tmp_path, rows, "kl2", {})
    rows["torch.cuda.amp.GradScaler"]["evidence"] = ["kunlun/missing.py", "GradScaler"]
    with pytest.raises(MapsBuildError):
        adaptations(tmp_path, rows, "kl2", {})
