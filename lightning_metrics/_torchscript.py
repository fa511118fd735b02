"""What ``torch.jit.script(metric)`` needs from a metric class, applied to every subclass by
``Metric.__init_subclass__``: its properties listed as unused (they run Python-only code) and its
class annotations usable as TorchScript types. ``forward`` is marked unused there too, so that a
scripted metric is, as in torchmetrics, a container of its states.

>>> import torch
>>> from lightning_metrics.aggregation import MeanMetric
>>> scripted = torch.jit.script(MeanMetric())
>>> float(scripted.weight)
0.0
"""

from __future__ import annotations

import sys
from typing import Any


def property_names(cls: type) -> list[str]:
    """Every property a class has or inherits: TorchScript must not compile them.

    >>> class A:
    ...     @property
    ...     def size(self): return 1
    >>> property_names(A)
    ['size']
    """
    return sorted({name for klass in cls.__mro__ for name, v in vars(klass).items() if isinstance(v, property)})


def resolve_annotations(cls: type) -> None:
    """Evaluate a class's string annotations (``from __future__ import annotations``) in its module.

    TorchScript types the attributes of a scripted module from the class annotations and cannot
    read names such as ``'Tensor'``; an annotation it still cannot use (one that does not evaluate,
    or a type it has no counterpart for, such as ``Callable``) is left out: it is only a hint, and
    without it TorchScript infers the attribute's type from its value.

    >>> class B:  # this module's annotations are strings (``from __future__ import annotations``)
    ...     count: int
    ...     unknown: NotDefined  # noqa: F821
    >>> resolve_annotations(B)
    >>> B.__annotations__
    {'count': <class 'int'>}
    """
    own = cls.__dict__.get("__annotations__")
    if not own:
        return
    namespace = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    for name, annotation in list(own.items()):
        try:
            if isinstance(annotation, str):
                annotation = own[name] = eval(annotation, dict(namespace), dict(vars(cls)))  # noqa: S307
            if not _scriptable(annotation):
                del own[name]
        except Exception:
            del own[name]


def _scriptable(annotation: Any) -> bool:
    """Whether TorchScript has a type for ``annotation`` (True when that cannot be asked).

    ``Any`` says nothing TorchScript can use, and torch 2.4 on Python 3.10 mistakes it for
    ``Final`` (a constant, which a set or a dict cannot be): it is never kept.
    """
    if annotation is Any:
        return False
    try:
        from torch._sources import fake_range
        from torch.jit.annotations import try_ann_to_type
    except ImportError:  # another torch layout: keep the hint
        return True
    return try_ann_to_type(annotation, fake_range()) is not None
