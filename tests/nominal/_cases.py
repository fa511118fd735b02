"""Generated categorical series for the nominal tests (deterministic, seeded by the case id).

Categories of every case cover ``0..K-1`` (the values torchmetrics' functions index their table by),
so torchmetrics is a valid oracle on all of them. Cases: independent and associated series, a
2x2 table (Yates' correction), a constant series (no bias correction possible), 2-D scores with tied
maxima, float categories with NaN (for both NaN strategies) and categories absent from one series.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor
import itertools

from tests._seeds import keyed_generator as gen  # the seed of a case id

# class name -> (function name, whether it takes bias_correction)
ASSOCIATIONS = {
    "CramersV": ("cramers_v", True),
    "TschuprowsT": ("tschuprows_t", True),
    "PearsonsContingencyCoefficient": ("pearsons_contingency_coefficient", False),
    "TheilsU": ("theils_u", False),
}
NAN_OPTIONS = [
    {"nan_strategy": "replace", "nan_replace_value": 0.0},
    {"nan_strategy": "replace", "nan_replace_value": 2},
    {"nan_strategy": "drop", "nan_replace_value": None},
]


@dataclass(frozen=True)
class NominalCase:
    id: str
    preds: Tensor
    target: Tensor
    num_classes: int
    has_nan: bool = False

    def batches(self) -> list[tuple[Tensor, Tensor]]:
        n = self.preds.shape[0]
        cuts = sorted({0, min(1, n), n // 2, n})
        return [(self.preds[a:b], self.target[a:b]) for a, b in itertools.pairwise(cuts)] + [
            (self.preds[:0], self.target[:0])
        ]


def _series(key: str, n: int, k: int, agree: float) -> NominalCase:
    g = gen(key)
    target = torch.cat([torch.arange(k), torch.randint(0, k, (n - k,), generator=g)])
    preds = torch.where(torch.rand(n, generator=g) < agree, target, torch.randint(0, k, (n,), generator=g))
    return NominalCase(key, preds, target, k)


def nominal_cases() -> list[NominalCase]:
    cases = [
        _series("independent-60-4", 60, 4, 0.0),
        _series("associated-150-5", 150, 5, 0.6),
        _series("strong-80-3", 80, 3, 0.9),
        _series("two-by-two-40", 40, 2, 0.5),
        _series("small-7-3", 7, 3, 0.3),
    ]
    g = gen("fixed")
    target = torch.randint(0, 4, (50,), generator=g)
    cases.append(NominalCase("constant-preds", torch.full((50,), 3), target, 4))
    scores = torch.randint(0, 3, (45, 4), generator=g).float()  # small integers: many tied maxima
    cases.append(NominalCase("tied-scores", scores, torch.randint(0, 4, (45,), generator=g), 4))
    values = torch.randint(0, 4, (60,), generator=g).float()
    other = (values + torch.randint(0, 2, (60,), generator=g)).clamp(max=3)
    values[::7] = float("nan")
    other[3::11] = float("nan")
    cases.append(NominalCase("floats-with-nan", values, other, 4, has_nan=True))
    cases.append(
        NominalCase(
            "absent-categories", torch.tensor([0, 0, 4, 4, 0, 4] * 5), torch.tensor([1, 1, 3, 3, 2, 2] * 5), 5
        )
    )
    return cases
