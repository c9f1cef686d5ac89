"""One writer replaces files: fsynced, renamed over the old file, the folder fsynced; a failure
leaves the old file and no temporary one."""

import os
import re
import stat
from pathlib import Path

import pytest

from nnlite._runtime import atomic_file
from nnlite._runtime.atomic_file import replace_atomically, write_atomically

PACKAGE = Path(__file__).resolve().parents[2] / "nnlite"


def test_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "status.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_atomically(path, "new ü")
    assert path.read_text(encoding="utf-8") == "new ü"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["status.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk full"), replace_atomically(path) as f:
        f.write(b"half")
        raise RuntimeError("disk full")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["weights.bin"]


def test_the_file_and_its_folder_are_fsynced(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(atomic_file.os, "fsync", fsync)
    write_atomically(tmp_path / "a.txt", b"x")
    assert synced == [False, True]  # the file's data, then the folder's entry


def test_no_other_module_renames_files_over_others():
    # every replacement goes through atomic_file; the one rename left swaps a symlink
    allowed = {"_runtime/atomic_file.py": 1, "train/trainer.py": 1}
    found = {}
    for path in PACKAGE.rglob("*.py"):
        count = len(re.findall(r"\bos\.(?:replace|rename)\(", path.read_text(encoding="utf-8")))
        if count:
            found[path.relative_to(PACKAGE).as_posix()] = count
    assert found == allowed
