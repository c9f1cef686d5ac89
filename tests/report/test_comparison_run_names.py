"""Run folders whose names mean something to matplotlib's math text (``$...$``) are drawn as
written on the comparison page: no crash on an unknown TeX command, no formula."""

import html
import shutil

import pytest

pytest.importorskip("matplotlib", reason="the comparison page's plots need matplotlib")


@pytest.mark.parametrize("name", [r"lr$\undefinedmacro$", r"lr$\alpha$-0.1", "cost $5 and $6"])
def test_a_run_folder_named_like_math_text(finished_run, tmp_path, name):
    from nnlite.report.writer import write_comparison

    run, _ = finished_run
    odd = tmp_path / name
    shutil.copytree(run, odd)
    out = tmp_path / "cmp.html"
    write_comparison([str(run), str(odd)], str(out))
    page = out.read_text(encoding="utf-8")
    assert page.count('<figure class="plot"><svg') == 5
    # the accuracy legend shows the name as one SVG text, as typed (math text would have drawn
    # \alpha as a Greek letter, in pieces)
    assert f">{html.escape(name, quote=False)}</text>" in page
