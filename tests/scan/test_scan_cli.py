"""python -m gradlib.scan: results equal the library's, every bad file or argument gets a message and exit 2."""

import io
import json
import os
import re
import struct
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import keras
import numpy as np
import pandas as pd
import pytest
import tensorflow as tf

import gradlib
import scan_models
from gradlib.scan import _cli

TESTS = Path(__file__).parent
CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
BASE = ["--model", "scan_models:classifier", "--loss", "sparse_categorical_crossentropy", "--from-logits", "--quiet"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scan")
    x, y = scan_models.arrays(41)
    np.savez(folder / "d.npz", x=x, y=y, features=x)
    np.save(folder / "x.npy", x)
    np.save(folder / "y.npy", y)
    frame = pd.DataFrame(x, columns=list("abcde")).assign(label=y)
    frame[["label", "a", "b", "c", "d", "e"]].to_csv(folder / "d.csv", index=False)   # the target first
    return folder


@pytest.fixture(scope="module")
def expected():
    return gradlib.scan(scan_models.classifier(), scan_models.arrays(41), loss=CCE, batch_size=256)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = _cli.main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("data", [["d.npz"], ["x.npy", "--targets", "y.npy"], ["d.csv", "--target", "label"],
                                  ["d.npz", "--x-key", "features"]])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_every_file_kind_gives_the_librarys_results(files, expected, data, suffix, tmp_path):
    argv = ["--data", files / data[0], *[files / a if a.endswith(".npy") else a for a in data[1:]]]
    code, out, err = run(*BASE, *argv, "--batch-size", 16, "--out", tmp_path / f"r{suffix}")
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "r.csv") if suffix == ".csv" else pd.read_parquet(tmp_path / "r.parquet")
    assert frame["index"].tolist() == list(range(41))
    np.testing.assert_allclose(frame["loss"], expected.losses, rtol=1e-5)
    np.testing.assert_allclose(frame["norm"], expected.norms, rtol=1e-5)
    top = int(np.argmax(expected.norms))
    assert "scanned 41 examples" in out and f"largest norms: #{top} " in out


def test_a_float64_model_keeps_its_precision_from_every_file_kind(tmp_path):
    """A float64 model got its --loss in floatx (float32) and a CSV's cells parsed as float32: losses 1.7e-6 and
    6.6e-8 off the float64 loop, which agrees to 1e-15 now."""
    rng = np.random.default_rng(12)
    x, y = rng.normal(size=(9, 5)), rng.integers(0, 3, 9)
    np.savez(tmp_path / "d.npz", x=x, y=y)
    pd.DataFrame(x, columns=list("abcde")).assign(label=y).to_csv(tmp_path / "d.csv", index=False, float_format="%.17g")
    model, losses, norms = scan_models.classifier64(), [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = keras.losses.sparse_categorical_crossentropy(y[i:i + 1], model(x[i:i + 1]), from_logits=True)[0]
        losses.append(float(value))
        norms.append(np.sqrt(sum(float(tf.reduce_sum(g * g)) for g in tape.gradient(value, model.trainable_variables))))
    for data in ("d.npz", "d.csv"):
        argv = ["--model", "scan_models:classifier64"] + BASE[2:]
        code, _, err = run(*argv, "--data", tmp_path / data, "--out", tmp_path / "r.csv", "--batch-size", 4)
        assert code == 0, err
        frame = pd.read_csv(tmp_path / "r.csv")
        np.testing.assert_allclose(frame["loss"], losses, rtol=1e-12)
        np.testing.assert_allclose(frame["norm"], norms, rtol=1e-12)



def test_a_float64_model_keeps_its_precision_under_a_loss_without_logits(tmp_path):
    """--loss mse (a class that takes no from_logits) computes in float64 for a float64 model, as the cross-entropies
    do: in floatx its losses would be float32's, 1e-7 off the float64 loop, which agrees to 1e-15."""
    rng = np.random.default_rng(13)
    x, y = rng.normal(size=(7, 5)), rng.normal(size=(7, 3))
    np.savez(tmp_path / "d.npz", x=x, y=y)
    model, losses, norms = scan_models.classifier64(), [], []
    for i in range(len(x)):
        with tf.GradientTape() as tape:
            value = tf.reduce_mean(tf.square(y[i] - model(x[i:i + 1])[0]))
        losses.append(float(value))
        norms.append(np.sqrt(sum(float(tf.reduce_sum(g * g)) for g in tape.gradient(value, model.trainable_variables))))
    code, _, err = run("--model", "scan_models:classifier64", "--loss", "mse", "--quiet", "--data", tmp_path / "d.npz",
                       "--out", tmp_path / "r.csv", "--batch-size", 4)
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "r.csv")
    np.testing.assert_allclose(frame["loss"], losses, rtol=1e-12)
    np.testing.assert_allclose(frame["norm"], norms, rtol=1e-12)

def test_own_loss_function(files, tmp_path):
    code, _, err = run("--model", "scan_models:classifier", "--loss", "scan_models:cross_entropy", "--data",
                       files / "d.npz", "--out", tmp_path / "r.csv", "--quiet")
    assert code == 0, err
    expected = gradlib.scan(scan_models.classifier(), scan_models.arrays(41), loss=CCE)
    np.testing.assert_allclose(pd.read_csv(tmp_path / "r.csv")["norm"], expected.norms, rtol=1e-5)


def test_progress_bar_on_stderr(files, tmp_path):
    code, out, err = run(*BASE[:-1], "--data", files / "d.npz", "--batch-size", 16, "--out", tmp_path / "r.csv")
    assert code == 0 and "41/41 examples" in err and "[####################] 100%" in err and "examples" not in out[:8]


def test_progress_lines():
    stream, now = io.StringIO(), [0.0]
    bar = _cli.Progress(stream, clock=lambda: now[0])
    bar(10, 40)                 # too soon after the start: nothing
    now[0] = 11.0
    bar(20, None)
    bar.finish(40)
    assert stream.getvalue() == "20 examples, 2/s\n[####################] 100% 40/40 examples, 4/s, 0:00 left\n"


@pytest.mark.parametrize("argv, match", [
    (["--data", "missing.npz"], "--data 'missing.npz': no such file"),
    (["--data", "{d}/x.npy"], "holds only x: give the targets as a second .npy file with --targets"),
    (["--data", "{d}/d.npz", "--y-key", "labels"], "has no array 'labels' \\(it has x, y, features\\)"),
    (["--data", "{d}/d.npz", "--target", "y"], "--target names a CSV column"),
    (["--data", "{d}/d.csv", "--target", "nope"], "--target 'nope' is not a column.*label, a, b"),
    (["--data", "{d}/bad.csv"], "column 'b' of the first record is 'oops', not a number"),
    (["--data", "{d}/d.txt"], "must end in one of .npz, .npy, .csv"),
    (["--data", "{d}/fake.npz"], "'.*fake.npz' is not a .npz archive \\(the zip of arrays that np.savez writes\\)"),
    (["--data", "{d}/fake.npy", "--targets", "{d}/y.npy"], "'.*fake.npy' is not a .npy file"),
    (["--data", "{d}/d.npz", "--model", "os.path"], "--model 'os.path' must be package.module:function"),
    (["--data", "{d}/d.npz", "--model", "no_such_module_xyz:f"], "could not import 'no_such_module_xyz'.*PYTHONPATH"),
    (["--data", "{d}/d.npz", "--model", "scan_models:nothing"], "'scan_models' has no 'nothing'"),
    (["--data", "{d}/d.npz", "--model", "scan_models:FEATURES"], "is a int, not a function"),
    (["--data", "{d}/d.npz", "--model", "scan_models:arrays"], "--model 'scan_models:arrays' raised TypeError"),
    (["--data", "{d}/d.npz", "--loss", "crossentropy"], "--loss 'crossentropy' is not one of sparse_categorical"),
    (["--data", "{d}/d.npz", "--loss", "mse", "--from-logits"], "--from-logits applies to the cross-entropy"),
    (["--data", "{d}/d.npz", "--out", "{d}/r.json"], "--out .* must end in .csv or .parquet"),
    (["--data", "{d}/d.npz", "--out", "/no/such/dir/r.csv"], "the directory '/no/such/dir' does not exist"),
    (["--data", "{d}/d.npz", "--batch-size", "0"], "--batch-size must be a positive integer"),
    (["--data", "{d}/d.npz", "--cpu-devices", "2"], "--cpu-devices N .* for --strategy mirrored"),
    (["--data", "{d}/d.npz", "--strategy", "multiworker"], "reads the cluster from TF_CONFIG, which is not set"),
    (["--data", "{d}/x.npy", "--targets", "{d}/x.npy", "--loss", "mse"],
     r"error: gradlib\.scan could not run the model and loss on a batch of shape \(3, 5\): InvalidArgumentError: .* "
     r"\(on the data set's first 3 examples, which gradlib\.scan checks before it scans\)\n$"),
])
def test_bad_arguments_exit_2_with_a_message(files, argv, match, tmp_path, monkeypatch):
    (files / "bad.csv").write_text("a,b,label\n1,oops,0\n")
    (files / "d.txt").write_text("1 2 3\n")
    (files / "fake.npz").write_text("x,y\n")
    (files / "fake.npy").write_text("x,y\n")
    monkeypatch.delenv("TF_CONFIG", raising=False)
    argv = [a.replace("{d}", str(files)) for a in argv]
    for flag, value in (("--model", "scan_models:classifier"), ("--loss", "sparse_categorical_crossentropy"),
                        ("--out", str(tmp_path / "r.csv"))):
        if flag not in argv:
            argv += [flag, value]
    code, out, err = run(*argv, "--quiet")
    assert code == 2 and "Traceback" not in err
    assert err.startswith("python -m gradlib.scan: error: ")
    assert re.search(match, err), err


@pytest.mark.parametrize("config, match", [
    ("not json", "is not a cluster description"),
    ('{"cluster": {"worker": ["a:1"]}}', "is not a cluster description"),
])
def test_bad_tf_config(files, config, match, tmp_path, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", config)
    code, _, err = run(*BASE, "--data", files / "d.npz", "--strategy", "multiworker", "--out", tmp_path / "r.csv")
    assert code == 2 and match in err


def test_the_module_runs_without_runpys_warning(files, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parents[1]), str(TESTS)])}
    out = subprocess.run([sys.executable, "-m", "gradlib.scan", *BASE, "--data", files / "d.npz", "--out",
                          tmp_path / "r.csv"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "RuntimeWarning" not in out.stderr and "wrote" in out.stdout
    assert len(pd.read_csv(tmp_path / "r.csv")) == 41


def test_a_bad_data_file_is_an_input_error_and_a_bad_flag_is_not(files, tmp_path):
    from gradlib.scan import _files

    (tmp_path / "fake.npz").write_text("x,y\n")
    with pytest.raises(gradlib.InputError, match=r"'.*fake.npz' is not a .npz archive"):
        _files.source(tmp_path / "fake.npz")
    with pytest.raises(gradlib.InputError, match=r"'d.npz' has no array 'labels' \(it has x, y, features\)"):
        _files.source(files / "d.npz", y_key="labels")
    with pytest.raises(gradlib.GradlibError, match="--target names a CSV column") as info:
        _files.source(files / "d.npz", target="y")
    assert not isinstance(info.value, gradlib.InputError)


# ---------------------------------------------------------------- hostile and broken data files (issue 20, item 8)
#
# Each bad file is a few KB on disk: an array's size is what its .npy header *declares*, and a zip member's
# uncompressed size is what its directory entry *claims*, so a file can claim gigabytes without holding them.
# The command must read those claims, check them against each other and the limit, and refuse before it
# allocates: exit 2, one line, no traceback.


def npy_bytes(shape, descr="<f4", data=None):
    """A .npy file's bytes: a version 1.0 header declaring ``shape`` of ``descr``, then ``data`` (default: zeros)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": tuple(shape)})
    if data is None:
        data = bytes(int(np.prod(shape)) * np.dtype(descr).itemsize)
    return buffer.getvalue() + data


def zip_claiming(path, members):
    """A zip of ``{name: (bytes, claimed uncompressed size or None)}``, its sizes patched to the claims (deflated)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (data, _) in members.items():
            archive.writestr(name, data)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
    for info in infos:
        claim = members[info.filename][1]
        if claim is None:
            continue
        struct.pack_into("<I", raw, info.header_offset + 22, claim)        # the local header's size
        central = raw.index(b"PK\x01\x02")
        while raw[central + 46:central + 46 + len(info.filename)] != info.filename.encode():
            central = raw.index(b"PK\x01\x02", central + 4)
        struct.pack_into("<I", raw, central + 24, claim)                    # the central directory's size
    path.write_bytes(bytes(raw))
    return path


def y_npy(n=41):
    return npy_bytes((n,), "<i4", np.arange(n, dtype="<i4").__mod__(3).tobytes())


def x_npy(n=41):
    return npy_bytes((n, 5), "<f4", scan_models.arrays(n)[0].astype("<f4").tobytes())


ROWS_2GB = 2**31 // 20          # x of shape (ROWS_2GB, 5) float32: 2 GiB, as the issue's deflated member


def bad_files(folder):
    """name -> the bytes of each broken file (small on disk), or a callable that writes it."""
    x, y = scan_models.arrays(41)
    huge = npy_bytes((10**10, 5), data=bytes(100))
    return {
        "huge.npz": lambda p: zip_claiming(p, {"x.npy": (huge, None), "y.npy": (y_npy(), None)}),
        "claims_2gb.npz": lambda p: zip_claiming(p, {
            "x.npy": (npy_bytes((ROWS_2GB, 5), data=b""), 128 + ROWS_2GB * 20),
            "y.npy": (npy_bytes((ROWS_2GB,), "<i4", data=b""), 128 + ROWS_2GB * 4)}),
        "member_size_lies.npz": lambda p: zip_claiming(p, {"x.npy": (x_npy(), 2**31), "y.npy": (y_npy(), None)}),
        "short_member.npz": lambda p: zip_claiming(p, {"x.npy": (npy_bytes((41, 5), data=bytes(100)), None),
                                                      "y.npy": (y_npy(), None)}),
        "not_npy_member.npz": lambda p: zip_claiming(p, {"x.npy": (b"hello, world", None), "y.npy": (y_npy(), None)}),
        "objects.npz": lambda p: zip_claiming(p, {"x.npy": (npy_bytes((41,), "|O", data=b"\x80\x04N."), None),
                                                 "y.npy": (y_npy(), None)}),
        "strings.npz": lambda p: np.savez(p, x=np.full((41, 5), "a"), y=y),
        "scalar.npz": lambda p: np.savez(p, x=np.float32(1), y=y),
        "rank3.npz": lambda p: np.savez(p, x=x[:, :, None], y=y),
        "onehot.npz": lambda p: np.savez(p, x=x, y=np.eye(3, dtype=np.float32)[y]),
        "lengths.npz": lambda p: np.savez(p, x=x, y=y[:40]),
        "empty.npz": lambda p: np.savez(p, x=x[:0], y=y[:0]),
        "truncated.npz": lambda p: p.write_bytes(zip_claiming(p, {"x.npy": (x_npy(), None),
                                                                 "y.npy": (y_npy(), None)}).read_bytes()[:300]),
        "fractional.npz": lambda p: np.savez(p, x=x, y=y + np.where(np.arange(41) % 4 == 1, 0.5, 0.0)),
        "class_5.npz": lambda p: np.savez(p, x=x, y=np.where(np.arange(41) == 30, 5, y)),
        "huge_x.npy": lambda p: p.write_bytes(huge),
        "short_x.npy": lambda p: p.write_bytes(npy_bytes((41, 5), data=bytes(300))),
        "y.npy": lambda p: p.write_bytes(y_npy()),
        "wide.csv": lambda p: p.write_text("a," * 199_999 + "label\n"),      # the issue's 200,000 columns
        "long_line.csv": lambda p: p.write_text("a,b,label\n" + "1," * 70 + "0\n"),
        "six_features.csv": lambda p: p.write_text("a,b,c,d,e,f,label\n" + "0,0,0,0,0,0,1\n" * 3),
    }


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    for name, write in bad_files(folder).items():
        write(folder / name)
    return folder


# the exact one-line messages (after "python -m gradlib.scan: error: ")
BAD_FILES = [
    (["huge.npz"], "'huge.npz' is corrupt or truncated: x declares shape (10000000000, 5) of float32, "
                   "200,000,000,000 bytes of data, but its member holds 100"),
    (["claims_2gb.npz"], "'claims_2gb.npz': x (107374182, 5) of float32 and y (107374182,) of int32 take 2,576,980,368 "
                         "bytes, more than the limit of 2,147,483,648 (2 GiB) for data held in memory; raise it with "
                         "--max-data-gb, or stream the data as CSV"),
    (["claims_2gb.npz", "--max-data-gb", "3"], "'claims_2gb.npz' is corrupt or truncated: x declares shape "
                                               "(107374182, 5) of float32, 2,147,483,640 bytes of data, but its member "
                                               "inflates to 0"),
    (["member_size_lies.npz"], "'member_size_lies.npz' is corrupt or truncated: x declares shape (41, 5) of float32, "
                               "820 bytes of data, but its member holds 2,147,483,520"),
    (["short_member.npz"], "'short_member.npz' is corrupt or truncated: x declares shape (41, 5) of float32, 820 bytes "
                           "of data, but its member holds 100"),
    (["not_npy_member.npz"], "'not_npy_member.npz': 'x' is not a readable .npy array (the format np.save writes): "
                             "the magic string is not correct; expected b'\\x93NUMPY', got b'hello,'"),
    (["objects.npz"], "'objects.npz': x holds Python objects (dtype object), which gradlib never unpickles from a "
                      "file; save it as an array of numbers (np.float32 or an integer dtype)"),
    (["strings.npz"], "'strings.npz': x must be an array of numbers, got dtype <U1; save it as np.float32 or an "
                      "integer dtype"),
    (["scalar.npz"], "'scalar.npz': x must have the examples along its first axis, got a single number (shape ())"),
    (["rank3.npz"], "'rank3.npz': x holds examples of shape (5, 1), but the model takes examples of shape (5,); "
                    "give data that fits the model (or a model that fits the data)"),
    (["onehot.npz"], "'onehot.npz': y has shape (41, 3), but sparse_categorical_crossentropy takes one class index "
                     "per example (shape (examples,)); for one-hot targets use categorical_crossentropy"),
    (["lengths.npz"], "'lengths.npz': x has 41 examples but y has 40 targets"),
    (["empty.npz"], "'empty.npz': x has no examples (shape (0, 5))"),
    (["truncated.npz"], "could not read '.*truncated.npz' as a .npz file: File is not a zip file"),
    (["fractional.npz"], "'fractional.npz': y[1] is 0.5, not a whole number (10 of 41 targets are not class indices): "
                         "sparse_categorical_crossentropy takes class indices 0 .. 2 and would truncate it; round the "
                         "targets yourself if that is meant, or use categorical_crossentropy for soft labels"),
    (["class_5.npz"], "'class_5.npz': y[30] is 5, outside the class indices 0 .. 2 of a model with 3 outputs "
                      "(1 of 41 targets are not class indices)"),
    (["huge_x.npy", "--targets", "y.npy"], "'.*huge_x.npy' is corrupt or truncated: x declares shape (10000000000, 5) "
                                           "of float32, 200,000,000,000 bytes of data, but its file holds 100"),
    (["short_x.npy", "--targets", "y.npy"], "'.*short_x.npy' is corrupt or truncated: x declares shape (41, 5) of "
                                            "float32, 820 bytes of data, but its file holds 300"),
    (["wide.csv"], "'.*wide.csv' has 200,000 columns, more than the limit of 20,000; save wide examples as arrays "
                   "instead (np.savez('data.npz', x=x, y=y))"),
    (["six_features.csv"], "'six_features.csv' has 6 feature columns (all but 'label'), shape (6,), but the model "
                           "takes examples of shape (5,); give data that fits the model (or a model that fits the "
                           "data)"),
    (["fractional.npz", "--max-data-gb", "0"], "--max-data-gb must be a positive number of GiB, got 0.0"),
]


@pytest.mark.parametrize("argv, message", BAD_FILES, ids=[a[0] if len(a) == 1 else " ".join(a) for a, _ in BAD_FILES])
def test_every_bad_file_exits_2_with_one_line_before_loading_it(bad, argv, message, tmp_path):
    data = [str(bad / a) if a.endswith((".npz", ".npy", ".csv")) else a for a in argv]
    tracemalloc.start()
    try:
        code, out, err = run(*BASE, "--data", *data, "--out", tmp_path / "r.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("python -m gradlib.scan: error: "), err
    pattern = re.escape(message).replace(re.escape(".*"), ".*")
    assert re.fullmatch(pattern, err[len("python -m gradlib.scan: error: "):-1]), err
    assert peak < 20e6, f"{peak / 1e6:.0f} MB allocated to refuse {argv[0]}"
    assert not (tmp_path / "r.csv").exists()


def test_the_line_bound_reads_a_line_without_breaks_only_up_to_it(bad, tmp_path, monkeypatch):
    from gradlib.scan import _files

    monkeypatch.setattr(_files, "MAX_LINE_CHARS", 100)
    code, _, err = run(*BASE, "--data", bad / "long_line.csv", "--out", tmp_path / "r.csv")
    assert code == 2 and err.endswith("long_line.csv': the first record is longer than 100 characters (the limit for "
                                      "one line)\n"), err


def test_a_deflated_member_is_not_inflated_before_the_checks(tmp_path):
    """A real 160 MB member of zeros deflates to ~160 KB; its header is read, the rest is never inflated."""
    rows = 8_000_000
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("x.npy", "w") as member:
            np.lib.format.write_array_header_1_0(member, {"descr": "<f4", "fortran_order": False, "shape": (rows, 5)})
            for start in range(0, rows * 20, 2**22):
                member.write(bytes(min(2**22, rows * 20 - start)))
        archive.writestr("y.npy", y_npy(10))
    assert (tmp_path / "bomb.npz").stat().st_size < 1e6
    tracemalloc.start()
    start = time.perf_counter()
    try:
        code, _, err = run(*BASE, "--data", tmp_path / "bomb.npz", "--out", tmp_path / "r.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    assert err == "python -m gradlib.scan: error: 'bomb.npz': x has 8,000,000 examples but y has 10 targets\n"
    assert peak < 5e6 and time.perf_counter() - start < 2.0


def test_the_memory_limit_is_checked_on_declared_sizes_that_are_true(tmp_path):
    """A consistent 40 MB x (deflated to KB) over a 0.03 GiB limit: refused from its header; under 0.1 GiB: read."""
    rows = 2_000_000
    x = np.zeros((rows, 5), np.float32)
    np.savez_compressed(tmp_path / "zeros.npz", x=x, y=np.zeros(rows, np.int32))
    del x
    assert (tmp_path / "zeros.npz").stat().st_size < 1e6
    from gradlib.scan import _files

    tracemalloc.start()
    try:
        with pytest.raises(gradlib.InputError, match=re.escape(
                "'zeros.npz': x (2000000, 5) of float32 and y (2000000,) of int32 take 48,000,000 bytes, more than "
                "the limit of 32,212,254 (0.03 GiB) for data held in memory")):
            _files.source(tmp_path / "zeros.npz", max_bytes=int(0.03 * 2**30))
        assert tracemalloc.get_traced_memory()[1] < 5e6
    finally:
        tracemalloc.stop()
    x, y = _files.source(tmp_path / "zeros.npz", max_bytes=int(0.1 * 2**30)).arrays
    assert x.shape == (rows, 5) and y.shape == (rows,) and not x.any()


def csv_text(rows):
    return "a,b,c,d,e,label\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


@pytest.mark.parametrize("change, message", [
    ((30, 2, "oops"), "line 32, column 'c': 'oops' is not a number; every column must be numeric (encode labels as "
                      "numbers)"),
    ((9, None, "1,2,3"), "line 11 has 3 fields but the header names 6 columns"),
    ((20, 5, "1.5"), "line 22, column 'label' is 1.5, not a whole number: sparse_categorical_crossentropy takes class "
                     "indices 0 .. 2 and would truncate it; round the targets yourself if that is meant, or use "
                     "categorical_crossentropy for soft labels"),
    ((25, 5, "-1"), "line 27, column 'label' is -1, outside the class indices 0 .. 2 of a model with 3 outputs"),
])
def test_a_bad_csv_record_past_the_first_is_named_by_line_and_column(tmp_path, change, message):
    x, y = scan_models.arrays(41)
    rows = [[*map(float, r), int(t)] for r, t in zip(x, y)]
    row, column, value = change
    if column is None:
        rows[row] = value.split(",")
    else:
        rows[row][column] = value
    (tmp_path / "d.csv").write_text(csv_text(rows))
    code, _, err = run(*BASE, "--data", tmp_path / "d.csv", "--batch-size", 8, "--out", tmp_path / "r.csv")
    assert code == 2 and err == f"python -m gradlib.scan: error: '{tmp_path / 'd.csv'}', {message}\n".replace(
        "', line 11 has", "', line 11 has"), err


def test_csv_lines_as_people_write_them(expected, tmp_path):
    """CRLF line ends, blank lines, quoted numbers, spaces, a byte-order mark: the same results as plain lines."""
    x, y = scan_models.arrays(41)
    lines = [f'"{r[0]!r}", {r[1]!r} ,{r[2]!r},{r[3]!r},{r[4]!r},{float(t)}' for r, t in zip(x.tolist(), y)]
    text = "\ufeffa,b,c,d,e,label\r\n" + "\r\n".join(lines[:20]) + "\r\n\r\n" + "\r\n".join(lines[20:]) + "\r\n"
    (tmp_path / "d.csv").write_text(text, encoding="utf-8")
    code, _, err = run(*BASE, "--data", tmp_path / "d.csv", "--batch-size", 16, "--out", tmp_path / "r.csv")
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "r.csv")
    np.testing.assert_allclose(frame["loss"], expected.losses, rtol=1e-5)
    np.testing.assert_allclose(frame["norm"], expected.norms, rtol=1e-5)


def test_whole_float_labels_are_class_indices(expected, tmp_path):
    x, y = scan_models.arrays(41)
    np.savez(tmp_path / "d.npz", x=x, y=y.astype(np.float64))
    code, _, err = run(*BASE, "--data", tmp_path / "d.npz", "--out", tmp_path / "r.csv")
    assert code == 0 and err == "", err
    np.testing.assert_allclose(pd.read_csv(tmp_path / "r.csv")["norm"], expected.norms, rtol=1e-5)


def test_non_finite_losses_and_norms_are_counted_on_stderr(expected, tmp_path):
    """Three examples with a NaN feature: exit 0 (the other 38 results are right), and a warning that counts them."""
    x, y = scan_models.arrays(41)
    x[[4, 9, 30], 1] = np.nan
    np.savez(tmp_path / "d.npz", x=x, y=y)
    code, out, err = run(*BASE, "--data", tmp_path / "d.npz", "--batch-size", 16, "--out", tmp_path / "r.csv")
    assert code == 0
    assert err == ("warning: 3 of 41 example(s) have a loss that is not finite (NaN or infinity), the first #4; look "
                   "for non-finite inputs or targets, or a loss outside its domain\n"
                   "warning: 3 of 41 example(s) have a gradient norm that is not finite (NaN or infinity), the first "
                   "#4; look for non-finite inputs or targets, or a loss outside its domain\n")
    frame = pd.read_csv(tmp_path / "r.csv")
    good = np.setdiff1d(np.arange(41), [4, 9, 30])
    assert frame["loss"].isna().sum() == 3 and frame["norm"].isna().sum() == 3
    np.testing.assert_allclose(frame["norm"][good], expected.norms[good], rtol=1e-5)
    assert "(nan)" not in out and "largest norms: #" in out


CHILD = """
import io, json, resource, sys, time
from gradlib.scan import _cli
resource.setrlimit(resource.RLIMIT_AS, (AS_BYTES, AS_BYTES))
out = []
for data in sys.argv[1:]:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, err = time.perf_counter(), io.StringIO()
    code = _cli.main(["--model", "scan_models:classifier", "--loss", "sparse_categorical_crossentropy", "--quiet",
                      "--data", data, "--out", data + ".out.csv"], stdout=io.StringIO(), stderr=err)
    out.append([code, err.getvalue(), time.perf_counter() - start,
                (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024])
print(json.dumps(out))
"""


def test_the_issues_reproducers_in_a_fresh_process_within_time_and_memory(bad, files, tmp_path):
    """200,000 columns, a 2 GB deflated member, a (10^10, 5) header, then a good file: bounded time and memory.

    The child runs under RLIMIT_AS of 6 GiB (a scan of the good file peaks near 3.3 GB of address space, most of
    it TensorFlow's reservations) and reports each file's exit code, stderr, seconds and peak-RSS growth.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parents[1]), str(TESTS)]), "TF_CPP_MIN_LOG_LEVEL": "2"}
    data = [bad / "wide.csv", bad / "claims_2gb.npz", bad / "huge.npz", files / "d.npz"]
    child = subprocess.run([sys.executable, "-c", CHILD.replace("AS_BYTES", str(6 * 2**30)), *map(str, data)], env=env,
                           capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert child.returncode == 0, child.stderr[-2000:]
    results = json.loads(child.stdout.strip().splitlines()[-1])
    for (code, err, seconds, grown), path in zip(results[:3], data):
        assert code == 2 and err.count("\n") == 1 and path.name in err, err
        assert seconds < 5 and grown < 100e6, (path.name, seconds, grown)
    assert "wide.csv' has 200,000 columns, more than the limit of 20,000" in results[0][1]
    assert "more than the limit of 2,147,483,648 (2 GiB)" in results[1][1]
    assert "x declares shape (10000000000, 5) of float32, 200,000,000,000 bytes" in results[2][1]
    assert results[3][0] == 0, results[3][1]


def test_the_exit_statuses_are_documented_in_help_and_in_the_guide():
    help_text = _cli._parser().format_help()
    readme = (TESTS.parents[1] / "docs" / "guide" / "scan.md").read_text()   # the guide's page on scanning
    meanings = ((0, "done"), (1, "anything else failed"), (2, "bad arguments, data file"), (130, "interrupted"))
    for code, meaning in meanings:
        assert re.search(rf"^  {code}\s+{meaning}", help_text, re.M), help_text
        assert f"| {code} | {meaning}" in readme


def test_the_column_limit_is_inclusive(tmp_path):
    from gradlib.scan import _files

    for columns in (_files.MAX_COLUMNS, _files.MAX_COLUMNS + 1):
        (tmp_path / "w.csv").write_text(",".join(f"c{i}" for i in range(columns)) + "\n" + "0," * (columns - 1) + "1\n")
        if columns == _files.MAX_COLUMNS:
            assert len(_files.source(tmp_path / "w.csv").columns) == columns - 1
        else:
            with pytest.raises(gradlib.InputError, match="has 20,001 columns, more than the limit of 20,000;"):
                _files.source(tmp_path / "w.csv")


def test_npz_arrays_are_read_as_numpy_reads_them(tmp_path):
    """Fortran order, big-endian, float64 and bool: the checked reader gives np.load's arrays, compressed or not."""
    from gradlib.scan import _files

    x = np.asfortranarray(scan_models.arrays(41)[0].astype(">f8"))
    y = np.arange(41) % 2 == 0
    for save in (np.savez, np.savez_compressed):
        save(tmp_path / "d.npz", x=x, y=y)
        got_x, got_y = _files.source(tmp_path / "d.npz").arrays
        with np.load(tmp_path / "d.npz") as expected:
            for got, want in ((got_x, expected["x"]), (got_y, expected["y"])):
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)


#: what pip writes as the ``gradlib-scan`` console script ([project.scripts] in pyproject.toml)
CONSOLE_SCRIPT = """import re
import sys
from gradlib.scan.__main__ import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""


def _project(folder):
    """A user's project folder: ``mymodels.py`` (the model function) beside ``d.npz``."""
    folder.mkdir()
    (folder / "mymodels.py").write_text("from scan_models import classifier as build\n")
    x, y = scan_models.arrays(41)
    np.savez(folder / "d.npz", x=x, y=y)
    return folder


def test_the_console_script_imports_the_model_from_the_current_directory(expected, tmp_path):
    """As pip installs it, the script's own folder (bin) is first on sys.path, not the current directory."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gradlib-scan").write_text(CONSOLE_SCRIPT)
    project = _project(tmp_path / "project")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parents[1]), str(TESTS)]), "TF_CPP_MIN_LOG_LEVEL": "2"}
    out = subprocess.run([sys.executable, str(tmp_path / "bin" / "gradlib-scan"), *BASE[2:], "--model", "mymodels:build",
                          "--data", "d.npz", "--out", "r.csv"], env=env, capture_output=True, text=True, timeout=180,
                         cwd=project)
    assert out.returncode == 0, out.stderr[-2000:]
    np.testing.assert_allclose(pd.read_csv(project / "r.csv")["norm"], expected.norms, rtol=1e-5)


def test_main_called_in_a_program_imports_the_model_from_the_current_directory(expected, tmp_path, monkeypatch):
    project = _project(tmp_path / "project")
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if os.path.abspath(p or os.curdir) != str(project)])
    monkeypatch.delitem(sys.modules, "mymodels", raising=False)
    code, _, err = run(*BASE[2:], "--model", "mymodels:build", "--data", "d.npz", "--out", "r.csv")
    sys.modules.pop("mymodels", None)
    assert code == 0, err
    np.testing.assert_allclose(pd.read_csv(project / "r.csv")["norm"], expected.norms, rtol=1e-5)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """``two.npz``: arrays a and b for ``scan_models:two_inputs``, p and q equal to them, others for the refusals."""
    folder = tmp_path_factory.mktemp("two")
    (a, y), (b, _) = scan_models.arrays(41), scan_models.arrays(41, seed=2)
    np.savez(folder / "two.npz", a=a, b=b, p=a, q=b, y=y, wide=np.ones((41, 7), np.float32), short=b[:40])
    return folder / "two.npz", a, b, y


def tape_norms(model, x, y):
    """Each example's loss gradient norm by a plain GradientTape, one example at a time."""
    import tensorflow as tf

    norms = []
    for i in range(len(y)):
        with tf.GradientTape() as tape:
            loss = CCE(y[i:i + 1], model([part[i:i + 1] for part in x]))
        norms.append(np.sqrt(sum(float(tf.reduce_sum(g * g)) for g in tape.gradient(loss, model.trainable_variables))))
    return np.array(norms)


@pytest.mark.parametrize("keys, order", [("a,b", "ab"), ("b,a", "ab"), ("p,q", "ab"), ("q,p", "ba")])
def test_a_model_of_two_inputs_reads_one_array_per_input(two, keys, order, tmp_path):
    """By input name (in any order) or in model.inputs order: the library's numbers for the arrays so matched."""
    path, a, b, y = two
    x = [a, b] if order == "ab" else [b, a]
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", path, "--x-key", keys,
                       "--out", tmp_path / "r.csv")
    assert code == 0, err
    norms = pd.read_csv(tmp_path / "r.csv")["norm"].to_numpy()
    expected = gradlib.scan(scan_models.two_inputs(), (x, y), loss=CCE)
    np.testing.assert_allclose(norms, expected.norms, rtol=1e-5)
    np.testing.assert_allclose(norms, tape_norms(scan_models.two_inputs(), x, y), rtol=1e-4)
    assert order == "ab" or not np.allclose(norms, tape_norms(scan_models.two_inputs(), [a, b], y), rtol=1e-2)


@pytest.mark.parametrize("argv, match", [
    (["--x-key", "a"], "--x-key 'a' names 1 array\\(s\\) of 'two.npz', but the model takes 2 inputs \\('a', 'b'\\); "
                       "give one array per input, in model.inputs order or by input name: --x-key a,b$"),
    (["--x-key", "a,b,p"], "--x-key 'a,b,p' names 3 array\\(s\\) of 'two.npz', but the model takes 2 inputs"),
    (["--x-key", "b,q"], "--x-key 'b,q': 'b' is the name of the model's input #1 but is given for input #0; give the "
                         "arrays in model.inputs order \\('a', 'b'\\), or all of them by input name$"),
    (["--x-key", "a,a"], "--x-key 'a,a' names an array twice; give the arrays of x, each once, separated by commas"),
    (["--x-key", "a,"], "--x-key 'a,' has an empty name"),
    (["--x-key", "a,y"], "--x-key 'a,y' names 'y', the array of y \\(--y-key\\)"),
    (["--x-key", "a,nope"], "'two.npz' has no array 'nope' \\(it has a, b, p, q, y, wide, short\\)"),
    (["--x-key", "p,wide"], "'two.npz': wide holds examples of shape \\(7,\\), but the model's input #1 \\('b'\\) takes "
                            "examples of shape \\(5,\\)"),
    (["--x-key", "a,short"], "'two.npz': short has 40 examples but y has 41 targets$"),
    (["--x-key", "a,b", "--max-data-gb", 1803 / 2**30], "'two.npz': a \\(41, 5\\) of float32, b \\(41, 5\\) of float32 "
                                                        "and y \\(41,\\) of int32 take 1,804 bytes, more than the "
                                                        "limit of 1,803 "),
])
def test_bad_input_arrays_exit_2_with_what_and_where(two, argv, match, tmp_path):
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", two[0], *argv,
                       "--out", tmp_path / "r.csv")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(match, err.removeprefix("python -m gradlib.scan: error: ").rstrip("\n")), err


def test_the_memory_limit_counts_every_input_array(two, tmp_path):
    """1,804 bytes (a, b and y of two.npz) is the last good limit; 1,803 (above) the first bad one."""
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", two[0], "--x-key", "a,b",
                       "--max-data-gb", 1804 / 2**30, "--out", tmp_path / "r.csv")
    assert code == 0, err


@pytest.mark.parametrize("data", [["x.npy", "--targets", "y.npy"], ["d.csv", "--target", "label"]])
def test_several_x_keys_are_for_npz_only(files, data, tmp_path):
    argv = ["--data", files / data[0], *[files / a if a.endswith(".npy") else a for a in data[1:]]]
    code, _, err = run(*BASE, *argv, "--x-key", "a,b", "--out", tmp_path / "r.csv")
    assert code == 2 and "--x-key names arrays of a .npz file; " in err and err.count("\n") == 1, err


@pytest.fixture(scope="module")
def two_csv(two):
    """``two.csv``: the label first, then b's columns before a's (the groups, not the file's order, decide)."""
    path, a, b, y = two
    frame = pd.DataFrame(np.c_[b, a], columns=[f"b{i}" for i in range(5)] + [f"a{i}" for i in range(5)])
    frame.insert(0, "label", y)
    frame.to_csv(path.parent / "two.csv", index=False)
    return path.parent / "two.csv", a, b, y


A_COLUMNS, B_COLUMNS = ",".join(f"a{i}" for i in range(5)), ",".join(f"b{i}" for i in range(5))


def test_a_csv_gives_a_model_of_two_inputs_one_group_of_columns_each(two_csv, tmp_path):
    path, a, b, y = two_csv
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", path, "--target", "label",
                       "--x-columns", A_COLUMNS, "--x-columns", B_COLUMNS, "--out", tmp_path / "r.csv")
    assert code == 0, err
    norms = pd.read_csv(tmp_path / "r.csv")["norm"].to_numpy()
    np.testing.assert_allclose(norms, gradlib.scan(scan_models.two_inputs(), ([a, b], y), loss=CCE).norms, rtol=1e-5)
    np.testing.assert_allclose(norms, tape_norms(scan_models.two_inputs(), [a, b], y), rtol=1e-4)


@pytest.mark.parametrize("argv, match", [
    ([], "'two.csv': the model takes 2 inputs \\('a', 'b'\\); give each input's feature columns with --x-columns, "
         "once per input in model.inputs order: --x-columns a,b --x-columns c$"),
    (["--x-columns", A_COLUMNS], "--x-columns gives 1 group\\(s\\) of columns of 'two.csv', but the model takes 2 "
                                 "inputs \\('a', 'b'\\); give one --x-columns per input, in model.inputs order$"),
    (["--x-columns", A_COLUMNS, "--x-columns", "b0,b1"], "--x-columns 'b0,b1' gives examples of shape \\(2,\\), but "
                                                         "the model's input #1 \\('b'\\) takes examples of shape \\(5,\\)"),
    (["--x-columns", "a0,label", "--x-columns", B_COLUMNS], "--x-columns 'a0,label' names 'label', the target "
                                                            "\\(--target\\); give each input's feature columns once"),
    (["--x-columns", "a0,zz", "--x-columns", B_COLUMNS], "--x-columns 'a0,zz' names 'zz', which is not a column of "
                                                         "'.*two.csv' \\(its columns: label, b0, b1"),
    (["--x-columns", A_COLUMNS, "--x-columns", "a4,b0"], "--x-columns 'a4,b0' names 'a4' again \\(each column is one "
                                                         "input's feature\\)"),
])
def test_bad_column_groups_exit_2_with_what_and_where(two_csv, argv, match, tmp_path):
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", two_csv[0], "--target", "label",
                       *argv, "--out", tmp_path / "r.csv")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(match, err.removeprefix("python -m gradlib.scan: error: ").rstrip("\n")), err


def test_column_groups_are_for_csv_only(two, tmp_path):
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", two[0], "--x-columns", "a",
                       "--out", tmp_path / "r.csv")
    assert code == 2 and "--x-columns names columns of a CSV file; 'two.npz' is not one" in err, err


def test_one_group_of_columns_picks_a_one_input_model_s_columns(files, expected, tmp_path):
    argv = [*BASE, "--data", files / "d.csv", "--target", "label", "--out", tmp_path / "r.csv"]
    code, _, err = run(*argv, "--x-columns", "a,b,c,d,e")
    assert code == 0, err
    np.testing.assert_allclose(pd.read_csv(tmp_path / "r.csv")["norm"], expected.norms, rtol=1e-5)
    code, _, err = run(*argv, "--x-columns", "a,b,c,d")
    assert code == 2 and "--x-columns 'a,b,c,d' gives examples of shape (4,), but the model's input #0" in err, err


# ---------------------------------------------------------------- several .npy files, one per input (issue 39)

@pytest.fixture(scope="module")
def two_npy(two):
    """``a.npy``, ``b.npy`` and ``y.npy`` for ``scan_models:two_inputs``; others for the refusals."""
    path, a, b, y = two
    folder = path.parent / "npy"
    folder.mkdir()
    for name, array in (("a", a), ("b", b), ("y", y), ("short", b[:40]), ("wide", np.ones((41, 7), np.float32)),
                        ("y40", y[:40])):
        np.save(folder / f"{name}.npy", array)
    return folder, a, b, y


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_a_model_of_two_inputs_reads_one_npy_file_per_input(two_npy, order, tmp_path):
    """``--data a.npy --data b.npy``: the files in model.inputs order, whatever their names (b.npy first is b as a)."""
    folder, a, b, y = two_npy
    x = [a, b] if order == "ab" else [b, a]
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], *[f for name in order for f in
                                                                        ("--data", folder / f"{name}.npy")],
                       "--targets", folder / "y.npy", "--out", tmp_path / "r.csv")
    assert code == 0, err
    norms = pd.read_csv(tmp_path / "r.csv")["norm"].to_numpy()
    np.testing.assert_allclose(norms, tape_norms(scan_models.two_inputs(), x, y), rtol=1e-4)
    np.testing.assert_allclose(norms, gradlib.scan(scan_models.two_inputs(), (x, y), loss=CCE).norms, rtol=1e-5)


@pytest.mark.parametrize("data, argv, match", [
    (["a"], [], "--data gives 1 .npy file of x \\('a.npy'\\), but the model takes 2 inputs \\('a', 'b'\\); give one "
                "--data FILE.npy per input, in model.inputs order: --data a.npy --data b.npy --targets y.npy$"),
    (["a", "b", "a"], [], "--data gives 3 .npy files of x \\('a.npy', 'b.npy', 'a.npy'\\), but the model takes 2 "
                          "inputs"),
    (["a", "short"], [], "--data 'short.npy' has 40 examples but --data 'a.npy' has 41; give every input's examples "
                         "in the same order, one row each$"),
    (["a", "b"], ["--targets", "{d}/y40.npy"], "'a.npy' has 41 examples but 'y40.npy' has 40 targets$"),
    (["a", "wide"], [], "--data 'wide.npy' holds examples of shape \\(7,\\), but the model's input #1 \\('b'\\) takes "
                        "examples of shape \\(5,\\)"),
    (["a", "b"], ["--max-data-gb", 1803 / 2**30], "'a.npy' \\(41, 5\\) of float32, 'b.npy' \\(41, 5\\) of float32 and "
                                                  "'y.npy' \\(41,\\) of int32 take 1,804 bytes, more than the limit of "
                                                  "1,803 "),
    (["a", "b"], ["--x-key", "a,b"], "--x-key names arrays of a .npz file; 'a.npy' is a .npy file \\(give one .npy "
                                     "file per model input: --data a.npy --data b.npy --targets y.npy\\)$"),
])
def test_bad_npy_files_exit_2_with_one_line(two_npy, data, argv, match, tmp_path):
    folder = two_npy[0]
    argv = [*[f for name in data for f in ("--data", folder / f"{name}.npy")],
            *[str(a).replace("{d}", str(folder)) for a in argv]]
    if "--targets" not in argv:
        argv += ["--targets", folder / "y.npy"]
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], *argv, "--out", tmp_path / "r.csv")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(match, err.removeprefix("python -m gradlib.scan: error: ").rstrip("\n")), err


def test_the_memory_limit_counts_every_npy_file(two_npy, tmp_path):
    """1,804 bytes of data (a, b and y) is the last good limit, as for the same arrays in one .npz."""
    folder = two_npy[0]
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", folder / "a.npy", "--data",
                       folder / "b.npy", "--targets", folder / "y.npy", "--max-data-gb", 1804 / 2**30,
                       "--out", tmp_path / "r.csv")
    assert code == 0, err


@pytest.mark.parametrize("second", ["two.npz", "two.csv"])
def test_several_data_files_are_npy_files_only(two, two_csv, second, tmp_path):
    folder = two[0].parent
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", folder / "npy" / "a.npy", "--data",
                       folder / second, "--targets", folder / "npy" / "y.npy", "--out", tmp_path / "r.csv")
    assert code == 2 and err.count("\n") == 1, err
    assert f"--data is given 2 times ('a.npy', {second!r}); several --data are .npy files of x, one per model input " \
           "(--data a.npy --data b.npy --targets y.npy)" in err, err


def test_one_npy_file_for_a_model_of_two_inputs_is_told_of_npy_files_not_npz_keys(files, tmp_path):
    """The old advice, ``--x-key a,b``, is refused for a .npy file: the advice now names the form that is accepted."""
    code, _, err = run("--model", "scan_models:two_inputs", *BASE[2:], "--data", files / "x.npy", "--targets",
                       files / "y.npy", "--out", tmp_path / "r.csv")
    assert code == 2 and "--x-key" not in err and "--data a.npy --data b.npy --targets y.npy" in err, err


#: what the command says of a Circle loss (keras.losses.Circle compares the examples: no per-example gradient)
CIRCLE = (re.escape("error: gradlib.scan: the loss 'circle' compares the examples with each other (example ")
          + r"\d's loss is -?[\d.e+-]+ among the batch's first 3 examples and -?[\d.e+-]+ alone"
          + re.escape("): without ref_embeddings, Circle loss takes each example's positives and negatives from the "
                      "other examples of the batch") + ".*" + re.escape("remove_diagonal=False)"))
#: what every refusal from the probe of the data set's first examples ends with
FIRST = re.escape(" (on the data set's first 3 examples, which gradlib.scan checks before it scans)\n")


@pytest.fixture(scope="module")
def shared_labels(tmp_path_factory):
    """``d.npz`` whose first two examples share a label and differ from the third's (Circle loss then has positive and
    negative pairs among the first three, which gradlib.scan checks before it scans)."""
    path = tmp_path_factory.mktemp("labels") / "d.npz"
    x, _ = scan_models.arrays(8)
    np.savez(path, x=x, y=np.array([0, 0, 1, 1, 2, 2, 0, 1], np.int32))
    return path


@pytest.mark.parametrize("loss, message", [
    ("keras.losses:Circle", CIRCLE),
    ("scan_models:batch_mean", re.escape(
        "error: gradlib.scan needs one loss per example, shape (B,), but the loss returned one number for the whole "
        "batch: the loss function reduces the batch. Return one value per example (reduce only the axes after the "
        "batch)")),
])
def test_the_probe_s_refusals_name_the_command_and_gradlib_scan_in_one_line(shared_labels, loss, message, tmp_path):
    """They named per_example_gradients: "gradlib.scan, on the data set's first examples: per_example_gradients: ..."."""
    code, out, err = run("--model", "scan_models:classifier", "--loss", loss, "--data", shared_labels, "--out",
                         tmp_path / "r.csv")
    assert code == 2 and out == "" and err.count("\n") == 1 and "per_example_gradients" not in err, err
    assert re.fullmatch(re.escape("python -m gradlib.scan: ") + message + FIRST, err), err


def test_the_console_script_names_itself_and_gradlib_scan_in_one_line(shared_labels, tmp_path):
    """``gradlib-scan`` opened its messages with "python -m gradlib.scan: error:", a command the user did not type."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gradlib-scan").write_text(CONSOLE_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parents[1]), str(TESTS)])}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)   # the command keeps TensorFlow's own lines off stderr by itself
    out = subprocess.run([sys.executable, str(tmp_path / "bin" / "gradlib-scan"), "--model", "scan_models:classifier",
                          "--loss", "keras.losses:Circle", "--data", str(shared_labels), "--out", str(tmp_path / "r.csv"),
                          "--quiet"], env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr[-3000:]
    assert re.fullmatch(re.escape("gradlib-scan: ") + CIRCLE + FIRST, out.stderr), out.stderr
