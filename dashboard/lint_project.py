"""A small project for the "Check your code" page: several uploaded ``.py`` files and/or ``.zip`` archives of them.

Everything is read in memory and never written to disk, imported or run: a ``.zip`` is opened from its bytes, its
entries checked before any is read (how many, their names, their declared sizes), and each ``.py`` entry read with a
cap one byte past the per-file limit, so an entry whose header lies about its size is still stopped there (no zip
bomb gets past ``max_file_bytes + 1`` bytes an entry). An entry name must be a plain relative path (no absolute path,
drive, ``..``, backslash or control character), and a symbolic link or an encrypted entry is refused. Other files in
an archive (data, notebooks, folders) are skipped and listed. Every refusal is one ``InputError`` naming the file.

>>> files = read_project([("train.py", b"import tensorflow as tf\\n")])
>>> sorted(files.texts), files.skipped
(['train.py'], ())
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
from dataclasses import dataclass

from gradlib import InputError

from .limits import LINT_PROJECT, ProjectLimits

__all__ = ["Project", "read_project"]

_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\:]")


@dataclass(frozen=True)
class Project:
    """The files to lint: ``texts`` maps each path (relative, ``/``-separated) to its source; ``skipped`` names the
    entries of archives that are not Python files and were not read."""

    texts: dict
    skipped: tuple = ()


def read_project(uploads: list[tuple[str, bytes]], limits: ProjectLimits = LINT_PROJECT) -> Project:
    """The ``.py`` files of ``uploads`` (name, bytes), each a ``.py`` file or a ``.zip`` of them, within ``limits``.

    Raises:
        InputError: an upload or an entry is not acceptable; the message names it and the limit.
    """
    if not uploads:
        raise InputError("upload at least one .py file or a .zip of them")
    texts: dict[str, str] = {}
    skipped: list[str] = []
    for name, data in uploads:
        _check_size(name, len(data), limits.max_upload_bytes, "the upload is")
        if name.lower().endswith(".zip"):
            _read_zip(name, data, limits, texts, skipped)
        elif name.lower().endswith(".py"):
            _add(texts, _safe_name(name.rsplit("/", 1)[-1], name), data, name, limits)
        else:
            raise InputError(f"{name!r} is neither a .py file nor a .zip of them: upload Python files or a .zip")
    if not texts:
        raise InputError("no .py file in the upload: " + (f"the archive holds only {', '.join(skipped[:5])}"
                                                          if skipped else "upload Python files or a .zip"))
    return Project(texts, tuple(skipped))


def _read_zip(name: str, data: bytes, limits: ProjectLimits, texts: dict, skipped: list) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as err:
        raise InputError(f"{name!r} is not a readable .zip archive ({err})") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > limits.max_zip_entries:
            raise InputError(f"{name!r} holds {len(entries):,} entries; at most {limits.max_zip_entries:,} are read "
                             "(zip only the Python files of the project)")
        wanted = [e for e in entries if not e.is_dir() and e.filename.lower().endswith(".py")]
        skipped.extend(f"{name}/{e.filename}" for e in entries if not e.is_dir() and e not in wanted)
        for entry in wanted:                # every name and declared size is checked before any entry is read
            _check_entry(name, entry, limits)
        declared = sum(e.file_size for e in wanted) + sum(len(t.encode("utf-8")) for t in texts.values())
        _check_size(name, declared, limits.max_total_bytes, "its Python files together are")
        for entry in wanted:
            _add(texts, _safe_name(entry.filename, f"{name}/{entry.filename}"), _read_entry(archive, name, entry,
                                                                                          limits), entry.filename,
                 limits)


def _check_entry(name: str, entry: zipfile.ZipInfo, limits: ProjectLimits) -> None:
    where = f"{name}/{entry.filename}"
    _safe_name(entry.filename, where)
    if entry.flag_bits & 0x1:
        raise InputError(f"{where!r} is encrypted: zip the files without a password")
    if stat.S_ISLNK(entry.external_attr >> 16):
        raise InputError(f"{where!r} is a symbolic link: zip the files themselves")
    _check_size(where, entry.file_size, limits.max_file_bytes, "the file is")


def _read_entry(archive: zipfile.ZipFile, name: str, entry: zipfile.ZipInfo, limits: ProjectLimits) -> bytes:
    """The entry's bytes, at most one past the per-file limit (an entry larger than its header says stops there)."""
    try:
        with archive.open(entry) as handle:
            data = handle.read(limits.max_file_bytes + 1)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError, EOFError) as err:
        raise InputError(f"{name + '/' + entry.filename!r} cannot be read from the archive ({err})") from None
    _check_size(f"{name}/{entry.filename}", len(data), limits.max_file_bytes, "the file is")
    return data


def _safe_name(path: str, where: str) -> str:
    """``path`` as a plain relative path (``a/b.py``), or InputError: absolute, a drive, ``..``, backslashes."""
    parts = path.split("/")
    if not path or path.startswith("/") or _BAD_NAME.search(path) or any(p in ("", ".", "..") for p in parts[:-1]) \
            or parts[-1] in ("", ".", ".."):
        raise InputError(f"{where!r} is not a plain relative path (no leading /, drive, .., \\ or control "
                         "characters): zip the project's folder as it is")
    return path


def _add(texts: dict, path: str, data: bytes, where: str, limits: ProjectLimits) -> None:
    if path in texts:
        raise InputError(f"{where!r}: two files are named {path!r}; upload each file once")
    if len(texts) >= limits.max_files:
        raise InputError(f"{where!r} would be Python file number {len(texts) + 1}; at most {limits.max_files} are "
                         "checked together (upload the files that compute your gradients and what they import)")
    _check_size(where, len(data), limits.max_file_bytes, "the file is")
    total = len(data) + sum(len(t.encode("utf-8")) for t in texts.values())
    _check_size(where, total, limits.max_total_bytes, "the Python files together, with it, are")
    try:
        texts[path] = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{where!r} is not UTF-8 text (at byte offset {err.start}): save it as UTF-8") from None


def _check_size(where: str, size: int, limit: int, what: str) -> None:
    if size > limit:
        raise InputError(f"{where!r}: {what} {size:,} bytes; at most {limit:,} are accepted")
