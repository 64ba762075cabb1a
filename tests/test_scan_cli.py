"""python -m gradlib.scan: results equal the library's, every bad file or argument gets a message and exit 2."""

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pandas as pd
import pytest

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
    (["--data", "{d}/x.npy", "--targets", "{d}/x.npy", "--loss", "mse"], "gradlib.scan, on the data set's first examples"),
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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)])}
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
