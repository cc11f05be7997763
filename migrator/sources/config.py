"""Training configuration files: YAML (Hydra / OmegaConf, Lightning's CLI, accelerate's launch config), JSON
(DeepSpeed) and ``.deepspeed_env``, read for the values that choose the device, the collective backend and the
precision, each at its line; and, from every file, which configuration files it names (``ConfigRefs``).

A value is a finding only where something reads its file (``project/configs.py`` decides, across files): a
``device: cuda`` in a YAML no code, launch script or framework names stays silent.

Untrusted input: YAML is *composed* with ``yaml.SafeLoader`` (nodes and their marks, never an object built
from a tag); a file that does not compose is a per-file error; aliases are walked once (no expansion), and the
walk stops at ``MAX_DEPTH`` levels and ``MAX_NODES`` nodes.
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ..model import (Argument, ConfigName, ConfigRefs, FileKind, Span, Usage, UsageKind, Value, ValueKind)

#: A configuration file larger than this is data (a vocabulary, annotations), not configuration: not read.
MAX_CONFIG_BYTES = 256 * 1024
MAX_DEPTH = 64
MAX_NODES = 50_000

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
#: files a framework reads by their name alone
NAMED_CONFIGS = (".deepspeed_env",)

#: A file with none of these holds no value a rule judges: it is not composed.
_RELEVANT = re.compile(r"cuda|nccl|gpu|GPU|fp16|bf16|amp|precision|accelerator|offload|comm_backend|tf32|"
                       r"Lamb|LAMB|distributed_type|mixed_precision|\.json|\.ya?ml")

_DEVICE = re.compile(r"^cuda(?::\d+)?$")
_BACKEND = re.compile(r"^(?:nccl|(?:\w+:\w+,)*cuda:nccl(?:,\w+:\w+)*)$")
#: keys whose ``nccl`` is not torch's process-group backend (DeepSpeed's 1-bit optimizers' own backend)
_NOT_TORCH_BACKEND = ("comm_backend_name",)

#: What kind of configuration a file is, from its top-level keys.
DEEPSPEED_KEYS = frozenset({"zero_optimization", "train_batch_size", "train_micro_batch_size_per_gpu",
                            "gradient_accumulation_steps", "zero_allow_untested_optimizer", "fp16", "bf16", "amp",
                            "communication_data_type", "wall_clock_breakdown"})
ACCELERATE_KEYS = frozenset({"compute_environment", "distributed_type"})

#: The family a setting's framework row must belong to, by the file's family (``framework`` of a row in
#: ``curated/frameworks.yaml``); a generic file (Hydra, OmegaConf, Lightning's CLI, an HF arguments file) serves
#: the frameworks the project imports (``project/configs.py``).
DEEPSPEED, ACCELERATE, GENERIC = "deepspeed", "accelerate", "generic"
FAMILY_NAMES = {DEEPSPEED: "DeepSpeed config", ACCELERATE: "accelerate config", GENERIC: "config"}


class ConfigError(ValueError):
    """A configuration file that cannot be read: the reason is the file's."""


def is_config_name(name: str) -> bool:
    return name in NAMED_CONFIGS or name.lower().endswith(CONFIG_SUFFIXES)


# ------------------------------------------------------------------------------------------ the values


def read_config(text: str, rel: str) -> Tuple[Tuple[Usage, ...], ConfigRefs]:
    """The usages of one configuration file, and the configuration files it names. Raises ``ConfigError``."""
    name = posixpath.basename(rel)
    if name in NAMED_CONFIGS:
        return _deepspeed_env(text), ConfigRefs()
    if not _RELEVANT.search(text):
        return (), ConfigRefs()
    documents = _compose(text, rel.lower().endswith(".json"))
    usages: List[Usage] = []
    names: List[ConfigName] = []
    for root in documents:
        family = _family(root)
        for path, node, siblings in _scalars(root):
            value = str(node.value)
            usage = _usage(path, node, value, siblings, family)
            if usage is not None:
                usages.append(usage)
            if value.lower().endswith(CONFIG_SUFFIXES) and "\n" not in value and len(value) < 300:
                names.append(ConfigName(value, node.start_mark.line + 1))
    return tuple(usages), ConfigRefs(names=tuple(names))


def _compose(text: str, is_json: bool) -> list:
    import yaml

    if is_json:  # JSON is YAML, except that PyYAML takes a tab for indentation: outside strings (where JSON
        text = text.replace("\t", " ")  # allows none raw), one space keeps every line and column
    try:
        return [node for node in yaml.compose_all(text, Loader=yaml.SafeLoader) if node is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise ConfigError(f"not valid {'JSON' if is_json else 'YAML'}{where}: {problem}") from None


def _family(root) -> str:
    import yaml

    if not isinstance(root, yaml.MappingNode):
        return GENERIC
    keys = {str(k.value) for k, _ in root.value if isinstance(k, yaml.ScalarNode)}
    if keys & ACCELERATE_KEYS:
        return ACCELERATE
    if len(keys & DEEPSPEED_KEYS) >= 2 or "zero_optimization" in keys:
        return DEEPSPEED
    return GENERIC


def _scalars(root) -> Iterator[Tuple[str, Any, Tuple[Tuple[str, str], ...]]]:
    """Each scalar value with its dotted key path (a sequence's items keep the sequence's key) and the other
    scalar keys of its mapping with their values. Each node is visited once (aliases are not expanded)."""
    import yaml

    seen = set()
    stack: List[Tuple[Any, str, int]] = [(root, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if id(node) in seen or depth > MAX_DEPTH:
            continue
        seen.add(id(node))
        if len(seen) > MAX_NODES:
            raise ConfigError(f"more than {MAX_NODES} nodes: not read as a configuration file")
        if isinstance(node, yaml.MappingNode):
            pairs = [(str(k.value), v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
            siblings = tuple((k, str(v.value)) for k, v in pairs if isinstance(v, yaml.ScalarNode))
            for key, value in reversed(pairs):
                child = f"{path}.{key}" if path else key
                if isinstance(value, yaml.ScalarNode):
                    if id(value) not in seen:
                        seen.add(id(value))
                        yield child, value, siblings
                else:
                    stack.append((value, child, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            for item in reversed(node.value):
                if isinstance(item, yaml.ScalarNode):
                    if id(item) not in seen:
                        seen.add(id(item))
                        yield path, item, ()
                else:
                    stack.append((item, path, depth + 1))


def _usage(path: str, node, value: str, siblings: Tuple[Tuple[str, str], ...], family: str) -> Optional[Usage]:
    """The usage a scalar is: a device string, a backend name (judged as the code's are), or the value of a key a
    framework reads (``config:<key>``, with the other keys of its mapping as its arguments)."""
    start, end = node.start_mark, node.end_mark
    quoted = node.style in ("'", '"')
    col = start.column + (1 if quoted else 0)
    span = Span(start.line + 1, col, start.line + 1, col + len(value) if start.line == end.line else end.column)
    key = path.rsplit(".", 1)[-1]
    snippet = f"{key}: {value}" if key else value  # as a YAML line writes it (a suggestion rewrites its value)
    where = f"{FAMILY_NAMES[family]} key `{path}`" if path else FAMILY_NAMES[family]
    text = Value(ValueKind.STR, value)
    rows = _rows_for(path, family) if path and len(value) <= 200 else ()
    if any(row.matches(value) for row in rows):  # the framework's, whatever the value
        # (`trainer.accelerator: cuda` is Lightning's choice, `ddp_backend: nccl` transformers' / accelerate's)
        return _setting(path, span, value, key, siblings, family)
    if _DEVICE.match(value):
        return Usage(api="torch.device", kind=UsageKind.LITERAL, span=span, snippet=snippet,
                     args=(Argument(None, text),), context=where, config_key=path or None,
                     siblings=tuple(v for k, v in siblings if k != key and _is_device_name(v)))
    if _BACKEND.match(value) and key not in _NOT_TORCH_BACKEND:
        return Usage(api="torch.distributed.Backend", kind=UsageKind.LITERAL, span=span, snippet=snippet,
                     args=(Argument(None, text),), context=where, config_key=path or None)
    if not rows:
        return None  # a key no framework row names: data, not a setting a rule judges
    return _setting(path, span, value, key, siblings, family)


def _setting(path: str, span: Span, value: str, key: str, siblings: Tuple[Tuple[str, str], ...],
             family: str) -> Usage:
    others = tuple(Argument(k, Value(ValueKind.STR, v)) for k, v in siblings if k != key)
    return Usage(api=f"config:{path}", kind=UsageKind.SETTING, span=span, snippet=f"{path}: {value}",
                 args=(Argument(key, Value(ValueKind.STR, value)), *others), context=family, config_key=path)


#: which frameworks' rows a file of each family serves (a generic YAML: the frameworks configured through one)
FAMILY_FRAMEWORKS = {DEEPSPEED: ("deepspeed",), ACCELERATE: ("accelerate",), GENERIC: ("lightning", "transformers")}


def _rows_for(path: str, family: str) -> tuple:
    """The rows of the file's family whose ``config`` keys end ``path`` (``trainer.accelerator`` ends
    ``model.trainer.accelerator``): a lookup per suffix of the path, not a scan of every row."""
    index = _key_index(family)
    parts = path.split(".")
    found: list = []
    for start in range(len(parts)):
        found.extend(index.get(".".join(parts[start:]), ()))
    return tuple(found)


@lru_cache(maxsize=None)
def _key_index(family: str) -> Dict[str, tuple]:
    from ..maps.load import framework_settings

    index: Dict[str, list] = {}
    for row in framework_settings():
        if row.framework in FAMILY_FRAMEWORKS[family]:
            for key in row.config:
                index.setdefault(key, []).append(row)
    return {key: tuple(rows) for key, rows in index.items()}


def _is_device_name(value: str) -> bool:
    return bool(re.match(r"^(?:cpu|mps|npu|mlu|xpu|hpu|cuda)(?::\d+)?$", value))


def _deepspeed_env(text: str) -> Tuple[Usage, ...]:
    """``.deepspeed_env``: ``NAME=VALUE`` lines DeepSpeed's launcher exports on every node, read as a script's."""
    from .environment import read_environment

    return read_environment(text, FileKind.SHELL)


# ------------------------------------------------------------------------------------------ the names

#: a string literal naming a configuration file
_NAMED = re.compile(r"""(['"])([^'"\n]{1,200}?\.(?:ya?ml|json))\1""")
#: Hydra's folder of configurations (``@hydra.main(config_path=...)``, ``initialize(config_path=...)``)
_HYDRA_PATH = re.compile(r"""\bconfig_path\s*=\s*(['"])([^'"\n]{0,200})\1""")
_FRAMEWORK_WORDS = ("lightning", "transformers", "trl", "accelerate", "deepspeed")
_IMPORTS = re.compile(r"^\s*(?:from|import)\s+(lightning|pytorch_lightning|transformers|trl|accelerate|deepspeed)\b",
                      re.MULTILINE)
#: a word of a command line naming a configuration file (``--deepspeed ds.json``, ``--config_file a.yaml``)
_WORD = re.compile(r"""(?:^|[\s=,'"])([^\s=,'"|;&<>()]{1,200}?\.(?:ya?ml|json))(?=$|[\s,'"|;&)])""", re.MULTILINE)
_LAUNCHERS = re.compile(r"(?:^|[\s;&|(])(deepspeed|accelerate\s+launch)\b", re.MULTILINE)


def python_refs(text: str) -> Optional[ConfigRefs]:
    """What a Python file (or a notebook's code) names: string literals naming configuration files, Hydra's
    ``config_path``, and the frameworks it imports. A regular expression over the text the analysis holds
    anyway, not another pass over the tree."""
    if not any(word in text for word in (".yaml", ".yml", ".json", "config_path")) \
            and not any(word in text for word in _FRAMEWORK_WORDS):
        return None
    names = [ConfigName(m.group(2), _line(text, m.start(2))) for m in _NAMED.finditer(text)]
    names += [ConfigName(m.group(2) or ".", _line(text, m.start(2)), folder=True) for m in _HYDRA_PATH.finditer(text)]
    frameworks = sorted({m.group(1).replace("pytorch_lightning", "lightning").replace("trl", "transformers")
                         for m in _IMPORTS.finditer(text)})
    if not names and not frameworks:
        return None
    return ConfigRefs(names=tuple(names), frameworks=tuple(frameworks))


def script_refs(text: str) -> Optional[ConfigRefs]:
    """What a launch script (a shell script, a Dockerfile) names: configuration files on its command lines, and
    the launchers it runs (``deepspeed`` reads ``.deepspeed_env``)."""
    names = [ConfigName(m.group(1), _line(text, m.start(1))) for m in _WORD.finditer(text)
             if not text[max(0, text.rfind("\n", 0, m.start(1))):m.start(1)].lstrip().startswith("#")]
    frameworks = sorted({m.group(1).split()[0] for m in _LAUNCHERS.finditer(text)})
    if not names and not frameworks:
        return None
    return ConfigRefs(names=tuple(names), frameworks=tuple(frameworks))


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def resolve_name(name: ConfigName, named_in: str, configs: Sequence[str]) -> Tuple[str, ...]:
    """The configuration files (of ``configs``, relative POSIX paths) a name written in ``named_in`` stands for:
    a path from the naming file's folder or from the root, else every file whose path ends with it (a launch
    script run from another folder, ``$ROOT/configs/ds.json``). A folder (Hydra's ``config_path``) stands for
    every configuration file under it."""
    text = name.text.strip()
    if "$" in text:  # $ROOT/configs/x.yaml, ${CONF_DIR}/x.yaml: the path after the last variable
        text = re.sub(r"^.*(?:\$\{[^}]*\}|\$\w+)", "", text).lstrip("/")
    if text.startswith(("pkg://", "file://")) or "://" in text:
        return ()
    here = posixpath.dirname(named_in)
    candidates = [posixpath.normpath(posixpath.join(here, text)), posixpath.normpath(text.lstrip("/"))]
    if name.folder:
        found = tuple(c for c in configs for folder in candidates
                      if folder in (".", "") or c.startswith(folder.rstrip("/") + "/"))
        return tuple(dict.fromkeys(found))
    exact = tuple(c for c in configs if c in candidates)
    if exact:
        return exact
    tail = posixpath.normpath(text).lstrip("./")
    if not tail or tail.startswith(".."):
        tail = posixpath.basename(text)
    return tuple(c for c in configs if c == tail or c.endswith("/" + tail))


def reads_back(old: str, new: str, rel: str) -> bool:
    """Whether a configuration file edited in place (``fix``: a value replaced at its position, every other byte
    kept) still composes, with the same keys in the same order: only values changed."""
    if posixpath.basename(rel) in NAMED_CONFIGS:
        return True
    try:
        before = [[p for p, _, _ in _scalars(root)] for root in _compose(old, rel.lower().endswith(".json"))]
        after = [[p for p, _, _ in _scalars(root)] for root in _compose(new, rel.lower().endswith(".json"))]
    except (ConfigError, RecursionError):
        return False
    return before == after


def config_text(data: bytes) -> Union[str, ConfigError]:
    if b"\x00" in data[:8192]:
        return ConfigError("binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return ConfigError("not UTF-8 text")
