"""``migrator maps update``: bring a torch_npu line into the maps the day its wheel is published.

Every torch_npu wheel ships the registration list its build generated
(``torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml``: the aten ops with an NPU kernel on the wheel's
torch line). For each line asked, this reads the package index's JSON API, picks that line's newest release,
downloads one of its wheels, checks the file against the sha256 the index publishes, copies the list into
the upstream folder verbatim with its provenance (``cann/wheels.json``) and the tables of what its
``transfer_to_npu`` patches (``transfer_tables.py``, read with ``ast``), and rebuilds the maps. Nothing is
written unless every download checks out; offline, it says so and the maps stay as they are.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .upstream import MapsBuildError
from .vendors.cann import TRANSFER_TABLES, WHEEL_REGISTRATIONS, WHEELS, version_key, version_line, wheel_versions
from .vendors.transfer_tables import MEMBER as TRANSFER_MEMBER
from .vendors.transfer_tables import NOTE as TRANSFER_NOTE
from .vendors.transfer_tables import extract as extract_transfer

#: PyPI's JSON API; ``--index`` may name a mirror or a local folder (``file:///...``) laid out the same way
DEFAULT_INDEX = "https://pypi.org/pypi"
PROJECT = "torch-npu"
MEMBER = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"
#: a wheel bigger than this is refused (torch_npu's are about 45 MB), and a member that unpacks bigger than
#: the second (the registration list is about 250 KB)
MAX_WHEEL_BYTES = 400 * 1024 * 1024
MAX_MEMBER_BYTES = 32 * 1024 * 1024


class UpdateError(Exception):
    """The index could not be read, no wheel matched, or a download failed its check; nothing was written."""


@dataclass(frozen=True)
class WheelChoice:
    """One wheel picked for a line: where it is and the sha256 the index publishes for it."""

    version: str
    filename: str
    url: str
    sha256: str


@dataclass(frozen=True)
class FetchedList:
    """A checked wheel's registration list and what its provenance row says."""

    choice: WheelChoice
    text: bytes
    git_version: Optional[str]
    requires_torch: Optional[str]
    #: what its ``transfer_to_npu`` patches (``transfer_tables.extract``), when the wheel has that module
    transfer: Optional[dict] = None


Opener = Callable[[str], bytes]


def read_url(url: str, limit: int = MAX_WHEEL_BYTES) -> bytes:
    """The bytes at ``url`` (http, https or file), at most ``limit`` of them."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 (the index the user names)
            data = response.read(limit + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise UpdateError(f"cannot read {url}: {getattr(exc, 'reason', exc)}") from exc
    if len(data) > limit:
        raise UpdateError(f"{url} is larger than {limit // (1024 * 1024)} MB; refused")
    return data


def releases(index: str, opener: Opener = read_url) -> Dict[str, List[dict]]:
    """{version: [file, ...]} of torch_npu on the index (PyPI's JSON API layout)."""
    url = f"{index.rstrip('/')}/{PROJECT}/json"
    try:
        data = json.loads(opener(url))
    except UpdateError as exc:
        raise UpdateError(f"cannot reach the package index ({exc}); the maps are unchanged") from exc
    except ValueError as exc:
        raise UpdateError(f"{url} is not the index's JSON API: {exc}") from exc
    found = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        raise UpdateError(f"{url} lists no releases")
    return {str(v): [f for f in files if isinstance(f, dict)] for v, files in found.items() if isinstance(files, list)}


def choose(index_url: str, available: Dict[str, List[dict]], asked: str) -> WheelChoice:
    """The wheel for ``asked``: an exact version (``2.12.0.post3``), or a torch line (``2.14``: its newest
    release that is not a release candidate). Any wheel of the release carries the same list; a CPython 3.11
    x86_64 one is preferred."""
    if asked in available:
        version = asked
    else:
        line = [v for v in available if version_line(v) == asked and "rc" not in v and available[v]]
        if not line:
            known = sorted({version_line(v) for v in available}, key=version_key)
            raise UpdateError(f"no torch_npu release on the {asked} line at the index (lines: {', '.join(known)})")
        version = max(line, key=version_key)
    wheels = [f for f in available[version] if str(f.get("filename", "")).endswith(".whl")
              and (f.get("digests") or {}).get("sha256")]
    if not wheels:
        raise UpdateError(f"torch_npu {version} has no wheel with a published sha256 on the index")
    wheels.sort(key=lambda f: ("cp311" not in f["filename"], "x86_64" not in f["filename"], f["filename"]))
    chosen = wheels[0]
    url = urllib.parse.urljoin(index_url.rstrip("/") + f"/{PROJECT}/json", str(chosen["url"]))
    return WheelChoice(version, str(chosen["filename"]), url, str(chosen["digests"]["sha256"]))


def fetch_list(choice: WheelChoice, opener: Opener = read_url) -> FetchedList:
    """Download the wheel, check its sha256 against the index's, and read the registration list out of it."""
    data = opener(choice.url)
    digest = hashlib.sha256(data).hexdigest()
    if digest != choice.sha256:
        raise UpdateError(f"{choice.filename}: sha256 {digest} is not the index's {choice.sha256}; nothing written")
    try:
        wheel = zipfile.ZipFile(io.BytesIO(data))
        too_big = [i.filename for i in wheel.infolist()
                   if i.filename in (MEMBER, TRANSFER_MEMBER) and i.file_size > MAX_MEMBER_BYTES]
        if too_big:
            raise UpdateError(f"{choice.filename}: {too_big[0]} unpacks to more than "
                              f"{MAX_MEMBER_BYTES // (1024 * 1024)} MB; refused")
        text = wheel.read(MEMBER)
        names = wheel.namelist()
        version_py = wheel.read("torch_npu/version.py").decode("utf-8", "replace") \
            if "torch_npu/version.py" in names else ""
        metadata = next((wheel.read(n).decode("utf-8", "replace") for n in names
                         if n.endswith(".dist-info/METADATA")), "")
        transfer_source = wheel.read(TRANSFER_MEMBER).decode("utf-8") if TRANSFER_MEMBER in names else None
    except KeyError as exc:
        raise UpdateError(f"{choice.filename} has no {MEMBER}") from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise UpdateError(f"{choice.filename} is not a readable wheel: {exc}") from exc
    git = re.search(r"git_version\s*=\s*['\"](\w+)['\"]", version_py)
    torch = re.search(r"^Requires-Dist:\s*(torch\b[^;\n]*)", metadata, re.M)
    transfer = None
    if transfer_source is not None:
        try:
            transfer = {"_source": {"repo": "Ascend/pytorch", "path": TRANSFER_MEMBER,
                                    "commit": git.group(1) if git else None, "wheel": choice.filename,
                                    "wheel_sha256": choice.sha256, "license": "BSD-3-Clause"},
                        "_note": TRANSFER_NOTE, **extract_transfer(transfer_source)}
        except (SyntaxError, ValueError):
            transfer = None  # the device map then stays torch_npu 2.7.1's, and says so
    return FetchedList(choice, text, git.group(1) if git else None, torch.group(1).strip() if torch else None,
                       transfer)


def store(upstream: Path, fetched: Sequence[FetchedList], today: Optional[str] = None) -> List[Path]:
    """Write each list verbatim into ``upstream/cann/`` and its row into ``cann/wheels.json``."""
    provenance_path = upstream / WHEELS
    provenance: Dict[str, Any] = json.loads(provenance_path.read_text(encoding="utf-8")) if provenance_path.is_file() \
        else {"schema": "migrator.upstream-wheels/1", "wheels": []}
    written = []
    for item in fetched:
        rel = WHEEL_REGISTRATIONS.format(version=item.choice.version)
        path = upstream / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(item.text)
        written.append(path)
        if item.transfer is not None:
            transfer = upstream / TRANSFER_TABLES.format(version=item.choice.version)
            transfer.write_text(json.dumps(item.transfer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            written.append(transfer)
        row = {"file": Path(rel).name, "package": "torch_npu", "version": item.choice.version,
               "wheel": item.choice.filename, "wheel_sha256": item.choice.sha256, "member": MEMBER,
               "sha256": hashlib.sha256(item.text).hexdigest(), "size": len(item.text),
               "git_version": item.git_version, "index": item.choice.url,
               "retrieved": today or date.today().isoformat(),
               "license": "BSD-3-Clause", "requires_torch": item.requires_torch}
        provenance["wheels"] = [r for r in provenance["wheels"] if r.get("file") != row["file"]] + [row]
    provenance["wheels"].sort(key=lambda r: version_key(str(r.get("version", "0"))))
    provenance_path.write_text(json.dumps(provenance, indent=1) + "\n", encoding="utf-8")
    return written + [provenance_path]


def newer_lines(upstream: Path, available: Dict[str, List[dict]]) -> List[str]:
    """The torch lines on the index newer than the newest one the folder holds (what ``update`` with no
    argument brings)."""
    held = [version_key(v) for v in wheel_versions(upstream)]
    newest = max(held) if held else ()
    lines = {version_line(v) for v in available if "rc" not in v and available[v] and version_key(v) > newest}
    return sorted(lines, key=version_key)


def update(upstream: Path, asked: Sequence[str], index: str = DEFAULT_INDEX,
           opener: Opener = read_url) -> Tuple[List[FetchedList], List[Path]]:
    """Fetch and check every list asked (all before writing any), then store them."""
    if not (upstream / "cann").is_dir():
        raise MapsBuildError(f"{upstream} has no cann/ folder: run from a checkout or pass --upstream")
    available = releases(index, opener)
    wanted = list(asked) or newer_lines(upstream, available)
    fetched = [fetch_list(choose(index, available, item), opener) for item in wanted]
    return fetched, store(upstream, fetched) if fetched else []
