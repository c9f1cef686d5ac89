"""The pictures of a run page, drawn by matplotlib as SVG text to put into the page.

matplotlib is the optional extra ``report`` (``pip install 'nnlite[report]'``); ``available()``
says whether it is installed. Figures are made without pyplot (no global state, no display
needed), with text kept as SVG text and images embedded as PNG data, so a page needs no other
file and no network.
"""

import functools
import hashlib
import io
import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "INSTALL_HINT",
    "accuracy_curves",
    "available",
    "confusion_heatmap",
    "final_accuracy_bars",
    "loss_curves",
    "lr_curves",
    "mistakes_grid",
    "per_class_bars",
    "speed_bars",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

INSTALL_HINT = "pip install 'nnlite[report]'  (matplotlib)"


def available() -> bool:
    """Whether matplotlib (which draws the plots) is installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


#: the SVG text of the plots drawn last, by a digest of the plot and its data: a page redrawn
#: with the same figures (the final page after the last epoch's, the same evaluation on the next
#: page) reuses them instead of drawing again
_drawn_lately: dict[bytes, str] = {}
_DRAWN_KEPT = 32


def _data_key(
    plot: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> bytes | None:
    """A digest of the plot's name and its data, or None when the data cannot be pickled."""
    try:
        data = pickle.dumps((plot.__name__, args, sorted(kwargs.items())), protocol=5)
    except Exception:  # noqa: BLE001 (unpicklable data: draw without keeping the result)
        return None
    return hashlib.sha256(data).digest()


def _literal_text(plot: Callable[_P, str]) -> Callable[_P, str]:
    """Draw ``plot``'s figure with matplotlib's math text off: run and class names are shown as
    written, a ``$`` in them never starts a formula (nor fails on an unknown TeX command). The
    same plot of the same data is drawn once (``_drawn_lately``)."""

    @functools.wraps(plot)
    def drawn(*args: _P.args, **kwargs: _P.kwargs) -> str:
        import matplotlib

        key = _data_key(plot, args, kwargs)
        if key is not None and key in _drawn_lately:
            return _drawn_lately[key]
        with matplotlib.rc_context({"text.parse_math": False}):
            svg = plot(*args, **kwargs)
        if key is not None:
            if len(_drawn_lately) >= _DRAWN_KEPT:
                del _drawn_lately[next(iter(_drawn_lately))]
            _drawn_lately[key] = svg
        return svg

    return drawn


def _figure(
    width: float,
    height: float,
    left: float = 0.8,
    bottom: float = 0.55,
    right: float = 0.2,
    top: float = 0.35,
) -> Any:
    """A figure whose axes leave fixed margins, in inches, for labels and titles.

    Fixed margins, not matplotlib's constrained layout: measuring every label to place the axes
    took about 40% of the time a page took to draw."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(
        left=left / width,
        bottom=bottom / height,
        right=1 - right / width,
        top=1 - top / height,
    )
    return fig


def _label_inches(labels: Sequence[object]) -> float:
    """Room for the longest of ``labels`` as tick labels (small font), in inches."""
    return 0.3 + 0.075 * max((len(str(t)) for t in labels), default=4)


def _integer_epochs(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _svg(fig: Any) -> str:
    """The figure as an ``<svg>`` element (the XML prolog and doctype dropped)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "nnlite"}):
        fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _series_label(series: Mapping[str, Any], many: bool) -> str | None:
    return series["name"] if many else None


@_literal_text
def loss_curves(runs: Sequence[Mapping[str, Any]]) -> str:
    """Training loss (running, per ``log_every`` steps, and per epoch) and test loss per epoch,
    against the optimizer step. ``runs``: list of dicts with name, steps, epochs."""
    fig = _figure(7.5, 3.6)
    ax = fig.add_subplot()
    many = len(runs) > 1
    for k, run in enumerate(runs):
        color = f"C{k}"
        prefix = f"{run['name']}: " if many else ""
        if run["steps"]:
            ax.plot(
                [r["step"] for r in run["steps"]],
                [r["train_loss"] for r in run["steps"]],
                color=color,
                lw=1.2,
                alpha=0.55 if not many else 0.9,
                label=f"{prefix}running training loss",
            )
        epochs = [r for r in run["epochs"] if "global_step" in r]
        if epochs:
            x = [r["global_step"] for r in epochs]
            ax.plot(
                x,
                [r["train_loss"] for r in epochs],
                "o-" if not run["steps"] else "o",
                color=color,
                label=f"{prefix}training loss (epoch mean)",
            )
            ax.plot(
                x,
                [r["test_loss"] for r in epochs],
                "s--",
                color=color,
                mfc="white",
                label=f"{prefix}test loss",
            )
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("loss")
    ax.set_title("Loss")
    ax.grid(alpha=0.3)
    if ax.has_data():
        ax.legend(fontsize="small")
    return _svg(fig)


def _per_epoch_axes(fig: Any, ax: Any, ylabel: str, title: str, legend: bool) -> str:
    """Labels, integer epoch ticks, grid and legend of a per-epoch plot; the SVG."""
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    _integer_epochs(ax)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize="small")
    return _svg(fig)


@_literal_text
def accuracy_curves(runs: Sequence[Mapping[str, Any]]) -> str:
    """Test accuracy (percent) per epoch."""
    fig = _figure(5.5, 3.4)
    ax = fig.add_subplot()
    for k, run in enumerate(runs):
        e = run["epochs"]
        ax.plot(
            [r["epoch"] for r in e],
            [100 * r["test_accuracy"] for r in e],
            "o-",
            color=f"C{k}",
            label=run["name"],
        )
    return _per_epoch_axes(fig, ax, "test accuracy (%)", "Test accuracy", legend=len(runs) > 1)


@_literal_text
def lr_curves(runs: Sequence[Mapping[str, Any]]) -> str:
    """The learning rate of each epoch."""
    fig = _figure(5.5, 3.0)
    ax = fig.add_subplot()
    values = []
    for k, run in enumerate(runs):
        e = [r for r in run["epochs"] if "lr" in r]
        values += [r["lr"] for r in e]
        ax.step(
            [r["epoch"] for r in e],
            [r["lr"] for r in e],
            "o-",
            where="mid",
            color=f"C{k}",
            label=run["name"],
        )
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > 20:
        ax.set_yscale("log")
    return _per_epoch_axes(fig, ax, "learning rate", "Learning rate", legend=len(runs) > 1)


@_literal_text
def speed_bars(runs: Sequence[Mapping[str, Any]]) -> str:
    """Training images per second (bars) and the seconds of each epoch (line)."""
    fig = _figure(6.5, 3.2, right=0.75)
    ax = fig.add_subplot()
    n = len(runs)
    width = 0.8 / max(n, 1)
    twin = ax.twinx()
    for k, run in enumerate(runs):
        e = [r for r in run["epochs"] if "images_per_second" in r]
        x = np.array([r["epoch"] for r in e], dtype=float) + (k - (n - 1) / 2) * width
        ax.bar(
            x,
            [r["images_per_second"] for r in e],
            width=width,
            color=f"C{k}",
            alpha=0.7,
            label=f"{run['name']}: images/s" if n > 1 else "images/s",
        )
        twin.plot(
            [r["epoch"] for r in e],
            [r.get("epoch_seconds", np.nan) for r in e],
            "d-",
            color=f"C{k}",
            mec="black",
            label=f"{run['name']}: epoch s" if n > 1 else "epoch seconds",
        )
    ax.set_xlabel("epoch")
    ax.set_ylabel("training images / s")
    twin.set_ylabel("epoch training time (s)")
    twin.set_ylim(bottom=0)
    ax.set_title("Speed")
    _integer_epochs(ax)
    handles = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    if handles[0] or more[0]:
        ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize="small", loc="lower right")
    return _svg(fig)


@_literal_text
def per_class_bars(classes: Sequence[str], accuracy: Sequence[float] | np.ndarray) -> str:
    """Horizontal bars: accuracy of each class (percent)."""
    fig = _figure(6.0, 0.28 * len(classes) + 1.2, left=_label_inches(classes))
    ax = fig.add_subplot()
    acc = np.nan_to_num(np.asarray(accuracy, dtype=float) * 100)
    y = np.arange(len(classes))
    bars = ax.barh(y, acc, color=[f"C{0 if a >= np.mean(acc) else 3}" for a in acc])
    ax.bar_label(bars, labels=[f"{a:.1f}" for a in acc], padding=2, fontsize="small")
    ax.set_yticks(y, labels=classes)
    ax.invert_yaxis()
    ax.set_xlim(0, 108)
    ax.set_xlabel("test accuracy (%)")
    ax.set_title("Accuracy per class")
    return _svg(fig)


@_literal_text
def confusion_heatmap(matrix: np.ndarray, classes: Sequence[str]) -> str:
    """The confusion matrix: rows true class, columns predicted; colour = share of the row,
    numbers = counts."""
    matrix = np.asarray(matrix)
    c = len(classes)
    size = max(4.0, 0.45 * c + 2.0)
    room = _label_inches(classes)
    fig = _figure(size + 0.8 + room, size + room, left=room, bottom=room, right=0.3)
    ax = fig.add_subplot()
    rows = matrix.sum(axis=1, keepdims=True)
    share = matrix / np.maximum(rows, 1)
    im = ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(c), labels=classes, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(c), labels=classes)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    ax.set_title("Confusion matrix (test set)")
    if c <= 20:
        for i in range(c):
            for j in range(c):
                if matrix[i, j]:
                    ax.text(
                        j,
                        i,
                        str(int(matrix[i, j])),
                        ha="center",
                        va="center",
                        fontsize="x-small",
                        color="white" if share[i, j] > 0.5 else "black",
                    )
    fig.colorbar(im, ax=ax, shrink=0.8, label="share of the true class")
    return _svg(fig)


@_literal_text
def mistakes_grid(
    images: Sequence[np.ndarray],
    true_names: Sequence[str],
    predicted_names: Sequence[str],
    confidences: Sequence[float],
    columns: int = 8,
) -> str:
    """The misclassified images, each titled with its true and predicted class.

    The tiles are one mosaic image (one embedded PNG, quick to lay out) with the titles as text
    above each tile."""
    n = len(images)
    cols = min(columns, max(n, 1))
    rows = max(1, -(-n // cols))
    tiles = [np.asarray(img) for img in images]
    h = max(t.shape[0] for t in tiles)
    w = max(t.shape[1] for t in tiles)
    channels = 3 if any(t.ndim == 3 and t.shape[2] == 3 for t in tiles) else 1
    title, gap = h // 2 + 6, 4  # room for two lines of text above each tile
    mosaic = np.full((rows * (h + title), cols * (w + gap), channels), 255, dtype=np.uint8)
    for k, t in enumerate(tiles):
        if t.ndim == 2:
            t = t[:, :, None]
        if t.shape[2] != channels:
            t = np.repeat(t, channels, axis=2)
        r, c = divmod(k, cols)
        y, x = r * (h + title) + title, c * (w + gap)
        mosaic[y : y + t.shape[0], x : x + t.shape[1]] = t
    fig = _figure(1.3 * cols, 1.75 * rows, left=0.05, bottom=0.05, right=0.05, top=0.05)
    ax = fig.add_subplot()
    ax.imshow(
        mosaic[:, :, 0] if channels == 1 else mosaic,
        cmap="gray",
        vmin=0,
        vmax=255,
        interpolation="nearest",
    )
    for k in range(n):
        r, c = divmod(k, cols)
        ax.text(
            c * (w + gap) + w / 2,
            r * (h + title) + title - 1,
            f"true: {true_names[k]}\npred: {predicted_names[k]} {100 * confidences[k]:.0f}%",
            ha="center",
            va="bottom",
            fontsize=6.5,
            color="#a00",
        )
    ax.set_axis_off()
    return _svg(fig)


@_literal_text
def final_accuracy_bars(names: Sequence[str], accuracies: Sequence[float]) -> str:
    """Comparison page: the last test accuracy of each run."""
    fig = _figure(6.0, 0.35 * len(names) + 1.2, left=min(3.0, _label_inches(names)))
    ax = fig.add_subplot()
    acc = [100 * a for a in accuracies]
    y = np.arange(len(names))
    bars = ax.barh(y, acc, color=[f"C{k}" for k in range(len(names))])
    ax.bar_label(bars, labels=[f"{a:.2f}" for a in acc], padding=2, fontsize="small")
    ax.set_yticks(y, labels=names)
    ax.invert_yaxis()
    ax.set_xlim(0, 110)
    ax.set_xlabel("final test accuracy (%)")
    ax.set_title("Final test accuracy")
    return _svg(fig)
