"""``python train.py CONFIG.yaml [--set key.path=value ...] [--resume RUN_DIR]``."""

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from .._runtime.atomic_file import replace_atomically
from .builders import TrainError
from .config import ConfigError, TrainConfig, dump_config, load_config, load_yaml
from .schema import show
from .signals import check_stop, stop_on_signals
from .trainer import NonFiniteLossError, Observer, Trainer

__all__ = ["main", "resolve_config"]

EXIT_CONFIG = 2
EXIT_FAILED = 1
EXIT_NON_FINITE = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a process Ctrl-C ended
EXIT_TERMINATED = 143  # 128 + SIGTERM


_DESCRIPTION = """Train a model described by a YAML config (see configs/ and docs/guides/trainer.md, the config reference).
Each run writes a directory under output_dir with config.yaml, metrics.jsonl, checkpoints/last.npz,
checkpoints/best.npz and report.json."""

_EPILOG = """examples:
  {command} configs/lenet_cifar10.yaml
  {command} configs/lenet_fashion_mnist.yaml --set data.root=/data/fashion --set optimizer.lr=0.02
  {command} --resume runs/lenet_cifar10-20250101-120000
  mpirun -n 2 {command} configs/lenet_fashion_mnist.yaml --set parallel.backend=mpi"""


def _command(prog: str) -> str:
    """How a user types the program named ``prog`` (a script runs through python)."""
    return f"python {prog}" if prog.endswith(".py") else prog


def _parser(prog: str = "train.py") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=_DESCRIPTION,
        epilog=_EPILOG.format(command=_command(prog)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("config", nargs="?", metavar="CONFIG", help="the YAML config file")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, the value parsed as YAML (repeatable), e.g. --set optimizer.lr=0.01",
    )
    p.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue the interrupted run in RUN_DIR from checkpoints/last.npz, with its saved config",
    )
    return p


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    else:
        out[prefix] = obj
    return out


def resolve_config(
    config_path: str | None, overrides: Sequence[str], resume_dir: str | None
) -> tuple[TrainConfig, bool]:
    """The resolved config of a run (and whether ``config.yaml`` of ``resume_dir`` needs
    rewriting for a changed epoch count)."""
    if resume_dir is None:
        if config_path is None:
            raise ConfigError("a CONFIG file is needed (or --resume RUN_DIR to continue a run)")
        return load_config(config_path, overrides), False
    if not os.path.isdir(resume_dir):
        raise ConfigError(f"--resume: no such run directory: {resume_dir}")
    saved_path = os.path.join(resume_dir, "config.yaml")
    if not os.path.isfile(saved_path):
        raise ConfigError(f"--resume: {resume_dir} has no config.yaml, it is not a run directory")
    saved = load_config(saved_path)
    if config_path is not None:
        cfg = load_config(config_path, overrides)
    else:
        cfg = load_config(raw=load_yaml(saved_path), overrides=overrides, default_name=saved.name)
    a, b = _flatten(saved.to_dict()), _flatten(cfg.to_dict())
    diffs = [
        k
        for k in dict.fromkeys(list(a) + list(b))
        if k != "epochs" and a.get(k, "<unset>") != b.get(k, "<unset>")
    ]
    if diffs:
        shown = ", ".join(
            f"{k} ({show(a.get(k))} in the run, {show(b.get(k))} now)" for k in diffs[:4]
        )
        more = f" and {len(diffs) - 4} more" if len(diffs) > 4 else ""
        raise ConfigError(
            f"--resume: the config differs from the one {resume_dir} was started with: {shown}{more}; "
            f"only epochs may change when resuming",
            diffs[0],
        )
    return cfg, cfg.epochs != saved.epochs


# The most an error line shows (messages quote values cut shorter; this bounds the rest).
MAX_ERROR_CHARS = 1000


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def _abort_others(trainer: Trainer | None, code: int) -> None:
    dist = getattr(trainer, "dist", None)
    if dist is not None and dist.size > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        dist.comm.Abort(code)


def main(
    argv: Sequence[str] | None = None, observers: Iterable[Observer] = (), prog: str = "train.py"
) -> int:
    """Run the CLI; returns the exit code (0 done, 1 failed, 2 bad config or usage, 3 a loss,
    gradient, weight or evaluation became NaN/inf, 130 interrupted by Ctrl-C, 143 by SIGTERM).
    ``observers`` go to the ``Trainer``; ``prog`` names the program in usage and messages
    (``"nnlite train"`` for the console command).

    Args:
        argv (list of str, optional): the arguments (default: ``sys.argv[1:]``), as ``python train.py``'s.
        observers (sequence of callables): called by the trainer at each epoch and at the end.
        prog (str): the program name in usage and messages. Default: ``"train.py"``.

    Returns:
        int: the exit code.

    Examples:
        >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
        >>> import yaml
        >>> config = {
        ...     "name": "demo",
        ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
        ...     "data": {"dataset": "mnist", "root": "mnist", "batch_size": 4,
        ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
        ...     "optimizer": {"name": "sgd", "lr": 0.1},
        ...     "epochs": 1,
        ... }
        >>> with open("demo.yaml", "w") as f:
        ...     yaml.safe_dump(config, f)
        >>> from nnlite.train import main
        >>> main(["demo.yaml", "--set", "optimizer.lr=0.05"])  # doctest: +ELLIPSIS
        Run directory: runs/demo-...
        0
    """
    args = _parser(prog).parse_args(argv)
    with stop_on_signals():  # Ctrl-C and SIGTERM stop the run between batches
        return _run(args, observers, prog)


def _run(
    args: argparse.Namespace, observers: Iterable[Observer] = (), prog: str = "train.py"
) -> int:
    if (
        "" not in sys.path and os.getcwd() not in sys.path
    ):  # user models importable from the working directory
        sys.path.insert(0, os.getcwd())
    trainer = None
    try:
        cfg, epochs_changed = resolve_config(args.config, args.overrides, args.resume)
        trainer = Trainer(cfg, run_dir=args.resume, observers=observers)
        if epochs_changed and trainer.dist.is_main:
            with replace_atomically(os.path.join(args.resume, "config.yaml")) as f:
                f.write(dump_config(cfg).encode("utf-8"))
        trainer.fit()
        check_stop()  # a signal after the last check still ends the process with its code
    except ConfigError as e:
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_CONFIG)
        return EXIT_CONFIG
    except NonFiniteLossError as e:
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_NON_FINITE)
        return EXIT_NON_FINITE
    except TrainError as e:
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_FAILED)
        return EXIT_FAILED
    except KeyboardInterrupt as e:
        run_dir = getattr(trainer, "run_dir", None)
        hint = f"; continue with: {_command(prog)} --resume {run_dir}" if run_dir else ""
        code = getattr(e, "exit_code", EXIT_INTERRUPTED)
        print(
            f"\n{prog}: {'terminated' if code == EXIT_TERMINATED else 'interrupted'}{hint}",
            file=sys.stderr,
        )
        return code
    except OSError as e:  # a file the run needs, outside what the trainer reports itself
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        _abort_others(trainer, EXIT_FAILED)
        return EXIT_FAILED
    except BaseException:
        if trainer is not None and trainer.dist.size > 1:
            import traceback

            traceback.print_exc()
            _abort_others(trainer, EXIT_FAILED)
        raise
    return 0
