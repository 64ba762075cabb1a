"""Run every corpus snippet under TensorFlow once, in this one process, and print each verdict as JSON.

Usage: python prove.py FILE...   A snippet leaves its gradient(s) in ``result``. Verdicts:
"raised: <error>", "none" (a gradient is None), "zeros" (a gradient is all zeros), "real" (all real),
"empty" (no gradient at all: proves nothing).
The snippets are the test suite's own code, so running them here is fine; user text never comes here.
"""

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel("ERROR")


def leaves(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def verdict(path):
    namespace = {"__name__": "snippet"}
    tf.keras.utils.set_random_seed(0)
    try:
        with open(path) as handle, contextlib.redirect_stdout(io.StringIO()):
            exec(compile(handle.read(), path, "exec"), namespace)
    except Exception as err:
        return f"raised: {type(err).__name__}: {str(err)[:200]}"
    if "result" not in namespace:
        return "no result"
    grads = leaves(namespace["result"])
    if not grads:
        return "empty"
    if any(g is None for g in grads):
        return "none"
    if any(not np.any(np.asarray(tf.convert_to_tensor(g))) for g in grads):
        return "zeros"
    return "real"


if __name__ == "__main__":
    print(json.dumps({path: verdict(path) for path in sys.argv[1:]}))
