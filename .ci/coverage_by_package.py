#!/usr/bin/env python
"""Line and branch coverage per package of nnlite, from coverage.py's JSON report.

    python .ci/coverage_by_package.py coverage.json [--fail-under 85]

A package is a subpackage of nnlite (nnlite/nn/, nnlite/data/, ...; nested ones count into their
top one) or a top-level module (nnlite/cli.py). With --fail-under, the exit code is 1 when a
package's line coverage is below that percentage.
"""

import argparse
import json
import sys
from collections import defaultdict
from pathlib import PurePosixPath


def package_of(path):
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if "nnlite" not in parts:
        return None
    rest = parts[parts.index("nnlite") + 1 :]
    if len(rest) == 1:
        return "nnlite/" + rest[0]  # a top-level module
    return "nnlite/" + rest[0] + "/"


def summarize(report):
    """{package: [statements, covered lines, branches, covered branches]} from the JSON report."""
    totals = defaultdict(lambda: [0, 0, 0, 0])
    for path, entry in report["files"].items():
        package = package_of(path)
        if package is None:
            continue
        s = entry["summary"]
        row = totals[package]
        row[0] += s["num_statements"]
        row[1] += s["covered_lines"]
        row[2] += s.get("num_branches", 0)
        row[3] += s.get("covered_branches", 0)
    return dict(sorted(totals.items()))


def percent(covered, total):
    return 100.0 if total == 0 else 100.0 * covered / total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report", help="the file `coverage json` (or --cov-report=json:FILE) wrote")
    p.add_argument("--fail-under", type=float, help="least line coverage of every package, in %%")
    args = p.parse_args(argv)
    with open(args.report) as f:
        totals = summarize(json.load(f))
    width = max(len(name) for name in [*totals, "package"])
    print(f"{'package':<{width}}  {'lines':>7} {'line %':>7}  {'branches':>8} {'branch %':>8}")
    below = []
    sums = [0, 0, 0, 0]
    for name, (stmts, lines, branches, taken) in totals.items():
        line_pct = percent(lines, stmts)
        mark = ""
        if args.fail_under is not None and line_pct < args.fail_under:
            below.append(name)
            mark = "  < " + f"{args.fail_under:g}%"
        print(
            f"{name:<{width}}  {stmts:>7} {line_pct:>6.1f}%  {branches:>8} "
            f"{percent(taken, branches):>7.1f}%{mark}"
        )
        sums = [a + b for a, b in zip(sums, (stmts, lines, branches, taken))]
    print(
        f"{'total':<{width}}  {sums[0]:>7} {percent(sums[1], sums[0]):>6.1f}%  {sums[2]:>8} "
        f"{percent(sums[3], sums[2]):>7.1f}%"
    )
    if below:
        print(f"line coverage under {args.fail_under:g}%: {', '.join(below)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
