"""scripts/test_density.py: test lines per code line, and second order at least as thick as first order (issue 38,
item 6)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("test_density", ROOT / "scripts" / "test_density.py")
measure = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(measure)


def test_code_lines_leave_out_blank_lines_comments_and_docstrings_and_count_a_wrapped_call_whole():
    source = ('"""A module.\n\nIts docstring."""\n\n# a comment\nimport os\n\n\ndef f(a):\n    """Doc."""\n'
              '    return os.path.join(a,\n                        "b")   # two lines of one call\n\n\n'
              'class C:\n    x = """not a docstring:\na value"""\n')
    assert measure.code_lines(source) == 7   # import, def, the return (2 lines), class, x = its string (2 lines)
    assert measure.code_lines("") == 0 and measure.code_lines("# only\n\n") == 0


def test_a_room_s_density_is_its_test_lines_over_its_code_lines(tmp_path):
    (tmp_path / "gradlib" / "_room").mkdir(parents=True)
    (tmp_path / "tests" / "room").mkdir(parents=True)
    (tmp_path / "gradlib" / "_room" / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "tests" / "room" / "test_a.py").write_text("def test_x():\n    assert 1\n    assert 2\n")
    assert measure.density("_room", tmp_path) == (2, 3, 1.5)
    # a sub-room (a package inside the room) counts with the room, its tests from tests/<sub-room>
    (tmp_path / "gradlib" / "_room" / "_floor").mkdir()
    (tmp_path / "gradlib" / "_room" / "_floor" / "__init__.py").write_text('"""doc"""\n')
    (tmp_path / "gradlib" / "_room" / "_floor" / "b.py").write_text("z = 3\n")
    (tmp_path / "tests" / "floor").mkdir()
    (tmp_path / "tests" / "floor" / "test_b.py").write_text("def test_z():\n    assert 3\n")
    assert measure.density("_room", tmp_path) == (3, 5, 5 / 3)


def test_second_order_has_at_least_as_many_test_lines_per_code_line_as_first_order():
    _, _, first = measure.density("_perelement")
    _, _, second = measure.density("_second")
    assert second >= first, f"tests/second has {second:.3f} test lines per code line, tests/perelement {first:.3f}"
