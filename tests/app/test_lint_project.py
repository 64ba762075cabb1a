"""dashboard.lint_project: a project uploaded to the "Check your code" page, read in memory within its limits.

Every limit is tested at its last good and first bad value; every refusal is one InputError naming the file.
"""

from __future__ import annotations

import io
import stat
import tracemalloc
import zipfile

import pytest

from dashboard.limits import LINT_PROJECT, ProjectLimits
from dashboard.lint_project import read_project
from gradlib import InputError

LIMITS = LINT_PROJECT


def zipped(entries: dict, *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def python(size: int) -> bytes:
    """A valid Python file of exactly ``size`` bytes."""
    return b"x = 1\n" + b"#" * (size - 7) + b"\n"


def test_several_files_and_a_zip_make_one_project_and_other_files_are_skipped():
    archive = zipped({"pkg/nets.py": b"import tensorflow as tf\n", "pkg/data.csv": b"1,2\n", "pkg/": b""})
    project = read_project([("train.py", b"from pkg.nets import tf\n"), ("code.zip", archive)])
    assert sorted(project.texts) == ["pkg/nets.py", "train.py"]
    assert project.skipped == ("code.zip/pkg/data.csv",)
    assert project.texts["train.py"] == "from pkg.nets import tf\n"


def test_a_utf8_byte_order_mark_is_dropped_and_other_encodings_are_refused_by_name():
    assert read_project([("a.py", b"\xef\xbb\xbfx = 1\n")]).texts == {"a.py": "x = 1\n"}
    with pytest.raises(InputError, match=r"'b\.py' is not UTF-8 text \(at byte offset 5\)"):
        read_project([("b.py", b"x = '\xe9'\n")])


def test_the_file_count_last_good_and_first_bad():
    files = [(f"m{k}.py", b"x = 1\n") for k in range(LIMITS.max_files)]
    assert len(read_project(files).texts) == LIMITS.max_files == 20
    with pytest.raises(InputError, match=r"'m20\.py' would be Python file number 21; at most 20 are checked"):
        read_project(files + [("m20.py", b"x = 1\n")])
    archive = zipped({f"m{k}.py": b"x = 1\n" for k in range(LIMITS.max_files + 1)})
    with pytest.raises(InputError, match=r"'m20\.py' would be Python file number 21"):
        read_project([("p.zip", archive)])


def test_the_bytes_of_one_file_last_good_and_first_bad_uploaded_and_zipped():
    good, bad = python(LIMITS.max_file_bytes), python(LIMITS.max_file_bytes + 1)
    assert len(good) == 20_000 and len(read_project([("a.py", good)]).texts["a.py"]) == 20_000
    with pytest.raises(InputError, match=r"'a\.py': the file is 20,001 bytes; at most 20,000 are accepted"):
        read_project([("a.py", bad)])
    assert read_project([("p.zip", zipped({"a.py": good}))]).texts["a.py"].encode() == good
    with pytest.raises(InputError, match=r"'p\.zip/a\.py': the file is 20,001 bytes; at most 20,000"):
        read_project([("p.zip", zipped({"a.py": bad}))])


def test_the_bytes_of_all_files_last_good_and_first_bad():
    five = [(f"m{k}.py", python(20_000)) for k in range(5)]
    assert sum(len(d) for _, d in five) == LIMITS.max_total_bytes == 100_000
    assert len(read_project(five).texts) == 5
    with pytest.raises(InputError, match=r"'m5\.py': the Python files together, with it, are 100,006 bytes; "
                                         r"at most 100,000"):
        read_project(five + [("m5.py", b"y = 2\n")])
    archive = zipped({f"m{k}.py": python(20_000) for k in range(5)} | {"m5.py": b"y = 2\n"})
    with pytest.raises(InputError, match=r"'p\.zip': its Python files together are 100,006 bytes; at most 100,000"):
        read_project([("p.zip", archive)])


def _archive_of(size: int) -> bytes:
    """A stored .zip of exactly ``size`` bytes: one small .py file and padding that is not Python."""
    pad = size
    for _ in range(3):
        data = zipped({"a.py": b"x = 1\n", "pad.bin": b"\0" * pad}, method=zipfile.ZIP_STORED)
        pad += size - len(data)
    assert len(data) == size
    return data


def test_the_bytes_of_one_upload_last_good_and_first_bad():
    assert read_project([("p.zip", _archive_of(LIMITS.max_upload_bytes))]).skipped == ("p.zip/pad.bin",)
    with pytest.raises(InputError, match=r"'p\.zip': the upload is 1,000,001 bytes; at most 1,000,000"):
        read_project([("p.zip", _archive_of(LIMITS.max_upload_bytes + 1))])


def test_the_entries_of_an_archive_last_good_and_first_bad():
    entries = {"a.py": b"x = 1\n"} | {f"d{k}.txt": b"" for k in range(LIMITS.max_zip_entries - 1)}
    assert len(read_project([("p.zip", zipped(entries))]).skipped) == 199
    entries["one_more.txt"] = b""
    with pytest.raises(InputError, match=r"'p\.zip' holds 201 entries; at most 200 are read"):
        read_project([("p.zip", zipped(entries))])


def test_a_zip_bomb_is_refused_by_its_declared_size_before_anything_is_decompressed():
    bomb = zipped({"big.py": b"#" * 50_000_000})              # 50 MB of one byte, about 50 kB compressed
    assert len(bomb) < LIMITS.max_upload_bytes
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"'bomb\.zip/big\.py': the file is 50,000,000 bytes; at most 20,000"):
            read_project([("bomb.zip", bomb)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


def _lying(declared: int, real: bytes) -> bytes:
    """A .zip whose one entry's headers declare ``declared`` bytes but whose data decompresses to ``real``."""
    data = zipped({"a.py": real})
    real_size = len(real).to_bytes(4, "little")
    return data.replace(real_size, declared.to_bytes(4, "little"))


def test_an_entry_that_lies_about_its_size_is_never_read_past_the_limit():
    archive = _lying(100, b"#" * 30_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"'p\.zip/a\.py' cannot be read from the archive|'p\.zip/a\.py': the "
                                             r"file is 20,001 bytes"):
            read_project([("p.zip", archive)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak


def _encrypted(data: bytes) -> bytes:
    """The archive with its entries' "encrypted" flag set, in the local and the central headers (zipfile writes
    none)."""
    data = bytearray(data)
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature)
        data[start + at] |= 0x1
    return bytes(data)


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "a/../../evil.py", "C:/evil.py", "a\\..\\evil.py",
                                  "a//b.py", "./a.py", "a/\x01.py"])
def test_an_entry_name_that_could_leave_the_project_is_refused(name):
    with pytest.raises(InputError, match=r"is not a plain relative path"):
        read_project([("p.zip", zipped({name: b"x = 1\n"}))])


def test_a_symbolic_link_and_an_encrypted_entry_are_refused_by_name():
    link = zipfile.ZipInfo("link.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(InputError, match=r"'p\.zip/link\.py' is a symbolic link"):
        read_project([("p.zip", zipped({link: b"/etc/passwd"}))])
    with pytest.raises(InputError, match=r"'p\.zip/locked\.py' is encrypted"):
        read_project([("p.zip", _encrypted(zipped({"locked.py": b"x = 1\n"})))])


def test_bad_uploads_get_one_clear_message_naming_the_file():
    with pytest.raises(InputError, match=r"'notes\.txt' is neither a \.py file nor a \.zip"):
        read_project([("notes.txt", b"hi")])
    with pytest.raises(InputError, match=r"'p\.zip' is not a readable \.zip archive"):
        read_project([("p.zip", b"PK\x03\x04 not really")])
    with pytest.raises(InputError, match=r"two files are named 'a\.py'"):
        read_project([("a.py", b"x = 1\n"), ("p.zip", zipped({"a.py": b"y = 2\n"}))])
    with pytest.raises(InputError, match=r"no \.py file in the upload: the archive holds only p\.zip/data\.csv"):
        read_project([("p.zip", zipped({"data.csv": b"1\n"}))])
    with pytest.raises(InputError, match=r"upload at least one \.py file"):
        read_project([])


def test_other_limits_can_be_given():
    small = ProjectLimits(max_files=1)
    with pytest.raises(InputError, match=r"at most 1 are checked together"):
        read_project([("a.py", b"x = 1\n"), ("b.py", b"y = 2\n")], small)
