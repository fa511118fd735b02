"""The task tables of the functional ``task=`` wrappers (``accuracy(preds, target, task="multiclass")``).

A wrapper ``<name>`` calls ``binary_<name>``, ``multiclass_<name>`` or ``multilabel_<name>``, those
its module holds (torchmetrics' names), as the modular task wrappers find ``Binary<Name>``, ...;
the table is found once, at the first call. Its body is
``return call_for_task(locals(), task_functions(__name__, "<name>"))``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

from lightning_metrics.functional.classification._scores import TASKS


@cache
def task_functions(module: str, name: str) -> dict[str, Callable]:
    """``{task: <task>_<name>}`` for the tasks whose function ``module`` holds (binary, multiclass, multilabel).

    >>> task_functions("lightning_metrics.functional.classification.counting", "cohen_kappa")
    {'binary': <function binary_cohen_kappa ...>, 'multiclass': <function multiclass_cohen_kappa ...>}
    """
    names = sys.modules[module].__dict__
    table = {task: names[f"{task}_{name}"] for task in TASKS if f"{task}_{name}" in names}
    if not table:
        raise TypeError(f"{name}: no task functions named {[f'{task}_{name}' for task in TASKS]} in {module}")
    return table
