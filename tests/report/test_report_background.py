"""The page written off the training path: a page after every epoch, the final page waited for
(also after Ctrl-C, an error, or a writer that died), and machine facts read without importing
packages."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from train_helpers import ROOT, fashion_sections, make_config, run_dirs, write_idx_dataset

from nnlite.report import TrainingObserver
from nnlite.train import Trainer, load_config


def _config(tmp_path, epochs):
    write_idx_dataset(tmp_path / "fm", n_train=16, n_test=8)
    return load_config(
        make_config(tmp_path, epochs=epochs, log_every=100, **fashion_sections(tmp_path))
    )


def _state(run_dir):
    page = (Path(run_dir) / "report.html").read_text()
    return page.split('data-state="', 1)[1].split('"', 1)[0], page


def test_a_page_after_every_epoch_and_the_final_page_after_the_last(tmp_path):
    report = TrainingObserver()
    seen = []

    def check_page(run_dir, state, message=None):
        if state == "running":
            report.wait()
            page_state, page = _state(run_dir)
            seen.append((page_state, f"{len(seen) + 1} of 2 epochs done" in page))

    trainer = Trainer(_config(tmp_path, 2), progress=False, observers=[report, check_page])
    trainer.fit()
    assert seen == [("running", True), ("running", True)]
    # the final page was waited for: written when fit() returns, the writer process gone
    assert _state(trainer.run_dir)[0] == "finished"
    assert report._writer is None


def test_final_page_after_an_error_in_training(tmp_path):
    report = TrainingObserver()

    def fail_after_first_epoch(run_dir, state, message=None):
        if state == "running":
            raise RuntimeError("disk on fire")

    trainer = Trainer(
        _config(tmp_path, 3), progress=False, observers=[report, fail_after_first_epoch]
    )
    with pytest.raises(RuntimeError, match="disk on fire"):
        trainer.fit()
    state, page = _state(trainer.run_dir)
    assert state == "failed" and "disk on fire" in page


def test_final_page_written_here_when_the_writer_died(tmp_path):
    report = TrainingObserver()

    def kill_writer(run_dir, state, message=None):
        if state == "running" and report._writer is not None:
            report._writer._process.kill()
            report._writer._process.wait()

    trainer = Trainer(_config(tmp_path, 2), progress=False, observers=[report, kill_writer])
    trainer.fit()
    assert _state(trainer.run_dir)[0] == "finished"


def test_machine_info_imports_no_package_to_read_its_version():
    code = (
        "import sys\n"
        "from nnlite.report.machine import machine_info\n"
        "info = machine_info()\n"
        "print(info['numpy'], info['cpu'] != '', 'tensorboardX' in sys.modules, 'torch' in sys.modules,"
        " 'matplotlib' in sys.modules)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    import numpy

    assert proc.stdout.split() == [numpy.__version__, "True", "False", "False", "False"]


def test_the_writer_does_not_run_the_users_script_again(tmp_path):
    # a script that trains at its top level, with no ``if __name__ == "__main__"`` guard
    config = make_config(tmp_path, epochs=2, log_every=100, **fashion_sections(tmp_path))
    write_idx_dataset(tmp_path / "fm", n_train=16, n_test=8)
    script = tmp_path / "script.py"
    script.write_text(
        "from nnlite.report import TrainingObserver\n"
        "from nnlite.train import Trainer, load_config\n"
        "with open('ran.txt', 'a') as f:\n"
        "    f.write('ran\\n')\n"
        f"Trainer(load_config({str(config)!r}), progress=False, observers=[TrainingObserver()]).fit()\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ran.txt").read_text() == "ran\n"
    (run_dir,) = run_dirs(tmp_path / "runs")
    assert _state(run_dir)[0] == "finished"


def test_last_epochs_page_and_final_page_drawn_once(monkeypatch):
    """The end of training arriving just after the last epoch's page: one final page."""
    import sys as _sys
    import threading
    import time
    from multiprocessing import Pipe

    from nnlite._runtime import threads
    from nnlite.report import background, page_writer

    drawn = []

    class CountingWriter:
        def __call__(self, run_dir, final):
            drawn.append((run_dir, final))

    monkeypatch.setattr(page_writer, "PageWriter", CountingWriter)
    monkeypatch.setattr(threads, "limit_threads", lambda n: None)
    ours, theirs = Pipe()
    saved_path = list(_sys.path)
    server = threading.Thread(target=lambda: _serve_until_closed(background, theirs))
    server.start()
    try:
        ours.send(saved_path)
        ours.send(("run", False))  # the last epoch's page
        time.sleep(0.1)  # the trainer's report, between the two
        ours.send(("run", True))  # training stopped: the final page, waited for
        assert ours.poll(30) and ours.recv() == background._FINAL_DONE
    finally:
        ours.close()
        server.join(30)
        _sys.path[:] = saved_path
    assert drawn == [("run", True)]


def _serve_until_closed(background, conn):
    try:
        background._serve(conn)
    except (EOFError, OSError):
        pass
