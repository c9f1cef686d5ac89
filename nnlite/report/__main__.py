"""``python -m nnlite.report RUN_DIR [RUN_DIR ...] [-o FILE]``."""

import argparse
import sys

from .run_folder import RunFolderError
from .writer import write_comparison, write_report


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m nnlite.report",
        description="Rebuild a run's report.html, or write one page comparing several runs.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders written by train.py")
    p.add_argument(
        "-o",
        "--output",
        default="comparison.html",
        help="the comparison page written for several runs (default: comparison.html)",
    )
    args = p.parse_args(argv)
    try:
        if len(args.runs) == 1:
            path = write_report(args.runs[0])
        else:
            path = write_comparison(args.runs, args.output)
    except RunFolderError as e:
        print(f"python -m nnlite.report: error: {e}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
