"""The page of one run: status, headline figures, curves, per-class accuracy, confusion matrix,
misclassified images, model summary, config, machine."""

from typing import Any

import numpy as np

from . import html as h
from . import plots
from .evaluation import Evaluation
from .run_folder import RunFolder
from .status import describe

__all__ = ["run_page"]

MISTAKES_SHOWN = 24


def _fmt(value: float | None, spec: str = ".4f") -> str:
    return "--" if value is None else format(value, spec)


def _series(run: RunFolder) -> dict[str, Any]:
    return {"name": run.name, "steps": run.steps, "epochs": run.epochs}


def _headline(run: RunFolder, ev: Evaluation | None) -> str:
    e = run.epochs
    pairs = [("epochs", f"{len(e)} / {run.total_epochs}")]
    if e:
        best = max(e, key=lambda r: r["test_accuracy"])
        pairs += [
            ("last test accuracy", f"{100 * e[-1]['test_accuracy']:.2f} %"),
            ("best test accuracy", f"{100 * best['test_accuracy']:.2f} % (epoch {best['epoch']})"),
            ("last test loss", f"{e[-1]['test_loss']:.4f}"),
            ("training time", f"{sum(r.get('epoch_seconds', 0) for r in e):.1f} s"),
            (
                "mean speed",
                f"{sum(r.get('images_per_second', 0) for r in e) / len(e):,.0f} images/s",
            ),
        ]
    steps = [r["step"] for r in run.steps[-1:]] + [
        r["global_step"] for r in e[-1:] if "global_step" in r
    ]
    if steps:
        pairs.append(("optimizer steps", f"{max(steps):,}"))
    return h.tiles(pairs)


def _epoch_table(run: RunFolder) -> str:
    rows = [
        [
            r["epoch"],
            _fmt(r.get("train_loss")),
            _fmt(r.get("test_loss")),
            _fmt(100 * r["test_accuracy"], ".2f") if "test_accuracy" in r else "--",
            _fmt(r.get("lr"), ".4g"),
            _fmt(r.get("epoch_seconds"), ".1f"),
            _fmt(r.get("images_per_second"), ",.0f"),
            _fmt(r.get("eval_seconds"), ".1f"),
        ]
        for r in run.epochs
    ]
    return h.table(
        ["epoch", "train loss", "test loss", "test acc %", "lr", "epoch s", "images/s", "eval s"],
        rows,
    )


def _curves(run: RunFolder, with_plots: bool) -> str:
    if not run.epochs and not run.steps:
        return h.note("No metrics yet: the first epoch has not finished.")
    parts = []
    if with_plots:
        runs = [_series(run)]
        parts.append(
            h.figures(
                h.figure(plots.loss_curves(runs)),
                h.figure(plots.accuracy_curves(runs)) if run.epochs else "",
                h.figure(plots.lr_curves(runs)) if run.epochs else "",
                h.figure(plots.speed_bars(runs)) if run.epochs else "",
            )
        )
    parts.append(_epoch_table(run))
    if run.steps and not with_plots:
        rows = [[r["epoch"], r["step"], _fmt(r["train_loss"])] for r in run.steps[-50:]]
        parts.append(
            "<p>Running training loss (the last 50 lines):</p>"
            + h.table(["epoch", "step", "running loss"], rows)
        )
    return "".join(parts)


def _evaluation(
    run: RunFolder, ev: Evaluation, images: list[np.ndarray] | None, with_plots: bool
) -> str:
    acc = ev.per_class_accuracy()
    matrix = ev.confusion_matrix()
    parts = [
        (
            f"<p>The checkpoint after epoch {ev.epoch} on the {len(ev.labels):,} test images: "
            f"{100 * ev.accuracy:.2f} % right.</p>"
        )
    ]
    per_class_rows = [
        [
            name,
            int(matrix[i].sum()),
            int(matrix[i, i]),
            "--" if acc[i] != acc[i] else f"{100 * acc[i]:.1f}",
        ]
        for i, name in enumerate(ev.classes)
    ]
    if with_plots:
        parts.append(
            h.figures(
                h.figure(plots.per_class_bars(ev.classes, acc)),
                h.figure(plots.confusion_heatmap(matrix, ev.classes)),
            )
        )
    else:
        parts.append(
            h.table(
                ["true \\ predicted"] + ev.classes,
                [[name] + [int(v) for v in matrix[i]] for i, name in enumerate(ev.classes)],
            )
        )
    parts.append(h.table(["class", "test images", "right", "accuracy %"], per_class_rows))
    worst = ev.worst_mistakes(MISTAKES_SHOWN)
    if len(worst):
        true_names = [ev.classes[ev.labels[i]] for i in worst]
        pred_names = [ev.classes[ev.predicted[i]] for i in worst]
        conf = [float(ev.confidence[i]) for i in worst]
        parts.append(f"<h3>The {len(worst)} most confidently misclassified test images</h3>")
        if with_plots and images is not None:
            parts.append(
                h.figures(h.figure(plots.mistakes_grid(images, true_names, pred_names, conf)))
            )
        listing = h.table(
            ["test image #", "true class", "predicted", "confidence %"],
            [
                [int(i), t, p, f"{100 * c:.1f}"]
                for i, t, p, c in zip(worst, true_names, pred_names, conf)
            ],
        )
        parts.append(
            f"<details><summary>as a table</summary>{listing}</details>" if with_plots else listing
        )
    return "".join(parts)


def _machine(run: RunFolder, current: dict[str, Any] | None) -> str:
    info = run.machine
    where = "the machine that trained the run"
    if info is None:
        info, where = current or {}, "this machine (the run recorded none)"
    return f"<p>{h.escape(where)}</p>" + h.table(["", "value"], [[k, v] for k, v in info.items()])


def run_page(
    run: RunFolder,
    evaluation: Evaluation | None = None,
    evaluation_problem: str | None = None,
    images: list[np.ndarray] | None = None,
    summary_text: str | None = None,
    summary_problem: str | None = None,
    machine: dict[str, Any] | None = None,
) -> str:
    """The HTML of ``run``'s page (a ``RunFolder``), from what the caller gathered."""
    with_plots = plots.available()
    headline, css, detail = describe(run)
    body = [
        f"<h1>Run {h.escape(run.name)}</h1>",
        (
            f'<div class="banner {css}" id="status" data-state="{h.escape(run.state)}"><b>{h.escape(headline)}</b>'
            f"<br>{h.escape(detail)}</div>"
        ),
        _headline(run, evaluation),
    ]
    if not with_plots:
        body.append(
            h.note(
                f"The plots need matplotlib: {plots.INSTALL_HINT}. The tables below hold the same figures."
            )
        )
    body.append(h.section("Training curves", _curves(run, with_plots), anchor="curves"))
    if evaluation is not None:
        body.append(
            h.section(
                "Test set", _evaluation(run, evaluation, images, with_plots), anchor="evaluation"
            )
        )
    else:
        body.append(
            h.section(
                "Test set", h.note(f"No evaluation: {evaluation_problem}"), anchor="evaluation"
            )
        )
    body.append(
        h.section(
            "Model",
            h.pre(summary_text) if summary_text else h.note(f"No summary: {summary_problem}"),
            anchor="model",
        )
    )
    body.append(h.section("Config", h.pre(run.config_text), anchor="config"))
    body.append(h.section("Machine and versions", _machine(run, machine or {}), anchor="machine"))
    body.append(
        f"<footer>{h.escape(run.path)} · rebuild with: python -m nnlite.report {h.escape(run.path)}</footer>"
    )
    refresh = 30 if run.state == "running" and css == "running" else None
    return h.document(f"{run.name} · nnlite run", "\n".join(body), refresh_seconds=refresh)
