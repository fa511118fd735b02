"""Small random DNSMOS models in the real files' layout, written with the ``onnx`` helper API.

The real models (Microsoft's DNS-Challenge) take ``input_1`` float ``[N, 900, 120]`` (P.808: the
mel features) and ``[N, 144160]`` (P.835: the waveform), and give ``Identity:0`` ``[N, 1]`` and
``[N, 3]`` (opset 12). These have the same names and shapes and a few random weights
(``np.random.default_rng(seed)``), so every step around the models is checked: the features, the
segments, the polynomials, the loading path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from lightning_metrics.networks import weights

# our registry name -> (torchmetrics' path under ~/.torchmetrics/DNSMOS, input shape after the batch, outputs)
MODELS = {
    "dnsmos-p808": ("DNSMOS/model_v8.onnx", (900, 120), 1),
    "dnsmos-sig-bak-ovr": ("DNSMOS/sig_bak_ovr.onnx", (144160,), 3),
    "dnsmos-personalized-sig-bak-ovr": ("pDNSMOS/sig_bak_ovr.onnx", (144160,), 3),
}


def model_bytes(name: str, seed: int) -> bytes:
    """The serialized random model ``name`` (a key of :data:`MODELS`)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    _, shape, outputs = MODELS[name]
    rng = np.random.default_rng([seed, list(MODELS).index(name)])
    nodes, inits = [], []

    def const(label: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(value, label))
        return label

    if len(shape) == 2:  # P.808: mean over frames of the mel features
        nodes.append(helper.make_node("ReduceMean", ["input_1"], ["pooled"], axes=[1], keepdims=0))
        width = shape[1]
    else:  # P.835: mean absolute value of 901 blocks of 160 samples
        blocks = const("blocks", np.array([-1, 901, 160], dtype=np.int64))
        nodes += [helper.make_node("Reshape", ["input_1", blocks], ["framed"]),
                  helper.make_node("Abs", ["framed"], ["magnitude"]),
                  helper.make_node("ReduceMean", ["magnitude"], ["pooled"], axes=[2], keepdims=0)]
        width = 901
    weight = const("weight", (rng.standard_normal((width, outputs)) * 2.0 / np.sqrt(width)).astype(np.float32))
    bias = const("bias", rng.standard_normal(outputs).astype(np.float32))
    scale, shift = const("scale", np.array(1.5, np.float32)), const("shift", np.array(3.0, np.float32))
    nodes += [helper.make_node("MatMul", ["pooled", weight], ["projected"]),
              helper.make_node("Add", ["projected", bias], ["shifted"]),
              helper.make_node("Tanh", ["shifted"], ["squashed"]),
              helper.make_node("Mul", ["squashed", scale], ["scaled"]),
              helper.make_node("Add", ["scaled", shift], ["Identity:0"])]
    graph = helper.make_graph(
        nodes, f"random-{name}",
        [helper.make_tensor_value_info("input_1", TensorProto.FLOAT, ["N", *shape])],
        [helper.make_tensor_value_info("Identity:0", TensorProto.FLOAT, ["N", outputs])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=7)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def write_models(folder: str, seed: int, layout: str = "ours") -> dict[str, Path]:
    """Write the three random models into ``folder``: under our file names (``layout="ours"``, the
    offline folder) or torchmetrics' (``"torchmetrics"``: ``DNSMOS/...``, ``pDNSMOS/...``)."""
    paths = {}
    for name, (theirs, _, _) in MODELS.items():
        path = Path(folder) / (weights.WEIGHT_FILES[name].filename if layout == "ours" else theirs)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(model_bytes(name, seed))
        paths[name] = path
    return paths


@contextmanager
def random_models(seed: int = 0, folder: str | None = None) -> Iterator[Path]:
    """The random models in an offline folder (``LIGHTNING_METRICS_WEIGHTS``), registered with their
    own checksums for the ``with`` block; the registry and the environment are restored after it."""
    folder = folder or tempfile.mkdtemp(prefix="dnsmos-")
    paths = write_models(folder, seed)
    rows = {name: weights.WEIGHT_FILES[name] for name in MODELS}
    before = os.environ.get(weights.ENV_VAR)
    try:
        for name, path in paths.items():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            weights.WEIGHT_FILES[name] = dataclasses.replace(rows[name], checksum=digest)
        os.environ[weights.ENV_VAR] = str(folder)
        yield Path(folder)
    finally:
        weights.WEIGHT_FILES.update(rows)
        if before is None:
            os.environ.pop(weights.ENV_VAR, None)
        else:
            os.environ[weights.ENV_VAR] = before
