"""A CUDA library's members that its own source writes in plain PyTorch (``third_party.yaml`` ``plain``) run as
written: their uses, and the library's import in a file that uses nothing else of it, are no work; a member or an
argument value that reaches the library's compiled kernels stays a finding."""
from __future__ import annotations

import io
import json

import pytest

from migrator.evidence import active
from migrator.maps.load import third_party
from migrator.model import Grade, Status
from migrator.report import json as json_report
from migrator.report import text as text_report

# e3nn's point convolution (nn/models/v2103/points_convolution.py): torch_scatter's scatter, its reduce left out
E3NN_CONV = """\
import torch
from torch_scatter import scatter


class Convolution(torch.nn.Module):
    def __init__(self, num_neighbors):
        super().__init__()
        self.num_neighbors = num_neighbors
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, node_input, edge_src, edge_dst, edge_attr):
        edge_features = self.lin(node_input[edge_src]) * edge_attr
        node_features = scatter(edge_features, edge_dst, dim=0, dim_size=node_input.shape[0])
        return node_features.div(self.num_neighbors**0.5)
"""

# litgpt's finetune/lora.py: bitsandbytes' StableEmbedding swapped in when the model is quantized
LITGPT_FINETUNE = """\
import torch


def setup_embedding(model, quantized):
    if quantized:
        from bitsandbytes.nn import StableEmbedding

        old_embedding = model.transformer.wte
        model.transformer.wte = StableEmbedding(old_embedding.num_embeddings, old_embedding.embedding_dim)
        with torch.no_grad():
            model.transformer.wte.weight.copy_(old_embedding.weight)
    return model
"""


def _library_findings(report, path="mod.py"):
    return [f for f in report.judged if f.rule == "cuda-library" and f.path == path]


@pytest.mark.parametrize("code", [
    pytest.param(E3NN_CONV, id="e3nn-scatter-default-reduce"),
    pytest.param(LITGPT_FINETUNE, id="litgpt-stable-embedding"),
    pytest.param("import torch_scatter\n\n\ndef pool(x, batch):\n"
                 "    return torch_scatter.scatter_mean(x, batch, dim=0)\n", id="scatter-mean"),
    pytest.param("from torch_scatter import scatter_sum, scatter_std\n\n\ndef stats(x, batch):\n"
                 "    return scatter_sum(x, batch, dim=0), scatter_std(x, batch, dim=0)\n", id="scatter-sum-and-std"),
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch):\n"
                 "    return scatter(x, batch, dim=0, reduce='mean')\n", id="reduce-mean-keyword"),
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch, out):\n"
                 "    return scatter(x, batch, 0, out, None, 'add')\n", id="reduce-add-positional"),
    pytest.param("from torch_scatter import scatter\nREDUCE = 'sum'\n\n\ndef pool(x, batch, mean):\n"
                 "    return scatter(x, batch, dim=0, reduce='mean' if mean else REDUCE)\n",
                 id="reduce-choice-of-plain"),
    pytest.param("import bitsandbytes as bnb\nimport torch\n\n\nclass Embed(torch.nn.Module):\n"
                 "    def __init__(self):\n        super().__init__()\n"
                 "        self.wte = bnb.nn.StableEmbedding(32000, 512)\n", id="bnb-module-stable-embedding"),
    pytest.param("import bitsandbytes as bnb\n\n\nclass Tokens(bnb.nn.Embedding):\n    pass\n",
                 id="bnb-embedding-subclass"),
])
def test_a_plain_pytorch_member_and_its_import_run_as_written(scan_tree, code):
    report = scan_tree({"mod.py": code})
    found = _library_findings(report)
    assert found, [(f.rule, f.api) for f in report.judged]
    for finding in found:
        for target, verdict in finding.verdicts.items():
            assert verdict.status == Status.SUPPORTED, (finding.snippet, target, verdict.message)
            # the evidence names the library's released file, its version, sha256 and license, and quotes it
            (evidence,) = verdict.evidence
            assert evidence.grade == Grade.PROOF and "sha256" in evidence.source and "(MIT)" in evidence.source
            assert evidence.quote
    assert not [f for f in report.findings if f.rule == "cuda-library"]  # nothing on the worklist
    assert {f.id for f in found} <= {f.id for f in report.covered}


@pytest.mark.parametrize("code, api", [
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch):\n"
                 "    return scatter(x, batch, dim=0, reduce='max')\n", "torch_scatter.scatter", id="reduce-max"),
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch):\n"
                 "    return scatter(x, batch, 0, None, None, 'min')\n", "torch_scatter.scatter",
                 id="reduce-min-positional"),
    pytest.param("from torch_scatter import scatter\n\n\nclass Agg:\n    def __init__(self, aggr):\n"
                 "        self.aggr = aggr\n\n    def __call__(self, x, batch):\n"
                 "        return scatter(x, batch, dim=0, reduce=self.aggr)\n", "torch_scatter.scatter",
                 id="reduce-computed"),
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch, reduce='sum'):\n"
                 "    return scatter(x, batch, dim=0, reduce=reduce)\n", "torch_scatter.scatter",
                 id="reduce-a-parameters-default"),
    pytest.param("from torch_scatter import scatter\n\n\ndef pool(x, batch, **options):\n"
                 "    return scatter(x, batch, dim=0, **options)\n", "torch_scatter.scatter", id="kwargs-may-pass-it"),
    pytest.param("import torch_scatter\n\n\ndef pool(src, indptr):\n"
                 "    return torch_scatter.segment_csr(src, indptr, reduce='sum')\n", "torch_scatter.segment_csr",
                 id="segment-csr"),
    pytest.param("from torch_scatter import scatter_softmax\n\n\ndef attend(alpha, index):\n"
                 "    return scatter_softmax(alpha, index, dim=0)\n", "torch_scatter.scatter_softmax",
                 id="scatter-softmax-calls-scatter-max"),
    pytest.param("import bitsandbytes as bnb\n\n\ndef quantize(x):\n"
                 "    return bnb.functional.quantize_blockwise(x)\n", "bitsandbytes.functional.quantize_blockwise",
                 id="quantize-blockwise"),
    pytest.param("import bitsandbytes as bnb\n\n\ndef layer(n):\n    return bnb.nn.Embedding8bit(n, 64)\n",
                 "bitsandbytes.nn.Embedding8bit", id="embedding8bit"),
])
def test_a_member_that_reaches_the_kernels_stays_a_finding(scan_tree, code, api):
    report = scan_tree({"mod.py": code})
    found = _library_findings(report)
    use = next(f for f in found if f.api == api and not f.snippet.startswith(("from ", "import ")))
    assert all(v.status != Status.SUPPORTED for v in use.verdicts.values())
    assert any(active(v) for v in use.verdicts.values())
    imported = [f for f in found if f.snippet.startswith(("from ", "import "))]
    assert imported and all(v.status != Status.SUPPORTED for f in imported for v in f.verdicts.values())
    assert [f for f in report.findings if f.rule == "cuda-library"]


def test_one_use_that_needs_a_kernel_keeps_the_import_the_librarys_finding(scan_tree):
    code = ("import bitsandbytes as bnb\nimport torch\n\n\ndef build(x, n):\n"
            "    embedding = bnb.nn.StableEmbedding(n, 64)\n"
            "    return embedding, bnb.functional.quantize_blockwise(x)\n")
    report = scan_tree({"mod.py": code}, ["cann"])
    by_line = {f.span.line: f for f in _library_findings(report)}
    assert by_line[6].verdicts["cann"].status == Status.SUPPORTED  # the embedding itself runs
    assert by_line[1].verdicts["cann"].status == Status.PORT  # the blockwise quantiser keeps the import work
    assert by_line[1] in report.findings


# swav's main_swav.py: apex for LARC (plain PyTorch in apex's own source), its SyncBatchNorm groups and amp
SWAV = """\
import torch
import apex
from apex.parallel.LARC import LARC


def build(model, args):
    process_group = apex.parallel.create_syncbn_process_group(args.syncbn_process_group_size)
    model = apex.parallel.convert_syncbn_model(model, process_group=process_group)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer = LARC(optimizer=optimizer, trust_coefficient=0.001, clip=False)
    model, optimizer = apex.amp.initialize(model, optimizer, opt_level="O1")
    return model, optimizer


def step(loss, optimizer):
    with apex.amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
"""


def test_an_import_whose_every_use_the_data_judges_is_work_only_at_its_uses(scan_tree):
    report = scan_tree({"train.py": SWAV})
    by_line = {f.span.line: f for f in _library_findings(report, "train.py")}
    for line in (7, 10):  # create_syncbn_process_group and LARC: apex's own source is torch's operators
        for target, verdict in by_line[line].verdicts.items():
            assert verdict.status == Status.SUPPORTED, (line, target, verdict.message)
            assert verdict.evidence[0].grade == Grade.PROOF and "(BSD-3-Clause)" in verdict.evidence[0].source
    # the bare import is no port of its own: the amp and SyncBatchNorm uses carry the work, each its own change
    assert all(not active(v) for line in (2, 3) for v in by_line[line].verdicts.values())
    assert by_line[8].root is None and by_line[11].root is None
    assert by_line[16].root == by_line[11].id  # apex.amp's uses: one change
    assert by_line[8].verdicts["cann"].status == Status.REWRITE
    assert not [f for f in report.findings if f.verdicts["cann"].status == Status.PORT]


def test_an_import_with_a_use_only_the_librarys_verdict_judges_stays_the_port(scan_tree):
    code = SWAV + "\n\ndef fused(p):\n    return apex.contrib.xentropy.SoftmaxCrossEntropyLoss.apply(p)\n"
    report = scan_tree({"train.py": code}, ["cann"])
    by_line = {f.span.line: f for f in _library_findings(report, "train.py")}
    assert by_line[2].verdicts["cann"].status == Status.PORT


def test_an_import_with_no_use_in_its_file_keeps_the_librarys_verdict(scan_tree):
    report = scan_tree({"mod.py": "from torch_scatter import scatter\n\n__all__ = ['scatter']\n"}, ["cann"])
    (imported,) = _library_findings(report)
    assert imported.verdicts["cann"].status == Status.PORT  # what the importers pass as reduce is not read here


def test_every_view_counts_the_plain_uses_as_running(scan_tree):
    report = scan_tree({"mod.py": E3NN_CONV, "tune.py": LITGPT_FINETUNE}, ["cann", "neuware"])
    assert not [f for f in report.findings if f.rule == "cuda-library"]
    out = io.StringIO()
    json_report.render(report, out)
    document = json.loads(out.getvalue())
    assert document["summary"]["findings"] == len(report.findings)
    assert not [f for f in document["findings"] if f["rule"] == "cuda-library"]
    rows = {row["api"]: row for row in document["coverage"]["apis"]}
    # the import and the call each run as written: the import's row names what importing the package needs
    assert rows["torch_scatter.scatter"]["uses"] == 2 and rows["bitsandbytes.nn.StableEmbedding"]["uses"] == 2
    text = io.StringIO()
    text_report.render(report, text)
    assert f"{len(report.findings)} findings" in text.getvalue().splitlines()[0]
    assert "torch_scatter" not in text.getvalue() and "bitsandbytes" not in text.getvalue()


@pytest.mark.parametrize("api, plain", [
    pytest.param("torch_scatter.scatter_add", True, id="scatter-add"),
    pytest.param("torch_scatter.composite.scatter_std", True, id="defining-module-spelling"),
    pytest.param("bitsandbytes.nn.modules.StableEmbedding", True, id="modules-spelling"),
    pytest.param("torch_scatter.scatter_max", False, id="scatter-max"),
    pytest.param("torch_scatter.scatter_mul", False, id="scatter-mul"),
    pytest.param("torch_scatter.gather_csr", False, id="gather-csr"),
    pytest.param("bitsandbytes.nn.Linear8bitLt", False, id="linear8bit"),
])
def test_the_table_lists_only_what_the_source_shows(api, plain):
    member = third_party().plain_member(api)
    assert (member is not None) == plain
    if member is not None:
        assert member.library == api.split(".", 1)[0] and member.quote and "sha256" in member.source


# tsl's GRIN and graph convolution: torch_sparse runs only on a SparseTensor adjacency a caller hands in; the
# default layout, an edge_index tensor, takes PyG's plain path
GRIN = """\
import torch
from torch_sparse import SparseTensor, remove_diag


def drop_self_loops(edge_index, edge_weight):
    if isinstance(edge_index, torch.Tensor):
        keep = edge_index[0] != edge_index[1]
        return edge_index[:, keep], edge_weight[keep]
    elif isinstance(edge_index, SparseTensor):
        return remove_diag(edge_index), None
"""
GRAPH_CONV = """\
import torch
from torch_sparse import SparseTensor, matmul


class GraphConv(torch.nn.Module):
    def message_and_aggregate(self, adj_t: SparseTensor, x: torch.Tensor) -> torch.Tensor:
        return matmul(adj_t, x, reduce="sum")
"""
# torch-geometric-temporal's EvolveGCN-O: the class named only for the type checker
ANNOTATED = """\
from typing import Optional

import torch
from torch_sparse import SparseTensor


class EvolveGCNO(torch.nn.Module):
    _cached_adj_t: Optional[SparseTensor]
"""


@pytest.mark.parametrize("code", [
    pytest.param(GRIN, id="an-isinstance-branch"),
    pytest.param(GRAPH_CONV, id="an-annotated-parameter"),
    pytest.param(ANNOTATED, id="annotations-only"),
    # tsl's MLP attention: the index broadcast and a sum, both torch operators in torch_scatter's own source
    pytest.param("from torch_scatter import scatter\nfrom torch_scatter.utils import broadcast\n\n\n"
                 "def normalize(w, index, n):\n    expanded = broadcast(index, w, 0)\n"
                 "    return w / scatter(w, expanded, 0, dim_size=n, reduce='sum').index_select(0, index)\n",
                 id="broadcast-and-sum"),
])
def test_a_library_the_file_only_handles_is_no_work(scan_tree, code):
    report = scan_tree({"mod.py": code}, ["cann"])
    found = _library_findings(report)
    assert found and not any(active(v) for f in found for v in f.verdicts.values()), \
        [(f.span.line, f.verdicts["cann"].message) for f in found]


@pytest.mark.parametrize("code", [
    # the code makes the library's object itself: that is the work
    pytest.param(GRIN + "\n\ndef adjacency(dense):\n    return SparseTensor.from_dense(dense)\n", id="makes-one"),
    pytest.param(GRIN.replace("elif isinstance(edge_index, SparseTensor):", "else:"), id="an-else-for-any-object"),
    pytest.param("from torch_sparse import SparseTensor\n\n\ndef adjacency(dense):\n"
                 "    return SparseTensor.from_dense(dense)\n", id="no-branch"),
    # a parameter annotated with the library's class decides only the calls that take that object: the other
    # calls of the library in the function run whatever it is (mmfewshot's train_model(..., cfg: ConfigDict))
    pytest.param("import torch\nfrom torch_sparse import SparseTensor\n\n\n"
                 "def adjacency(dense, cached: SparseTensor):\n    fresh = SparseTensor.from_dense(dense)\n"
                 "    return fresh if cached is None else cached\n", id="an-annotated-parameter-beside"),
])
def test_a_library_the_file_calls_on_its_own_path_stays_work(scan_tree, code):
    report = scan_tree({"mod.py": code}, ["cann"])
    imported = [f for f in _library_findings(report) if f.snippet.startswith(("from ", "import "))]
    assert imported and all(active(f.verdicts["cann"]) for f in imported)


# consistency_models' unet.py: flash-attn's class imported where the attention is built, then built
CM_FLASH = """\
import torch


class QKVFlashAttention(torch.nn.Module):
    def __init__(self, embed_dim, num_heads):
        from flash_attn.flash_attention import FlashAttention

        super().__init__()
        self.inner_attn = FlashAttention(attention_dropout=0.0)
"""


def test_a_class_imported_where_it_is_built_is_work_at_the_build_only(scan_tree):
    report = scan_tree({"unet.py": CM_FLASH})
    found = {f.span.line: f for f in _library_findings(report, "unet.py")}
    # the import is no port of its own on any target (the data judges the build by its member everywhere)
    assert all(not active(v) for v in found[6].verdicts.values())
    build = found[9]
    assert build.root is None and build in report.findings  # not hidden under the import
    assert all(v.status == Status.REWRITE for v in build.verdicts.values())


def test_a_module_level_import_of_a_package_that_needs_cuda_to_install_stays_work(scan_tree):
    """TinyLlama's lit_gpt/model.py: ``from flash_attn import flash_attn_func`` at the top of the model's module
    fails on the target before any use is reached, whatever the uses become."""
    code = ("import torch\nfrom flash_attn import flash_attn_func\n\n\ndef attend(q, k, v):\n"
            "    return flash_attn_func(q, k, v, causal=True)\n")
    report = scan_tree({"model.py": code}, ["cann"])
    (imported,) = [f for f in _library_findings(report, "model.py") if f.span.line == 2]
    assert active(imported.verdicts["cann"])
