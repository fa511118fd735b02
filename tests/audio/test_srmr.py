"""SRMR against torchmetrics 1.9's values, recorded by ``fixtures/make_srmr_fixtures.py`` in an oracle
environment (torchmetrics needs ``gammatone`` and ``torchaudio``, which have no build for the test
environment's torch): reverberant speech-like batches at 8, 11.025 and 16 kHz, the slow and fast
filterbanks, ``norm``, non-default filterbanks; the modular state, shapes and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import lightning_metrics.audio as lma
import lightning_metrics.functional.audio as lmf
from tests._bad_input import assert_rejected_untouched
from tests.audio._speech import reverberant, speech

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "srmr_torchmetrics.json").read_text())
CASES = FIXTURE["cases"]


def _inputs(case: dict) -> torch.Tensor:
    gen = torch.Generator().manual_seed(case["seed"])
    clean = speech(gen, len(case["t60"]), case["seconds"], case["fs"])
    x = reverberant(gen, clean, case["fs"], torch.tensor(case["t60"], dtype=torch.float64))
    sums = torch.tensor([[float(row.abs().sum()), float(row[len(row) // 3])] for row in x], dtype=torch.float64)
    # the same signals as the oracle's (torch's generator and kernels across versions)
    torch.testing.assert_close(sums, torch.tensor(case["checksum"], dtype=torch.float64), rtol=1e-9, atol=1e-12)
    return x


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['fs']}-{c['kwargs']}")
def test_equals_torchmetrics_recorded_values(case):
    x = _inputs(case)
    ours = lmf.speech_reverberation_modulation_energy_ratio(x, case["fs"], **case["kwargs"])
    assert ours.dtype == torch.float64 and ours.shape == (len(case["t60"]),)
    torch.testing.assert_close(ours, torch.tensor(case["values"], dtype=torch.float64), rtol=1e-9, atol=0)
    if case["seed"] == 0:  # float32 signals are filtered in float64 too: they move by their rounding only
        single = lmf.speech_reverberation_modulation_energy_ratio(x.float(), case["fs"], **case["kwargs"])
        torch.testing.assert_close(single, ours, rtol=1e-6, atol=0)


def test_equals_torchmetrics_where_it_runs():
    """Where ``gammatone`` and ``torchaudio`` import (not in the test environment), live values."""
    pytest.importorskip("gammatone")
    pytest.importorskip("torchaudio")
    tm = pytest.importorskip("torchmetrics.functional.audio.srmr")
    x = _inputs(CASES[2])[:2]
    theirs = tm.speech_reverberation_modulation_energy_ratio(x, 8000, norm=True)
    ours = lmf.speech_reverberation_modulation_energy_ratio(x, 8000, norm=True)
    torch.testing.assert_close(ours, theirs, rtol=1e-8, atol=0)


def test_shapes_and_modular_mean():
    case = CASES[6]  # 11.025 kHz, max_cf=50
    x = _inputs(case).float()
    metric = lma.SpeechReverberationModulationEnergyRatio(11025, max_cf=50.0)
    metric.update(x[:1])
    metric.update(x[1:])
    assert int(metric.count) == 2 and metric.value_sum.dtype == torch.float64
    value = metric.compute()
    assert value.dtype == torch.float32
    torch.testing.assert_close(value, torch.tensor(case["values"], dtype=torch.float64).mean().float())
    short = x[:, :4000]
    single = lmf.speech_reverberation_modulation_energy_ratio(short[0], 11025)
    assert single.shape == (1,)  # as torchmetrics: one signal gives one value in a vector
    nested = lmf.speech_reverberation_modulation_energy_ratio(short.reshape(2, 1, -1), 11025)
    assert nested.shape == (2, 1) and torch.equal(nested[0], single)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"fs": 0}, "`fs`.*0"), ({"fs": 8000, "n_cochlear_filters": 2.5}, "`n_cochlear_filters`.*2.5"),
    ({"fs": 8000, "low_freq": -1}, "`low_freq`.*-1"), ({"fs": 8000, "min_cf": 0}, "`min_cf`.*0"),
    ({"fs": 8000, "max_cf": "30"}, "`max_cf`.*'30'"), ({"fs": 8000, "norm": 1}, "`norm`.*1"),
    ({"fs": 8000, "fast": None}, "`fast`.*None"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        lma.SpeechReverberationModulationEnergyRatio(**kwargs)
    with pytest.raises(ValueError, match=message):
        lmf.speech_reverberation_modulation_energy_ratio(torch.rand(4000), **kwargs)


def test_bad_batch_leaves_the_state_untouched():
    x = _inputs(CASES[6]).float()[:, :4000]  # 11.025 kHz, 0.36 s
    good = [(x[:1],), (x[1:],)]
    poisoned = x.clone()
    poisoned[1, 7] = float("nan")
    build = lambda: lma.SpeechReverberationModulationEnergyRatio(11025, max_cf=50.0)
    assert_rejected_untouched(build, good, (poisoned,), match=r"`preds` must be finite.*nan.*\(1, 7\)")
    assert_rejected_untouched(build, good, ([0.1, 0.2],), errors=TypeError, match="`preds` must be a tensor")


def test_a_bandwidth_below_the_fifth_modulation_band():
    """torchmetrics raises (``min_cf=300``: its fifth band starts near 740 Hz); so do the function and
    the class, whose ``validate_args=False`` gives NaN instead of reading the values back."""
    x = _inputs(CASES[6]).float()[:, :4000]
    kwargs = {"min_cf": 300, "max_cf": 2400}
    with pytest.raises(ValueError, match="fifth modulation band"):
        lmf.speech_reverberation_modulation_energy_ratio(x, 11025, **kwargs)
    with pytest.raises(ValueError, match="fifth modulation band"):
        lma.SpeechReverberationModulationEnergyRatio(11025, **kwargs).update(x)
    metric = lma.SpeechReverberationModulationEnergyRatio(11025, validate_args=False, **kwargs)
    metric.update(x)
    assert metric.compute().isnan()
