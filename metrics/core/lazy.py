"""Package names imported on first use (PEP 562), so that importing one module of a package
does not import all of them.

Why: ``django.setup()`` reaches ``metrics.core.stats.rater_quality`` through the admin, and the
package's ``__init__`` used to import every sibling, among them scipy.stats (about 60 % of the
set-up's time and 100 MB of every web, job and test process). ``from metrics.core.stats import
compare_runs`` still works: the name is looked up here and kept in the package once found.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package``, whose public names are
    ``exports``: relative module name -> the names it gives."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # looked up once
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    # A name that is also its module's name would lose to the module: importing the module
    # sets the package's attribute to it, and __getattr__ only sees missing names.
    clashes = [name for name, module in where.items() if module == f".{name}"]
    if clashes:
        raise ImportError(f"{package}: names that are also module names: {clashes}")
    return sorted(where), __getattr__, __dir__
