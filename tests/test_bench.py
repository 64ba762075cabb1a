"""The benchmark's pure parts: ``scaling`` for the Strategies page, the reference Jacobian, the command's files.

Timings are not checked (the machine is shared); shapes, columns, ratios' definition and results are.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

import gradlib
from gradlib import bench


def test_reference_jacobian_matches_gradlib_and_the_seed_loop():
    w1, w2, x = bench.mlp_weights(5, 7, 6, seed=1)
    expected = bench.reference_jacobian(w1, w2, x)
    assert expected.shape == (5, 7)
    got = gradlib.per_element_gradients(bench.tf_mlp(w1, w2), tf.constant(x)).jacobian
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bench.seed_loop(bench.tf_mlp(w1, w2), tf.constant(x)), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("shape", "outputs", "inputs"), [("square", 12, 12), ("wide", 8, 12), ("tall", 12, 8)])
def test_scaling_frame_has_one_row_per_size_and_method_and_ratios_to_the_fastest(shape, outputs, inputs):
    calls = []
    frame = bench.scaling([4, 12], methods=("unstack", "auto"), shape=shape, repeats=1,
                          progress=lambda fraction, message: calls.append((fraction, message)))
    assert list(frame.columns) == ["size", "outputs", "inputs", "method", "seconds", "ratio"]
    assert frame[["size", "method"]].values.tolist() == [[4, "unstack"], [4, "auto"], [12, "unstack"], [12, "auto"]]
    last = frame[frame["size"] == 12]
    assert (last["outputs"].tolist(), last["inputs"].tolist()) == ([outputs] * 2, [inputs] * 2)
    assert (frame["seconds"] > 0).all()
    for _, group in frame.groupby("size"):
        np.testing.assert_allclose(group["ratio"], group["seconds"] / group["seconds"].min())
        assert group["ratio"].min() == 1.0
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert calls[1][1] == "size 4: auto"


def test_scaling_refuses_an_unknown_shape():
    with pytest.raises(gradlib.GradlibError, match=r"scaling got shape='round'; choose one of square, wide, tall"):
        bench.scaling([4], shape="round")


def test_the_command_writes_csv_and_json_with_ratios_to_the_seed_loop(tmp_path, capsys):
    csv, out = tmp_path / "b.csv", tmp_path / "b.json"
    assert bench.main(["--sizes", "4", "--repeats", "1", "--no-per-sample", "--csv", str(csv), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["mlp"]
    names = [r["contender"] for r in rows]
    assert names[:2] == ["seed loop (unstack, eager)", "tape.jacobian (eager)"] and "gradlib auto" in names
    assert all(r["max_error"] < 1e-5 for r in rows)
    seed = rows[0]
    assert seed["warm_speedup_vs_seed"] == 1.0
    auto = rows[names.index("gradlib auto")]
    assert auto["warm_speedup_vs_seed"] == pytest.approx(seed["warm_s"] / auto["warm_s"])
    assert csv.read_text().splitlines()[0].startswith("size,outputs,inputs,contender,method,compiled,xla")
    assert "| seed loop (unstack, eager) |" in capsys.readouterr().out
