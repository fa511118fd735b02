"""The ``task=`` classes of torchmetrics (``Accuracy(task="multiclass", num_classes=3)``).

A task wrapper is never instantiated: its ``__new__`` builds the class of the task. Its task classes
follow torchmetrics' naming (``Accuracy`` -> ``BinaryAccuracy``, ``MulticlassAccuracy``,
``MultilabelAccuracy``, those its module holds), found once when the class is made; a wrapper whose
classes are named otherwise lists them in ``_tasks``. Its ``__new__`` keeps torchmetrics' signature,
written once per family when several wrappers share it (``__new__ = _stat_scores_task``), with the
body ``return cls._for_task(locals())``, which passes every argument to the task's class whose
signature takes it (``average`` to the multiclass class but not the binary one, ``max_fpr`` to
the binary AUROC only, ...) and the rest of ``**kwargs`` as they are.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from lightning_metrics.plotting import _methods as _plot_methods
from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.metric import Metric


_TASK_PREFIXES = {"binary": "Binary", "multiclass": "Multiclass", "multilabel": "Multilabel"}


class TaskWrapper(Metric):
    """Base of the task wrappers: ``_tasks`` maps each task to its class (by torchmetrics' names).

    >>> from lightning_metrics.classification import Accuracy
    >>> Accuracy(task="binary", num_classes=3)  # arguments the binary class does not take are not passed
    BinaryAccuracy()
    """

    _tasks: ClassVar[dict[str, type]] = {}
    plot = _plot_methods.plot_any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_tasks" not in cls.__dict__:  # torchmetrics' names, from the wrapper's module
            names = sys.modules[cls.__module__].__dict__
            cls._tasks = {
                task: names[f"{prefix}{cls.__name__}"]
                for task, prefix in _TASK_PREFIXES.items()
                if f"{prefix}{cls.__name__}" in names
            }
            if not cls._tasks:
                raise TypeError(f"{cls.__name__}: no task classes named {list(_TASK_PREFIXES.values())}{cls.__name__}")

    @classmethod
    def _for_task(cls, arguments: dict[str, Any]) -> Metric:
        arguments = {k: v for k, v in arguments.items() if k not in ("cls", "__class__")}
        kwargs = arguments.pop("kwargs", {})
        return call_for_task(arguments, cls._tasks, **kwargs)

    def update(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - never instantiated
        raise NotImplementedError(f"{type(self).__name__} has no `update`; use the task-specific metric")

    def compute(self) -> Any:  # pragma: no cover - never instantiated
        raise NotImplementedError(f"{type(self).__name__} has no `compute`; use the task-specific metric")
