"""The bad-input tables of the domains beyond classification and regression, counted together.

Each domain keeps its table next to its tests (``tests/<domain>/test_bad_input.py``, and for a few
domains an older table beside it); every case there runs through
:func:`tests._bad_input.assert_rejected_untouched` (or the domain's equivalent check of the states,
the update count and ``compute()``). This module only checks that the catalogue stays complete:
every domain has cases, and there are at least 60 in all, with the NaN and infinite values among them.
"""

from __future__ import annotations

import pytest

from tests.audio import test_bad_input as audio, test_state as audio_state, test_stoi as audio_stoi
from tests.clustering import test_bad_input as clustering, test_inputs as clustering_inputs
from tests.detection import test_bad_input as detection
from tests.image import test_bad_input as image
from tests.multimodal import test_lve as multimodal
from tests.nominal import test_bad_input as nominal, test_modular as nominal_modular
from tests.retrieval import test_bad_input as retrieval
from tests.segmentation import test_bad_input as segmentation
from tests.shape import test_procrustes as shape
from tests.text import test_bad_input as text, test_states as text_states

TABLES: dict[str, list] = {
    "detection": list(detection.CASES),
    "text": list(text.CASES) + list(text_states.BAD_UPDATES),
    "retrieval": list(retrieval.BAD_BATCHES.items()),
    "segmentation": list(segmentation.BAD_BATCHES),
    "image": list(image.BAD_BATCHES),
    "audio": list(audio.CASES) + list(audio_state.BAD_BATCHES) + list(audio_stoi.BAD_BATCHES),
    "clustering": list(clustering.CASES) + list(clustering_inputs.BAD_LABELS.items())
    + list(clustering_inputs.BAD_EMBEDDINGS.items()),
    "nominal": list(nominal.CASES) + list(nominal_modular.BAD.items()),
    "shape": list(shape.BAD_BATCHES),
    "multimodal": list(multimodal.BAD_BATCHES),
}


def test_every_domain_has_cases_and_there_are_at_least_60() -> None:
    counts = {domain: len(cases) for domain, cases in TABLES.items()}
    assert all(counts.values()), counts
    assert sum(counts.values()) >= 60, counts


@pytest.mark.parametrize(
    "domain", ["detection", "retrieval", "image", "audio", "clustering", "nominal", "text", "shape", "multimodal"]
)
def test_non_finite_values_are_among_the_cases(domain: str) -> None:
    text_of_cases = repr(TABLES[domain]).lower()
    assert "nan" in text_of_cases, domain
