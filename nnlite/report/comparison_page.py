"""One page comparing runs: curves overlaid, final figures side by side, configs that differ."""

from typing import TYPE_CHECKING, Any

from . import html as h
from . import plots
from .status import describe

if TYPE_CHECKING:
    from .run_folder import RunFolder

__all__ = ["comparison_page"]


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def _config_differences(runs: list["RunFolder"]) -> str:
    flat = [_flatten(r.config) for r in runs]
    keys = [k for k in dict.fromkeys(k for f in flat for k in f) if k not in ("name", "output_dir")]
    differing = [k for k in keys if len({repr(f.get(k)) for f in flat}) > 1]
    return (
        h.table(
            ["key"] + [r.name for r in runs],
            [[k] + [f.get(k, "--") for f in flat] for k in differing],
        )
        if differing
        else "<p>The configs are the same (apart from name and output folder).</p>"
    )


def comparison_page(runs: list["RunFolder"]) -> str:
    """The HTML comparing ``runs`` (``RunFolder`` objects)."""
    with_plots = plots.available()
    series = [{"name": r.name, "steps": r.steps, "epochs": r.epochs} for r in runs]
    rows = []
    for r in runs:
        e = r.epochs
        headline = describe(r)[0]
        best = max(e, key=lambda x: x["test_accuracy"]) if e else None
        rows.append(
            [
                r.name,
                headline,
                f"{len(e)} / {r.total_epochs}",
                f"{100 * e[-1]['test_accuracy']:.2f}" if e else "--",
                f"{100 * best['test_accuracy']:.2f} (epoch {best['epoch']})" if best else "--",
                f"{e[-1]['test_loss']:.4f}" if e else "--",
                f"{sum(x.get('epoch_seconds', 0) for x in e):.1f}" if e else "--",
                f"{sum(x.get('images_per_second', 0) for x in e) / len(e):,.0f}" if e else "--",
            ]
        )
    body = [
        f"<h1>Comparison of {len(runs)} runs</h1>",
        h.table(
            [
                "run",
                "state",
                "epochs",
                "last test acc %",
                "best test acc %",
                "last test loss",
                "training s",
                "images/s",
            ],
            rows,
        ),
    ]
    if with_plots:
        finished = [r for r in runs if r.epochs]
        body.append(
            h.section(
                "Curves",
                h.figures(
                    h.figure(plots.loss_curves(series)),
                    h.figure(plots.accuracy_curves(series)),
                    h.figure(plots.lr_curves(series)),
                    h.figure(plots.speed_bars(series)),
                    h.figure(
                        plots.final_accuracy_bars(
                            [r.name for r in finished],
                            [r.epochs[-1]["test_accuracy"] for r in finished],
                        )
                    )
                    if finished
                    else "",
                ),
                anchor="curves",
            )
        )
    else:
        body.append(h.note(f"The plots need matplotlib: {plots.INSTALL_HINT}."))
    body.append(h.section("Config differences", _config_differences(runs), anchor="config"))
    body.append("<footer>" + " · ".join(h.escape(r.path) for r in runs) + "</footer>")
    return h.document(f"Comparison of {len(runs)} nnlite runs", "\n".join(body))
