"""Shared test settings: nnlite's generator and numpy's are seeded before every test, tests of
optional packages skip with a reason saying what to install, skips are summed up by reason, and
tests that need the machine to themselves run alone when pytest-xdist runs the suite in parallel.

Optional packages (``optional_modules.py``): a test marked ``@pytest.mark.needs("matplotlib")``
skips when matplotlib cannot be imported, and every skip for a missing optional module
(``pytest.importorskip`` included) gets the reason ``matplotlib is not installed: pip install -e
".[report]"``. The README's test command thus passes on a bare install; the summary at the end
lists each reason once, with a count.

A test is serial when it is marked ``@pytest.mark.serial`` or lives in a file of ``SERIAL_FILES``.
Under xdist, serial tests (and the tests sharing their session fixtures) go to one worker
(``--dist loadgroup``), and a lock shared by the workers lets a serial test start only when no
other test runs, and no other test start while it runs.
"""

import collections
import contextlib
import gc
from pathlib import Path

import numpy as np
import pytest
from optional_modules import OPTIONAL, explained, importable, missing_reason

import nnlite as nl

_importorskip = pytest.importorskip


def _importorskip_naming_the_install(modname, minversion=None, reason=None, **kwargs):
    """``pytest.importorskip`` whose skip for an absent optional module always names what installs
    it: a test's own reason ("PyTorch is the oracle") gives way to importorskip's, which
    ``explained`` rewrites, so the summary groups every such skip under one line per package."""
    if reason is not None and modname.split(".")[0] in OPTIONAL and not importable(modname):
        reason = None
    return _importorskip(modname, minversion=minversion, reason=reason, **kwargs)


pytest.importorskip = _importorskip_naming_the_install

try:
    import fcntl
except ImportError:  # not POSIX: no cross-process lock, serial tests only keep their group
    fcntl = None

TESTS = Path(__file__).resolve().parent

# Files whose every test is serial: MPI jobs of 2-3 ranks each with their own threads and
# timeouts checked, and the headless Chromium that renders the run report. (The reducer's tests,
# tests/nn/parallel/test_distributed_reducer.py, run in one process with a one-rank stand-in and
# check no timing: they share the machine.)
SERIAL_FILES = (
    "nn/parallel/test_distributed.py",
    "nn/parallel/test_distributed_train.py",
    "report/test_report_browser.py",
)
# Folders whose tests share session fixtures with serial tests: kept on the serial tests' worker
# so that the fixtures (whole training runs) are built once.
SERIAL_COMPANIONS = ("report/",)
SERIAL_GROUP = "serial"
SKIP_SUMMARY_LINES = 25

# The slowest tests (whole training runs, MPI jobs, a browser, example scripts, the large
# pretrained networks), by path or node id prefix: marked ``slow``, so that
# ``python -m pytest -m "not slow"`` runs the rest quickly.
SLOW = (
    "train/test_train_fashion_mnist_real.py",
    "train/test_train_faults.py::test_non_finite_values_stop_before_anything_is_saved",
    "train/test_train_faults.py::test_sigterm_keeps_the_last_checkpoint",
    "nn/parallel/test_distributed.py",
    "nn/parallel/test_distributed_train.py",
    "report/test_report_browser.py",
    "models/test_pretrained_weights.py",
    "compat/",
    "examples/",
)


@pytest.fixture(autouse=True)
def _seed():
    nl.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002  (random transforms draw from numpy's global generator)
    yield


def pytest_configure(config):  # the serial and needs markers are declared in pyproject.toml
    if getattr(config, "workerinput", None) is not None and fcntl is not None:
        # xdist gives each worker the base temp folder RUN/popen-gwN: RUN is this run's own
        share_dir = Path(config.option.basetemp).parent
        config.stash[_SHARE] = MachineShare(share_dir / "machine-share")


def pytest_unconfigure(config):
    share = config.stash.get(_SHARE, None)
    if share is not None:
        share.close()


def pytest_collection_finish(session):
    # Collection leaves some 300,000 long-lived objects (PyTorch, nnlite, the test items). Every
    # full garbage collection, the automatic ones and the gc.collect() of the tests that check
    # freeing, walked them all: 2-3 s each under coverage on a busy machine. Frozen, they are
    # skipped (measured on tests/autograd and tests/nn/test_nn_ops.py: 42 s of collections
    # down to 8 s); the tests' own objects are collected as before.
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            rel = Path(item.fspath).resolve().relative_to(TESTS).as_posix()
        except ValueError:  # a test outside tests/ (given by path)
            continue
        if rel in SERIAL_FILES:
            item.add_marker(pytest.mark.serial)
        for marker in item.iter_markers("needs"):
            missing = [m for m in marker.args if not importable(m)]
            if missing:
                item.add_marker(pytest.mark.skip(reason=missing_reason(missing[0])))
        node = rel + "::" + item.nodeid.partition("::")[2]
        if node.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("serial") or rel.startswith(SERIAL_COMPANIONS):
            item.add_marker(pytest.mark.xdist_group(SERIAL_GROUP))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.skipped:
        report.longrepr = explained(report.longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # a module-level importorskip
    report = (yield).get_result()
    if report.skipped:
        report.longrepr = explained(report.longrepr)


def pytest_terminal_summary(terminalreporter):
    """The skips counted by reason, most frequent first, on one screen (``-rs`` lists each test)."""
    counts = collections.Counter(
        report.longrepr[2].removeprefix("Skipped: ")
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3
    )
    if not counts:
        return
    terminalreporter.write_sep("-", "skipped, by reason")
    shown = counts.most_common(SKIP_SUMMARY_LINES)
    width = terminalreporter.config.get_terminal_writer().fullwidth - 8
    for reason, count in shown:
        line = " ".join(reason.split())
        terminalreporter.write_line(
            f"{count:5d}  {line if len(line) <= width else line[: width - 3] + '...'}"
        )
    if len(counts) > len(shown):
        rest = sum(counts.values()) - sum(count for _, count in shown)
        terminalreporter.write_line(
            f"       and {rest} more for {len(counts) - len(shown)} other reasons (-rs lists them)"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # Around setup, call and teardown, so that fixtures a serial test builds are covered too.
    share = item.config.stash.get(_SHARE, None)
    if share is None:
        yield
        return
    with share.hold(exclusive=item.get_closest_marker("serial") is not None):
        yield


class MachineShare:
    """A readers-writer lock between the xdist workers of one run, on two lock files.

    Ordinary tests hold the main lock shared, serial tests hold it exclusively. Every test takes
    the gate lock while it waits for the main lock, so a waiting serial test keeps new tests from
    starting (otherwise the other workers' back-to-back tests could starve it).
    """

    def __init__(self, path):
        # both stay open for the whole session (a lock lives as long as its open file)
        self._main = open(f"{path}.main", "a+")
        self._gate = open(f"{path}.gate", "a+")

    @contextlib.contextmanager
    def hold(self, exclusive):
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(self._main, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(self._main, fcntl.LOCK_UN)

    def close(self):
        self._main.close()
        self._gate.close()


_SHARE = pytest.StashKey[MachineShare]()
