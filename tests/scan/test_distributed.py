"""gradlib.scan under tf.distribute on one machine: MirroredStrategy over two logical CPU devices, and
MultiWorkerMirroredStrategy with two worker processes on 127.0.0.1. Each result equals the single-device scan.

Both run ``python -m gradlib.scan`` in fresh processes: logical devices must be set before TensorFlow starts
them, and each worker of a cluster is its own process. Every process has a timeout and is killed by the test.
"""

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pandas as pd
import pytest

import gradlib
import scan_models

TESTS = Path(__file__).parent
N = 203   # with a global batch of 15 (16 on two replicas): 13 batches, the last one partial
CCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
COMMAND = [sys.executable, "-m", "gradlib.scan", "--model", "scan_models:classifier", "--loss",
           "sparse_categorical_crossentropy", "--from-logits", "--batch-size", "15", "--quiet"]
TIMEOUT = 180


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("distributed")
    x, y = scan_models.arrays(N, seed=5)
    np.savez(folder / "d.npz", x=x, y=y)
    pd.DataFrame(x, columns=list("abcde")).assign(label=y).to_csv(folder / "d.csv", index=False)
    return folder, gradlib.scan(scan_models.classifier(), (x, y), loss=CCE, batch_size=16)


def env(**extra):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parents[1]), str(TESTS)]), **extra}


def free_ports(n):
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]


def assert_same(path, single):
    frame = pd.read_csv(path)
    assert frame["index"].tolist() == list(range(N))
    np.testing.assert_allclose(frame["loss"], single.losses, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(frame["norm"], single.norms, rtol=1e-6, atol=1e-7)


def test_mirrored_over_two_logical_cpus(data, tmp_path):
    folder, single = data
    out = subprocess.run(COMMAND + ["--data", folder / "d.npz", "--strategy", "mirrored", "--cpu-devices", "2",
                                    "--out", tmp_path / "r.csv"], env=env(), capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "on 2 replica(s)" in out.stdout
    assert_same(tmp_path / "r.csv", single)


def test_multi_worker_with_two_processes(data, tmp_path):
    """Two workers read a CSV file (streamed, length unknown); the chief writes the results, the other does not."""
    folder, single = data
    workers = [f"127.0.0.1:{port}" for port in free_ports(2)]
    processes = []
    try:
        for index in range(2):
            config = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}})
            processes.append(subprocess.Popen(
                COMMAND + ["--data", folder / "d.csv", "--strategy", "multiworker", "--out", tmp_path / f"r{index}.csv"],
                env=env(TF_CONFIG=config), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        outputs = [p.communicate(timeout=TIMEOUT) for p in processes]
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)
    for p, (stdout, stderr) in zip(processes, outputs):
        assert p.returncode == 0, stderr[-3000:]
    assert "on 2 replica(s)" in outputs[0][0] and "the chief writes" in outputs[1][0]
    assert not (tmp_path / "r1.csv").exists()
    assert_same(tmp_path / "r0.csv", single)


TWO_REPLICAS = """
import json, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import keras, gradlib, scan_models
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    model = scan_models.sequence_classifier()
loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
out = []
for lengths, batch_size in json.loads(sys.argv[1]):   # the refusal at batch_size, then its advice followed
    try:
        gradlib.scan(model, scan_models.sequences([4, 6, 2, 5, 3])[2], loss=loss, batch_size=batch_size,
                     strategy=strategy)
        refusal = None
    except gradlib.GradlibError as exc:
        refusal = str(exc)
    result = gradlib.scan(model, scan_models.sequences(lengths)[2], loss=loss, batch_size=batch_size,
                          strategy=strategy)
    out.append({"refusal": refusal, "losses": result.losses.tolist(), "norms": result.norms.tolist(),
                "batch": result.batch_size})
print(json.dumps(out))
"""


def test_the_advice_for_examples_of_several_shapes_fits_two_replicas_and_followed_is_scanned():
    """Found by scan 59: on two replicas batch_size=1 becomes 2, and the refusal of examples of different lengths
    said "use batch_size=1", which failed as before. It now says to order them by length in runs of the global batch
    (2; 4 for batch_size=3, not the replicas' 2); followed, the scan equals the loop."""
    from test_scan import loop_reference

    cases = [([4, 4, 6, 6, 2, 2, 5], 1), ([4, 4, 4, 4, 6, 6, 6, 6, 2, 2, 2], 3)]   # runs of 2, of 4; the last short
    out = subprocess.run([sys.executable, "-c", TWO_REPLICAS, json.dumps(cases)], env=env(), capture_output=True,
                         text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr[-3000:]
    results, model = json.loads(out.stdout.strip().splitlines()[-1]), scan_models.sequence_classifier()
    assert [got["batch"] for got in results] == [2, 4]
    for (lengths, _), got in zip(cases, results):
        batch = got["batch"]
        assert "use batch_size=1" not in got["refusal"]
        assert re.search(rf"one shape: on 2 replicas every batch holds at least 2 examples \(batch_size={batch} "
                         rf"here.*order the examples by length in runs of {batch}, or pad", got["refusal"])
        tokens, labels, _ = scan_models.sequences(lengths)
        reference = [loop_reference(model, t[None], labels[i:i + 1], CCE) for i, t in enumerate(tokens)]
        np.testing.assert_allclose(got["losses"], [r[0][0] for r in reference], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got["norms"], [r[1][0] for r in reference], rtol=1e-5, atol=1e-6)
