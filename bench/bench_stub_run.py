"""Run a real repository's device helpers, before and after ``migrator fix`` (safe mode), on a fake NPU machine.

The fake ``torch_npu`` (``tests/npu_stub.py``) reports an NPU and no CUDA, as the vendor documents its Python
surface. Each probe calls one helper of the repository that ``fix`` edited and prints what it returned (or
raised) on the original tree and on the fixed one: a safe fix must turn a CUDA-only answer into the NPU's,
and never turn a working answer into another.

    python bench/bench_stub_run.py --timm DIR     # an unpacked timm sdist (bench/_downloads/timm-1.0.31)

Nothing in the repository runs outside the probes; the fix itself is static.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from migrator.fix import fix_report, write_fixes  # noqa: E402
from migrator.maps.load import resolve_targets  # noqa: E402
from migrator.pipeline import ScanRequest, scan  # noqa: E402
from tests.npu_stub import run_on_npu, write_stub  # noqa: E402

#: timm's packages as bare namespaces, so one module loads without ``timm/__init__`` (which needs torchvision)
_BARE = ("import os, sys, types\n"
         "home = next(p for p in sys.path if os.path.isdir(os.path.join(p, 'timm')))\n"
         "for name in ('timm', 'timm.utils', 'timm.layers'):\n"
         "    m = types.ModuleType(name); m.__path__ = [os.path.join(home, *name.split('.'))]\n"
         "    sys.modules[name] = m\n"
         "sys.modules['timm.utils.model'] = types.SimpleNamespace(unwrap_model=lambda m: m)\n")
TIMM_PROBES = {
    "init_distributed_device() picks": _BARE + (
        "import argparse\nfrom timm.utils.distributed import init_distributed_device\n"
        "result = str(init_distributed_device(argparse.Namespace()))"),
    "NativeScaler() scales on": _BARE + (
        "sys.modules['timm.utils.clip_grad'] = types.SimpleNamespace(dispatch_clip_grad=None)\n"
        "from timm.utils.cuda import NativeScaler\nresult = str(NativeScaler()._scaler._device)"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timm", type=Path, required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        original, fixed = root / "original", root / "fixed"
        shutil.copytree(args.timm, original)
        shutil.copytree(args.timm, fixed)
        target = resolve_targets(["cann"])
        result = fix_report(fixed, scan(ScanRequest(fixed, target, jobs=2)), target[0])
        write_fixes(fixed, result.changed)
        edits = sum(len(f.changes) for f in result.changed)
        print(f"timm: fix (safe) changed {edits} lines in {len(result.changed)} files")
        stub = write_stub(root / "stub")
        for name, code in TIMM_PROBES.items():
            before = run_on_npu(stub, original, code)
            after = run_on_npu(stub, fixed, code)
            print(f"  {name:34s} original: {before.get('result', before.get('error'))!s:60.60s} "
                  f"fixed: {after.get('result', after.get('error'))}")


if __name__ == "__main__":
    main()
