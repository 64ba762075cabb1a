"""A cross-check in which only eager ran says that nothing was compared, never that the modes agree."""

import gradlib


def test_only_eager_ran_is_not_an_agreement():
    """No floating-point input watched (x is int32): graph and XLA are left out, and the summary said
    'eager agree (within 0.0001, ...)', an agreement of eager with nothing, in the playground's caption."""
    c = gradlib.compare("x*x*s", {"x": [1, 2], "s": 3.0}, watch=["x"], dtype={"x": "int32", "s": "float32"},
                        methods=["unstack"], crosscheck=True)
    cross = c.crosscheck
    assert [m.status for m in cross.modes] == ["reference", "skipped", "skipped"]
    assert cross.summary == ("Nothing was compared: only eager ran (graph (tf.function) and XLA (jit_compile=True) "
                             "left out: no floating-point input is watched, so there is nothing to differentiate).")
    assert "agree" not in cross.summary
