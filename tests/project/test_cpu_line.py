"""The CPU line `make test` prints at its end (tests/conftest.py, ``cpu_line``): the README quotes it, so it must
count what the run really used, the children it waited for included (xdist's workers are children)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

from tests.conftest import cpu_line

LINE = re.compile(r"CPU time of this run: (\d+) s user \+ (\d+) s system = (\d+) s over (\d+) s of wall time: "
                  r"on average ([\d.]+) of the (\d+) cores busy")


def _numbers(wall: float) -> tuple[int, ...]:
    m = LINE.fullmatch(cpu_line(wall))
    assert m, cpu_line(wall)
    return tuple(float(g) for g in m.groups())


def test_a_waited_child_s_cpu_is_counted_and_the_share_is_cpu_over_wall():
    before = _numbers(100.0)
    # a child that burns 1.5 s of CPU, waited for: the line must grow by it (not the parent's own CPU: it sleeps)
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.5: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    after = _numbers(100.0)
    assert after[2] - before[2] >= 1, (before, after)
    user, system, total, wall, share, _ = after
    assert user + system == total and wall == 100
    assert abs(share - total / 100) <= 0.02, after


def test_the_parent_s_own_cpu_is_counted():
    before = _numbers(1.0)
    t = time.process_time()
    while time.process_time() - t < 1.5:
        pass
    assert _numbers(1.0)[2] - before[2] >= 1
