"""Run small test programs under TensorFlow, one process, and print what each gave as JSON.

Usage: python run_programs.py FILE.json   (FILE holds {name: [source, reference]}).
Each program runs in a fresh namespace and leaves its gradient(s) in ``result``; ``reference`` is a
NumPy expression evaluated in that namespace afterwards (closed forms written by hand from the values
the program made, never by a tape). Prints {name: {"got": [...], "want": [...]}} or {name: {"error": ...}}.
The programs are the test suite's own (the lint corpus, its fixes, reproducers rebuilt from public bug
reports): never user text.
"""

import contextlib
import io
import json
import linecache
import os
import sys

import numpy as np

tf = None     # TensorFlow is imported by main() only: pytest's doctest collection imports this file


def leaves(value):
    if isinstance(value, dict):
        value = [value[k] for k in sorted(value)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def plain(value):
    return None if value is None else np.asarray(tf.convert_to_tensor(value), dtype=np.float64).tolist()


def weights(model):
    """A Keras model's trainable variables as NumPy arrays (kernel, bias, ...)."""
    return [v.numpy() for v in model.trainable_variables]


def dense(x, kernel, bias, dloss):
    """The gradient of a loss of one Dense layer's output p = x @ kernel + bias, given dloss/dp as a function of p:
    [x.T @ dloss/dp, the column sums of dloss/dp] (the closed form of the layer's backward pass)."""
    d = dloss(x @ kernel + bias)
    return [x.T @ d, d.sum(axis=0)]


def run(source, reference, filename="<program>"):
    namespace = {"__name__": "program"}
    tf.keras.utils.set_random_seed(0)
    # autograph reads a tf.function's source as TensorFlow does for a file: without it a `for` over a tf.data.Dataset
    # inside a tf.function runs unconverted and never ends
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, filename, "exec"), namespace)
            got = [plain(g) for g in leaves(namespace.get("result"))]
            helpers = {"np": np, "dense": dense, "weights": weights}
            want = None if reference is None else [plain(w) for w in leaves(eval(reference, {**namespace, **helpers}))]
    except Exception as err:
        return {"error": f"{type(err).__name__}: {str(err)[:300]}"}
    return {"got": got, "want": want}


def main(path):
    global tf
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow
    tf = tensorflow
    tf.get_logger().setLevel("ERROR")
    with open(path) as handle:
        programs = json.load(handle)
    print(json.dumps({name: run(source, reference, f"<program {name}>") for name, (source, reference) in programs.items()}))


if __name__ == "__main__":
    main(sys.argv[1])
