"""Reading a run folder: the saved config, the metrics lines, the status, the final report."""

import json
import os
from typing import Any

import yaml

from .._runtime.atomic_file import write_atomically

__all__ = ["RunFolder", "RunFolderError", "read_run", "write_json_atomic", "write_text_atomic"]


class RunFolderError(ValueError):
    """A path is not a run folder written by ``train.py`` (or cannot be read).

    Examples:
        >>> read_run("no/such/run")
        Traceback (most recent call last):
            ...
        nnlite.report.run_folder.RunFolderError: no such run folder: no/such/run
    """


def write_text_atomic(text: str, path: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``: a reader
    (a browser reloading the page) sees the old file or the new one, never half of one."""
    write_atomically(path, text)


def write_json_atomic(obj: Any, path: str) -> None:
    write_text_atomic(json.dumps(obj, indent=2) + "\n", path)


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise RunFolderError(f"cannot read {path}: {e}") from None


def _read_jsonl(path: str) -> list[dict[str, Any]]:
    """Every whole JSON object line (a last line cut short by a crash is skipped)."""
    records = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    records.append(record)
    except FileNotFoundError:
        pass
    return records


class RunFolder:
    """What a run folder holds.

    Attributes:
        path: the folder; name: its base name.
        config: the resolved config (``config.yaml``).
        epochs: the per-epoch metrics lines (epoch, train_loss, test_loss, test_accuracy, lr, ...).
        steps: the per-step lines (epoch, step, train_loss, lr): the running training loss.
        status: ``status.json`` (state, message, updated, ...) or None.
        final: ``report.json`` (written when training finished) or None.
        checkpoint: ``checkpoints/last.npz`` when it exists, else None.

    Args:
        path (str): the run folder.

    Examples:
        >>> import json
        >>> os.makedirs("runs/demo", exist_ok=True)
        >>> with open("runs/demo/config.yaml", "w") as f:
        ...     _ = f.write("epochs: 2")
        >>> with open("runs/demo/metrics.jsonl", "w") as f:
        ...     _ = f.write(json.dumps({"epoch": 1, "train_loss": 0.5}))
        >>> run = RunFolder("runs/demo")
        >>> run.name, run.total_epochs, run.epochs, run.state
        ('demo', 2, [{'epoch': 1, 'train_loss': 0.5}], 'unknown')
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.name = os.path.basename(self.path.rstrip(os.sep))
        config_path = os.path.join(self.path, "config.yaml")
        if not os.path.isdir(self.path):
            raise RunFolderError(f"no such run folder: {path}")
        if not os.path.isfile(config_path):
            raise RunFolderError(
                f"{path} has no config.yaml: it is not a run folder written by train.py"
            )
        try:
            with open(config_path, encoding="utf-8") as f:
                config = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            raise RunFolderError(f"cannot read {config_path}: {e}") from None
        if not isinstance(config, dict):
            raise RunFolderError(f"{config_path} does not hold a config mapping")
        with open(config_path, encoding="utf-8") as f:
            self.config_text = f.read()
        self.config: dict[str, Any] = config
        lines = _read_jsonl(os.path.join(self.path, "metrics.jsonl"))
        self.steps = [r for r in lines if "step" in r]
        self.epochs = [r for r in lines if "step" not in r and "epoch" in r]
        self.status = _read_json(os.path.join(self.path, "status.json"))
        self.final = _read_json(os.path.join(self.path, "report.json"))
        self.machine = _read_json(os.path.join(self.path, "machine.json"))
        last = os.path.join(self.path, "checkpoints", "last.npz")
        self.checkpoint: str | None = last if os.path.isfile(last) else None

    def file(self, name: str) -> str:
        """The path of the file ``name`` in the run folder.

        Args:
            name (str): a file name.

        Returns:
            str: the path.

        Examples:
            >>> import json
            >>> os.makedirs("runs/demo", exist_ok=True)
            >>> with open("runs/demo/config.yaml", "w") as f:
            ...     _ = f.write("epochs: 2")
            >>> with open("runs/demo/metrics.jsonl", "w") as f:
            ...     _ = f.write(json.dumps({"epoch": 1, "train_loss": 0.5}))
            >>> RunFolder("runs/demo").file("report.html").endswith(os.path.join("demo", "report.html"))
            True
        """
        return os.path.join(self.path, name)

    @property
    def total_epochs(self) -> int | None:
        """The epochs the config asks for (None if it does not say).

        Examples:
            >>> import json
            >>> os.makedirs("runs/demo", exist_ok=True)
            >>> with open("runs/demo/config.yaml", "w") as f:
            ...     _ = f.write("epochs: 2")
            >>> with open("runs/demo/metrics.jsonl", "w") as f:
            ...     _ = f.write(json.dumps({"epoch": 1, "train_loss": 0.5}))
            >>> RunFolder("runs/demo").total_epochs
            2
        """
        return self.config.get("epochs")

    @property
    def state(self) -> str:
        """``finished``, ``running``, ``interrupted``, ``nonfinite``, ``failed`` or ``unknown``.

        Examples:
            >>> import json
            >>> os.makedirs("runs/demo", exist_ok=True)
            >>> with open("runs/demo/config.yaml", "w") as f:
            ...     _ = f.write("epochs: 2")
            >>> with open("runs/demo/metrics.jsonl", "w") as f:
            ...     _ = f.write(json.dumps({"epoch": 1, "train_loss": 0.5}))
            >>> RunFolder("runs/demo").state  # no status.json nor report.json yet
            'unknown'
        """
        if self.status is not None:
            return str(self.status.get("state", "unknown"))
        return "finished" if self.final is not None else "unknown"


def read_run(path: str | os.PathLike[str]) -> RunFolder:
    """The ``RunFolder`` at ``path`` (``RunFolderError`` naming the problem otherwise).

    Args:
        path (str): the run folder.

    Returns:
        RunFolder: what it holds.

    Examples:
        >>> import json
        >>> os.makedirs("runs/demo", exist_ok=True)
        >>> with open("runs/demo/config.yaml", "w") as f:
        ...     _ = f.write("epochs: 2")
        >>> with open("runs/demo/metrics.jsonl", "w") as f:
        ...     _ = f.write(json.dumps({"epoch": 1, "train_loss": 0.5}))
        >>> read_run("runs/demo").epochs[0]["train_loss"]
        0.5
    """
    return RunFolder(path)
