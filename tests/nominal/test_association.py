"""Cramer's V, Tschuprow's T, Pearson's contingency coefficient and Theil's U against torchmetrics 1.9
and scipy, functions (matrix forms included) and classes, every option, over generated cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torchmetrics.functional.nominal as tmf
import torchmetrics.nominal as tmn
from scipy.stats import chi2_contingency, entropy
from scipy.stats.contingency import association

import lightning_metrics.functional.nominal as lmf
import lightning_metrics.nominal as lmn
from tests.nominal._cases import ASSOCIATIONS, NAN_OPTIONS, NominalCase, nominal_cases

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CASES = nominal_cases()


def _options(case: NominalCase, biased: bool) -> list[dict]:
    nan = NAN_OPTIONS if case.has_nan else NAN_OPTIONS[:1]
    return [
        {**n, **({"bias_correction": b} if biased else {})}
        for n in nan
        for b in ((True, False) if biased else (None,))
    ]


def _close(ours: torch.Tensor, oracle: torch.Tensor, what: str) -> None:
    assert ours.dtype == oracle.dtype and ours.shape == oracle.shape, f"{what}: {ours!r} vs {oracle!r}"
    torch.testing.assert_close(ours, oracle, rtol=1e-5, atol=1e-6, equal_nan=True, msg=what)


def _torchmetrics_value(cls: str, fn: str, case: NominalCase, opts: dict) -> torch.Tensor:
    try:
        return getattr(tmf, fn)(case.preds, case.target, **opts)
    except RuntimeError as err:
        # torchmetrics' functions fail on two inputs its classes take: Yates' correction added in place
        # to their int64 table (2x2 tables with bias_correction), and 2-D scores (concatenated with the
        # 1-D target to count categories); its classes compute both
        assert "can't be cast" in str(err) or "same number of dimensions" in str(err), err
        metric = getattr(tmn, cls)(num_classes=case.num_classes, **opts)
        metric.update(case.preds, case.target)
        return metric.compute()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_functions_match_torchmetrics(case: NominalCase) -> None:
    for cls, (fn, biased) in ASSOCIATIONS.items():
        for opts in _options(case, biased):
            ours = getattr(lmf, fn)(case.preds, case.target, **opts)
            _close(ours, _torchmetrics_value(cls, fn, case, opts), f"{fn}({opts}) on {case.id}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_classes_match_torchmetrics_over_batches(case: NominalCase) -> None:
    for cls, (_, biased) in ASSOCIATIONS.items():
        for opts in _options(case, biased):
            ours, oracle = (
                getattr(lmn, cls)(num_classes=case.num_classes, **opts),
                getattr(tmn, cls)(num_classes=case.num_classes, **opts),
            )
            for preds, target in case.batches():
                ours.update(preds, target)
                oracle.update(preds, target)
            _close(ours.compute(), oracle.compute(), f"{cls}({opts}) on {case.id}")


def test_theils_u_of_a_constant_series_is_an_int64_zero_like_torchmetrics() -> None:
    case = next(c for c in CASES if c.id == "constant-preds")
    ours, theirs = lmf.theils_u(case.preds, case.target), tmf.theils_u(case.preds, case.target)
    assert ours.dtype == theirs.dtype == torch.int64 and ours.item() == theirs.item() == 0
    assert lmf.theils_u(case.target, case.preds).dtype == torch.float32  # target constant: U is defined


def test_bias_correction_failure_warns_and_gives_nan() -> None:
    case = next(c for c in CASES if c.id == "constant-preds")
    for fn, name in (("cramers_v", "Cramer's V"), ("tschuprows_t", "Tschuprow's T")):
        with pytest.warns(UserWarning, match=f"Unable to compute {name} using bias correction"):
            assert torch.isnan(getattr(lmf, fn)(case.preds, case.target))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert torch.isnan(getattr(lmf, fn)(case.preds, case.target, bias_correction=False))


# ------------------------------------------------------------------ scipy
def _table(case: NominalCase, opts: dict) -> np.ndarray:
    preds = case.preds.argmax(1) if case.preds.ndim == 2 else case.preds
    p, t = preds.double().numpy(), case.target.double().numpy()
    if opts["nan_strategy"] == "replace":
        p, t = (
            np.nan_to_num(p, nan=opts["nan_replace_value"]),
            np.nan_to_num(t, nan=opts["nan_replace_value"]),
        )
    else:
        keep = ~(np.isnan(p) | np.isnan(t))
        p, t = p[keep], t[keep]
    _, rows = np.unique(t.astype(np.int64), return_inverse=True)
    _, cols = np.unique(p.astype(np.int64), return_inverse=True)
    table = np.zeros((rows.max() + 1, cols.max() + 1), dtype=np.int64)
    np.add.at(table, (rows, cols), 1)
    return table


def _bergsma(table: np.ndarray, tschuprow: bool) -> float:
    """Bias-corrected Cramer's V / Tschuprow's T (Bergsma 2013) from scipy's Yates-corrected chi2."""
    n, (r, k) = table.sum(), table.shape
    phi2 = chi2_contingency(table, correction=True)[0] / n
    phi2 = max(0.0, phi2 - (r - 1) * (k - 1) / (n - 1))
    r, k = r - (r - 1) ** 2 / (n - 1), k - (k - 1) ** 2 / (n - 1)
    return np.sqrt(phi2 / (np.sqrt((r - 1) * (k - 1)) if tschuprow else min(r - 1, k - 1)))


def _scipy(fn: str, table: np.ndarray, bias_correction) -> float:
    if fn == "theils_u":
        mi = sum(
            c / table.sum() * np.log(c * table.sum() / (table.sum(1)[i] * table.sum(0)[j]))
            for (i, j), c in np.ndenumerate(table)
            if c
        )
        return mi / entropy(table.sum(0))
    if bias_correction:
        return _bergsma(table, fn == "tschuprows_t")
    method = {
        "cramers_v": "cramer",
        "tschuprows_t": "tschuprow",
        "pearsons_contingency_coefficient": "pearson",
    }[fn]
    return association(table, method=method, correction=False)


@pytest.mark.parametrize("case", [c for c in CASES if c.id != "constant-preds"], ids=lambda c: c.id)
def test_functions_match_scipy(case: NominalCase) -> None:
    for fn, biased in ASSOCIATIONS.values():
        for opts in _options(case, biased):
            ours = getattr(lmf, fn)(case.preds, case.target, **opts).item()
            expected = _scipy(fn, _table(case, opts), opts.get("bias_correction"))
            assert ours == pytest.approx(min(expected, 1.0), rel=2e-6, abs=1e-7), f"{fn}({opts}) on {case.id}"


# ------------------------------------------------------------------ matrix forms
def _matrix(key: str, nan: bool) -> torch.Tensor:
    g = torch.Generator().manual_seed(len(key))
    base = torch.randint(0, 4, (80,), generator=g)
    columns = [
        base,
        (base + torch.randint(0, 2, (80,), generator=g)) % 4,
        torch.randint(0, 3, (80,), generator=g),
        base % 3,
    ]
    matrix = torch.stack(columns, 1).float()
    if nan:
        matrix[::9, 1] = float("nan")
        matrix[4::13, 2] = float("nan")
    return matrix


MATRIX_FUNCTIONS = {
    "cramers_v_matrix": ("cramers_v", True),
    "tschuprows_t_matrix": ("tschuprows_t", True),
    "pearsons_contingency_coefficient_matrix": ("pearsons_contingency_coefficient", False),
    "theils_u_matrix": ("theils_u", False),
}


@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("name", sorted(MATRIX_FUNCTIONS))
def test_matrix_forms_match_torchmetrics_and_the_pairwise_function(name: str, nan: bool) -> None:
    fn, biased = MATRIX_FUNCTIONS[name]
    matrix = _matrix(name, nan)
    for opts in NAN_OPTIONS if nan else NAN_OPTIONS[:1]:
        for extra in ({"bias_correction": True}, {"bias_correction": False}) if biased else ({},):
            ours = getattr(lmf, name)(matrix, **opts, **extra)
            _close(ours, getattr(tmf, name)(matrix, **opts, **extra), f"{name}({opts}, {extra})")
            for i in range(4):
                for j in range(4):
                    if i != j:
                        pair = getattr(lmf, fn)(matrix[:, i], matrix[:, j], **opts, **extra).float()
                        torch.testing.assert_close(ours[i, j], pair, msg=f"{name}[{i}, {j}]")
