"""``python -m nnlite.report RUN_DIR [RUN_DIR ...] [-o FILE] [--open]``."""

import argparse
import pathlib
import sys
import webbrowser

from .run_folder import RunFolderError
from .writer import write_comparison, write_report


def main(argv: list[str] | None = None, prog: str = "python -m nnlite.report") -> int:
    """Run the command; returns the exit code (0 written, 2 not a run folder or bad usage).
    ``prog`` names the program in usage and messages."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Rebuild a run's report.html, or write one page comparing several runs.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders written by train.py")
    p.add_argument(
        "-o",
        "--output",
        default="comparison.html",
        help="the comparison page written for several runs (default: comparison.html)",
    )
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    args = p.parse_args(argv)
    try:
        if len(args.runs) == 1:
            path = write_report(args.runs[0])
        else:
            path = write_comparison(args.runs, args.output)
    except RunFolderError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    print(path)
    if args.open:
        uri = pathlib.Path(path).resolve().as_uri()
        if not webbrowser.open(uri):
            print(f"{prog}: no web browser found; open {uri} in one", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
