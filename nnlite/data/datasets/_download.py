"""Downloading with checksum verification, and archive extraction that stays inside its folder."""

from __future__ import annotations

import hashlib
import os
import sys
import tarfile
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn, cast

from ..._runtime.atomic_file import replace_atomically

if TYPE_CHECKING:
    from ..._typing import StrPath

__all__ = [
    "file_md5",
    "check_md5",
    "download_url",
    "extract_archive",
    "download_and_extract_archive",
    "DownloadError",
]

CHUNK = 1 << 20
TIMEOUT = 30.0


class DownloadError(RuntimeError):
    """A file could not be downloaded (network failure or checksum mismatch)."""


def file_md5(path: StrPath, chunk_size: int = CHUNK) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk_size), b""):
            h.update(block)
    return h.hexdigest()


def check_md5(path: StrPath, md5: str | None) -> bool:
    return os.path.isfile(path) and (md5 is None or file_md5(path) == md5)


def urlopen(url: str, timeout: float = TIMEOUT) -> Any:  # an http.client.HTTPResponse
    """Open ``url`` for reading (module-level so that tests can replace it)."""
    request = urllib.request.Request(url, headers={"User-Agent": "nnlite"})
    return urllib.request.urlopen(request, timeout=timeout)


def _progress(total: int | None, desc: str) -> Any:  # a tqdm bar, or None without tqdm
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=desc,
        leave=False,
        disable=not sys.stderr.isatty(),
    )


def _fetch_one(url: str, dest_dir: StrPath, filename: str, md5: str | None) -> str:
    """Download ``url`` to ``dest_dir/filename`` through a temporary file renamed into place
    once the MD5 is right; nothing is left behind on failure."""
    final = os.path.join(dest_dir, filename)
    h = hashlib.md5(usedforsecurity=False)
    with replace_atomically(final) as out, urlopen(url) as resp:
        length = resp.headers.get("Content-Length") if getattr(resp, "headers", None) else None
        bar = _progress(int(length) if length and str(length).isdigit() else None, filename)
        try:
            while True:
                block = resp.read(CHUNK)
                if not block:
                    break
                out.write(block)
                h.update(block)
                if bar is not None:
                    bar.update(len(block))
        finally:
            if bar is not None:
                bar.close()
        digest = h.hexdigest()
        if md5 is not None and digest != md5:
            raise DownloadError(
                f"MD5 mismatch for {url}: expected {md5}, got {digest} (a corrupt or changed "
                f"download); {final} was not written"
            )
    return final


def download_url(
    urls: str | Sequence[str], dest_dir: StrPath, filename: str, md5: str | None = None
) -> str:
    """Download ``filename`` from the first of ``urls`` (a URL or a list of mirrors) that works
    into ``dest_dir``; skip it when the file is already there with the right MD5."""
    if isinstance(urls, str):
        urls = [urls]
    os.makedirs(dest_dir, exist_ok=True)
    final = os.path.join(dest_dir, filename)
    if md5 is not None and check_md5(final, md5):
        return final
    failures: list[str] = []
    for url in urls:
        try:
            return _fetch_one(url, dest_dir, filename, md5)
        except DownloadError as e:
            failures.append(str(e))
        except (urllib.error.URLError, OSError, ValueError) as e:
            failures.append(f"{url}: {e}")
    raise DownloadError(f"could not download {filename}:\n  " + "\n  ".join(failures))


def _within(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def _check_member(member: tarfile.TarInfo, dest_real: str, archive: StrPath) -> None:
    """Refuse ``member`` unless it is a plain file or folder whose path stays in ``dest_real``."""
    name = member.name

    def refuse(reason: str) -> NoReturn:
        raise RuntimeError(f"refusing to extract {archive}: member {name!r} {reason}")

    norm = name.replace("\\", "/")
    if os.path.isabs(name) or norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        refuse("has an absolute path")
    if ".." in norm.split("/"):
        refuse("contains '..'")
    if member.issym() or member.islnk():
        # the official archives hold none, and a chain of links (y -> ., x -> y/..) can reach
        # outside the folder whatever each link looks like on its own
        refuse(
            f"is a {'symbolic' if member.issym() else 'hard'} link (to {member.linkname!r}); "
            "dataset archives hold only files and folders"
        )
    if not (member.isfile() or member.isdir()):
        refuse("is a device or other special file")
    if not _within(os.path.realpath(os.path.join(dest_real, name)), dest_real):
        refuse("would land outside the destination folder")


def _extract_member(
    tar: tarfile.TarFile, member: tarfile.TarInfo, dest_real: str, archive: StrPath
) -> None:
    """Write one checked member under ``dest_real`` without following links already on disk."""
    target = os.path.join(dest_real, member.name)
    if member.isdir():
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
    # the folders on the way may have been replaced by links since the check: check again
    if not _within(
        os.path.realpath(target if member.isdir() else os.path.dirname(target)), dest_real
    ):
        raise RuntimeError(
            f"refusing to extract {archive}: member {member.name!r} would land outside the "
            "destination folder"
        )
    if member.isdir():
        return
    fd = os.open(
        target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o666
    )
    # a plain file (checked by ``_check_member``): ``extractfile`` gives its stream
    with os.fdopen(fd, "wb") as out, cast(IO[bytes], tar.extractfile(member)) as src:
        while True:
            block = src.read(CHUNK)
            if not block:
                break
            out.write(block)


def extract_archive(path: StrPath, dest: StrPath) -> None:
    """Extract the tar archive ``path`` (any compression) into ``dest``.

    Every member is checked before anything is written: only plain files and folders whose
    paths stay inside ``dest`` are extracted; an absolute path, a ``..`` component, any link
    (symbolic or hard) or a special file stops the extraction. Files are written by nnlite
    itself (not ``tarfile``'s extraction, whose filters some Python versions lack), refusing
    to follow a link found on disk.
    """
    os.makedirs(dest, exist_ok=True)
    dest_real = os.path.realpath(dest)
    try:
        tar = tarfile.open(path, "r:*")
    except tarfile.TarError as e:
        raise RuntimeError(f"{path} is not a readable tar archive: {e}") from e
    with tar:
        try:
            members = tar.getmembers()
        except (tarfile.TarError, EOFError, OSError) as e:
            raise RuntimeError(f"{path} is not a readable tar archive: {e}") from e
        for m in members:
            _check_member(m, dest_real, path)
        for m in members:
            try:
                _extract_member(tar, m, dest_real, path)
            except OSError as e:
                raise RuntimeError(f"could not extract {m.name!r} from {path}: {e}") from e


def download_and_extract_archive(
    urls: str | Sequence[str],
    download_root: StrPath,
    filename: str,
    md5: str | None,
    extract_root: StrPath | None = None,
) -> str:
    archive = download_url(urls, download_root, filename, md5)
    extract_archive(archive, extract_root or download_root)
    return archive
