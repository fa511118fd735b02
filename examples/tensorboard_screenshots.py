"""Look at the digits demo in TensorBoard as a person would: run it, serve its logs, screenshot the tabs.

    python examples/tensorboard_screenshots.py OUTDIR             # demo (10 epochs), a side run, shots
    python examples/tensorboard_screenshots.py OUTDIR --epochs 3  # quicker
    python examples/tensorboard_screenshots.py OUTDIR --logdir DIR  # screenshot logs that exist already

Writes, under OUTDIR:

- ``logs/``: the TensorBoard logs of ``examples/digits.py`` (run ``digits``) and of a side run
  (run ``figures``) with what the demo does not log: a binary PR curve (TensorBoard's PR Curves
  tab), a multilabel confusion matrix, and confusion matrices normalized over the true class on
  a log colour scale;
- ``NN_<tab>.png``: headless-Chromium screenshots of the Time Series, Scalars, Images (grid and
  actual size), Text and PR Curves tabs;
- ``raw/<run>__<tag>__<step>.png``: every logged image at every step, as TensorBoard serves it;
- ``steps.txt``: for every image and text tag, its steps next to the steps of the scalars of the
  same stage (they must be equal: an image sits beside the values of its epoch).

Needs ``chromium`` and ``chromium-driver`` (Debian packages) and ``selenium`` (the pip extra
``screenshots``), checked before anything slow starts:

    apt-get install -y chromium chromium-driver
    .venv/bin/pip install -e ".[screenshots]"

The TensorBoard server is the one beside this Python. The server is stopped at the end by its
own process id. Open the PNGs and look at them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# every element of TensorBoard's UI, shadow roots included
DEEP = """window.__deepAll = function(sel, root){ root = root || document; const out = new Set();
  const walk = (n) => { n.querySelectorAll(sel).forEach(e => out.add(e));
    n.querySelectorAll('*').forEach(e => { if (e.shadowRoot) walk(e.shadowRoot); }); };
  walk(root); return Array.from(out); };"""
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TABS = [
    ("01_timeseries", ""),
    ("02_scalars", "#scalars"),
    ("03_images", "#images"),
    ("05_text", "#text"),
    ("06_pr_curves", "#pr_curves"),
]


def missing_tools() -> list[str]:
    """What this script needs and does not find, each with how to install it (empty: all there)."""
    missing = []
    if importlib.util.find_spec("selenium") is None:
        missing.append(f'selenium (pip): {sys.executable} -m pip install -e "{ROOT}[screenshots]"')
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            missing.append(f"{path} (Debian package {package}): apt-get install -y chromium chromium-driver")
    if not Path(sys.executable).with_name("tensorboard").exists():
        missing.append(f"tensorboard beside {sys.executable}: run this with the project's .venv/bin/python")
    return missing


def run_demo(logdir: Path, epochs: int) -> None:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "digits.py"),
            "--logdir",
            str(logdir),
            "--epochs",
            str(epochs),
        ],
        check=True,
        env=env,
        cwd=str(ROOT),
    )


SIDE_RUN = r'''
import sys
import lightning.pytorch as L
import torch
from lightning.pytorch.loggers import TensorBoardLogger
import lightning_metrics as lm
from lightning_metrics.classification import (
    BinaryPrecisionRecallCurve, MulticlassAccuracy, MulticlassConfusionMatrix, MultilabelConfusionMatrix,
)
from lightning_metrics.integration.loggers import LoggerSink
from examples.digits import DIGIT_NAMES, DigitsClassifier, DigitsDataModule


class IsZeroPR(BinaryPrecisionRecallCurve):
    """Digit 0 against the rest: a binary curve, for TensorBoard's own PR Curves tab."""
    def update(self, preds, target):
        super().update(preds[:, 0], (target == 0).long())


class DigitGroups(MultilabelConfusionMatrix):
    """Three labels per image: even, at least five, round (0, 6, 8, 9)."""
    def __init__(self):
        super().__init__(num_labels=3)
    @staticmethod
    def groups(digits):
        return torch.stack([digits % 2 == 0, digits >= 5, torch.isin(digits, torch.tensor([0, 6, 8, 9]))], -1)
    def update(self, preds, target):
        super().update(self.groups(preds.argmax(-1)).long(), self.groups(target).long())


def metrics():
    return {"acc": MulticlassAccuracy(10), "confmat": MulticlassConfusionMatrix(10), "is_zero_pr": IsZeroPR(),
            "groups": DigitGroups()}


callback = lm.MetricsCallback({"val": metrics(), "test": metrics()}, class_names=DIGIT_NAMES,
                              plots=LoggerSink(normalize="true", color_scale="log"))
logger = TensorBoardLogger(sys.argv[1], name="figures", default_hp_metric=False)
L.seed_everything(0, verbose=False)
trainer = L.Trainer(max_epochs=int(sys.argv[2]), callbacks=[callback], logger=logger, accelerator="cpu",
                    devices=1, enable_checkpointing=False, enable_model_summary=False,
                    enable_progress_bar=False)
model, data = DigitsClassifier(), DigitsDataModule()
trainer.fit(model, datamodule=data)
trainer.test(model, datamodule=data, verbose=False)
'''


def run_side(logdir: Path, epochs: int) -> None:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-c", SIDE_RUN, str(logdir), str(epochs)], check=True, env=env, cwd=str(ROOT)
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=30) as response:
        return json.loads(response.read().decode())


def save_images_and_steps(base: str, out: Path) -> None:
    """Every image at every step, and the step table of images and text against the scalars."""
    (out / "raw").mkdir(parents=True, exist_ok=True)
    scalars = get_json(base, "data/plugin/scalars/tags")
    texts = get_json(base, "data/plugin/text/tags")
    lines = []
    for run, tags in sorted(get_json(base, "data/plugin/images/tags").items()):
        stage_steps = {}
        for tag in scalars.get(run, {}):
            stage = tag.split("/")[0]
            if stage in ("train", "val", "test") and stage not in stage_steps:
                query = urllib.parse.urlencode({"run": run, "tag": tag})
                stage_steps[stage] = [
                    row[1] for row in get_json(base, "data/plugin/scalars/scalars?" + query)
                ]
        for tag in sorted(tags):
            query = urllib.parse.urlencode({"run": run, "tag": tag, "sample": 0})
            events = get_json(base, "data/plugin/images/images?" + query)
            steps = [e["step"] for e in events]
            for event in events:
                with urllib.request.urlopen(
                    base + "data/plugin/images/individualImage?" + event["query"], timeout=30
                ) as r:
                    (out / "raw" / f"{run}__{tag}__{event['step']}.png".replace("/", "_")).write_bytes(
                        r.read()
                    )
            expected = stage_steps.get(tag.split("/")[0])
            lines.append(
                f"{run:22} image {tag:34} steps {steps}  scalars {expected}  "
                f"{'aligned' if steps == expected else 'NOT ALIGNED'}"
            )
        for tag in sorted(texts.get(run, [])):
            query = urllib.parse.urlencode({"run": run, "tag": tag})
            steps = [e["step"] for e in get_json(base, "data/plugin/text/text?" + query)]
            expected = stage_steps.get(tag.split("/")[0])
            lines.append(
                f"{run:22} text  {tag:34} steps {steps}  scalars {expected}  "
                f"{'aligned' if steps == expected else 'NOT ALIGNED'}"
            )
    (out / "steps.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def screenshots(base: str, out: Path, width: int, height: int) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_window_size(width, height)
        for name, fragment in TABS:
            driver.get(base + fragment)
            time.sleep(8)
            driver.execute_script(DEEP)
            driver.execute_script(
                "for (const c of window.__deepAll('tf-category-paginated-view')) c.opened = true;"
            )
            time.sleep(4)
            driver.save_screenshot(str(out / f"{name}.png"))
            if fragment == "#images":
                driver.execute_script("""for (const c of window.__deepAll('paper-checkbox'))
                    if ((c.textContent || '').includes('actual image size') && !c.checked) c.click();""")
                time.sleep(4)
                driver.save_screenshot(str(out / "04_images_actual_size.png"))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--logdir", help="screenshot these logs instead of running the demo")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--no-side-run", action="store_true")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1200)
    args = parser.parse_args()
    missing = missing_tools()  # before the demo's minute of training, not after it
    if missing:
        sys.exit("tensorboard_screenshots.py needs what is not installed:\n  " + "\n  ".join(missing))
    out = Path(args.outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    logdir = Path(args.logdir).resolve() if args.logdir else out / "logs"
    if not args.logdir:
        run_demo(logdir, args.epochs)
        if not args.no_side_run:
            run_side(logdir, max(2, args.epochs // 3))
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    board = Path(sys.executable).with_name("tensorboard")
    server = subprocess.Popen(
        [str(board), "--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(base, timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        time.sleep(5)  # the first load of the event files
        save_images_and_steps(base, out)
        screenshots(base, out, args.width, args.height)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    print("\n".join(sorted(str(p) for p in out.glob("*.png"))))


if __name__ == "__main__":
    main()
