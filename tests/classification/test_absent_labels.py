"""``MultilabelStatScores(average="weighted", multidim_average="samplewise")`` with labels absent
from the target: torchmetrics weighs each label's counts by its support over the total support of
every sample, so samples without positives give zeros (not NaN). Side by side with torchmetrics.
"""

from __future__ import annotations

import pytest
import torch
import torchmetrics

import lightning_metrics as lm


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average", ["weighted", "macro", "micro", None])
def test_multilabel_samplewise_stat_scores_with_absent_labels(seed: int, average) -> None:
    gen = torch.Generator().manual_seed(seed)
    preds = torch.rand(5, 3, 6, generator=gen)
    target = torch.randint(0, 2, (5, 3, 6), generator=gen)
    target[:, 1] = 0  # a label that never occurs
    target[0] = 0  # a sample without any positive
    args = dict(num_labels=3, average=average, multidim_average="samplewise")
    expected = torchmetrics.classification.MultilabelStatScores(**args)(preds, target)
    got = lm.classification.MultilabelStatScores(**args)(preds, target)
    torch.testing.assert_close(got, expected, equal_nan=True, check_dtype=True)
    expected_fn = torchmetrics.functional.classification.multilabel_stat_scores(preds, target, **args)
    got_fn = lm.functional.classification.multilabel_stat_scores(preds, target, **args)
    torch.testing.assert_close(got_fn, expected_fn, equal_nan=True)
