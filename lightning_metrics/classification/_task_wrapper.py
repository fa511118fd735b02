"""The ``task=`` classes of torchmetrics (``Accuracy(task="multiclass", num_classes=3)``).

A task wrapper is never instantiated: its ``__new__`` builds the class of the task. A wrapper
names those classes (``_tasks``) and keeps torchmetrics' signature; its body is
``return cls._for_task(locals())``, which passes every argument to the task's class whose
signature takes it (``average`` to the multiclass class but not the binary one, ``max_fpr`` to
the binary AUROC only, ...) and the rest of ``**kwargs`` as they are.
"""

from __future__ import annotations

from typing import Any, ClassVar

from lightning_metrics import _plot_methods
from lightning_metrics.functional.classification._core import call_for_task
from lightning_metrics.metric import Metric


class TaskWrapper(Metric):
    """Base of the task wrappers: ``_tasks`` maps each task to its class.

    >>> from lightning_metrics.classification import Accuracy
    >>> Accuracy(task="binary", num_classes=3)  # arguments the binary class does not take are not passed
    BinaryAccuracy()
    """

    _tasks: ClassVar[dict[str, type]] = {}
    plot = _plot_methods.plot_any

    @classmethod
    def _for_task(cls, arguments: dict[str, Any]) -> Metric:
        arguments = {k: v for k, v in arguments.items() if k not in ("cls", "__class__")}
        kwargs = arguments.pop("kwargs", {})
        return call_for_task(arguments, cls._tasks, **kwargs)

    def update(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - never instantiated
        raise NotImplementedError(f"{type(self).__name__} has no `update`; use the task-specific metric")

    def compute(self) -> Any:  # pragma: no cover - never instantiated
        raise NotImplementedError(f"{type(self).__name__} has no `compute`; use the task-specific metric")
