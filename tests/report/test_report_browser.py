"""The run pages in a real browser: headless Chromium loads each page (finished, running, stopped on
a NaN loss), runs its script without errors, lays the plots out with a size, and draws them."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

CHROMIUM = next(
    (
        p
        for p in (
            "/usr/bin/chromium",
            shutil.which("chromium") or "",
            shutil.which("chromium-browser") or "",
        )
        if p and os.path.exists(p)
    ),
    None,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt install chromium); "
    "the browser test of the run report is skipped",
)


def chromium(tmp_path, *args):
    """Run headless Chromium with a fresh profile and no network chatter; returns the process."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--hide-scrollbars",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def check_in_browser(page, tmp_path, expected_plots):
    url = page.resolve().as_uri()
    dom = chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    errors = [
        line
        for line in dom.stderr.splitlines()
        if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)
    ]
    assert not errors, errors
    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stdout[:500]
    # set by the page's script once it has measured every plot: it ran, and every plot has a box
    plots = re.search(r'data-plots="(\d+)"', body.group(1))
    drawn = re.search(r'data-plots-drawn="(\d+)"', body.group(1))
    assert plots and drawn, body.group(0)
    assert int(plots.group(1)) == int(drawn.group(1)) == expected_plots

    shot = tmp_path / f"{page.stem}.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1800", url)
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert pixels.std() > 20, "blank screenshot"
    # matplotlib's first colour (#1f77b4) draws the curves and bars: the plots are painted
    blue = (np.abs(pixels - np.array([31, 119, 180])).sum(axis=2) < 40).sum()
    assert blue > 500, f"only {blue} plot-coloured pixels on the screenshot"
    return dom.stdout


@pytest.mark.parametrize(
    "kind, words",
    [
        ("finished", "Finished"),
        ("running", 'data-state="running"'),
        ("nan", "Stopped: the loss became NaN or infinite"),
    ],
)
def test_run_pages_in_browser(kind, words, request, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL")
    if kind == "running":
        page = request.getfixturevalue("running_page")
    else:
        run, _ = request.getfixturevalue(f"{kind}_run")
        page = run / "report.html"
    dom = check_in_browser(page, tmp_path, expected_plots=7)
    assert words in dom
