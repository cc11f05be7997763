"""Which part of a project a file is: what a training run executes, its tests, or its tooling (packaging,
benchmarks, export to other runtimes, checkpoint conversion scripts, demos, inference and generation scripts,
visualisation, CI and documentation). Only training findings count in readiness."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, List, Tuple

from .model import Category, Context

_TEST_DIRS = frozenset({"test", "tests", "testing", "unittest", "unittests", "unit_tests", "test_utils"})
_TEST_FILE = re.compile(r"^(test_.*|.*_test|.*_tests|tests?|conftest)\.(py|ipynb|sh)$"
                        r"|^requirements[-_.]?tests?\.(txt|in)$")
_TOOLING_DIRS = frozenset({"benchmark", "benchmarks", "bench", ".github", ".circleci", ".gitlab", "ci", ".ci",
                           ".buildkite", ".jenkins",
                           "inference", "serve", "serving", "torchserve", "analysis_tools", ".devcontainer",
                           "debug", "_debug", "debugging", "profile", "profiler", "profilers", "profiling", "tooling",
                           "dataset_converters", "data_converters",
                           "docs", "doc", "docs_src", "doc_src", "docsrc", "packaging", "export", "exporters", "onnx",
                           "tensorrt", "trtllm", "tensorrt_llm", "deploy", "deployment", "demo", "demos",
                           "visualization", "visualisation", "visualize", "notebook", "notebooks", "generate",
                           "generation",
                           # a paper's reproduction: its figures, analyses, timings and baselines (cellpose's paper/)
                           "paper", "papers", "figures",
                           # a library's lessons in using it (kaolin's examples/tutorial/ notebooks): documentation
                           "tutorial", "tutorials",
                           # code kept beside what replaced it, and a library's community projects (the
                           # transformers copy bundled in LoRA: examples/legacy/, examples/research_projects/)
                           "legacy", "deprecated", "research_projects"})
_TOOLING_FILE = re.compile(r"^(setup|setup_.*|noxfile|hubconf|bench_.*|benchmark.*|.*[_-]benchmark|"
                           r"export_?.*|.*_to_onnx|.*onnx.*|.*tensorrt.*|.*trtllm.*|convert_.*|trt|.*_trt|trt_.*|"
                           r"demo|demo_.*|.*_demo|visuali[sz]e.*|visuali[sz]ation.*|vis_.*|bench|inference|infer|"
                           r"predict|predict_.*|generate|generate_.*|generation|generation_utils|sample|profile|"
                           r"profiler|profiling|collect_env|collect_env_.*|env_info|.*_env_info)\.py$|"
                           r"^requirements[-_.]?(dev|docs?|lint|ci|build|export|bench.*|onnx|trt)\.(txt|in)$")


#: a script of a ``tools/`` folder named for what is done with a trained checkpoint (mmgen's
#: ``tools/evaluation.py``, ``tools/utils/singan_inference.py``, ``translation_eval.py``): not the training run
_AFTER_TRAINING_SCRIPT = frozenset({"eval", "evaluate", "evaluation", "inference", "infer", "predict",
                                    # what measures a model instead of training it (mmseg's ``tools/get_flops.py``)
                                    "flops", "fps", "latency", "complexity"})
#: a folder named for an exported engine among other words (f5-tts's ``runtime/triton_trtllm/``)
_EXPORT_WORDS = frozenset({"onnx", "tensorrt", "trtllm", "openvino"})
_WORDS = re.compile(r"[_\-.]")
#: a folder whose first word says it serves a trained model (torchrec's ``examples/inference_legacy/``); as a later
#: word it may be a method's name (a ``variational_inference/`` package is training)
_SERVING_FIRST_WORDS = frozenset({"inference", "serving", "deploy", "deployment"})


#: folders of configuration files (mmseg's ``configs/_base_/``, score-sde's ``configs/ve/``): read by a loader, not run
_CONFIG_FOLDERS = frozenset({"config", "configs", "cfg", "cfgs"})


def in_a_config_folder(path: str) -> bool:
    """Whether a repository-relative path lies in a folder of configuration files."""
    return any(folder in _CONFIG_FOLDERS for folder in path.lower().split("/")[:-1])


def _tooling_folder(folder: str) -> bool:
    """Whether a folder's name (lowercased) makes what it holds tooling."""
    words = _WORDS.split(folder)
    return folder in _TOOLING_DIRS or bool(_EXPORT_WORDS & set(words)) or words[0] in _SERVING_FIRST_WORDS


@lru_cache(maxsize=4096)
def path_context(path: str) -> Context:
    """From a repository-relative POSIX path alone."""
    *folders, name = path.split("/")
    lowered = [f.lower() for f in folders]
    if any(f in _TEST_DIRS for f in lowered) or _TEST_FILE.match(name.lower()):
        return Context.TEST
    if any(_tooling_folder(f) for f in lowered) \
            or _TOOLING_FILE.match(name.lower()) or ("tools", "analysis") in zip(lowered, lowered[1:]) \
            or ("tools" in lowered and _AFTER_TRAINING_SCRIPT & set(_WORDS.split(name.lower().rsplit(".", 1)[0]))) \
            or _launches_after_training(lowered, name.lower()):
        return Context.TOOLING  # (mmtrack's ``tools/analysis/``: a checkpoint's parameter search, as analysis_tools/)
    return Context.TRAINING


#: a shell launcher's own words that say it trains: ``train_eval.sh`` trains and evaluates
_TRAINING_WORDS = frozenset({"train", "training", "finetune", "pretrain", "fine", "tune"})


def _launches_after_training(folders: List[str], name: str) -> bool:
    """A shell script named or filed for what is done with a trained checkpoint (LLaVA's ``scripts/v1_5/eval/gqa.sh``
    and ``scripts/sqa_eval_batch.sh``, which launch its benchmark answer generation per card; a web demo, a
    server): a launcher says what it runs by its name, as a script of a ``tools/`` folder does; one that also
    names training is training."""
    stem, _, suffix = name.rpartition(".")
    if suffix not in ("sh", "bash", "zsh"):
        return False
    words = set(_WORDS.split(stem)).union(*(_WORDS.split(f) for f in folders))
    return bool((_AFTER_TRAINING_SCRIPT | _SERVING_LAUNCHES) & words) and not _TRAINING_WORDS & words


#: what else a launcher's name says it runs after training: a demo, a model server, a benchmark (ChatGLM-6B's
#: ``ptuning/web_demo.sh``)
_SERVING_LAUNCHES = frozenset({"demo", "serve", "serving", "server", "deploy", "benchmark"})


def _in_tooling_folder(path: str) -> bool:
    """Whether a folder of the path makes it tooling (``inference/``, ``benchmarks/``), not its file name alone."""
    return any(_tooling_folder(f.lower()) for f in path.split("/")[:-1])


#: A function named for export, deployment, inference, generation or explanation (``convert_to_trt``,
#: ``export_onnx``, ``predict``, ``run_inference``, ``generate``, ``explain``), where a training file keeps its
#: tooling: what it does runs after training, not in it.
_TOOLING_WORDS = frozenset({"export", "predict", "inference", "serve", "deploy", "explain"})
#: ... and, as words among others in a name (torchani's ``to_infer_model``), what is done with a trained model
AFTER_TRAINING_WORDS = _TOOLING_WORDS | {"infer", "serving"}
#: generation by a trained model (``generate``, ``generate_text``, ``generate_images``), not the many things a
#: training step generates (nerfstudio's ``generate_ray_samples``, detection's ``generate_anchors``)
GENERATION = re.compile(r"^generate(?:_(?:text|texts|image|images|caption|captions|speech|audio|video|videos|tokens"
                        r"|sequence|sequences|response|responses|answer|answers|samples))?$")
_TOOLING_FUNCTION = re.compile((r"^(?:%s)(?:_|$)|^infer$|^convert_to_|^to_onnx"
                                # (Swin's ``throughput()``: run by ``--throughput`` before training, instead of it)
                                r"|^(?:benchmark|latency|timeit|throughput)(?:_|$)|_(?:benchmark|latency|throughput)$"
                                # an environment report for a bug report: tabpfn's and sklearn's ``show_versions``
                                r"|^(?:show|print|collect)_(?:versions|env|environment|env_info|system_info)$"
                                r"|(?:^|_)(?:onnx|tensorrt|trt)(?:_|$)|_(?:inference|predict|prediction|export)$"
                                # a figure of what a model does (torchdyn's ``plot_static_vector_field``)
                                r"|^(?:plot|visuali[sz]e)(?:_|$)")
                               % "|".join(sorted(_TOOLING_WORDS)))


#: a test written beside the code it tests (unsloth's ``test_rms_layernorm()`` at the end of its kernel module, a
#: ``TestAttention`` class): what pytest would collect, or a Lightning module's evaluation (``test_step``)
_TEST_SCOPE = re.compile(r"^(?:test|testing)(?:_|$)|^Test[A-Z0-9_]")


def context_of(path: str, category: Category, scope: str = "<module>") -> Context:
    """A custom operator's build (``setup.py``) and kernels are what training calls: training wherever they
    are written, unless they sit among the tests or in a tooling folder (DeepSpeed's ``inference/v2/kernels``).
    In a training file, a function named for export, deployment or inference (its innermost name in ``scope``) is
    tooling, and one named as a test (or in a class named so) is a test."""
    context = path_context(path)
    if context == Context.TOOLING and category == Category.CUSTOM_OP and not _in_tooling_folder(path):
        return Context.TRAINING  # ``setup.py`` builds what training calls; DeepSpeed's ``inference/v2/`` kernels not
    if context == Context.TRAINING and any(_TEST_SCOPE.match(part) for part in scope.split(".")):
        return Context.TEST
    if context == Context.TRAINING and category != Category.CUSTOM_OP \
            and (any(_TOOLING_FUNCTION.search(name) or GENERATION.match(name) for name in _defined_in(path, scope))
                 or any(_SERVING_CLASS.match(part) for part in scope.split("."))):
        return Context.TOOLING
    return context


#: a class named first for serving a trained model (torchrec's ``InferGroupedEmbeddingsLookup``,
#: ``InferRwObjectPoolInputDist``: its quantized inference sharding), by its first CamelCase word
_SERVING_CLASS = re.compile(r"^(?:Infer|Inference|Serving|Deploy)(?=[A-Z])")


def _defined_in(path: str, scope: str) -> Tuple[str, ...]:
    """The names (lowercased) of the definitions ``scope`` lies in, innermost last, without the module's dotted
    name: di-engine's ``DQNAgent.deploy.single_env_forward_wrapper._forward`` lies in ``deploy``. The module's
    name ends at the file's own (a package's ``__init__``: its folder's)."""
    parts = scope.lower().split(".")
    folders = path.lower().split("/")
    stem = folders[-1].rsplit(".", 1)[0]
    if stem == "__init__" and len(folders) > 1:
        stem = folders[-2]
    start = parts.index(stem) + 1 if stem in parts[:-1] else len(parts) - 1
    return tuple(parts[start:])


#: libraries that serve a model behind a web page (a demo app): a module that imports one is not the training run
UI_LIBRARIES = frozenset({"streamlit", "gradio"})
#: molecular simulators a trained potential is plugged into (an ASE calculator, OpenMM, LAMMPS, TorchSim): a
#: module that imports one runs the model for a simulation, after training
SIMULATORS = frozenset({"ase.calculators", "ase.md", "ase.optimize", "openmm", "openmmtorch", "lammps", "torch_sim"})


def serves_a_model(imports: Iterable[str]) -> bool:
    """Whether a module's imports (dotted) name a library that runs a trained model outside training: a web demo
    (``UI_LIBRARIES``) or a simulator (``SIMULATORS``)."""
    for name in imports:
        parts = name.split(".")
        if parts[0] in UI_LIBRARIES or parts[0] in SIMULATORS or ".".join(parts[:2]) in SIMULATORS:
            return True
    return False
