"""torchmetrics' module paths, served by our own modules: one table, one lazy module finder.

Code written for torchmetrics imports from its module paths (``torchmetrics.classification.accuracy``,
``torchmetrics.functional.regression.mse``, ``torchmetrics.collections``, ...). The table in
:mod:`.modular` and :mod:`.functional` lists every such path with its public names, and
``lightning_metrics.<path>`` resolves for each of them:

- a real module of ours, where one exists at that path (it is found first: this finder sits last
  on ``sys.meta_path``);
- otherwise an alias module made here on import, whose names are fetched on first use from the
  package that implements the path's domain (``classification.accuracy`` from
  ``lightning_metrics.classification``), so our file layout stays free and nothing is imported
  before it is used.

A name or path that torchmetrics has and we do not raises an error that says so and what to do
instead (an ``ImportError`` for ``from ... import``, an ``AttributeError`` for attribute access,
so that ``hasattr`` stays false).

>>> from lightning_metrics.classification.accuracy import MulticlassAccuracy
>>> from lightning_metrics.classification import MulticlassAccuracy as same
>>> MulticlassAccuracy is same
True
>>> from lightning_metrics.detection.helpers import CocoBackend
Traceback (most recent call last):
...
lightning_metrics._compat.NotOfferedError: lightning_metrics does not offer torchmetrics.detection.helpers.CocoBackend: it needs downloaded weights ...
"""

from __future__ import annotations

import dis
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from functools import lru_cache
from typing import Any, Callable, Optional

ROOT = "lightning_metrics"

# Paths whose names live elsewhere than in the domain package that the path starts with.
_SOURCES = {"collections": f"{ROOT}.collection", "metric": f"{ROOT}.metric"}
# The two namespaces that gather names from every domain (``torchmetrics`` and ``.functional``).
_NAMESPACES = ("", "functional")
# torchmetrics metrics (and helpers) that need downloaded network weights or external tools: never offered here.
_NEEDS_WEIGHTS = frozenset(
    # the COCO backends (pycocotools, faster-coco-eval) of detection.helpers: the protocol runs natively
    "CocoBackend".split()
)
# torchmetrics' own building blocks of its networks: ours are lightning_metrics.networks (other classes, other layers)
_NETWORK_PARTS = frozenset("Alexnet Vgg16 SqueezeNet ScalingLayer NetLinLayer DISTSNetwork".split())
_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


class NotOfferedError(ModuleNotFoundError):
    """A torchmetrics name or module that lightning_metrics does not offer (raised on import)."""


class NotOfferedAttributeError(AttributeError):
    """The same, raised on attribute access (``hasattr`` sees ``False``)."""


@lru_cache(maxsize=None)
def table() -> dict[str, tuple[str, ...]]:
    """Every torchmetrics module path (``""`` the top level) -> its public names."""
    from lightning_metrics._compat import functional, modular

    rows = {path: tuple(names.split()) for path, names in modular.PATHS.items()}
    for path, names in functional.PATHS.items():
        rows[f"functional.{path}" if path else "functional"] = tuple(names.split())
    return rows


def source_of(path: str) -> str:
    """Our module that holds the names of a torchmetrics path (not for the two namespaces).

    >>> source_of("classification.accuracy"), source_of("collections")
    ('lightning_metrics.classification', 'lightning_metrics.collection')
    >>> source_of("functional.regression.mse")
    'lightning_metrics.functional.regression'
    """
    if path in _SOURCES:
        return _SOURCES[path]
    parts = path.split(".")
    depth = 2 if parts[0] == "functional" and len(parts) > 1 else 1
    return f"{ROOT}.{'.'.join(parts[:depth])}"


@lru_cache(maxsize=None)
def _homes(namespace: str) -> dict[str, str]:
    """For a namespace (``""`` or ``"functional"``): each of its names -> the path that defines it."""
    functional = namespace == "functional"
    homes: dict[str, str] = {}
    for path, names in table().items():
        if path in _NAMESPACES or path.startswith("functional.") != functional:
            continue
        for name in names:
            homes.setdefault(name, path)
    return homes


def _module_name(path: str) -> str:
    return f"{ROOT}.{path}" if path else ROOT


def resolve(path: str, name: str, frame: Optional[types.FrameType] = None) -> Any:
    """The object that ``lightning_metrics.<path>.<name>`` stands for, or a not-offered error."""
    if path in _NAMESPACES:
        home = _homes(path).get(name)
        if home is None:
            raise NotOfferedAttributeError(f"module {_module_name(path)!r} has no attribute {name!r}")
        path = home
    source = source_of(path)
    try:
        module = importlib.import_module(source)
    except NotOfferedError:
        raise _not_offered(path, name, frame) from None
    value = getattr(module, name, None)
    if value is None or isinstance(value, _AliasModule):  # an alias submodule of the same name is no object
        raise _not_offered(path, name, frame)
    return value


def _in_from_import(frame: Optional[types.FrameType]) -> bool:
    """Whether ``frame`` is executing ``from module import name`` (then an ImportError is due)."""
    if frame is not None and frame.f_code.co_name == "_handle_fromlist":
        return True  # ``from package import name``: importlib asks with hasattr before IMPORT_FROM
    try:
        return frame is not None and frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM
    except (AttributeError, IndexError):
        return False


def _advice(path: str, name: str) -> str:
    where = f"torchmetrics.{path}" if path else "torchmetrics"
    if name in _NETWORK_PARTS:
        return f"lightning_metrics does not offer {where}.{name}, a part of torchmetrics' own network"
    if name in _NEEDS_WEIGHTS:
        return (
            f"lightning_metrics does not offer {where}.{name}: it needs downloaded weights or an external tool, "
            "which lightning_metrics never loads"
        )
    return f"lightning_metrics does not offer {where}.{name} yet"


def _not_offered(path: str, name: str, frame: Optional[types.FrameType]) -> Exception:
    functional = path == "functional" or path.startswith("functional.")
    todo = (
        "call the torchmetrics function directly"
        if functional
        else "keep the torchmetrics object: MetricsCallback accepts it as it is (update/compute/reset)"
    )
    if name in _NETWORK_PARTS:
        todo = "the networks here are built by `lightning_metrics.networks.network(name, ...)` (see its NETWORKS)"
    message = f"{_advice(path, name)}; {todo}."
    error = NotOfferedError(message, name=_module_name(path)) if _in_from_import(frame) else None
    return error or NotOfferedAttributeError(message)


def module_getattr(module_name: str, own: Optional[dict[str, str]] = None) -> Callable[[str], Any]:
    """A ``__getattr__`` for a real package of ours that stands at a torchmetrics path.

    ``own`` maps names of ours served lazily to the module that holds them. Subpackages load on
    first access; in the two namespaces (top level, ``functional``) torchmetrics' names are
    fetched from their domains; a name that torchmetrics has here and we do not raises the
    not-offered error; anything else is an ordinary AttributeError.
    """
    path = module_name[len(ROOT) + 1 :] if module_name != ROOT else ""
    own = own or {}

    def __getattr__(name: str) -> Any:
        frame = sys._getframe(1)
        module = sys.modules[module_name]
        if name == "__all__":  # ``from ... import *``: everything that resolves, loaded now
            return sorted({*own, *_present(module_name, _subpackages(path)), *offered_names(path)})
        if name in own:  # a name of ours, or one of our own subpackages
            target = importlib.import_module(own[name])
            value = target if target.__name__ == f"{module_name}.{name}" else getattr(target, name)
        elif path not in _NAMESPACES and (name in table().get(path, ()) or name in _NEEDS_WEIGHTS):
            # a torchmetrics name of this path that we lack (or a model-based one torchmetrics exports
            # only with its optional packages); before the subpackages, since torchmetrics names some
            # modules as their function (``functional.image.arniqa``)
            raise _not_offered(path, name, frame)
        elif name in _subpackages(path):
            try:
                value = importlib.import_module(f"{module_name}.{name}")
            except NotOfferedError as err:
                raise NotOfferedAttributeError(str(err)) from None
        elif name in table().get(path, ()):
            value = resolve(path, name, frame)
        else:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    return __getattr__


def _present(module_name: str, names: frozenset) -> list[str]:
    out = []
    for name in names:
        try:
            if importlib.util.find_spec(f"{module_name}.{name}") is not None:
                out.append(name)
        except NotOfferedError:
            pass
    return out


@lru_cache(maxsize=None)
def _subpackages(path: str) -> frozenset:
    """The torchmetrics subpackages directly under ``path`` (``classification``, ``text``, ...)."""
    prefix = f"{path}." if path else ""
    return frozenset(
        other[len(prefix) :].split(".")[0] for other in table() if other.startswith(prefix) and other != path
    )


def offered_names(path: str) -> list[str]:
    """The names of a torchmetrics path that resolve here (imports their domains to find out)."""
    out = []
    for name in table().get(path, ()):
        try:
            resolve(path, name)
        except (NotOfferedError, NotOfferedAttributeError):
            continue
        out.append(name)
    return out


class _AliasModule(types.ModuleType):
    """``lightning_metrics.<path>`` for a torchmetrics path with no module of ours at that place."""

    def __getattr__(self, name: str) -> Any:
        path = self.__dict__["_torchmetrics_path"]
        if name == "__all__":
            return offered_names(path)
        if name in table()[path]:
            value = resolve(path, name, sys._getframe(1))
            setattr(self, name, value)
            return value
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(offered_names(self.__dict__["_torchmetrics_path"])))


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, path: str) -> None:
        self.path = path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _AliasModule(spec.name, f"torchmetrics.{self.path}'s names, served by lightning_metrics.")
        module._torchmetrics_path = self.path  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        prefix = self.path + "."
        if any(other.startswith(prefix) for other in table()):  # torchmetrics has submodules here
            module.__path__ = []  # type: ignore[attr-defined]
        parent = sys.modules.get(module.__name__.rpartition(".")[0])
        if parent is not None and type(parent) is types.ModuleType:
            parent.__class__ = _Package  # the import system is about to bind this alias on the parent


class _Package(types.ModuleType):
    """A package of ours with alias children: binding an alias never hides a name the package has.

    ``torchmetrics.functional.classification.accuracy`` is both a module and a function of its
    package; importing our alias module must leave ``...classification.accuracy`` the function.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, _AliasModule):
            path = self.__name__[len(ROOT) + 1 :] if self.__name__ != ROOT else ""
            # nor a torchmetrics name of this path that we lack (``functional.image.arniqa``)
            if name in self.__dict__ or name in table().get(path, ()):
                return
        super().__setattr__(name, value)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: serves torchmetrics paths that have no module of ours."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        if not fullname.startswith(ROOT + "."):
            return None
        tm_path = fullname[len(ROOT) + 1 :]
        if tm_path not in table():
            return None
        if source_of(tm_path) == fullname or tm_path in _NAMESPACES:
            # the domain package itself is missing: the whole domain is not offered (yet)
            raise NotOfferedError(
                f"lightning_metrics does not offer torchmetrics.{tm_path} yet: keep the torchmetrics objects of "
                "this domain; MetricsCallback accepts them as they are (update/compute/reset).",
                name=fullname,
            )
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(tm_path))


def install() -> None:
    """Put the alias finder last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
