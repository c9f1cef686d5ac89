"""The suite's own rules: a test of an optional module skips naming what to install, the skips are
summed up by reason, and no folder or helper under tests/ takes the name of a module to import."""

import importlib.metadata
import sys
import textwrap
from pathlib import Path

import optional_modules

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


def test_missing_optional_modules_skip_naming_the_extra(pytester, monkeypatch):
    monkeypatch.setitem(optional_modules.OPTIONAL, "nnlite_absent", 'pip install -e ".[absent]"')
    pytester.makeconftest((TESTS / "conftest.py").read_text())
    pytester.makepyfile(
        test_marked=textwrap.dedent(
            """
            import pytest

            @pytest.mark.needs("numpy", "nnlite_absent")
            def test_marked():
                raise AssertionError("runs without its module")

            def test_in_the_body():
                pytest.importorskip("nnlite_absent.sub")

            def test_another_reason():
                pytest.skip("not on this machine")

            def test_runs():
                pass
            """
        ),
        test_module_level='import pytest\npytest.importorskip("nnlite_absent")\n',
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist", "-rs")
    result.assert_outcomes(passed=1, skipped=4)
    reason = 'nnlite_absent is not installed: pip install -e ".[absent]"'
    out = result.stdout.str()
    summary = out.split("- skipped, by reason -")[1].splitlines()[1:]
    assert summary[:2] == [f"    3  {reason}", "    1  not on this machine"], out
    assert f"test_marked.py:3: {reason}" in out  # -rs shows the same reason per test


def test_summary_keeps_to_one_screen(pytester):
    pytester.makeconftest((TESTS / "conftest.py").read_text())
    pytester.makepyfile(
        "import pytest\n\n@pytest.mark.parametrize('i', range(40))\n"
        "def test_many(i):\n    pytest.skip(f'reason {i}')\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
    lines = result.stdout.str().split("skipped, by reason")[1].splitlines()[1:]
    assert len([line for line in lines if line.strip().startswith("1  reason")]) == 25
    assert "       and 15 more for 15 other reasons (-rs lists them)" in lines


def test_no_test_folder_or_helper_takes_a_module_name():
    # pytest puts tests/ and every folder of test files on sys.path. A folder without __init__.py
    # only loses to a module that is installed (tests/multiprocessing to the standard library's):
    # named like an optional module, it would be imported in place of the missing package (as
    # tests/onnx once was). A helper module beside test files wins over any installed module.
    folders = {p.name for p in TESTS.rglob("*") if p.is_dir() and p.name != "__pycache__"}
    on_path = {p.parent for p in TESTS.rglob("*.py") if p.name.startswith(("test_", "conftest"))}
    helpers = {
        p.stem
        for folder in on_path
        for p in folder.glob("*.py")
        if not p.name.startswith(("test_", "conftest"))
    }
    installed = set(sys.stdlib_module_names) | set(importlib.metadata.packages_distributions())
    assert not folders & set(optional_modules.OPTIONAL)
    assert not helpers & (installed | set(optional_modules.OPTIONAL))
    assert {"optional_modules", "train_helpers", "parity"} <= helpers  # the check sees them
