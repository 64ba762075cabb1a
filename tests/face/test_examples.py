"""gradlib.examples: what only the dashboard shows (the presets, the live pitfalls of first and second order) is a
public submodule of its own, not on gradlib's face (issue 38, item 5); importing it loads no TensorFlow."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gradlib
from gradlib import examples
from gradlib._language import _presets
from gradlib._perelement._comparison import _demos
from gradlib._second import _mistakes

ROOT = Path(__file__).resolve().parents[2]
#: the names only the app uses: each lives in gradlib.examples, none in gradlib.__all__
APP_ONLY = {"DEMOS", "Demo", "demonstrate", "PRESETS", "PRESETS_BY_KEY", "Preset", "PoissonExample", "poisson_example",
            "SecondOrderMistake", "second_order_mistakes"}


def test_the_app_s_examples_are_off_gradlib_s_face_and_on_gradlib_examples():
    assert not APP_ONLY & set(gradlib.__all__)
    assert set(examples.__all__) == APP_ONLY
    assert not [n for n in APP_ONLY if hasattr(gradlib, n)], "gradlib still answers an app-only name"


def test_each_name_of_gradlib_examples_is_the_object_its_room_defines():
    rooms = {**{n: _presets for n in ("PRESETS", "PRESETS_BY_KEY", "Preset")},
             **{n: _demos for n in _demos.__all__}, **{n: _mistakes for n in _mistakes.__all__}}
    assert set(rooms) == APP_ONLY
    assert all(getattr(examples, n) is getattr(module, n) for n, module in rooms.items())


def test_gradlib_examples_comes_with_import_gradlib_and_loads_no_tensorflow_until_a_demonstration_is_asked_for():
    code = ("import sys\nimport gradlib\nassert gradlib.examples.PRESETS_BY_KEY['seed'].title\n"
            "print('tensorflow' in sys.modules)\ngradlib.examples.DEMOS\nprint('tensorflow' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "True"]
