"""Wrapper behaviours that torchmetrics users rely on (issue 36, point 11), torchmetrics as oracle."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import torchmetrics  # noqa: E402

import lightning_metrics as lm  # noqa: E402


def _multitask(L):
    return L.wrappers.MultitaskWrapper({"cls": L.classification.BinaryAccuracy(), "reg": L.regression.MeanSquaredError()})


def _steps(L, n: int = 4) -> list[dict]:
    g = torch.Generator().manual_seed(0)
    metric, values = _multitask(L), []
    for _ in range(n):
        preds = {"cls": torch.randint(2, (16,), generator=g), "reg": torch.rand(16, generator=g)}
        target = {"cls": torch.randint(2, (16,), generator=g), "reg": torch.rand(16, generator=g)}
        metric.update(preds, target)
        values.append(metric.compute())
    return values


@pytest.mark.parametrize("several", [False, True], ids=["one result", "a list of results"])
def test_multitask_plot_takes_one_result_or_a_list_as_torchmetrics(several: bool) -> None:
    shapes = []
    for L in (torchmetrics, lm):
        values = _steps(L)
        out = _multitask(L).plot(values if several else values[-1])
        shapes.append((type(out).__name__, len(out), [len(pair) for pair in out]))
        for fig, ax in out:
            # one point per step: the drawn line holds as many points as results were given
            if several:
                assert max(len(line.get_xdata()) for line in ax.get_lines()) == len(values)
            plt.close(fig)
    assert shapes[1] == shapes[0]


@pytest.mark.parametrize("val, match", [(3, "got int"), ([{"cls": torch.tensor(1.0)}, 5], "at index 1"),
                                        ([{"cls": torch.tensor(1.0)}], "no result for task 'reg'")])
def test_multitask_plot_names_what_is_wrong(val, match: str) -> None:
    with pytest.raises((TypeError, ValueError), match=match):
        _multitask(lm).plot(val)


@pytest.mark.parametrize("bad", [[], 3, "acc", torch.nn.Linear(2, 2)], ids=repr)
def test_input_transformer_given_no_metric_raises_the_type_error_torchmetrics_raises(bad) -> None:
    with pytest.raises(TypeError):
        torchmetrics.wrappers.MetricInputTransformer(bad)
    with pytest.raises(TypeError, match="wrapped_metric"):
        lm.wrappers.MetricInputTransformer(bad)
    with pytest.raises(ValueError, match="wrapped_metric"):  # and the ValueError it raised before
        lm.wrappers.MetricInputTransformer(bad)


def test_minmax_raw_after_forward_is_the_wrapped_metric_over_everything_given() -> None:
    """torchmetrics' forward leaves the wrapped metric holding the last batch only, so its ``raw``
    after ``compute`` is that batch's value; ours is the value over every batch given (a documented
    difference), and the forward outputs are the same."""
    batches = [(torch.tensor([1, 0, 1, 1]), torch.tensor([1, 1, 1, 1])), (torch.tensor([1, 1]), torch.tensor([1, 1]))]
    ours, theirs = (L.wrappers.MinMaxMetric(L.classification.BinaryAccuracy()) for L in (lm, torchmetrics))
    for batch in batches:
        a, b = ours(*batch), theirs(*batch)
        assert {k: float(v) for k, v in a.items()} == {k: float(v) for k, v in b.items()}
    alone = lm.classification.BinaryAccuracy()
    for batch in batches:
        alone.update(*batch)
    assert float(ours.compute()["raw"]) == pytest.approx(float(alone.compute()))  # 5 of 6
    assert float(theirs.compute()["raw"]) == 1.0  # the last batch's value
