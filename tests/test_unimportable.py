"""Modules no run can import (``project/unimportable.py``): their device code is in no run of the project."""
import pytest

from migrator.model import Context

#: a module whose device code the tests look for
MOVES = "import torch\n{imports}\n\n\ndef place(x):\n    return x.cuda()\n"
#: the project's own helpers: a module, a package and one that binds its names dynamically
HELPERS = {
    "pkg/__init__.py": "",
    "pkg/save.py": "import logging\n\nlogger = logging.getLogger(__name__)\n\n\ndef save(x):\n    return x\n",
    "pkg/star.py": "from pkg.save import *\n",
    "pkg/lazy.py": "def __getattr__(name):\n    return name\n",
    # deepxde's backend loader sets each backend function on the module it takes from sys.modules
    "pkg/backend.py": "import sys\n\n\ndef load(api):\n    thismod = sys.modules[__name__]\n"
                      "    setattr(thismod, api, len)\n\n\nload('Variable')\n",
    "pkg/registry.py": "def register(name, value):\n    globals()[name] = value\n",
    "pkg/models/__init__.py": "from .net import Net\n",
    "pkg/models/net.py": "class Net:\n    pass\n",
}


@pytest.mark.parametrize("files, path, dead", [
    # deepchem's contrib/torch/torch_model.py: save.py has long defined no ``log``
    pytest.param({"pkg/old.py": MOVES.format(imports="from pkg.save import log")}, "pkg/old.py", True,
                 id="a-name-the-module-does-not-define"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.save import save")}, "pkg/new.py", False,
                 id="a-name-it-defines"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.save import logger")}, "pkg/new.py", False,
                 id="a-name-it-assigns"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.star import save")}, "pkg/new.py", False,
                 id="a-name-a-star-import-brings"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.lazy import anything")}, "pkg/new.py", False,
                 id="a-module-that-makes-names-at-run-time"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.backend import Variable")}, "pkg/new.py", False,
                 id="a-module-that-sets-names-on-itself"),
    pytest.param({"pkg/new.py": MOVES.format(imports="from pkg.registry import Model")}, "pkg/new.py", False,
                 id="a-module-that-writes-its-globals"),
    pytest.param({"pkg/new.py": MOVES.format(imports="try:\n    from pkg.save import log\nexcept ImportError:\n"
                                                     "    log = print")}, "pkg/new.py", False,
                 id="a-guarded-import-has-its-way-on"),
    # deepchem's ``from deepchem.models import TensorGraph``, long removed
    pytest.param({"pkg/old.py": MOVES.format(imports="from pkg.models import TensorGraph")}, "pkg/old.py", True,
                 id="a-class-a-package-does-not-have"),
    # kaolin's ``from kaolin import _C``: a compiled submodule the scan has no Python file of
    pytest.param({"pkg/ops.py": MOVES.format(imports="from pkg.models import _C")}, "pkg/ops.py", False,
                 id="a-packages-compiled-submodule"),
    # torch_multitask_regression.py: ``from torch_model import TorchMultitaskModel`` beside the broken module
    pytest.param({"contrib/torch_model.py": "from pkg.save import log\n\n\nclass Model:\n    pass\n",
                  "contrib/regression.py": MOVES.format(imports="from torch_model import Model")},
                 "contrib/regression.py", True, id="what-imports-a-broken-module-beside-it"),
    # deepchem's ``deepchem/utils/typing.py``: a package module's ``from typing import ...`` is the standard library's
    pytest.param({"pkg/typing.py": "Shape = tuple\n",
                  "pkg/batch.py": MOVES.format(imports="from typing import Collection")}, "pkg/batch.py", False,
                 id="the-standard-librarys-name-beside-a-namesake"),
])
def test_a_module_no_run_can_import_holds_no_training_work(scan_tree, files, path, dead):
    report = scan_tree({**HELPERS, **files}, ["cann"])
    (found,) = [f for f in report.judged if f.path == path and f.api.endswith(".cuda")]
    assert (found.context == Context.TOOLING) == dead, found.context
