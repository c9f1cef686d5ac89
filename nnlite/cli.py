"""The ``nnlite`` command (also ``python -m nnlite``).

    nnlite train CONFIG [--set KEY=VALUE ...] [--resume RUN_DIR]    # as python train.py
    nnlite report RUN_DIR [RUN_DIR ...] [-o FILE] [--open]          # as python -m nnlite.report
    nnlite summary MODEL [--input-size 1,3,32,32] [--arg KEY=VALUE ...] [--depth N] [--no-timing]
    nnlite --version

``train`` and ``report`` hand their arguments to the very parsers ``train.py`` and
``python -m nnlite.report`` use, so the three spellings accept the same options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__

__all__ = ["main"]

PROG = "nnlite"
EXIT_FAILED = 1
EXIT_USAGE = 2


def _train(argv: list[str]) -> int:
    from .report import TrainingObserver
    from .train.cli import main

    # the observer rewrites RUN_DIR/report.html after every epoch, as train.py does
    return main(argv, observers=[TrainingObserver()], prog=f"{PROG} train")


def _report(argv: list[str]) -> int:
    from .report.__main__ import main

    return main(argv, prog=f"{PROG} report")


# Subcommands whose own parser reads everything after the subcommand's name.
_DELEGATED: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "train": (_train, "train a model from a YAML config (the same as python train.py)"),
    "report": (_report, "build a run's report.html, or a page comparing runs"),
}

_DESCRIPTION = "nnlite: a neural-network framework with PyTorch's API on numpy and numba."

_EPILOG = f"""examples:
  {PROG} train configs/lenet_cifar10.yaml --set optimizer.lr=0.02
  {PROG} train --help
  {PROG} report runs/lenet_cifar10-20250101-120000 --open
  {PROG} summary resnet18 --input-size 1,3,32,32 --arg num_classes=10"""


def _shape(text: str) -> tuple[int, ...]:
    """``"1,3,32,32"`` -> ``(1, 3, 32, 32)``; argparse reports the ``ValueError``."""
    try:
        shape = tuple(int(part) for part in text.split(","))
    except ValueError:
        shape = ()
    if not shape or any(n <= 0 for n in shape):
        raise argparse.ArgumentTypeError(
            f"expected positive integers separated by commas, like 1,3,32,32; got {text!r}"
        )
    return shape


def _keyword(text: str) -> tuple[str, Any]:
    """``"num_classes=10"`` -> ``("num_classes", 10)``, the value read as YAML."""
    import yaml

    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        return key, yaml.safe_load(value)
    except yaml.YAMLError as e:
        raise argparse.ArgumentTypeError(f"{key}: the value is not valid YAML: {e}") from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_, help_text) in _DELEGATED.items():
        commands.add_parser(name, help=f"{help_text}; see {PROG} {name} --help", add_help=False)
    s = commands.add_parser(
        "summary",
        help="print a model's layer-by-layer summary (nl.summary)",
        description="Build a model and print nl.summary of it: per layer the output shape, "
        "parameters, multiply-adds and forward/backward time on this CPU.",
        epilog=f"models: a registered name (see nnlite.models.list_models()), or "
        f"'package.module:ClassName'.\nexample: {PROG} summary lenet --input-size 1,3,32,32",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("model", metavar="MODEL", help="registered model name or package.module:Class")
    s.add_argument(
        "--input-size",
        type=_shape,
        action="append",
        metavar="SHAPE",
        help="the input's shape with the batch dimension (default 1,3,32,32); "
        "repeat it for a model with several inputs",
    )
    s.add_argument(
        "--arg",
        dest="model_args",
        type=_keyword,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword argument of the model's constructor, the value read as YAML (repeatable)",
    )
    s.add_argument(
        "--depth", type=int, default=3, help="nesting depth of the rows shown (default 3)"
    )
    s.add_argument(
        "--no-timing",
        dest="timing",
        action="store_false",
        help="skip timing each layer's forward and backward pass",
    )
    return p


def _summary(args: argparse.Namespace) -> int:
    from .models import get_model, list_models
    from .models.registry import suggestion
    from .nn.utils import model_summary

    prog = f"{PROG} summary"
    try:
        model = get_model(args.model, **dict(args.model_args))
    except KeyError as e:  # an unknown name: the message lists the registered ones
        hint = suggestion(args.model, list_models())
        print(f"{prog}: error: {e.args[0]}{hint}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, ImportError, AttributeError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    sizes = args.input_size or [(1, 3, 32, 32)]
    input_size = sizes[0] if len(sizes) == 1 else sizes
    try:
        result = model_summary.summary(
            model, input_size=input_size, depth=args.depth, timing=args.timing
        )
    except (ValueError, RuntimeError, TypeError, IndexError) as e:
        shown = " and ".join(",".join(map(str, size)) for size in sizes)
        print(
            f"{prog}: error: {args.model} does not run on input size {shown}: {e}", file=sys.stderr
        )
        return EXIT_FAILED
    print(result)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``nnlite`` command with ``argv``; ``--help``, ``--version`` and usage errors exit
    through ``SystemExit`` as argparse does.

    Args:
        argv (list of str, optional): the arguments. Default: ``sys.argv[1:]``.

    Returns:
        int: the exit code (0 when done).

    Examples:
        >>> import contextlib, io
        >>> from nnlite.cli import main
        >>> with contextlib.redirect_stdout(io.StringIO()) as printed:
        ...     code = main(["summary", "lenet", "--input-size", "1,3,32,32", "--no-timing"])
        >>> code, "Total params: 62,006" in printed.getvalue()
        (0, True)
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _DELEGATED:
        run, _ = _DELEGATED[argv[0]]
        return run(argv[1:])
    args = _parser().parse_args(argv)
    if args.depth < 0:
        _parser().error(f"--depth must be >= 0, got {args.depth}")
    return _summary(args)


if __name__ == "__main__":
    sys.exit(main())
